# fill_xloops.S - the x86 conditional branches that test rcx instead of the
# flags: loop, loope, loopne, jrcxz and jecxz, each taken and not taken,
# for the fill oracle (a collector and itrace-fill that take them for
# anything but conditional branches disagree on the instructions).
	.text
	.globl _start
_start:
	xor	%r12d, %r12d
	mov	$4, %ecx
1:	add	%rcx, %r12		# loop: taken 3 times, then falls through
	loop	1b

	mov	$5, %ecx
2:	cmp	$3, %rcx		# loope: taken while rcx != 0 and ZF
	loope	2b			# (ZF clear at once: falls through)

	mov	$5, %ecx
3:	cmp	$2, %rcx		# loopne: taken until rcx is 2
	loopne	3b

	xor	%ecx, %ecx		# jrcxz taken
	jrcxz	4f
	add	$100, %r12
4:	mov	$7, %ecx		# jrcxz not taken
	jrcxz	5f
	add	$1, %r12
5:	mov	$0x100000000, %rcx	# jecxz looks at ecx only: taken
	jecxz	6f
	add	$1000, %r12
6:	mov	$1, %ecx		# jecxz not taken
	jecxz	7f
	add	$2, %r12

7:	mov	$60, %eax		# exit(0)
	xor	%edi, %edi
	syscall
