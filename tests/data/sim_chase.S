/* sim_chase: build a chain of 4000 nodes, one per cache line, spread over */
/* a 64 MiB buffer with random strides of a page plus 0..63 lines (no */
/* stride prefetcher can follow it), then follow it in chase(); exit(0). */
/* The chain's 256 KiB of lines exceed the L2 and LLC the e2e test sets */
/* (a chain beyond a real 32 MiB LLC would take millions of single steps). */
	.globl _start
	.globl chase
	.text
_start:
	lea	buf(%rip), %rsi
	xor	%eax, %eax	/* offset of this node */
	mov	$4001, %ecx
	mov	$0x2545f4914f6cdd1d, %r8	/* xorshift state: random strides */
init:
	mov	%r8, %r9
	shl	$13, %r9
	xor	%r9, %r8
	mov	%r8, %r9
	shr	$7, %r9
	xor	%r9, %r8
	mov	%r8, %r9
	shl	$17, %r9
	xor	%r9, %r8
	mov	%r8, %rdx
	and	$0xfc0, %edx	/* 0..63 lines */
	lea	4096(%rax,%rdx), %rdx	/* next offset: a page and 0..63 lines on */
	and	$0x3ffffff, %rdx	/* modulo 64 MiB */
	lea	(%rsi,%rdx), %rdi
	mov	%rdi, (%rsi,%rax)
	mov	%rdx, %rax
	dec	%rcx
	jnz	init
	mov	%rsi, %rax
	mov	$4000, %ecx
	call	chase
	mov	$60, %eax
	xor	%edi, %edi
	syscall

	.type	chase, @function
chase:
	mov	(%rax), %rax
	dec	%rcx
	jnz	chase
	ret
	.size	chase, .-chase

	.bss
	.p2align 12
buf:
	.zero	64 << 20
