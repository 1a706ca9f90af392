# qtrace_golden.S - a fixed-address ppc64le program for the gdb backend and
# qtrace-conv golden tests: a counted loop (bdnz), a conditional branch
# taken on even iterations (beq), a call and return (bl/blr), an
# unconditional branch (b), indexed stores and D-form loads to a buffer.
# Exit status: buf[0] = 1.  47 instructions in all.
	.abiversion 2
	.section .bss
	.align 3
	.globl buf
buf:	.space 64

	.text
	.globl _start
_start:
	lis 9, buf@ha
	addi 9, 9, buf@l	# r9 = buf
	li 3, 0			# r3 = running value
	li 4, 0			# r4 = i
	li 5, 4
	mtctr 5			# 4 iterations
loop:
	andi. 6, 4, 1
	beq even		# taken when i is even
	addi 3, 3, 100
	b next
even:
	bl addone
next:
	sldi 7, 4, 3
	stdx 3, 9, 7		# buf[i] = r3
	ld 8, 0(9)		# r8 = buf[0]
	addi 4, 4, 1
	bdnz loop
	mr 3, 8
	li 0, 1			# exit(buf[0])
	sc

	.globl addone
addone:
	addi 3, 3, 1
	blr
