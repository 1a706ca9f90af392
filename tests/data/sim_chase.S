/* sim_chase: build a pointer chain through a 64 MiB buffer (larger than */
/* the last-level cache of every preset) with a stride of a page plus a */
/* line, then follow it 4000 times in chase(); exit(0).  Trace it from */
/* chase (itrace-collect --start chase): every load misses to memory. */
	.globl _start
	.globl chase
	.text
_start:
	lea	buf(%rip), %rsi
	xor	%eax, %eax	/* offset of this node */
	mov	$4001, %ecx
init:
	lea	4160(%rax), %rdx
	and	$0x3ffffff, %rdx	/* next offset, modulo 64 MiB */
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
