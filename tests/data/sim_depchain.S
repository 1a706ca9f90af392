/* sim_depchain: 2000 iterations of eight dependent adds (each reads the */
/* previous one's result in rax), then exit(0).  pipeline-sim must run it */
/* at one add per add latency and charge the stalls to dependency. */
	.globl _start
	.text
_start:
	mov	$2000, %ecx
	xor	%eax, %eax
	mov	$1, %ebx
	.p2align 6
loop:
	add	%rbx, %rax
	add	%rbx, %rax
	add	%rbx, %rax
	add	%rbx, %rax
	add	%rbx, %rax
	add	%rbx, %rax
	add	%rbx, %rax
	add	%rbx, %rax
	dec	%rcx
	jnz	loop
	mov	$60, %eax
	xor	%edi, %edi
	syscall
