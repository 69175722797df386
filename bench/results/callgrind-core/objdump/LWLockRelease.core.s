<LWLockRelease>:
	push   %rbp
	lea    (%rip),%rsi  # <held_lwlocks>
	push   %rbx
	mov    %rdi,%rbx
	sub    $0x8,%rsp
	mov    (%rip),%edi  # <num_held_lwlocks>
	lea    -0x1(%rdi),%r9d
	mov    %edi,%eax
	movslq %r9d,%rdx
	shl    $0x4,%rdx
	add    %rsi,%rdx
	jmp    <LWLockRelease+0x3a>
	nopl   0x0(%rax,%rax,1)
	sub    $0x10,%rdx
	cmp    0x10(%rdx),%rbx
	je     <LWLockRelease+0x50>
	movslq %eax,%rcx
	sub    $0x1,%eax
	jns    <LWLockRelease+0x30>
	jmp    <LWLockRelease.cold>
	nopw   0x0(%rax,%rax,1)
	movslq %eax,%r8
	mov    %r9d,(%rip)  # <num_held_lwlocks>
	shl    $0x4,%r8
	add    %rsi,%r8
	mov    0x8(%r8),%ebp
	cmp    %r9d,%eax
	jge    <LWLockRelease+0x86>
	lea    -0x2(%rdi),%edx
	shl    $0x4,%rcx
	mov    %r8,%rdi
	sub    %eax,%edx
	add    %rcx,%rsi
	add    $0x1,%rdx
	shl    $0x4,%rdx
	call   <memmove@plt>
	lea    0x4(%rbx),%rax
	test   %ebp,%ebp
	jne    <LWLockRelease+0xd0>
	mov    $0xfffc0000,%edx
	lock xadd %edx,(%rax)
	sub    $0x40000,%edx
	cmpb   $0x0,(%rip)  # <PgRseq>
	jne    <LWLockRelease+0xe5>
	and    $0xc007ffff,%edx
	cmp    $0xc0000000,%edx
	je     <LWLockRelease+0x128>
	mov    (%rip),%eax  # <InterruptHoldoffCount>
	sub    $0x1,%eax
	mov    %eax,(%rip)  # <InterruptHoldoffCount>
	add    $0x8,%rsp
	pop    %rbx
	pop    %rbp
	ret
	nopw   0x0(%rax,%rax,1)
	mov    $0xffffffff,%edx
	lock xadd %edx,(%rax)
	sub    $0x1,%edx
	cmpb   $0x0,(%rip)  # <PgRseq>
	je     <LWLockRelease+0xa6>
	subl   $0x1,(%rip)  # <PgRseq+0x4>
	jns    <LWLockRelease+0xa6>
	mov    (%rip),%rax  # <PgRseq+0x8>
	cmpq   $0x0,0x8(%rax)
	je     <LWLockRelease+0x132>
	cmpb   $0x2,(%rip)  # <PgRseq>
	jne    <LWLockRelease+0xa6>
	movzbl 0x1c(%rax),%ecx
	movb   $0x0,0x1c(%rax)
	cmpb   $0x0,0x1d(%rax)
	jne    <LWLockRelease+0x165>
	test   %cl,%cl
	jne    <LWLockRelease+0xa6>
	mov    (%rip),%rax  # <PgRseq+0x10>
	addq   $0x1,0x20(%rax)
	jmp    <LWLockRelease+0xa6>
	nopl   (%rax)
	mov    %rbx,%rdi
	call   <LWLockWakeup>
	jmp    <LWLockRelease+0xb4>
	mov    (%rip),%rcx  # <PgRseq+0x10>
	addq   $0x1,0x8(%rcx)
	xor    %ecx,%ecx
	mov    (%rip),%rsi  # <PgRseq+0x10>
	test   %rbx,%rbx
	je     <LWLockRelease+0x15a>
	movzwl (%rbx),%ecx
	mov    $0x7f,%edi
	cmp    %di,%cx
	cmova  %edi,%ecx
	movslq %ecx,%rcx
	addq   $0x1,0x30(%rsi,%rcx,8)
	jmp    <LWLockRelease+0xfc>
	mov    (%rip),%rax  # <PgRseq+0x10>
	addq   $0x1,0x18(%rax)
	mov    $0x1d7,%eax
	syscall
	cmp    $0x1,%rax
	jne    <LWLockRelease+0xa6>
	mov    (%rip),%rax  # <PgRseq+0x10>
	addq   $0x1,0x28(%rax)
	jmp    <LWLockRelease+0xa6>

