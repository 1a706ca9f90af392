/*
 * fill_loop.S - a small static program with a known control flow, for the
 * fill unit tests: a counted loop around a direct call, an indirect call
 * through a table, a jump table, a rep-prefixed copy and two syscalls.
 * Every label the tests need is global so they find it by name.
 */
	.text
	.globl _start, loop_top, func, func2, after_loop, jt_target, done, copy
_start:
	mov	$3, %ecx
loop_top:
	call	func
	dec	%ecx
	jnz	loop_top
after_loop:
	lea	table(%rip), %rbx
	call	*(%rbx)
	mov	$1, %eax
	jmp	*jumps(,%rax,8)
jt_target:
	lea	buf_src(%rip), %rsi
	lea	buf_dst(%rip), %rdi
	mov	$4, %ecx
copy:
	rep movsb
	mov	$1, %eax		/* write(1, buf_dst, 0) */
	mov	$1, %edi
	lea	buf_dst(%rip), %rsi
	xor	%edx, %edx
	syscall
done:
	mov	$60, %eax		/* exit(0) */
	xor	%edi, %edi
	syscall
	hlt
func:
	add	$1, %rax
	ret
func2:
	nop
	ret

	.section .rodata
	.balign 8
table:	.quad	func2
jumps:	.quad	done, jt_target
buf_src: .ascii	"abcd"

	.bss
buf_dst: .skip	8
