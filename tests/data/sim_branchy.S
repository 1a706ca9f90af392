/* sim_branchy: 3000 iterations of a xorshift64 step followed by a branch */
/* on one bit of the result (unpredictable, taken about half the time) */
/* and the loop branch (predictable); exit(0). */
	.globl _start
	.text
_start:
	mov	$3000, %ecx
	movabs	$0x853c49e6748fea9b, %rax
	xor	%edx, %edx
	.p2align 6
loop:
	mov	%rax, %rbx
	shl	$13, %rbx
	xor	%rbx, %rax
	mov	%rax, %rbx
	shr	$7, %rbx
	xor	%rbx, %rax
	mov	%rax, %rbx
	shl	$17, %rbx
	xor	%rbx, %rax
	bt	$40, %rax
	jc	skip
	add	$1, %rdx
skip:
	dec	%rcx
	jnz	loop
	mov	$60, %eax
	xor	%edi, %edi
	syscall
