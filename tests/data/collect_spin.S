# collect_spin.S - a static loop for the collector's benchmark: 12500
# iterations of load, add, store, count (about 62500 single steps).
	.text
	.globl _start
_start:
	mov	$12500, %ecx
	lea	cell(%rip), %rdi
1:	mov	(%rdi), %rax
	add	%rcx, %rax
	mov	%rax, (%rdi)
	dec	%ecx
	jnz	1b
	mov	$60, %eax		# exit(0)
	xor	%edi, %edi
	syscall

	.bss
	.balign 8
cell:	.skip 8
