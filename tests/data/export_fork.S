/*
 * export_fork.S - fork for the exporters' per-process accounting
 * (-nostdlib -static).  The parent forks; the child calls `child_work`
 * (a loop of 4) and exits 0; the parent waits for it, calls
 * `parent_work` (a loop of 2) and exits 0.
 */
	.text
	.globl _start
	.type _start, @function
_start:
	mov $57, %eax		/* fork */
	syscall
	test %eax, %eax
	jz 1f
	mov %eax, %edi		/* wait4(child, NULL, 0, NULL) */
	xor %esi, %esi
	xor %edx, %edx
	xor %r10d, %r10d
	mov $61, %eax
	syscall
	mov $2, %ecx
	call parent_work
	jmp 2f
1:	mov $4, %ecx
	call child_work
2:	mov $60, %eax
	xor %edi, %edi
	syscall
	.size _start, .-_start

	.globl parent_work
	.type parent_work, @function
parent_work:
3:	dec %ecx
	jnz 3b
	ret
	.size parent_work, .-parent_work

	.globl child_work
	.type child_work, @function
child_work:
4:	dec %ecx
	jnz 4b
	ret
	.size child_work, .-child_work
