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
	lea    0x4(%rbx),%rdx
	test   %ebp,%ebp
	jne    <LWLockRelease+0xc0>
	mov    $0xfffc0000,%eax
	lock xadd %eax,(%rdx)
	sub    $0x40000,%eax
	and    $0xc007ffff,%eax
	cmp    $0xc0000000,%eax
	je     <LWLockRelease+0xd8>
	mov    (%rip),%eax  # <InterruptHoldoffCount>
	sub    $0x1,%eax
	mov    %eax,(%rip)  # <InterruptHoldoffCount>
	add    $0x8,%rsp
	pop    %rbx
	pop    %rbp
	ret
	xchg   %ax,%ax
	mov    $0xffffffff,%eax
	lock xadd %eax,(%rdx)
	sub    $0x1,%eax
	and    $0xc007ffff,%eax
	cmp    $0xc0000000,%eax
	jne    <LWLockRelease+0xa8>
	mov    %rbx,%rdi
	call   <LWLockWakeup>
	jmp    <LWLockRelease+0xa8>

