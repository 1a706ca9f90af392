# collect_mem.S - memory accesses whose addresses and sizes are known by
# construction; tests/e2e/collect_mem.sh compares the MEM records with
# the list in collect_mem.expected (written by hand from this source).
	.text
	.globl _start
_start:
	lea	stack_top(%rip), %rsp
	lea	data(%rip), %rbx
	mov	$158, %eax		# arch_prctl(ARCH_SET_GS, data)
	mov	$0x1001, %edi
	mov	%rbx, %rsi
	syscall
	mov	8(%rbx), %rax		# load  data+8   8
	movl	%eax, 16(%rbx)		# store data+16  4
	movb	3(%rbx), %cl		# load  data+3   1
	mov	$2, %rsi
	mov	(%rbx,%rsi,8), %rdx	# load  data+16  8
	addl	$1, 24(%rbx)		# load+store data+24 4
	pushq	32(%rbx)		# load data+32 8, store stack_top-8 8
	popq	40(%rbx)		# load stack_top-8 8, store data+40 8
	push	%rax			# store stack_top-8 8
	pop	%rax			# load  stack_top-8 8
	pushw	$7			# store stack_top-2 2
	popw	%ax			# load  stack_top-2 2
	call	*48(%rbx)		# load data+48 8, store stack_top-8 8; ret: load
	xchg	%rax, 56(%rbx)		# load+store data+56 8
	mov	%ebx, %r8d
	mov	72(%r8d), %rax		# 32-bit address: load data+72 8
	mov	%gs:8, %rax		# gs base = data: load data+8 8
	movdqu	96(%rbx), %xmm0		# load data+96 16
	lea	83(%rbx), %rsi		# backwards rep movsb, 2 bytes
	lea	99(%rbx), %rdi
	mov	$2, %ecx
	std
	rep movsb			# load 83, store 99, load 82, store 98
	cld
	xor	%ecx, %ecx
	rep stosq			# count 0: nothing
	enter	$16, $0			# store stack_top-8 8
	leave				# load stack_top-8 8
	lea	0x10(%rsp), %rax	# lea: nothing
	nopw	0x100(%rax,%rax,1)	# nop with a memory operand: nothing
	mov	$60, %eax		# exit(0)
	xor	%edi, %edi
	syscall

	.type	func, @function
func:
	ret

	.data
	.balign 64
data:	.quad 0x1122334455667788, 2, 3, 4, 5, 6, func, 8, 9, 10, 11, 12, 13, 14
	.bss
	.balign 16
stack:	.skip 256
stack_top:
