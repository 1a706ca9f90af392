# gdb_segv.S - ppc64le program that stores through a null pointer after
# three instructions: the gdb backend must record the SIGSEGV and end the
# trace as crashed (exit status 128 + 11).
	.abiversion 2
	.text
	.globl _start
_start:
	li 3, 42
	li 4, 0
	stw 3, 0(4)
	li 0, 1
	sc
