<GetRedoRecPtr>:
	sub    $0x8,%rsp
	cmpb   $0x0,(%rip)  # <PgRseq>
	jne    <GetRedoRecPtr+0xa0>
	mov    (%rip),%rax  # <XLogCtl>
	mov    $0x1,%edx
	add    $0x1c0,%rax
	lock xchg %dl,(%rax)
	test   %dl,%dl
	jne    <GetRedoRecPtr+0x70>
	mov    (%rip),%rax  # <XLogCtl>
	mov    0xc8(%rax),%rdx
	mov    (%rip),%rax  # <XLogCtl>
	cmpb   $0x0,(%rip)  # <PgRseq>
	movb   $0x0,0x1c0(%rax)
	jne    <GetRedoRecPtr+0xd0>
	mov    (%rip),%rax  # <RedoRecPtr>
	cmp    %rdx,%rax
	jae    <GetRedoRecPtr+0x69>
	mov    %rdx,(%rip)  # <RedoRecPtr>
	mov    %rdx,%rax
	add    $0x8,%rsp
	ret
	xchg   %ax,%ax
	mov    (%rip),%rax  # <XLogCtl>
	lea    (%rip),%rcx  # <__func__.22>
	mov    $0x1957,%edx
	lea    (%rip),%rsi  # <__func__.4+0x5e>
	lea    0x1c0(%rax),%rdi
	call   <s_lock>
	jmp    <GetRedoRecPtr+0x2a>
	nopl   0x0(%rax,%rax,1)
	addl   $0x1,(%rip)  # <PgRseq+0x4>
	jne    <GetRedoRecPtr+0xcb>
	cmpb   $0x2,(%rip)  # <PgRseq>
	mov    (%rip),%rax  # <PgRseq+0x8>
	je     <GetRedoRecPtr+0x120>
	cmpq   $0x0,0x8(%rax)
	je     <GetRedoRecPtr+0x126>
	mov    (%rip),%rax  # <PgRseq+0x10>
	addq   $0x1,(%rax)
	jmp    <GetRedoRecPtr+0x11>
	subl   $0x1,(%rip)  # <PgRseq+0x4>
	jns    <GetRedoRecPtr+0x53>
	mov    (%rip),%rax  # <PgRseq+0x8>
	cmpq   $0x0,0x8(%rax)
	je     <GetRedoRecPtr+0x133>
	cmpb   $0x2,(%rip)  # <PgRseq>
	jne    <GetRedoRecPtr+0x53>
	movzbl 0x1c(%rax),%ecx
	movb   $0x0,0x1c(%rax)
	cmpb   $0x0,0x1d(%rax)
	jne    <GetRedoRecPtr+0x150>
	test   %cl,%cl
	jne    <GetRedoRecPtr+0x53>
	mov    (%rip),%rax  # <PgRseq+0x10>
	addq   $0x1,0x20(%rax)
	jmp    <GetRedoRecPtr+0x53>
	nop
	movb   $0x1,0x1c(%rax)
	jmp    <GetRedoRecPtr+0xb9>
	lea    (%rip),%rsi  # <PgRseqMarker>
	mov    %rsi,0x8(%rax)
	jmp    <GetRedoRecPtr+0xc0>
	mov    (%rip),%rcx  # <PgRseq+0x10>
	addq   $0x1,0x8(%rcx)
	mov    (%rip),%rcx  # <PgRseq+0x10>
	addq   $0x1,0x430(%rcx)
	jmp    <GetRedoRecPtr+0xeb>
	mov    (%rip),%rax  # <PgRseq+0x10>
	addq   $0x1,0x18(%rax)
	mov    $0x1d7,%eax
	syscall
	cmp    $0x1,%rax
	jne    <GetRedoRecPtr+0x53>
	mov    (%rip),%rax  # <PgRseq+0x10>
	addq   $0x1,0x28(%rax)
	jmp    <GetRedoRecPtr+0x53>

