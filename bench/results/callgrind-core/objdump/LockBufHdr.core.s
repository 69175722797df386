<LockBufHdr>:
	push   %r12
	push   %rbp
	push   %rbx
	sub    $0x30,%rsp
	cmpb   $0x0,(%rip)  # <PgRseq>
	jne    <LockBufHdr+0xa0>
	lea    (%rip),%rax  # <__func__.0+0x5cf>
	lea    0x18(%rdi),%rbx
	mov    %rsp,%r12
	movq   $0x0,(%rsp)
	mov    %rax,0x10(%rsp)
	lea    (%rip),%rax  # <__func__.1>
	movl   $0x0,0x8(%rsp)
	movl   $0x188d,0x18(%rsp)
	mov    %rax,0x20(%rsp)
	nopl   0x0(%rax)
	mov    (%rbx),%eax
	mov    %eax,%edx
	mov    %eax,%ebp
	or     $0x400000,%edx
	lock cmpxchg %edx,(%rbx)
	jne    <LockBufHdr+0x52>
	test   $0x400000,%ebp
	je     <LockBufHdr+0x80>
	call   <PgRseqWaitBegin>
	mov    %r12,%rdi
	call   <perform_spin_delay>
	call   <PgRseqWaitEnd>
	jmp    <LockBufHdr+0x50>
	xchg   %ax,%ax
	mov    %r12,%rdi
	call   <finish_spin_delay>
	add    $0x30,%rsp
	mov    %ebp,%eax
	pop    %rbx
	or     $0x400000,%eax
	pop    %rbp
	pop    %r12
	ret
	nopl   0x0(%rax,%rax,1)
	addl   $0x1,(%rip)  # <PgRseq+0x4>
	jne    <LockBufHdr+0xcb>
	cmpb   $0x2,(%rip)  # <PgRseq>
	mov    (%rip),%rax  # <PgRseq+0x8>
	je     <LockBufHdr+0xd0>
	cmpq   $0x0,0x8(%rax)
	je     <LockBufHdr+0xd6>
	mov    (%rip),%rax  # <PgRseq+0x10>
	addq   $0x1,(%rax)
	jmp    <LockBufHdr+0x15>
	movb   $0x1,0x1c(%rax)
	jmp    <LockBufHdr+0xb9>
	lea    (%rip),%rcx  # <PgRseqMarker>
	mov    %rcx,0x8(%rax)
	jmp    <LockBufHdr+0xc0>

