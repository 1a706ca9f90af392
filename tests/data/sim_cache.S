/* sim_cache: a data-cache workout for comparing pipeline-sim's cache */
/* counts with cachegrind on the same program.  Phase 1 walks a 320 KiB */
/* buffer with a 64-byte stride twice (load, add, store); phase 2 makes */
/* 4000 pseudo-random 8-byte loads in a 96 KiB region; exit(0). */
	.globl _start
	.text
_start:
	lea	buf(%rip), %rsi
	mov	$2, %r8d
pass:
	xor	%ecx, %ecx
walk:
	mov	(%rsi,%rcx), %rax
	add	$1, %rax
	mov	%rax, (%rsi,%rcx)
	add	$64, %rcx
	cmp	$(320 << 10), %rcx
	jne	walk
	dec	%r8d
	jnz	pass

	mov	$4000, %ecx
	mov	$12345, %eax
rand:
	imul	$1103515245, %eax, %eax
	add	$12345, %eax
	mov	%eax, %edx
	shr	$8, %edx
	and	$(96 << 10) - 8, %edx
	add	(%rsi,%rdx), %r9
	dec	%ecx
	jnz	rand

	mov	$60, %eax
	xor	%edi, %edi
	syscall

	.bss
	.p2align 12
buf:
	.zero	320 << 10
