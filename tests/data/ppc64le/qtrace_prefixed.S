# qtrace_prefixed.S - POWER10 prefixed instructions (pli, pld) traced under
# QEMU_CPU=power10 qemu-ppc64le: 8-byte INSN records, the pld load address
# from the prefixed D-form, and in qtrace a prefix record followed by the
# suffix record that carries the data address.  Exit status 100000 & 0xff = 160.
	.machine power10
	.abiversion 2
	.section .bss
	.align 3
	.globl val
val:	.space 16
	.text
	.globl _start
_start:
	lis 9, val@ha
	addi 9, 9, val@l
	paddi 3, 0, 100000, 0
	std 3, 8(9)
	pld 4, 8(9)
	nop
	mr 3, 4
	li 0, 1
	sc
