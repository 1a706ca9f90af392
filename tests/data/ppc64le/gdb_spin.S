# gdb_spin.S - ppc64le program that never ends, for interrupting the gdb
# backend with SIGINT, stepping (from _start) or running free (--start
# never, a function that is never called).
	.abiversion 2
	.text
	.globl _start
_start:
1:	addi 3, 3, 1
	b 1b

	.globl never
	.type never, @function
never:
	blr
