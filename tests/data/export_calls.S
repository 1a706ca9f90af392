/*
 * export_calls.S - deterministic program for the exporters' tests
 * (-nostdlib -static: fixed addresses).  _start runs an outer loop of 5:
 * a call to `leaf` (an inner loop of 3), and a recursive `fact(4)`; then
 * it calls a function whose name holds XML-hostile characters
 * (<&>", a control character and a byte that is not UTF-8), and exits 0.
 * Counts the tests derive from it: leaf 5 calls, fact 20 calls (5 x 4
 * activations), the weird function 1 call.
 */
	.text
	.globl _start
	.type _start, @function
_start:
	mov $5, %ebx
1:	call leaf
	mov $4, %edi
	call fact
	dec %ebx
	jnz 1b
	call 9f
	mov $60, %eax
	xor %edi, %edi
	syscall
	.size _start, .-_start

	.globl leaf
	.type leaf, @function
leaf:
	mov $3, %eax
2:	dec %eax
	jnz 2b
	ret
	.size leaf, .-leaf

	.globl fact
	.type fact, @function
fact:
	cmp $1, %edi
	jle 3f
	push %rdi
	dec %edi
	call fact
	pop %rdi
	imul %edi, %eax
	ret
3:	mov $1, %eax
	ret
	.size fact, .-fact

	.globl "we<&>\"irdÿname"
"we<&>\"irdÿname":
9:	nop
	ret
