# pipe_hello.S - prints "hello from ppc64le" on stdout and exits 0: the
# program of the README's pipeline test (collect -o - | fill | qtrace-conv),
# whose output must reach stderr, never the trace stream.
	.abiversion 2
	.text
	.globl _start
_start:
	li	0, 4			# write(1, msg, len)
	li	3, 1
	lis	4, msg@ha
	addi	4, 4, msg@l
	li	5, msg_end - msg
	sc
	li	0, 234			# exit_group(0)
	li	3, 0
	sc

	.data
msg:	.ascii	"hello from ppc64le\n"
msg_end:
