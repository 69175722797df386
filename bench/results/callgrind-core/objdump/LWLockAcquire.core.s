<LWLockAcquire>:
	cmpl   $0xc7,(%rip)  # <num_held_lwlocks>
	push   %r14
	push   %r13
	push   %r12
	push   %rbp
	push   %rbx
	mov    (%rip),%rbx  # <MyProc>
	jg     <LWLockAcquire.cold>
	mov    (%rip),%eax  # <InterruptHoldoffCount>
	mov    %rdi,%r12
	mov    %esi,%r13d
	xor    %ebp,%ebp
	mov    %r13d,%esi
	mov    %r12,%rdi
	mov    $0x1,%r14d
	add    $0x1,%eax
	mov    %eax,(%rip)  # <InterruptHoldoffCount>
	call   <LWLockAttemptLock>
	test   %al,%al
	je     <LWLockAcquire+0xdc>
	nop
	mov    %r12,%rdi
	call   <LWLockQueueSelf>
	mov    %r13d,%esi
	mov    %r12,%rdi
	call   <LWLockAttemptLock>
	test   %al,%al
	je     <LWLockAcquire+0x1b3>
	movzwl (%r12),%eax
	mov    (%rip),%rdx  # <my_wait_event_info>
	or     $0x1000000,%eax
	mov    %eax,(%rdx)
	mov    (%rip),%edx  # <PgRseq+0x4>
	test   %edx,%edx
	js     <LWLockAcquire+0x93>
	jmp    <LWLockAcquire+0x140>
	nopl   (%rax)
	add    $0x1,%ebp
	mov    0x18(%rbx),%rdi
	call   <PGSemaphoreLock>
	cmpb   $0x0,0x5a(%rbx)
	jne    <LWLockAcquire+0x90>
	lock orl $0x40000000,0x4(%r12)
	mov    (%rip),%rax  # <my_wait_event_info>
	movl   $0x0,(%rax)
	cmpb   $0x0,(%rip)  # <PgRseq+0x2>
	jne    <LWLockAcquire+0x170>
	mov    %r13d,%esi
	mov    %r12,%rdi
	xor    %r14d,%r14d
	call   <LWLockAttemptLock>
	test   %al,%al
	jne    <LWLockAcquire+0x50>
	movslq (%rip),%rcx  # <num_held_lwlocks>
	lea    (%rip),%rax  # <held_lwlocks>
	mov    %rcx,%rdx
	shl    $0x4,%rcx
	add    %rcx,%rax
	add    $0x1,%edx
	cmpb   $0x0,(%rip)  # <PgRseq>
	mov    %r12,(%rax)
	mov    %edx,(%rip)  # <num_held_lwlocks>
	mov    %r13d,0x8(%rax)
	jne    <LWLockAcquire+0x1c0>
	lea    -0x1(%rbp),%r12d
	test   %ebp,%ebp
	jle    <LWLockAcquire+0x12f>
	nopl   0x0(%rax)
	mov    0x18(%rbx),%rdi
	call   <PGSemaphoreUnlock>
	sub    $0x1,%r12d
	jae    <LWLockAcquire+0x120>
	pop    %rbx
	mov    %r14d,%eax
	pop    %rbp
	pop    %r12
	pop    %r13
	pop    %r14
	ret
	nopl   0x0(%rax,%rax,1)
	xor    %eax,%eax
	cmpb   $0x0,(%rip)  # <PgRseq+0x1>
	jne    <LWLockAcquire+0x160>
	mov    (%rip),%rdx  # <PgRseq+0x8>
	lea    (%rip),%rax  # <PgRseqMarker>
	cmp    %rax,0x8(%rdx)
	sete   %al
	mov    %al,(%rip)  # <PgRseq+0x2>
	jmp    <LWLockAcquire+0x93>
	nopl   0x0(%rax,%rax,1)
	mov    (%rip),%eax  # <PgRseq+0x4>
	movb   $0x0,(%rip)  # <PgRseq+0x2>
	test   %eax,%eax
	js     <LWLockAcquire+0xc6>
	mov    (%rip),%rax  # <PgRseq+0x8>
	cmpq   $0x0,0x8(%rax)
	jne    <LWLockAcquire+0xc6>
	mov    (%rip),%rdx  # <PgRseq+0x10>
	lea    (%rip),%rcx  # <PgRseqMarker>
	addq   $0x1,0x10(%rdx)
	mov    %rcx,0x8(%rax)
	jmp    <LWLockAcquire+0xc6>
	mov    %r12,%rdi
	call   <LWLockDequeueSelf>
	jmp    <LWLockAcquire+0xdc>
	addl   $0x1,(%rip)  # <PgRseq+0x4>
	jne    <LWLockAcquire+0x1eb>
	cmpb   $0x2,(%rip)  # <PgRseq>
	mov    (%rip),%rax  # <PgRseq+0x8>
	je     <LWLockAcquire+0x1f0>
	cmpq   $0x0,0x8(%rax)
	je     <LWLockAcquire+0x1f6>
	mov    (%rip),%rax  # <PgRseq+0x10>
	addq   $0x1,(%rax)
	jmp    <LWLockAcquire+0x111>
	movb   $0x1,0x1c(%rax)
	jmp    <LWLockAcquire+0x1d9>
	lea    (%rip),%rcx  # <PgRseqMarker>
	mov    %rcx,0x8(%rax)
	jmp    <LWLockAcquire+0x1e0>

