/* sim_depchain: 2000 iterations of eight dependent adds (each reads the */
/* previous one's result in rax), then exit(0).  pipeline-sim must run it */
/* at one add per add latency and charge the stalls to dependency. */
	.globl _start
	.text
	.file 1 "sim_depchain.S"	/* a line table without -g: pipeline-sim shows source lines */
_start:
	mov	$2000, %ecx
	xor	%eax, %eax
	mov	$1, %ebx
	.p2align 6
loop:
	.loc 1 14
	add	%rbx, %rax
	.loc 1 16
	add	%rbx, %rax
	.loc 1 18
	add	%rbx, %rax
	.loc 1 20
	add	%rbx, %rax
	.loc 1 22
	add	%rbx, %rax
	.loc 1 24
	add	%rbx, %rax
	.loc 1 26
	add	%rbx, %rax
	.loc 1 28
	add	%rbx, %rax
	.loc 1 30
	dec	%rcx
	.loc 1 32
	jnz	loop
	mov	$60, %eax
	xor	%edi, %edi
	syscall
