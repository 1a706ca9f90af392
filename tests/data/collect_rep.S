# collect_rep.S - rep-prefixed string instructions for the tests of
# ITRACE.md 6.5.2 (a record per iteration, and one for the final check of
# a count that ran out): movsb and stosq with counts 0, 1, 4 and 37 in a
# loop, and repe cmpsb / repne scasb that stop on their condition, on
# their count, and on both at once (the condition decides).  (No rep
# lodsb: Valgrind's VEX runs it as one iteration.)  -nostdlib -static,
# exit status 0.
	.text
	.globl _start
_start:
	lea	stack_top(%rip), %rsp
	lea	counts(%rip), %rbx
	mov	$4, %r12d		# four rounds: counts 0, 1, 4, 37
1:	mov	(%rbx), %rcx
	lea	src(%rip), %rsi
	lea	dst(%rip), %rdi
	rep movsb
	mov	(%rbx), %rcx
	lea	dst(%rip), %rdi
	xor	%eax, %eax
	rep stosq
	add	$8, %rbx
	dec	%r12d
	jnz	1b

	lea	src(%rip), %rsi		# repe cmpsb: equal for 5 bytes, then differs
	lea	same(%rip), %rdi
	mov	$16, %ecx
	repe cmpsb
	lea	src(%rip), %rsi		# repe cmpsb: runs out of count (all equal)
	lea	same(%rip), %rdi
	mov	$4, %ecx
	repe cmpsb
	lea	src(%rip), %rdi		# repne scasb: finds 'd' at the 4th byte
	mov	$'d', %al
	mov	$16, %ecx
	repne scasb
	lea	src(%rip), %rsi		# repe cmpsb: differs at the last byte of
	lea	same(%rip), %rdi	# its count (the comparison ends the loop)
	mov	$6, %ecx
	repe cmpsb
	lea	src(%rip), %rdi		# repne scasb: no 'z' in 8 bytes (count out)
	mov	$'z', %al
	mov	$8, %ecx
	repne scasb

	mov	$60, %eax		# exit(0)
	xor	%edi, %edi
	syscall

	.data
counts:	.quad	0, 1, 4, 37
src:	.ascii	"abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJ"
same:	.ascii	"abcdeXghijklmnop"
	.bss
	.align	16
dst:	.skip	512
	.skip	4096
stack_top:
