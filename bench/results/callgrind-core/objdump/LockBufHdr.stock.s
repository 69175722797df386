<LockBufHdr>:
	push   %r12
	lea    (%rip),%rax  # <__func__.0+0x5cf>
	push   %rbp
	push   %rbx
	lea    0x18(%rdi),%rbx
	sub    $0x30,%rsp
	mov    %rax,0x10(%rsp)
	lea    (%rip),%rax  # <__func__.1>
	mov    %rsp,%r12
	movq   $0x0,(%rsp)
	movl   $0x0,0x8(%rsp)
	movl   $0x188a,0x18(%rsp)
	mov    %rax,0x20(%rsp)
	nop
	mov    (%rbx),%eax
	mov    %eax,%edx
	mov    %eax,%ebp
	or     $0x400000,%edx
	lock cmpxchg %edx,(%rbx)
	jne    <LockBufHdr+0x42>
	mov    %r12,%rdi
	test   $0x400000,%ebp
	je     <LockBufHdr+0x68>
	call   <perform_spin_delay>
	jmp    <LockBufHdr+0x40>
	nopl   0x0(%rax)
	call   <finish_spin_delay>
	add    $0x30,%rsp
	mov    %ebp,%eax
	pop    %rbx
	or     $0x400000,%eax
	pop    %rbp
	pop    %r12
	ret

