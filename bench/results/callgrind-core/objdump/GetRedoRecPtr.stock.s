<GetRedoRecPtr>:
	sub    $0x8,%rsp
	mov    (%rip),%rax  # <XLogCtl>
	mov    $0x1,%edx
	add    $0x1c0,%rax
	lock xchg %dl,(%rax)
	test   %dl,%dl
	jne    <GetRedoRecPtr+0x58>
	mov    (%rip),%rax  # <XLogCtl>
	mov    0xc8(%rax),%rdx
	mov    (%rip),%rax  # <XLogCtl>
	movb   $0x0,0x1c0(%rax)
	mov    (%rip),%rax  # <RedoRecPtr>
	cmp    %rdx,%rax
	jae    <GetRedoRecPtr+0x4f>
	mov    %rdx,(%rip)  # <RedoRecPtr>
	mov    %rdx,%rax
	add    $0x8,%rsp
	ret
	nopl   0x0(%rax)
	mov    (%rip),%rax  # <XLogCtl>
	lea    (%rip),%rcx  # <__func__.22>
	mov    $0x1957,%edx
	lea    (%rip),%rsi  # <__func__.4+0x5e>
	lea    0x1c0(%rax),%rdi
	call   <s_lock>
	jmp    <GetRedoRecPtr+0x1d>

