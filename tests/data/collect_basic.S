# collect_basic.S - deterministic program for the collector's golden traces.
# -nostdlib -static: fixed addresses; its own stack in .bss, so no memory
# address depends on the environment.  Exercises a counted loop, a
# recursive call, an indirect call, a jump table, rip-relative and
# fs-relative loads, push/pop, rep movsb, rep stosq with a zero count, a
# write syscall and exit_group(7).
	.text
	.globl _start
_start:
	lea	stack_top(%rip), %rsp
	# fs base -> tls_block, so %fs:8 reads tls_block+8
	mov	$158, %eax		# arch_prctl
	mov	$0x1002, %edi		# ARCH_SET_FS
	lea	tls_block(%rip), %rsi
	syscall
	mov	%fs:8, %rbx		# fs-relative load (= 5)

	xor	%eax, %eax		# counted loop: rax = 1+2+3
	mov	$3, %ecx
1:	add	%rcx, %rax
	dec	%ecx
	jnz	1b
	mov	%rax, total(%rip)	# rip-relative store

	mov	$3, %edi		# recursion: fact(3)
	call	fact

	lea	triple(%rip), %rdx	# indirect call
	mov	$4, %edi
	call	*%rdx

	mov	$2, %edi		# jump table switch on 2
	call	pick

	lea	msg(%rip), %rsi		# rep movsb: 4 bytes msg -> buf
	lea	buf(%rip), %rdi
	mov	$4, %ecx
	cld
	rep movsb
	xor	%ecx, %ecx		# rep stosq with rcx = 0: no access
	rep stosq

	mov	$1, %eax		# write(1, buf, 4)
	mov	$1, %edi
	lea	buf(%rip), %rsi
	mov	$4, %edx
	syscall

	mov	$231, %eax		# exit_group(7)
	mov	$7, %edi
	syscall

	.type	fact, @function
fact:					# rax = fact(rdi), recursive
	push	%rbx
	mov	%rdi, %rbx
	mov	$1, %eax
	cmp	$1, %rdi
	jbe	2f
	lea	-1(%rdi), %rdi
	call	fact
	imul	%rbx, %rax
2:	pop	%rbx
	ret

	.type	triple, @function
triple:
	lea	(%rdi,%rdi,2), %rax
	ret

	.type	pick, @function
pick:					# switch (rdi) through a jump table
	lea	table(%rip), %rax
	jmp	*(%rax,%rdi,8)
case0:	mov	$10, %eax
	ret
case1:	mov	$11, %eax
	ret
case2:	mov	$12, %eax
	ret

	.section .rodata
	.balign 8
table:	.quad case0, case1, case2
msg:	.ascii "ok!\n"

	.data
	.balign 8
tls_block: .quad 0, 5

	.bss
	.balign 16
total:	.skip 8
buf:	.skip 16
stack:	.skip 4096
stack_top:
