# qtrace_gdb_x86.S - a small x86-64 program traced by both the ptrace and
# the gdb (qemu-x86_64) backends, which must agree instruction by
# instruction: getpid (the instruction after a system call must not be
# lost), a counted loop with a call, a conditional branch, stores and
# loads to a buffer, then exit(3).
	.bss
	.align 8
buf:	.space 64

	.text
	.globl _start
_start:
	mov $39, %eax
	syscall
	mov %eax, %r12d
	lea buf(%rip), %rbx
	xor %eax, %eax
	mov $5, %ecx
1:	test $1, %cl
	jz 2f
	call bump
2:	mov %rax, (%rbx,%rcx,8)
	add 8(%rbx), %rax
	dec %ecx
	jnz 1b
	mov $60, %eax
	mov $3, %edi
	syscall

bump:
	push %rbp
	add $2, %rax
	pop %rbp
	ret
