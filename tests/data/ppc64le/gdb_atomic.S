# gdb_atomic.S - ppc64le program with what single-stepping gets wrong:
# a system call followed by an instruction (qemu-user's step over sc also
# runs the next one) and a lwarx/stwcx. loop (a step between them loses
# the reservation, so stwcx. would fail forever).  Increments counter
# three times atomically and exits with it: status 3, 25 instructions.
	.abiversion 2
	.section .bss
	.align 3
	.globl counter
counter:
	.space 8

	.text
	.globl _start
_start:
	li 0, 20		# getpid
	sc
	mr 10, 3		# the instruction right after sc
	lis 9, counter@ha
	addi 9, 9, counter@l
	li 5, 3
	mtctr 5
again:
	lwarx 4, 0, 9
	addi 4, 4, 1
	stwcx. 4, 0, 9
	bne- again
	bdnz again
	lwz 3, 0(9)
	li 0, 1			# exit(counter)
	sc
