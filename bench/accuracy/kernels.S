/*
 * kernels.S - the loop kernels of the accuracy suite (bench/accuracy/run.sh).
 * Each is `void k_NAME(uint64_t iters, void *arg)` (System V: rdi, rsi):
 * set-up, then `iters` iterations of one loop whose body sits between
 * LLVM-MCA-BEGIN/END markers, so that llvm-mca analyses exactly the body
 * that runs (and that itrace-collect traces) and nothing else.
 */
	.text

#define KERNEL(name) .globl k_##name; .type k_##name, @function; .p2align 6; k_##name:
#define END(name) .size k_##name, .-k_##name

/* dependency chains, one per class */
KERNEL(add_chain)
	mov	$1, %edx
	xor	%eax, %eax
	.p2align 5
1:
# LLVM-MCA-BEGIN add_chain
	add	%rdx, %rax
	add	%rdx, %rax
	add	%rdx, %rax
	add	%rdx, %rax
	add	%rdx, %rax
	add	%rdx, %rax
	add	%rdx, %rax
	add	%rdx, %rax
	dec	%rdi
	jnz	1b
# LLVM-MCA-END
	ret
END(add_chain)

KERNEL(imul_chain)
	mov	$3, %edx
	mov	$5, %eax
	.p2align 5
1:
# LLVM-MCA-BEGIN imul_chain
	imul	%rdx, %rax
	imul	%rdx, %rax
	imul	%rdx, %rax
	imul	%rdx, %rax
	dec	%rdi
	jnz	1b
# LLVM-MCA-END
	ret
END(imul_chain)

KERNEL(div_chain)
	mov	$0x123456789, %rax
	mov	$1, %ecx
	.p2align 5
1:
# LLVM-MCA-BEGIN div_chain
	xor	%edx, %edx
	div	%rcx
	xor	%edx, %edx
	div	%rcx
	dec	%rdi
	jnz	1b
# LLVM-MCA-END
	ret
END(div_chain)

KERNEL(fadd_chain)
	vxorpd	%xmm0, %xmm0, %xmm0
	vxorpd	%xmm1, %xmm1, %xmm1
	.p2align 5
1:
# LLVM-MCA-BEGIN fadd_chain
	vaddsd	%xmm1, %xmm0, %xmm0
	vaddsd	%xmm1, %xmm0, %xmm0
	vaddsd	%xmm1, %xmm0, %xmm0
	vaddsd	%xmm1, %xmm0, %xmm0
	dec	%rdi
	jnz	1b
# LLVM-MCA-END
	ret
END(fadd_chain)

KERNEL(fma_chain)
	vxorpd	%xmm0, %xmm0, %xmm0
	vxorpd	%xmm1, %xmm1, %xmm1
	vxorpd	%xmm2, %xmm2, %xmm2
	.p2align 5
1:
# LLVM-MCA-BEGIN fma_chain
	vfmadd213sd %xmm2, %xmm1, %xmm0
	vfmadd213sd %xmm2, %xmm1, %xmm0
	vfmadd213sd %xmm2, %xmm1, %xmm0
	vfmadd213sd %xmm2, %xmm1, %xmm0
	dec	%rdi
	jnz	1b
# LLVM-MCA-END
	ret
END(fma_chain)

KERNEL(shuffle_chain)
	vxorpd	%xmm0, %xmm0, %xmm0
	.p2align 5
1:
# LLVM-MCA-BEGIN shuffle_chain
	vpshufd	$0x4e, %xmm0, %xmm0
	vpshufd	$0x4e, %xmm0, %xmm0
	vpshufd	$0x4e, %xmm0, %xmm0
	vpshufd	$0x4e, %xmm0, %xmm0
	dec	%rdi
	jnz	1b
# LLVM-MCA-END
	ret
END(shuffle_chain)

/* independent throughput blocks */
KERNEL(alu_tput)
	mov	$1, %edx
	.p2align 5
1:
# LLVM-MCA-BEGIN alu_tput
	add	%rdx, %rax
	add	%rdx, %rcx
	add	%rdx, %r8
	add	%rdx, %r9
	add	%rdx, %r10
	add	%rdx, %r11
	xor	%rdx, %rsi
	or	%rdx, %rax
	dec	%rdi
	jnz	1b
# LLVM-MCA-END
	ret
END(alu_tput)

KERNEL(fma_tput)
	vxorpd	%xmm8, %xmm8, %xmm8
	vxorpd	%xmm9, %xmm9, %xmm9
	.p2align 5
1:
# LLVM-MCA-BEGIN fma_tput
	vfmadd231pd %ymm8, %ymm9, %ymm0
	vfmadd231pd %ymm8, %ymm9, %ymm1
	vfmadd231pd %ymm8, %ymm9, %ymm2
	vfmadd231pd %ymm8, %ymm9, %ymm3
	vfmadd231pd %ymm8, %ymm9, %ymm4
	vfmadd231pd %ymm8, %ymm9, %ymm5
	vfmadd231pd %ymm8, %ymm9, %ymm6
	vfmadd231pd %ymm8, %ymm9, %ymm7
	dec	%rdi
	jnz	1b
# LLVM-MCA-END
	vzeroupper
	ret
END(fma_tput)

KERNEL(mul_tput)
	mov	$3, %edx
	.p2align 5
1:
# LLVM-MCA-BEGIN mul_tput
	imul	%rdx, %rax
	imul	%rdx, %rcx
	imul	%rdx, %r8
	imul	%rdx, %r9
	imul	%rdx, %r10
	imul	%rdx, %r11
	dec	%rdi
	jnz	1b
# LLVM-MCA-END
	ret
END(mul_tput)

/* six loads folded into adds on two accumulators */
KERNEL(loadop)
	xor	%eax, %eax
	xor	%ecx, %ecx
	.p2align 5
1:
# LLVM-MCA-BEGIN loadop
	add	(%rsi), %rax
	add	8(%rsi), %rcx
	add	16(%rsi), %rax
	add	24(%rsi), %rcx
	add	32(%rsi), %rax
	add	40(%rsi), %rcx
	dec	%rdi
	jnz	1b
# LLVM-MCA-END
	ret
END(loadop)

/* pointer chase: arg points at the cursor into a ring of pointers (one
 * per line), which goes on where the previous call stopped */
KERNEL(chase)
	mov	(%rsi), %rax
	.p2align 5
1:
# LLVM-MCA-BEGIN chase
	mov	(%rax), %rax
	mov	(%rax), %rax
	mov	(%rax), %rax
	mov	(%rax), %rax
	dec	%rdi
	jnz	1b
# LLVM-MCA-END
	mov	%rax, (%rsi)
	ret
END(chase)

/* independent loads from random lines: arg is 64K 32-bit line offsets
 * (256 KiB), then the buffer they index; two accumulators */
KERNEL(gather)
	xor	%eax, %eax
	xor	%ecx, %ecx
	xor	%r10d, %r10d
	lea	262144(%rsi), %rdx
	.p2align 5
1:
# LLVM-MCA-BEGIN gather
	mov	(%rsi,%rcx,4), %r8d
	add	(%rdx,%r8), %rax
	mov	4(%rsi,%rcx,4), %r9d
	add	(%rdx,%r9), %r10
	add	$2, %rcx
	and	$65535, %rcx
	dec	%rdi
	jnz	1b
# LLVM-MCA-END
	ret
END(gather)

/* store-to-load forwarding: a value goes through memory every step */
KERNEL(store_fwd)
	xor	%eax, %eax
	.p2align 5
1:
# LLVM-MCA-BEGIN store_fwd
	mov	%rax, (%rsi)
	mov	(%rsi), %rax
	add	$1, %rax
	mov	%rax, 8(%rsi)
	mov	8(%rsi), %rax
	add	$1, %rax
	dec	%rdi
	jnz	1b
# LLVM-MCA-END
	ret
END(store_fwd)

/* the same through an indexed address */
KERNEL(store_fwd_idx)
	xor	%eax, %eax
	xor	%ecx, %ecx
	.p2align 5
1:
# LLVM-MCA-BEGIN store_fwd_idx
	mov	%rax, (%rsi,%rcx,8)
	mov	(%rsi,%rcx,8), %rax
	add	$1, %rax
	mov	%rax, 8(%rsi,%rcx,8)
	mov	8(%rsi,%rcx,8), %rax
	add	$1, %rax
	dec	%rdi
	jnz	1b
# LLVM-MCA-END
	ret
END(store_fwd_idx)

/* a branch on each byte of a 64K table (all zero: predictable; random:
 * mispredicted half the time) */
KERNEL(branch)
	xor	%ecx, %ecx
	xor	%r8d, %r8d
	.p2align 5
1:
# LLVM-MCA-BEGIN branch
	movzbl	(%rsi,%rcx), %eax
	test	%eax, %eax
	jz	2f
	add	$3, %r8
2:
	add	$1, %rcx
	and	$65535, %rcx
	dec	%rdi
	jnz	1b
# LLVM-MCA-END
	ret
END(branch)

/* streaming sum over a 512 KiB array (64K quadwords) */
KERNEL(stream)
	xor	%eax, %eax
	xor	%ecx, %ecx
	.p2align 5
1:
# LLVM-MCA-BEGIN stream
	add	(%rsi,%rcx,8), %rax
	add	$1, %rcx
	and	$65535, %rcx
	dec	%rdi
	jnz	1b
# LLVM-MCA-END
	ret
END(stream)

/* memcpy's inner loop for 256 bytes (glibc's SSE2 variant: 16-byte
 * unaligned loads and stores), copying arg[0..256) to arg[4096..] */
KERNEL(copy256)
	.p2align 5
1:
# LLVM-MCA-BEGIN copy256
	movdqu	(%rsi), %xmm0
	movdqu	16(%rsi), %xmm1
	movdqu	32(%rsi), %xmm2
	movdqu	48(%rsi), %xmm3
	movdqu	%xmm0, 4096(%rsi)
	movdqu	%xmm1, 4112(%rsi)
	movdqu	%xmm2, 4128(%rsi)
	movdqu	%xmm3, 4144(%rsi)
	movdqu	64(%rsi), %xmm0
	movdqu	80(%rsi), %xmm1
	movdqu	96(%rsi), %xmm2
	movdqu	112(%rsi), %xmm3
	movdqu	%xmm0, 4160(%rsi)
	movdqu	%xmm1, 4176(%rsi)
	movdqu	%xmm2, 4192(%rsi)
	movdqu	%xmm3, 4208(%rsi)
	movdqu	128(%rsi), %xmm0
	movdqu	144(%rsi), %xmm1
	movdqu	160(%rsi), %xmm2
	movdqu	176(%rsi), %xmm3
	movdqu	%xmm0, 4224(%rsi)
	movdqu	%xmm1, 4240(%rsi)
	movdqu	%xmm2, 4256(%rsi)
	movdqu	%xmm3, 4272(%rsi)
	movdqu	192(%rsi), %xmm0
	movdqu	208(%rsi), %xmm1
	movdqu	224(%rsi), %xmm2
	movdqu	240(%rsi), %xmm3
	movdqu	%xmm0, 4288(%rsi)
	movdqu	%xmm1, 4304(%rsi)
	movdqu	%xmm2, 4320(%rsi)
	movdqu	%xmm3, 4336(%rsi)
	dec	%rdi
	jnz	1b
# LLVM-MCA-END
	ret
END(copy256)

/* FNV-1a, one byte per iteration over a 64-byte key */
KERNEL(fnv1a)
	mov	$0xcbf29ce484222325, %rax
	mov	$0x100000001b3, %r8
	xor	%ecx, %ecx
	.p2align 5
1:
# LLVM-MCA-BEGIN fnv1a
	movzbl	(%rsi,%rcx), %edx
	xor	%rdx, %rax
	imul	%r8, %rax
	add	$1, %rcx
	and	$63, %rcx
	dec	%rdi
	jnz	1b
# LLVM-MCA-END
	ret
END(fnv1a)

/* insertion sort's inner loop, as gcc -O2 writes it: shift the larger
 * elements of a sorted prefix up by one.  arg: int key[] of 64K random
 * values then a 64-int work area; each iteration inserts the next key
 * into the work area (restarted every 32 keys). */
KERNEL(isort)
	push	%rbx
	xor	%r9d, %r9d		/* key index */
	xor	%r10d, %r10d		/* elements in the work area */
	lea	262144(%rsi), %r11	/* work area */
	.p2align 5
1:
	mov	(%rsi,%r9,4), %eax	/* the key */
	mov	%r10, %rcx		/* j */
	.p2align 4
2:
# LLVM-MCA-BEGIN isort
	test	%rcx, %rcx
	jz	3f
	mov	-4(%r11,%rcx,4), %edx
	cmp	%eax, %edx
	jle	3f
	mov	%edx, (%r11,%rcx,4)
	dec	%rcx
	jmp	2b
# LLVM-MCA-END
3:
	mov	%eax, (%r11,%rcx,4)
	add	$1, %r10
	and	$31, %r10
	add	$1, %r9
	and	$65535, %r9
	dec	%rdi
	jnz	1b
	pop	%rbx
	ret
END(isort)

/* ---- kernels no loop of pipeline-sim --calibrate resembles (the
 * "hidden" set of bench/accuracy/run.sh; driver.c marks which are) ---- */

/* independent imuls (immediate form) between independent adds */
KERNEL(mul_mix)
	mov	$1, %edx
	.p2align 5
1:
# LLVM-MCA-BEGIN mul_mix
	imul	$7, %r8, %r8
	add	%rdx, %rax
	imul	$7, %r9, %r9
	add	%rdx, %rcx
	imul	$7, %r10, %r10
	add	%rdx, %rsi
	imul	$7, %r11, %r11
	add	%rdx, %r8
	dec	%rdi
	jnz	1b
# LLVM-MCA-END
	ret
END(mul_mix)

/* a predictable loop with two taken branches an iteration */
KERNEL(branch2)
	.p2align 5
1:
# LLVM-MCA-BEGIN branch2
	add	$1, %rax
	jmp	2f
	.p2align 4
2:
	add	$1, %rcx
	dec	%rdi
	jnz	1b
# LLVM-MCA-END
	ret
END(branch2)

/* independent shuffles of two kinds */
KERNEL(shuf_tput)
	vpxor	%xmm15, %xmm15, %xmm15
	.p2align 5
1:
# LLVM-MCA-BEGIN shuf_tput
	vpshufb	%xmm15, %xmm0, %xmm0
	vpunpcklqdq %xmm15, %xmm1, %xmm1
	vpshufb	%xmm15, %xmm2, %xmm2
	vpunpcklqdq %xmm15, %xmm3, %xmm3
	vpshufb	%xmm15, %xmm4, %xmm4
	vpunpcklqdq %xmm15, %xmm5, %xmm5
	dec	%rdi
	jnz	1b
# LLVM-MCA-END
	ret
END(shuf_tput)

/* independent indexed loads from a 4 KiB buffer, summed in pairs */
KERNEL(load_tput)
	xor	%ecx, %ecx
	xor	%eax, %eax
	.p2align 5
1:
# LLVM-MCA-BEGIN load_tput
	mov	(%rsi,%rcx,8), %r8
	mov	8(%rsi,%rcx,8), %r9
	mov	16(%rsi,%rcx,8), %r10
	mov	24(%rsi,%rcx,8), %r11
	mov	32(%rsi,%rcx,8), %rdx
	mov	40(%rsi,%rcx,8), %rax
	add	$8, %rcx
	and	$255, %rcx
	dec	%rdi
	jnz	1b
# LLVM-MCA-END
	ret
END(load_tput)

/* independent lea, and, or, sub: the integer ALUs */
KERNEL(alu_mix)
	mov	$1, %edx
	.p2align 5
1:
# LLVM-MCA-BEGIN alu_mix
	lea	1(%rax), %rax
	and	%rdx, %rcx
	or	%rdx, %r8
	sub	%rdx, %r9
	lea	3(%r10), %r10
	and	%rdx, %r11
	or	%rdx, %rsi
	dec	%rdi
	jnz	1b
# LLVM-MCA-END
	ret
END(alu_mix)

/* a dot product's inner loop: FMAs with folded loads, two accumulators */
KERNEL(dot)
	vxorpd	%ymm0, %ymm0, %ymm0
	vxorpd	%ymm2, %ymm2, %ymm2
	vxorpd	%ymm1, %ymm1, %ymm1
	xor	%ecx, %ecx
	.p2align 5
1:
# LLVM-MCA-BEGIN dot
	vfmadd231pd (%rsi,%rcx), %ymm1, %ymm0
	vfmadd231pd 32(%rsi,%rcx), %ymm1, %ymm2
	add	$64, %rcx
	and	$4095, %rcx
	dec	%rdi
	jnz	1b
# LLVM-MCA-END
	vzeroupper
	ret
END(dot)

/* a wide mix of every kind: adds, loads, vector adds, a store */
KERNEL(wide_mix)
	mov	$1, %edx
	vpxor	%xmm15, %xmm15, %xmm15
	.p2align 5
1:
# LLVM-MCA-BEGIN wide_mix
	add	%rdx, %rax
	mov	(%rsi), %r8
	vpaddd	%xmm15, %xmm0, %xmm0
	add	%rdx, %rcx
	mov	%rdx, 64(%rsi)
	mov	8(%rsi), %r9
	vpaddd	%xmm15, %xmm1, %xmm1
	add	%rdx, %r10
	dec	%rdi
	jnz	1b
# LLVM-MCA-END
	ret
END(wide_mix)

	.section .note.GNU-stack,"",@progbits
