/*
 * fill_bench.S - a loop-heavy static program for the fill benchmark and
 * the -j tests: argc outer iterations of 16 inner ones, each with a
 * conditional skip and a call.  Outer iterations branch identically, so
 * fill-gen can extrapolate the trace of a long run from two short ones.
 */
	.text
	.globl _start, outer, inner, skip, work
_start:
	mov	(%rsp), %r12		/* argc */
outer:
	mov	$16, %ecx
inner:
	mov	%ecx, %eax
	and	$3, %eax
	jz	skip
	call	work
skip:
	dec	%ecx
	jnz	inner
	dec	%r12
	jnz	outer
	mov	$60, %eax
	xor	%edi, %edi
	syscall
work:
	add	%rax, %rbx
	imul	$7, %rbx, %rdx
	xor	%rdx, %rsi
	lea	1(%rsi,%rbx,2), %rdi
	ret
