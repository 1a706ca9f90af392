/* sim_port: 2000 iterations of eight independent multiplies (r = r9 * 3): */
/* only one port multiplies on the presets, so that port limits the loop. */
	.globl _start
	.text
_start:
	mov	$2000, %ecx
	mov	$7, %r9
	.p2align 6
loop:
	imul	$3, %r9, %r8
	imul	$3, %r9, %r10
	imul	$3, %r9, %r11
	imul	$3, %r9, %r12
	imul	$3, %r9, %r13
	imul	$3, %r9, %r14
	imul	$3, %r9, %r15
	imul	$3, %r9, %rax
	dec	%rcx
	jnz	loop
	mov	$60, %eax
	xor	%edi, %edi
	syscall
