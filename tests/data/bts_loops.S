# bts_loops.S - a branch-rich -nostdlib program for the BTS tests: counted
# loops with taken and not-taken conditionals, direct and indirect calls,
# a jump table, recursion, and a system call in the middle.  A few hundred
# branches, deterministic addresses (-static -no-pie).
	.text
	.globl _start
_start:
	xor	%r12d, %r12d		# accumulator
	mov	$20, %ecx
outer:
	mov	%ecx, %eax
	and	$3, %eax
	lea	table(%rip), %rdx
	jmp	*(%rdx,%rax,8)		# jump table
case0:	add	$1, %r12
	jmp	joined
case1:	add	$2, %r12
	jmp	joined
case2:	lea	double_it(%rip), %rbx
	call	*%rbx			# indirect call
	jmp	joined
case3:	test	$1, %ecx		# not taken: ecx is 3, 7, 11 ...
	jz	joined
	call	add_three
joined:
	dec	%ecx
	jnz	outer

	mov	$5, %edi
	call	fact			# recursion

	mov	$39, %eax		# getpid: a system call between branches
	syscall

	mov	$6, %ecx
inner:	cmp	$3, %ecx		# taken on some iterations only
	jb	small
	add	%rcx, %r12
small:	loop	inner

	mov	$60, %eax		# exit(0)
	xor	%edi, %edi
	syscall

double_it:
	add	%r12, %r12
	ret

add_three:
	add	$3, %r12
	ret

# fact(n): n <= 1 ? 1 : n * fact(n - 1)
fact:
	cmp	$1, %edi
	jbe	fact_base
	push	%rdi
	dec	%edi
	call	fact
	pop	%rdi
	imul	%rdi, %rax
	ret
fact_base:
	mov	$1, %eax
	ret

	.section .rodata
	.align 8
table:	.quad	case0, case1, case2, case3
