/* sim_indep: 2000 iterations of eight independent adds (one register */
/* each), then exit(0).  pipeline-sim must reach the configured width. */
	.globl _start
	.text
_start:
	mov	$2000, %ecx
	.p2align 6
loop:
	add	$1, %r8
	add	$1, %r9
	add	$1, %r10
	add	$1, %r11
	add	$1, %r12
	add	$1, %r13
	add	$1, %r14
	add	$1, %r15
	dec	%rcx
	jnz	loop
	mov	$60, %eax
	xor	%edi, %edi
	syscall
