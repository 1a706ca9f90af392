# real_ppc_mem.S - ppc64le program that strides through a buffer with loads
# and stores of every size (byte, halfword, word, doubleword, quadword
# vector), one straddling two cache lines, a byte load at the end of a
# cache line nothing else touches, and an atomic increment (lwarx with the
# exclusive-access hint), for pipeline-sim's caches and stride
# prefetcher: traced as .itr and converted to .qt, one run must give one
# report.  Exits 0 after about 7000 instructions.
	.abiversion 2
	.section .bss
	.align 7
buf:
	.space 65536
far:
	.space 131072
counter:
	.space 8

	.text
	.globl _start
_start:
	lis 9, buf@ha
	addi 9, 9, buf@l
	lis 13, far@ha
	addi 13, 13, far@l
	li 5, 500		# 500 steps of 128 bytes: 62.5 KiB
	mtctr 5
	li 6, 0
	li 11, 62
loop:
	lbz 4, 0(9)
	lhz 7, 2(9)
	lwz 8, 60(9)
	ldx 10, 9, 11		# 62..69: straddles two lines
	add 6, 6, 4
	stb 6, 1(9)
	std 6, 64(9)
	lxv 32, 16(9)
	stxv 32, 96(9)
	lbz 12, 63(13)		# the last byte of a line; the next line stays cold
	addi 9, 9, 128
	addi 13, 13, 256
	bdnz loop
	lis 9, counter@ha
	addi 9, 9, counter@l
again:
	lwarx 4, 0, 9, 1	# EH=1: a lock acquisition
	addi 4, 4, 1
	stwcx. 4, 0, 9
	bne- again
	li 3, 0
	li 0, 1			# exit(0)
	sc
