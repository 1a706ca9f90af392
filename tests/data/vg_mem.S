# vg_mem.S - deterministic x86-64 program for the valgrind backend's tests:
# every kind of memory access the ptrace backend models (plain loads and
# stores of 1..16 bytes, read-modify-write, push/pop/call/ret/leave, rep
# string instructions with and without iterations, locked operations),
# conditional and indirect branches, a jump table, Valgrind's client
# request sequence and two system calls.
# Prints "vg_mem ok" and exits with status 3.
	.text
	.globl _start
_start:
	lea	buf(%rip), %rbx
	mov	$40, %ecx
1:	mov	%ecx, (%rbx,%rcx,4)	# 4-byte stores
	addl	$1, (%rbx)		# read-modify-write
	movb	(%rbx,%rcx), %al	# 1-byte load
	movw	%ax, 200(%rbx)		# 2-byte store
	dec	%ecx
	jnz	1b

	mov	$7, %edi
	call	leaf			# direct call, stack frame, leave
	lea	leaf(%rip), %rax
	call	*%rax			# indirect call through a register
	lea	fnptr(%rip), %rdx
	call	*(%rdx)			# indirect call through memory

	xor	%ecx, %ecx		# a jump table, three times
2:	lea	table(%rip), %rdx
	jmp	*(%rdx,%rcx,8)
case0:	addq	$10, 8(%rbx)
	jmp	3f
case1:	subq	$3, 8(%rbx)
	jmp	3f
case2:	xorq	$5, 8(%rbx)
3:	inc	%ecx
	cmp	$3, %ecx
	jb	2b

	lea	buf(%rip), %rsi		# rep movsb, 5 iterations
	lea	buf+64(%rip), %rdi
	mov	$5, %ecx
	rep movsb
	xor	%ecx, %ecx		# rep movsb with a zero count
	rep movsb
	lea	buf+128(%rip), %rdi	# rep stosq, 3 iterations
	mov	$3, %ecx
	mov	$0x1122334455667788, %rax
	rep stosq

	movdqu	(%rbx), %xmm0		# 16-byte load and store
	movdqu	%xmm0, 32(%rbx)
	mov	$1, %eax
	lock xadd %eax, 16(%rbx)	# locked read-modify-write
	mov	$9, %ecx
	lock cmpxchg %ecx, 16(%rbx)
	xchg	%ecx, 20(%rbx)
	pushq	$42			# push an immediate, pop to memory
	popq	24(%rbx)

	# Valgrind's "special instruction" (a client request, request block
	# of zeros: unknown, answered in rdx): a no-op on the machine, one
	# 19-byte instruction for Valgrind, five instructions in the trace.
	lea	buf+256(%rip), %rax
	rolq	$3, %rdi
	rolq	$13, %rdi
	rolq	$61, %rdi
	rolq	$51, %rdi
	xchgq	%rbx, %rbx

	mov	$1, %eax		# write(1, msg, len)
	mov	$1, %edi
	lea	msg(%rip), %rsi
	mov	$msglen, %edx
	syscall
	mov	$231, %eax		# exit_group(3)
	mov	$3, %edi
	syscall

leaf:	push	%rbp
	mov	%rsp, %rbp
	sub	$16, %rsp
	mov	%rdi, -8(%rbp)
	mov	-8(%rbp), %rax
	add	%rax, %rax
	leave
	ret

	.section .rodata
msg:	.ascii "vg_mem ok\n"
	.set msglen, . - msg
	.p2align 3
table:	.quad case0, case1, case2

	.data
	.p2align 3
fnptr:	.quad leaf
	.bss
	.p2align 4
buf:	.zero 512
