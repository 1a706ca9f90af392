/* fill_unwind.S - functions described only by their unwind entries once
 * stripped (tests/data/module.mk builds fill_unwind_stripped with -s):
 * _start has no CFI, f1 and f2 have FDEs (.eh_frame_hdr: --eh-frame-hdr).
 * test_symbolizer.c names them from the FDEs and compares with the
 * symbols of the unstripped build. */
	.text
	.globl _start
_start:
	call f1
	call f2
	mov $60, %eax
	xor %edi, %edi
	syscall

	.p2align 4
	.type f1, @function
f1:
	.cfi_startproc
	nop
	ret
	.cfi_endproc
	.size f1, . - f1

	.p2align 4
	.type f2, @function
f2:
	.cfi_startproc
	push %rbp
	.cfi_def_cfa_offset 16
	mov %rsp, %rbp
	pop %rbp
	.cfi_def_cfa_offset 8
	ret
	.cfi_endproc
	.size f2, . - f2
	.section .note.GNU-stack,"",@progbits
