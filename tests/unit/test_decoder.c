/*
 * test_decoder.c - the one decoder: lengths, branch kinds and targets,
 * execution classes, registers, memory operands and effective addresses,
 * for x86-64 (Zydis) and POWER (capstone + libitrace's ISA 3.0/3.1 table).
 * The encodings are byte-exact output of GNU as, checked with objdump.
 */
#include <elf.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <link.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "decoder_int.h"
#include "itrace.h"

static struct itrace_decoder *x86(void)
{
	struct itrace_decoder *d;

	assert_int_equal(itrace_decoder_alloc(EM_X86_64, ELFDATA2LSB, &d), 0);
	return d;
}

static struct itrace_decoder *ppc(int big)
{
	struct itrace_decoder *d;

	assert_int_equal(itrace_decoder_alloc(EM_PPC64, big ? ELFDATA2MSB : ELFDATA2LSB, &d), 0);
	return d;
}

static int has_reg(const uint8_t *list, unsigned n, unsigned reg)
{
	for (unsigned i = 0; i < n; i++)
		if (list[i] == reg)
			return 1;
	return 0;
}

/* info - decode completely; fast and full paths must agree on d. */
static struct itrace_insn_info info(struct itrace_decoder *d, const uint8_t *b, size_t n, uint64_t addr)
{
	struct itrace_insn_info in;
	struct itrace_decoded fast;

	assert_int_equal(itrace_decoder_info(d, b, n, addr, &in), 0);
	assert_int_equal(itrace_decoder_decode(d, b, n, addr, &fast), 0);
	assert_int_equal(fast.len, in.d.len);
	assert_int_equal(fast.kind, in.d.kind);
	assert_int_equal(fast.flags, in.d.flags);
	assert_int_equal(fast.target, in.d.target);
	return in;
}

#define B(...) ((const uint8_t[]){__VA_ARGS__}), sizeof((const uint8_t[]){__VA_ARGS__})

/* ---- x86-64: kinds ------------------------------------------------------- */

struct x86_case {
	const char *what;
	uint8_t bytes[8];
	size_t n;
	uint8_t len, kind;
	int has_target;
	uint64_t target;
	uint8_t flags; /* REP, TRAP */
};

static void test_x86_kinds(void **state)
{
	static const struct x86_case cases[] = {
		{"call rel32", {0xe8, 0x10, 0, 0, 0}, 5, 5, ITRACE_BRANCH_CALL, 1, 0x1000 + 5 + 0x10, 0},
		{"ret", {0xc3}, 1, 1, ITRACE_BRANCH_RETURN, 0, 0, 0},
		{"ret far", {0xcb}, 1, 1, ITRACE_BRANCH_RETURN, 0, 0, 0},
		{"iretq", {0x48, 0xcf}, 2, 2, ITRACE_BRANCH_RETURN, 0, 0, 0},
		{"je rel8", {0x74, 0x02}, 2, 2, ITRACE_BRANCH_COND, 1, 0x1004, 0},
		{"jmp rel8", {0xeb, 0xfe}, 2, 2, ITRACE_BRANCH_UNCOND, 1, 0x1000, 0},
		{"loop", {0xe2, 0xfe}, 2, 2, ITRACE_BRANCH_COND, 1, 0x1000, 0},
		{"loope", {0xe1, 0xfe}, 2, 2, ITRACE_BRANCH_COND, 1, 0x1000, 0},
		{"loopne", {0xe0, 0xfe}, 2, 2, ITRACE_BRANCH_COND, 1, 0x1000, 0},
		{"jrcxz", {0xe3, 0xfe}, 2, 2, ITRACE_BRANCH_COND, 1, 0x1000, 0},
		{"jecxz", {0x67, 0xe3, 0xfd}, 3, 3, ITRACE_BRANCH_COND, 1, 0x1000, 0},
		{"xbegin", {0xc7, 0xf8, 0x10, 0, 0, 0}, 6, 6, ITRACE_BRANCH_COND, 1, 0x1016, 0},
		{"xend", {0x0f, 0x01, 0xd5}, 3, 3, ITRACE_INSN_NOT_BRANCH, 0, 0, 0},
		{"call *rax", {0xff, 0xd0}, 2, 2, ITRACE_BRANCH_INDIRECT_CALL, 0, 0, 0},
		{"call far [rax]", {0xff, 0x18}, 2, 2, ITRACE_BRANCH_INDIRECT_CALL, 0, 0, 0},
		{"jmp *rax", {0xff, 0xe0}, 2, 2, ITRACE_BRANCH_INDIRECT, 0, 0, 0},
		{"jmp *(%rbx)", {0xff, 0x23}, 2, 2, ITRACE_BRANCH_INDIRECT, 0, 0, 0},
		{"jmp far [rax]", {0xff, 0x28}, 2, 2, ITRACE_BRANCH_INDIRECT, 0, 0, 0},
		{"notrack jmp *(%rax)", {0x3e, 0xff, 0x20}, 3, 3, ITRACE_BRANCH_INDIRECT, 0, 0, 0},
		{"syscall", {0x0f, 0x05}, 2, 2, ITRACE_BRANCH_SYSCALL, 0, 0, 0},
		{"sysenter", {0x0f, 0x34}, 2, 2, ITRACE_BRANCH_SYSCALL, 0, 0, 0},
		{"int3", {0xcc}, 1, 1, ITRACE_BRANCH_SYSCALL, 0, 0, ITRACE_DECODED_TRAP},
		{"int $0x80", {0xcd, 0x80}, 2, 2, ITRACE_BRANCH_SYSCALL, 0, 0, ITRACE_DECODED_TRAP},
		{"rep movsb", {0xf3, 0xa4}, 2, 2, ITRACE_INSN_NOT_BRANCH, 0, 0, ITRACE_DECODED_REP},
		{"rep stosb", {0xf3, 0xaa}, 2, 2, ITRACE_INSN_NOT_BRANCH, 0, 0, ITRACE_DECODED_REP},
		{"repne scasb", {0xf2, 0xae}, 2, 2, ITRACE_INSN_NOT_BRANCH, 0, 0, ITRACE_DECODED_REP},
		{"movsb", {0xa4}, 1, 1, ITRACE_INSN_NOT_BRANCH, 0, 0, 0},
		{"movsd (SSE, F2 is no rep)", {0xf2, 0x0f, 0x10, 0xc1}, 4, 4, ITRACE_INSN_NOT_BRANCH, 0, 0, 0},
		{"nop", {0x90}, 1, 1, ITRACE_INSN_NOT_BRANCH, 0, 0, 0},
		{"mov $1,%eax", {0xb8, 1, 0, 0, 0}, 5, 5, ITRACE_INSN_NOT_BRANCH, 0, 0, 0},
		{"data16 data16 rex.W call (TLS)", {0x66, 0x66, 0x48, 0xe8, 0xc8, 0x3b, 0xff, 0xff}, 8, 8,
		 ITRACE_BRANCH_CALL, 1, 0x1000 + 8 - 0xc438, 0},
	};
	struct itrace_decoder *d = x86();

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct x86_case *c = &cases[i];
		struct itrace_insn_info in = info(d, c->bytes, c->n, 0x1000);

		print_message("%s\n", c->what);
		assert_int_equal(in.d.len, c->len);
		assert_int_equal(in.d.kind, c->kind);
		assert_int_equal(!!(in.d.flags & ITRACE_DECODED_HAS_TARGET), c->has_target);
		if (c->has_target)
			assert_int_equal(in.d.target, c->target);
		assert_int_equal(in.d.flags & (ITRACE_DECODED_REP | ITRACE_DECODED_TRAP), c->flags);
	}
	itrace_decoder_free(d);
}

static void test_x86_bad_bytes(void **state)
{
	struct itrace_decoder *d = x86();
	struct itrace_decoded di;
	struct itrace_insn_info in;
	char text[16];

	(void)state;
	/* push %es is not valid in 64-bit mode; a call cut short; a vgatherdps
	 * whose mask is its index register (#UD, Intel SDM VGATHERDPS) */
	assert_int_equal(itrace_decoder_decode(d, B(0x06), 0, &di), -ITRACE_E_DECODE);
	assert_int_equal(itrace_decoder_decode(d, B(0xe8, 0x00), 0, &di), -ITRACE_E_DECODE);
	assert_int_equal(itrace_decoder_info(d, B(0xe8, 0x00), 0, &in), -ITRACE_E_DECODE);
	assert_int_equal(itrace_decoder_decode(d, B(0xc4, 0xe2, 0x75, 0x90, 0x04, 0x88), 0, &di),
			 -ITRACE_E_DECODE);
	assert_int_equal(itrace_decoder_text(d, B(0x06), 0, text, sizeof(text)), -ITRACE_E_DECODE);
	assert_int_equal(itrace_decoder_decode(d, NULL, 2, 0, &di), -ITRACE_E_INVAL);
	assert_int_equal(itrace_decoder_info(NULL, B(0x90), 0, &in), -ITRACE_E_INVAL);
	itrace_decoder_free(d);
}

/* ---- x86-64: what capstone 4 could not decode ---------------------------- */

struct ext_case {
	const char *what;
	uint8_t bytes[10];
	size_t n;
	uint8_t cls;
	uint16_t vec_bits;
};

static void test_x86_extensions(void **state)
{
	static const struct ext_case cases[] = {
		/* AVX-512 (EVEX) */
		{"vpternlogd $0x96,%zmm2,%zmm1,%zmm0", {0x62, 0xf3, 0x75, 0x48, 0x25, 0xc2, 0x96}, 7,
		 ITRACE_CLASS_VEC_ALU, 512},
		{"vmovdqu64 (%rsi),%zmm16", {0x62, 0xe1, 0xfe, 0x48, 0x6f, 0x06}, 6, ITRACE_CLASS_LOAD, 512},
		{"vpcmpeqb (%rdi),%zmm0,%k1", {0x62, 0xf1, 0x7d, 0x48, 0x74, 0x0f}, 6, ITRACE_CLASS_VEC_ALU, 512},
		{"vptestmb %ymm17,%ymm17,%k2", {0x62, 0xb2, 0x75, 0x20, 0x26, 0xd1}, 6, ITRACE_CLASS_VEC_ALU, 256},
		{"vfmadd231pd %zmm2,%zmm1,%zmm0", {0x62, 0xf2, 0xf5, 0x48, 0xb8, 0xc2}, 6, ITRACE_CLASS_FP_FMA, 512},
		{"vaddps %zmm1,%zmm2,%zmm3{%k1}{z}", {0x62, 0xf1, 0x6c, 0xc9, 0x58, 0xd9}, 6, ITRACE_CLASS_FP_ADD, 512},
		{"kmovq %k1,%rax", {0xc4, 0xe1, 0xfb, 0x93, 0xc1}, 5, ITRACE_CLASS_MOVE, 0},
		/* CET */
		{"endbr64", {0xf3, 0x0f, 0x1e, 0xfa}, 4, ITRACE_CLASS_NOP, 0},
		{"rdsspq %rax", {0xf3, 0x48, 0x0f, 0x1e, 0xc8}, 5, ITRACE_CLASS_SYSTEM, 0},
		{"incsspq %rax", {0xf3, 0x48, 0x0f, 0xae, 0xe8}, 5, ITRACE_CLASS_SYSTEM, 0},
		/* AMX */
		{"tileloadd (%rax,%rcx,1),%tmm1", {0xc4, 0xe2, 0x7b, 0x4b, 0x0c, 0x08}, 6, ITRACE_CLASS_LOAD, 0},
		{"tdpbssd %tmm2,%tmm3,%tmm1", {0xc4, 0xe2, 0x6b, 0x5e, 0xcb}, 5, ITRACE_CLASS_MATRIX, 0},
		/* VAES, GFNI, SHA */
		{"vaesenc %ymm2,%ymm1,%ymm0", {0xc4, 0xe2, 0x75, 0xdc, 0xc2}, 5, ITRACE_CLASS_CRYPTO, 256},
		{"gf2p8affineqb $0,%xmm1,%xmm0", {0x66, 0x0f, 0x3a, 0xce, 0xc1, 0x00}, 6, ITRACE_CLASS_CRYPTO, 128},
		{"sha256rnds2 %xmm0,%xmm1,%xmm0", {0x0f, 0x38, 0xcb, 0xc1}, 4, ITRACE_CLASS_CRYPTO, 128},
		{"sha1msg1 %xmm1,%xmm0", {0x0f, 0x38, 0xc9, 0xc1}, 4, ITRACE_CLASS_CRYPTO, 128},
		/* and the classes of everyday instructions */
		{"addsd %xmm1,%xmm0", {0xf2, 0x0f, 0x58, 0xc1}, 4, ITRACE_CLASS_FP_ADD, 0},
		{"sqrtsd %xmm1,%xmm0", {0xf2, 0x0f, 0x51, 0xc1}, 4, ITRACE_CLASS_FP_SQRT, 0},
		{"vdivps %ymm2,%ymm0,%ymm0", {0xc5, 0xfc, 0x5e, 0xc2}, 4, ITRACE_CLASS_FP_DIV, 256},
		{"mulsd %xmm1,%xmm0", {0xf2, 0x0f, 0x59, 0xc1}, 4, ITRACE_CLASS_FP_MUL, 0},
		{"pshufb %xmm1,%xmm0", {0x66, 0x0f, 0x38, 0x00, 0xc1}, 5, ITRACE_CLASS_VEC_SHUFFLE, 128},
		{"paddd %xmm1,%xmm0", {0x66, 0x0f, 0xfe, 0xc1}, 4, ITRACE_CLASS_VEC_ALU, 128},
		{"pmulld %xmm1,%xmm0", {0x66, 0x0f, 0x38, 0x40, 0xc1}, 5, ITRACE_CLASS_VEC_MUL, 128},
		{"imul $3,%r9,%r8", {0x4d, 0x6b, 0xc1, 0x03}, 4, ITRACE_CLASS_INT_MUL, 0},
		{"div %rcx", {0x48, 0xf7, 0xf1}, 3, ITRACE_CLASS_INT_DIV, 0},
		{"lock addq $1,(%rdi)", {0xf0, 0x48, 0x83, 0x07, 0x01}, 5, ITRACE_CLASS_ATOMIC, 0},
		{"lfence", {0x0f, 0xae, 0xe8}, 3, ITRACE_CLASS_FENCE, 0},
		{"cpuid", {0x0f, 0xa2}, 2, ITRACE_CLASS_SYSTEM, 0},
		{"rep stosb", {0xf3, 0xaa}, 2, ITRACE_CLASS_STRING, 0},
		{"lea (%rdi,%rcx,4),%rax", {0x48, 0x8d, 0x04, 0x8f}, 4, ITRACE_CLASS_INT_ALU, 0},
		{"fldl (%rax)", {0xdd, 0x00}, 2, ITRACE_CLASS_LOAD, 0},
		{"fmul %st(1),%st", {0xd8, 0xc9}, 2, ITRACE_CLASS_FP_MUL, 0},
	};
	struct itrace_decoder *d = x86();

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct itrace_insn_info in = info(d, cases[i].bytes, cases[i].n, 0x1000);

		print_message("%s\n", cases[i].what);
		assert_int_equal(in.d.len, cases[i].n);
		assert_int_equal(in.d.kind, ITRACE_INSN_NOT_BRANCH);
		assert_string_equal(itrace_insn_class_name(in.cls), itrace_insn_class_name(cases[i].cls));
		assert_int_equal(in.vec_bits, cases[i].vec_bits);
	}
	itrace_decoder_free(d);
}

/* ---- x86-64: registers, memory operands, idioms ------------------------- */

static void test_x86_registers(void **state)
{
	struct itrace_decoder *d = x86();
	struct itrace_insn_info in;

	(void)state;
	in = info(d, B(0x48, 0x01, 0xd8), 0); /* add %rbx,%rax */
	assert_int_equal(in.nread, 2);
	assert_true(has_reg(in.read, in.nread, ITRACE_REG_GPR(0)) && has_reg(in.read, in.nread, ITRACE_REG_GPR(3)));
	assert_true(has_reg(in.write, in.nwrite, ITRACE_REG_GPR(0)) &&
		    has_reg(in.write, in.nwrite, ITRACE_REG_FLAGS));
	assert_string_equal(itrace_decoder_reg_name(d, ITRACE_REG_GPR(3)), "rbx");
	in = info(d, B(0x75, 0xf0), 0); /* jnz reads the flags */
	assert_true(has_reg(in.read, in.nread, ITRACE_REG_FLAGS));
	in = info(d, B(0x88, 0xd8), 0); /* mov %bl,%al: a partial write depends on rax */
	assert_true(has_reg(in.read, in.nread, ITRACE_REG_GPR(0)));
	in = info(d, B(0x62, 0xf1, 0x6c, 0xc9, 0x58, 0xd9), 0); /* vaddps ... {%k1}{z} */
	assert_true(has_reg(in.read, in.nread, ITRACE_REG_MASK0 + 1));
	assert_true(has_reg(in.write, in.nwrite, ITRACE_REG_VEC(3)));
	in = info(d, B(0x62, 0xf2, 0xf5, 0x48, 0xb8, 0xc2), 0); /* vfmadd231pd: no k0 read */
	assert_false(has_reg(in.read, in.nread, ITRACE_REG_MASK0));
	assert_true(has_reg(in.read, in.nread, ITRACE_REG_VEC(0)));
	in = info(d, B(0xf3, 0x48, 0x0f, 0x1e, 0xc8), 0); /* rdsspq %rax */
	assert_true(has_reg(in.read, in.nread, ITRACE_REG_SSP));
	assert_true(has_reg(in.write, in.nwrite, ITRACE_REG_GPR(0)));
	in = info(d, B(0xc4, 0xe2, 0x6b, 0x5e, 0xcb), 0); /* tdpbssd %tmm2,%tmm3,%tmm1 */
	assert_true(has_reg(in.write, in.nwrite, ITRACE_REG_TILE0 + 1));
	assert_true(has_reg(in.read, in.nread, ITRACE_REG_TILE0 + 3));

	/* idioms */
	assert_true(info(d, B(0x31, 0xc0), 0).attrs & ITRACE_ATTR_ZERO_IDIOM);	     /* xor eax,eax */
	assert_true(info(d, B(0x0f, 0x57, 0xdb), 0).attrs & ITRACE_ATTR_ZERO_IDIOM); /* xorps */
	assert_true(info(d, B(0xc5, 0xf1, 0xef, 0xc9), 0).attrs & ITRACE_ATTR_ZERO_IDIOM); /* vpxor */
	assert_false(info(d, B(0x31, 0xd8), 0).attrs & ITRACE_ATTR_ZERO_IDIOM); /* xor ebx,eax */
	assert_true(info(d, B(0x66, 0x0f, 0x76, 0xe4), 0).attrs & ITRACE_ATTR_ONES_IDIOM); /* pcmpeqd */
	assert_true(info(d, B(0x48, 0x89, 0xd8), 0).attrs & ITRACE_ATTR_REG_MOVE); /* mov %rbx,%rax */
	assert_true(info(d, B(0x89, 0xd8), 0).attrs & ITRACE_ATTR_REG_MOVE);	      /* mov %ebx,%eax */
	assert_false(info(d, B(0x88, 0xd8), 0).attrs & ITRACE_ATTR_REG_MOVE);      /* mov %bl,%al */
	assert_true(info(d, B(0x0f, 0x28, 0xc1), 0).attrs & ITRACE_ATTR_REG_MOVE); /* movaps */
	assert_true(info(d, B(0x48, 0x39, 0xd8), 0).attrs & ITRACE_ATTR_FUSIBLE);  /* cmp %rbx,%rax */
	assert_false(info(d, B(0x48, 0x83, 0x3f, 0x01), 0).attrs & ITRACE_ATTR_FUSIBLE); /* cmpq $1,(%rdi) */
	assert_true(info(d, B(0x53), 0).attrs & ITRACE_ATTR_STACK);		  /* push %rbx */
	assert_true(info(d, B(0xf0, 0x48, 0x83, 0x07, 0x01), 0).attrs & ITRACE_ATTR_LOCK);
	assert_true(info(d, B(0x48, 0x87, 0x03), 0).attrs & ITRACE_ATTR_LOCK); /* xchg with memory */
	assert_true(info(d, B(0x0f, 0x0b), 0).attrs & ITRACE_ATTR_TRAP);	  /* ud2 */
	assert_true(info(d, B(0x0f, 0xa2), 0).attrs & ITRACE_ATTR_SERIALIZING);  /* cpuid */
	assert_true(info(d, B(0x48, 0x8d, 0x04, 0x8f), 0).attrs & ITRACE_ATTR_ADDRESS_ONLY); /* lea */
	/* immediate-folding candidates and operand sizes */
	assert_true(info(d, B(0x48, 0x83, 0xc0, 0x01), 0).attrs & ITRACE_ATTR_ADD_IMM);  /* add $1,%rax */
	assert_true(info(d, B(0xff, 0xc9), 0).attrs & ITRACE_ATTR_ADD_IMM);		 /* dec %ecx */
	assert_false(info(d, B(0x48, 0x01, 0xd8), 0).attrs & ITRACE_ATTR_ADD_IMM);	 /* add %rbx,%rax */
	assert_false(info(d, B(0x48, 0x83, 0x07, 0x01), 0).attrs & ITRACE_ATTR_ADD_IMM); /* addq $1,(%rdi) */
	assert_false(info(d, B(0x48, 0xc1, 0xe0, 0x01), 0).attrs & ITRACE_ATTR_ADD_IMM); /* shl $1,%rax */
	assert_int_equal(info(d, B(0x48, 0xf7, 0xf1), 0).op_bits, 64); /* div %rcx */
	assert_int_equal(info(d, B(0xf7, 0xf1), 0).op_bits, 32);	/* div %ecx */
	itrace_decoder_free(d);
}

/* accesses - the instruction's loads and stores with registers r. */
static int accesses(struct itrace_decoder *d, const uint8_t *b, size_t n, uint64_t addr,
		    const struct itrace_regs *r, struct itrace_mem_access *out)
{
	struct itrace_insn_info in = info(d, b, n, addr);

	return itrace_insn_mem_accesses(&in, r, out, 8);
}

/*
 * The check that ends a rep loop whose count ran out (ITRACE.md 6.5.2):
 * one more record after a step that made the last iteration, unless cmps
 * or scas ended the loop by their comparison (repe: ZF clear; repne: ZF
 * set).
 */
static void test_x86_rep_final_check(void **state)
{
	struct itrace_decoder *d = x86();
	struct itrace_regs before, after;
	struct itrace_insn_info movs = info(d, B(0xf3, 0xa4), 0), repe = info(d, B(0xf3, 0xa6), 0);
	struct itrace_insn_info repne = info(d, B(0xf2, 0xae), 0), rep32 = info(d, B(0x67, 0xf3, 0xaa), 0);
	struct itrace_insn_info plain = info(d, B(0xa4), 0);

	(void)state;
	assert_int_equal(movs.attrs & (ITRACE_ATTR_REPE | ITRACE_ATTR_REPNE), 0);
	assert_int_equal(repe.attrs & (ITRACE_ATTR_REPE | ITRACE_ATTR_REPNE), ITRACE_ATTR_REPE);
	assert_int_equal(repne.attrs & (ITRACE_ATTR_REPE | ITRACE_ATTR_REPNE), ITRACE_ATTR_REPNE);
	memset(&before, 0, sizeof(before));
	memset(&after, 0, sizeof(after));
	before.gpr[1] = 1;
	/* the count ran out */
	assert_true(itrace_insn_rep_final_check(&movs, &before, &after));
	/* a zero count: no iteration, no second check */
	before.gpr[1] = 0;
	assert_false(itrace_insn_rep_final_check(&movs, &before, &after));
	/* not the last iteration */
	before.gpr[1] = 2;
	after.gpr[1] = 1;
	assert_false(itrace_insn_rep_final_check(&movs, &before, &after));
	/* cmps, scas: the comparison decides first */
	before.gpr[1] = 1;
	after.gpr[1] = 0;
	after.flags = 1u << 6; /* ZF */
	assert_true(itrace_insn_rep_final_check(&repe, &before, &after));
	assert_false(itrace_insn_rep_final_check(&repne, &before, &after));
	after.flags = 0;
	assert_false(itrace_insn_rep_final_check(&repe, &before, &after));
	assert_true(itrace_insn_rep_final_check(&repne, &before, &after));
	/* addr32 counts in ecx */
	before.gpr[1] = 1ull << 32 | 1;
	after.gpr[1] = 1ull << 32;
	assert_true(itrace_insn_rep_final_check(&rep32, &before, &after));
	assert_false(itrace_insn_rep_final_check(&movs, &before, &after));
	assert_false(itrace_insn_rep_final_check(&plain, &before, &after));
	assert_false(itrace_insn_rep_final_check(NULL, &before, &after));
	itrace_decoder_free(d);
}

static void test_x86_memory(void **state)
{
	struct itrace_decoder *d = x86();
	struct itrace_regs r;
	struct itrace_mem_access a[8];
	struct itrace_insn_info in;

	(void)state;
	memset(&r, 0, sizeof(r));
	r.gpr[4] = 0x7000;	/* rsp */
	r.gpr[7] = 0x5000;	/* rdi */
	r.gpr[6] = 0x6000;	/* rsi */
	r.gpr[3] = 0x2000;	/* rbx */
	r.gpr[0] = 0x1234;	/* rax */
	r.gpr[1] = 3;		/* rcx */
	r.fs_base = 0x40000;

	/* mov %rdx,(%rdi,%rcx,8): base, index, scale */
	in = info(d, B(0x48, 0x89, 0x14, 0xcf), 0);
	assert_int_equal(in.nmem, 1);
	assert_int_equal(in.mem[0].flags, ITRACE_MEMOP_WRITE);
	assert_int_equal(in.mem[0].base, ITRACE_REG_GPR(7));
	assert_int_equal(in.mem[0].index, ITRACE_REG_GPR(1));
	assert_int_equal(in.mem[0].scale, 8);
	assert_int_equal(in.mem[0].size, 8);
	assert_int_equal(accesses(d, B(0x48, 0x89, 0x14, 0xcf), 0, &r, a), 1);
	assert_int_equal(a[0].addr, 0x5018);
	assert_int_equal(a[0].store, 1);
	/* push %rbx: a store below rsp */
	assert_int_equal(accesses(d, B(0x53), 0, &r, a), 1);
	assert_int_equal(a[0].addr, 0x6ff8);
	assert_int_equal(a[0].size, 8);
	/* push (%rax): load, then the push */
	assert_int_equal(accesses(d, B(0xff, 0x30), 0, &r, a), 2);
	assert_int_equal(a[0].addr, 0x1234);
	assert_int_equal(a[0].store, 0);
	assert_int_equal(a[1].addr, 0x6ff8);
	assert_int_equal(a[1].store, 1);
	/* pop 8(%rsp): the pop reads rsp, the store uses rsp after the pop */
	assert_int_equal(accesses(d, B(0x8f, 0x44, 0x24, 0x08), 0, &r, a), 2);
	assert_int_equal(a[0].addr, 0x7000);
	assert_int_equal(a[1].addr, 0x7010);
	/* ret, call */
	assert_int_equal(accesses(d, B(0xc3), 0, &r, a), 1);
	assert_int_equal(a[0].addr, 0x7000);
	assert_int_equal(accesses(d, B(0xe8, 0, 0, 0, 0), 0, &r, a), 1);
	assert_int_equal(a[0].addr, 0x6ff8);
	/* rip-relative: after the instruction; fs-relative: plus fs base */
	assert_int_equal(accesses(d, B(0x48, 0x8b, 0x05, 0x10, 0, 0, 0), 0x400000, &r, a), 1);
	assert_int_equal(a[0].addr, 0x400017);
	assert_int_equal(accesses(d, B(0x64, 0x48, 0x8b, 0x04, 0x25, 0x28, 0, 0, 0), 0, &r, a), 1);
	assert_int_equal(a[0].addr, 0x40028);
	/* addr32: the address wraps at 4 GiB */
	r.gpr[0] = 0x100000010ull;
	assert_int_equal(accesses(d, B(0x67, 0x8b, 0x18), 0, &r, a), 1);
	assert_int_equal(a[0].addr, 0x10);
	/* xlat: [rbx + al] */
	r.gpr[0] = 0x1234;
	assert_int_equal(accesses(d, B(0xd7), 0, &r, a), 1);
	assert_int_equal(a[0].addr, 0x2034);
	assert_int_equal(a[0].size, 1);
	/* movsb: load [rsi], store [rdi]; rep with a zero count: nothing */
	assert_int_equal(accesses(d, B(0xf3, 0xa4), 0, &r, a), 2);
	assert_int_equal(a[0].addr, 0x6000);
	assert_int_equal(a[1].addr, 0x5000);
	r.gpr[1] = 0;
	assert_int_equal(accesses(d, B(0xf3, 0xa4), 0, &r, a), 0);
	/* lock add: load and store of one operand */
	assert_int_equal(accesses(d, B(0xf0, 0x48, 0x83, 0x07, 0x01), 0, &r, a), 2);
	assert_int_equal(a[0].store, 0);
	assert_int_equal(a[1].store, 1);
	assert_int_equal(a[1].addr, 0x5000);
	/* lea, nop and prefetch name an address but access nothing */
	assert_int_equal(accesses(d, B(0x48, 0x8d, 0x04, 0x8f), 0, &r, a), 0);
	assert_int_equal(accesses(d, B(0x0f, 0x1f, 0x00), 0, &r, a), 0);
	assert_int_equal(accesses(d, B(0x0f, 0x18, 0x08), 0, &r, a), 0);
	/* a gather: VSIB, no single address from the general registers */
	in = info(d, B(0x62, 0xf2, 0x7d, 0x49, 0x92, 0x04, 0x88), 0);
	assert_int_equal(in.nmem, 1);
	assert_true(in.mem[0].flags & ITRACE_MEMOP_VSIB);
	assert_int_equal(in.mem[0].index, ITRACE_REG_VEC(1));
	assert_int_equal(itrace_insn_mem_accesses(&in, &r, a, 8), 0);
	/* AVX-512 load: 64 bytes */
	assert_int_equal(accesses(d, B(0x62, 0xe1, 0xfe, 0x48, 0x6f, 0x06), 0, &r, a), 1);
	assert_int_equal(a[0].size, 64);
	assert_int_equal(a[0].addr, 0x6000);
	itrace_decoder_free(d);
}

/* ---- x86-64: the fast path agrees with Zydis ------------------------------ */

static void same_answer(struct itrace_decoder *d, const uint8_t *b, size_t n, uint64_t addr)
{
	struct itrace_decoded fast, z;
	int rf = itrace_decoder_decode(d, b, n, addr, &fast), rz = dec_x86_zydis(d, b, n, addr, &z);

	if (rf != rz || (rf == 0 && (fast.len != z.len || fast.kind != z.kind ||
				     fast.flags != z.flags || fast.target != z.target)))
		fail_msg("%02x %02x %02x %02x %02x %02x at 0x%llx: fast %d len %u kind %u flags %u, "
			 "Zydis %d len %u kind %u flags %u",
			 b[0], n > 1 ? b[1] : 0, n > 2 ? b[2] : 0, n > 3 ? b[3] : 0, n > 4 ? b[4] : 0,
			 n > 5 ? b[5] : 0, (unsigned long long)addr, rf, fast.len, fast.kind, fast.flags, rz,
			 z.len, z.kind, z.flags);
}

static int find_libc(struct dl_phdr_info *info, size_t size, void *out)
{
	(void)size;
	if (info->dlpi_name && strstr(info->dlpi_name, "/libc.so")) {
		snprintf(out, 4096, "%s", info->dlpi_name);
		return 1;
	}
	return 0;
}

/* Every byte offset of this machine's libc .text (instruction starts and
 * the middle of instructions alike), then random bytes weighted toward
 * prefixes and the opcodes the fast path handles. */
static void test_x86_fast_path_is_zydis(void **state)
{
	static const uint8_t common[] = {0x66, 0x67, 0xf3, 0xf2, 0x2e, 0x3e, 0x64, 0x48, 0x41, 0x0f,
					 0x8d, 0x8b, 0x89, 0xff, 0xf7, 0xc7, 0x8f, 0xe8, 0x1f, 0x1e};
	struct itrace_decoder *d = x86();
	char path[4096] = "";
	int fd;
	Elf *e;
	Elf_Scn *scn = NULL;
	size_t shstr, checked = 0;
	uint64_t rng = 0x853c49e6748fea9bull;

	(void)state;
	dl_iterate_phdr(find_libc, path);
	assert_true(path[0]);
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	assert_non_null(e);
	assert_int_equal(elf_getshdrstrndx(e, &shstr), 0);
	while ((scn = elf_nextscn(e, scn)) != NULL) {
		GElf_Shdr sh;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_EXECINSTR) || sh.sh_type != SHT_PROGBITS)
			continue;
		data = elf_getdata(scn, NULL);
		assert_non_null(data);
		for (size_t off = 0; off < data->d_size; off++, checked++)
			same_answer(d, (const uint8_t *)data->d_buf + off, data->d_size - off, sh.sh_addr + off);
	}
	elf_end(e);
	close(fd);
	assert_true(checked > 1000000);
	/* every prefix set x opcode (one-byte and 0F maps) x ModRM byte */
	{
		static const uint8_t prefixes[][3] = {{0}, {1, 0x66}, {1, 0x67}, {1, 0xf3}, {1, 0x2e},
						      {1, 0x48}, {2, 0x66, 0x48}, {1, 0x41},
						      {2, 0xf3, 0x0f}, {2, 0x66, 0x0f}, {1, 0x0f}};

		for (size_t p = 0; p < sizeof(prefixes) / sizeof(prefixes[0]); p++)
			for (unsigned op = 0; op < 256; op++)
				for (unsigned m = 0; m < 256; m++) {
					uint8_t b[16];
					size_t n = prefixes[p][0];

					memcpy(b, prefixes[p] + 1, n);
					b[n] = (uint8_t)op;
					b[n + 1] = (uint8_t)m;
					memset(b + n + 2, 0x25, sizeof(b) - n - 2);
					same_answer(d, b, sizeof(b), 0x7000);
					same_answer(d, b, n + 3, 0x7000); /* cut short */
				}
	}
	for (int i = 0; i < 400000; i++) {
		uint8_t b[16];

		for (int k = 0; k < 16; k++) {
			rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
			b[k] = (rng & 0x300) ? (uint8_t)rng : common[(rng >> 16) % sizeof(common)];
		}
		same_answer(d, b, 1 + (rng >> 40) % 16, 0x400000);
	}
	itrace_decoder_free(d);
}

static void test_x86_text(void **state)
{
	struct itrace_decoder *d = x86();
	char buf[64];

	(void)state;
	assert_int_equal(itrace_decoder_text(d, B(0xb8, 1, 0, 0, 0), 0, buf, sizeof(buf)), 5);
	assert_string_equal(buf, "mov eax, 0x1");
	assert_int_equal(itrace_decoder_text(d, B(0x48, 0x8b, 0x00), 0, buf, sizeof(buf)), 3);
	assert_string_equal(buf, "mov rax, qword ptr [rax]");
	assert_int_equal(itrace_decoder_text(d, B(0xe8, 0x10, 0, 0, 0), 0x1000, buf, sizeof(buf)), 5);
	assert_string_equal(buf, "call 0x1015");
	assert_int_equal(itrace_decoder_text(d, B(0xf3, 0x48, 0x0f, 0x1e, 0xc8), 0, buf, sizeof(buf)), 5);
	assert_string_equal(buf, "rdsspq rax");
	assert_int_equal(itrace_decoder_text(d, B(0xb8, 1, 0, 0, 0), 0, buf, 4), 5); /* cut, terminated */
	assert_true(strlen(buf) < 4);
	itrace_decoder_free(d);
}

/* ---- POWER --------------------------------------------------------------- */

static void put_word(uint8_t *p, uint32_t w, int big)
{
	for (int i = 0; i < 4; i++)
		p[big ? i : 3 - i] = (uint8_t)(w >> (24 - 8 * i));
}

struct ppc_case {
	const char *what;
	uint32_t word;
	uint8_t kind;
	int has_target;
	uint64_t target;
};

static void check_ppc_kinds(int big)
{
	static const struct ppc_case cases[] = {
		{"blr", 0x4e800020, ITRACE_BRANCH_RETURN, 0, 0},
		{"bl +8", 0x48000009, ITRACE_BRANCH_CALL, 1, 0x2008},
		{"b -4", 0x4bfffffc, ITRACE_BRANCH_UNCOND, 1, 0x1ffc},
		{"ba 0x100", 0x48000102, ITRACE_BRANCH_UNCOND, 1, 0x100},
		{"beq +8", 0x41820008, ITRACE_BRANCH_COND, 1, 0x2008},
		{"bdnz -8", 0x4200fff8, ITRACE_BRANCH_COND, 1, 0x1ff8},
		{"bcl 20,31,+4", 0x429f0005, ITRACE_BRANCH_CALL, 1, 0x2004},
		{"bctr", 0x4e800420, ITRACE_BRANCH_INDIRECT, 0, 0},
		{"bctrl", 0x4e800421, ITRACE_BRANCH_INDIRECT_CALL, 0, 0},
		{"blrl", 0x4e800021, ITRACE_BRANCH_INDIRECT_CALL, 0, 0},
		{"beqlr", 0x4d820020, ITRACE_BRANCH_COND, 0, 0},
		{"sc", 0x44000002, ITRACE_BRANCH_SYSCALL, 0, 0},
		{"scv 0 (ISA 3.0)", 0x44000001, ITRACE_BRANCH_SYSCALL, 0, 0},
		{"addi r3,r3,1", 0x38630001, ITRACE_INSN_NOT_BRANCH, 0, 0},
	};
	struct itrace_decoder *d = ppc(big);
	uint8_t buf[4];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct itrace_insn_info in;

		print_message("%s\n", cases[i].what);
		put_word(buf, cases[i].word, big);
		in = info(d, buf, 4, 0x2000);
		assert_int_equal(in.d.len, 4);
		assert_int_equal(in.d.kind, cases[i].kind);
		assert_int_equal(!!(in.d.flags & ITRACE_DECODED_HAS_TARGET), cases[i].has_target);
		if (cases[i].has_target)
			assert_int_equal(in.d.target, cases[i].target);
	}
	itrace_decoder_free(d);
}

static void test_ppc64le_kinds(void **state)
{
	(void)state;
	check_ppc_kinds(0);
}

static void test_ppc64_big_kinds(void **state)
{
	(void)state;
	check_ppc_kinds(1);
}

struct isa_case {
	const char *text;   /* objdump's text of the word */
	uint32_t word;
	uint8_t cls;
	uint32_t mem_size;  /* 0: no memory operand */
	int store;
};

/* Power ISA 2.07/3.0/3.1 instructions capstone 4 does not decode (words
 * from GNU as -mpower10, checked with objdump). */
static void test_ppc_isa3(void **state)
{
	static const struct isa_case cases[] = {
		{"lxv vs40,32(r3)", 0xf5030029, ITRACE_CLASS_LOAD, 16, 0},
		{"stxv vs40,-16(r3)", 0xf503fffd, ITRACE_CLASS_STORE, 16, 1},
		{"lxvp vs40,64(r3)", 0x19230040, ITRACE_CLASS_LOAD, 32, 0},
		{"lxvll vs40,r3,r4", 0x7d03225b, ITRACE_CLASS_LOAD, 16, 0},
		{"lwarx r3,0,r31,1", 0x7c60f829, ITRACE_CLASS_ATOMIC, 4, 0},
		{"lbarx r3,r4,r5,1", 0x7c642869, ITRACE_CLASS_ATOMIC, 1, 0},
		{"mtfprd f0,r1", 0x7c010166, ITRACE_CLASS_MOVE, 0, 0},
		{"mtvrd v2,r3", 0x7c430167, ITRACE_CLASS_MOVE, 0, 0},
		{"cnttzd. r3,r4", 0x7c830475, ITRACE_CLASS_INT_ALU, 0, 0},
		{"setbc r3,4*cr7+gt", 0x7c7d0300, ITRACE_CLASS_INT_ALU, 0, 0},
		{"extswsli r3,r4,33", 0x7c830ef6, ITRACE_CLASS_INT_ALU, 0, 0},
		{"xxspltib vs40,200", 0xf10642d1, ITRACE_CLASS_MOVE, 0, 0},
		{"mffsl f3", 0xfc78048e, ITRACE_CLASS_MOVE, 0, 0},
		{"xsaddqp v2,v3,v4", 0xfc432008, ITRACE_CLASS_FP_ADD, 0, 0},
		{"vextractbm r3,v4", 0x10682642, ITRACE_CLASS_VEC_ALU, 0, 0},
		{"vcmpnezw. v2,v3,v4", 0x10432587, ITRACE_CLASS_VEC_ALU, 0, 0},
		{"maddld r3,r4,r5,r6", 0x106429b3, ITRACE_CLASS_INT_MUL, 0, 0},
		{"scv 1", 0x44000021, ITRACE_CLASS_SYSTEM, 0, 0},
	};
	struct itrace_decoder *d = ppc(0);
	uint8_t buf[4];
	char text[64];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct itrace_insn_info in;
		char mn[16];

		print_message("%s\n", cases[i].text);
		put_word(buf, cases[i].word, 0);
		in = info(d, buf, 4, 0x2000);
		assert_true(in.attrs & ITRACE_ATTR_OWN_TABLE);
		assert_int_equal(in.cls, cases[i].cls);
		assert_int_equal(in.nmem, cases[i].mem_size ? 1 : 0);
		if (cases[i].mem_size) {
			assert_int_equal(in.mem[0].size, cases[i].mem_size);
			assert_int_equal(!!(in.mem[0].flags & ITRACE_MEMOP_WRITE), cases[i].store);
		}
		assert_int_equal(itrace_decoder_text(d, buf, 4, 0x2000, text, sizeof(text)), 4);
		/* the same base instruction as objdump (which prefers some
		 * extended mnemonics: mtfprd for mtvsrd) */
		sscanf(cases[i].text, "%15s", mn);
		if (strncmp(mn, "mtfprd", 6) && strncmp(mn, "mtvrd", 5))
			assert_int_equal(strncmp(text, mn, strlen(mn)), 0);
	}
	/* lwarx with EH: load and reserve; registers RT written, RB read */
	put_word(buf, 0x7c60f829, 0);
	{
		struct itrace_insn_info in = info(d, buf, 4, 0);

		assert_true(in.attrs & ITRACE_ATTR_LOAD_RESERVE);
		assert_true(has_reg(in.write, in.nwrite, ITRACE_REG_GPR(3)));
		assert_true(has_reg(in.read, in.nread, ITRACE_REG_GPR(31)));
		assert_int_equal(in.mem[0].base, ITRACE_REG_NONE); /* RA = 0 reads as 0 */
	}
	/* mtvrd v2,r3 writes VR 2, which is VSR 34 */
	put_word(buf, 0x7c430167, 0);
	assert_true(has_reg(info(d, buf, 4, 0).write, 1, ITRACE_REG_VEC(34)));
	/* vcmpnezw. sets CR6 */
	put_word(buf, 0x10432587, 0);
	{
		struct itrace_insn_info in = info(d, buf, 4, 0);

		assert_true(has_reg(in.write, in.nwrite, ITRACE_REG_CR(6)));
	}
	/* word 0 and a reserved form do not decode */
	put_word(buf, 0, 0);
	assert_int_equal(itrace_decoder_decode(d, buf, 4, 0, &(struct itrace_decoded){0}), -ITRACE_E_DECODE);
	put_word(buf, 0x7c010866, 0); /* mfvsrd with RB != 0 */
	assert_int_equal(itrace_decoder_decode(d, buf, 4, 0, &(struct itrace_decoded){0}), -ITRACE_E_DECODE);
	itrace_decoder_free(d);
}

static void test_ppc_capstone_forms(void **state)
{
	struct itrace_decoder *d = ppc(0);
	struct itrace_insn_info in;
	uint8_t buf[4];

	(void)state;
	put_word(buf, 0x80640008, 0); /* lwz r3,8(r4) */
	in = info(d, buf, 4, 0);
	assert_int_equal(in.cls, ITRACE_CLASS_LOAD);
	assert_int_equal(in.mem[0].size, 4);
	assert_int_equal(in.mem[0].disp, 8);
	assert_int_equal(in.mem[0].base, ITRACE_REG_GPR(4));
	assert_false(in.attrs & ITRACE_ATTR_OWN_TABLE);
	put_word(buf, 0xf821ffd1, 0); /* stdu r1,-48(r1): RA updated */
	in = info(d, buf, 4, 0);
	assert_int_equal(in.cls, ITRACE_CLASS_STORE);
	assert_true(has_reg(in.write, in.nwrite, ITRACE_REG_GPR(1)));
	assert_int_equal(in.mem[0].disp, -48);
	put_word(buf, 0x7c6429d2, 0); /* mulld r3,r4,r5 */
	assert_int_equal(info(d, buf, 4, 0).cls, ITRACE_CLASS_INT_MUL);
	put_word(buf, 0x7c7f1b78, 0); /* mr r31,r3 */
	in = info(d, buf, 4, 0);
	assert_int_equal(in.cls, ITRACE_CLASS_MOVE);
	assert_true(in.attrs & ITRACE_ATTR_REG_MOVE);
	put_word(buf, 0x2c230000, 0); /* cmpdi r3,0: writes cr0 */
	in = info(d, buf, 4, 0);
	assert_true(has_reg(in.write, in.nwrite, ITRACE_REG_CR(0)));
	assert_true(has_reg(in.read, in.nread, ITRACE_REG_GPR(3)));
	put_word(buf, 0x4200fff8, 0); /* bdnz: reads and writes ctr */
	in = info(d, buf, 4, 0);
	assert_true(has_reg(in.read, in.nread, ITRACE_REG_CTR) && has_reg(in.write, in.nwrite, ITRACE_REG_CTR));
	put_word(buf, 0x7c2004ac, 0); /* lwsync */
	assert_int_equal(info(d, buf, 4, 0).cls, ITRACE_CLASS_FENCE);
	put_word(buf, 0xfc22207a, 0); /* fmadd f1,f2,f1,f4 */
	assert_int_equal(info(d, buf, 4, 0).cls, ITRACE_CLASS_FP_FMA);
	itrace_decoder_free(d);
}

/* Prefixed instructions (Power ISA 3.1, 1.6.3): one 8-byte instruction,
 * prefix word first in either byte order. */
static void put_pair(uint8_t *p, uint32_t prefix, uint32_t suffix, int big)
{
	put_word(p, prefix, big);
	put_word(p + 4, suffix, big);
}

struct prefixed_case {
	const char *text;
	uint32_t prefix, suffix;
	uint8_t cls;
	uint32_t mem_size;
	int store, pcrel;
	int64_t disp;
};

static void check_prefixed(int big)
{
	static const struct prefixed_case cases[] = {
		{"pld r3,16(r4)", 0x04000000, 0xe4640010, ITRACE_CLASS_LOAD, 8, 0, 0, 16},
		{"pld r3,-8 (pc-relative)", 0x0413ffff, 0xe460fff8, ITRACE_CLASS_LOAD, 8, 0, 1, -8},
		{"plq r4,32(r3)", 0x04000000, 0xe0830020, ITRACE_CLASS_LOAD, 16, 0, 0, 32},
		{"pstd r3,16(r4)", 0x04000000, 0xf4640010, ITRACE_CLASS_STORE, 8, 1, 0, 16},
		{"plxv vs40,16(r3)", 0x04000000, 0xcd030010, ITRACE_CLASS_LOAD, 16, 0, 0, 16},
		{"plwz r3,16(r4)", 0x06000000, 0x80640010, ITRACE_CLASS_LOAD, 4, 0, 0, 16},
		{"paddi r3,r4,100000", 0x06000001, 0x386486a0, ITRACE_CLASS_INT_ALU, 0, 0, 0, 0},
		{"pla r3,100", 0x06100000, 0x38600064, ITRACE_CLASS_MOVE, 0, 0, 0, 0},
		{"xxspltiw vs40,-1", 0x0500ffff, 0x8107ffff, ITRACE_CLASS_MOVE, 0, 0, 0, 0},
		{"xxblendvb vs40,vs41,vs42,vs43", 0x05000000, 0x850952cf, ITRACE_CLASS_VEC_ALU, 0, 0, 0, 0},
		{"pnop", 0x07000000, 0x00000000, ITRACE_CLASS_NOP, 0, 0, 0, 0},
	};
	struct itrace_decoder *d = ppc(big);
	uint8_t buf[8];
	char text[64];
	struct itrace_regs r;
	struct itrace_mem_access a[4];

	memset(&r, 0, sizeof(r));
	r.gpr[4] = 0x9000;
	r.gpr[3] = 0xa000;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct prefixed_case *c = &cases[i];
		struct itrace_insn_info in;
		char mn[16];

		print_message("%s\n", c->text);
		put_pair(buf, c->prefix, c->suffix, big);
		in = info(d, buf, 8, 0x10000000);
		assert_int_equal(in.d.len, 8);
		assert_int_equal(in.d.kind, ITRACE_INSN_NOT_BRANCH);
		assert_true(in.d.flags & ITRACE_DECODED_PREFIXED);
		assert_int_equal(in.cls, c->cls);
		assert_int_equal(in.nmem, c->mem_size ? 1 : 0);
		assert_int_equal(itrace_decoder_text(d, buf, 8, 0x10000000, text, sizeof(text)), 8);
		sscanf(c->text, "%15s", mn);
		assert_int_equal(strncmp(text, mn, strlen(mn)), 0);
		if (!c->mem_size)
			continue;
		assert_int_equal(in.mem[0].size, c->mem_size);
		assert_int_equal(in.mem[0].disp, c->disp);
		assert_int_equal(!!(in.mem[0].flags & ITRACE_MEMOP_PCREL), c->pcrel);
		assert_int_equal(itrace_insn_mem_accesses(&in, &r, a, 4), 1);
		assert_int_equal(a[0].store, c->store);
		/* pc-relative EAs count from the prefix's address */
		assert_int_equal(a[0].addr, (c->pcrel ? 0x10000000 : in.mem[0].base == ITRACE_REG_GPR(4) ? 0x9000
									       : 0xa000) + (uint64_t)c->disp);
	}
	/* a prefix without its suffix, R = 1 with RA != 0, an 8LS prefix
	 * before an opcode that has no prefixed form */
	put_pair(buf, 0x04000000, 0xe4640010, big);
	assert_int_equal(itrace_decoder_decode(d, buf, 4, 0, &(struct itrace_decoded){0}), -ITRACE_E_DECODE);
	put_pair(buf, 0x04100000, 0xe4640010, big);
	assert_int_equal(itrace_decoder_decode(d, buf, 8, 0, &(struct itrace_decoded){0}), -ITRACE_E_DECODE);
	put_pair(buf, 0x04000000, 0x38600064, big);
	assert_int_equal(itrace_decoder_decode(d, buf, 8, 0, &(struct itrace_decoded){0}), -ITRACE_E_DECODE);
	itrace_decoder_free(d);
}

static void test_ppc64le_prefixed(void **state)
{
	(void)state;
	check_prefixed(0);
}

static void test_ppc64_big_prefixed(void **state)
{
	(void)state;
	check_prefixed(1);
}

/* lxvl/stxvl: the length is the top byte of RB, at most 16 */
static void test_ppc_length_register(void **state)
{
	struct itrace_decoder *d = ppc(0);
	struct itrace_regs r;
	struct itrace_mem_access a[2];
	struct itrace_insn_info in;
	uint8_t buf[4];

	(void)state;
	memset(&r, 0, sizeof(r));
	r.gpr[3] = 0x8000;
	put_word(buf, 0x7c03221a, 0); /* lxvl vs0,r3,r4 */
	in = info(d, buf, 4, 0);
	assert_true(in.mem[0].flags & ITRACE_MEMOP_LEN_REG);
	r.gpr[4] = 5ull << 56;
	assert_int_equal(itrace_insn_mem_accesses(&in, &r, a, 2), 1);
	assert_int_equal(a[0].addr, 0x8000);
	assert_int_equal(a[0].size, 5);
	r.gpr[4] = 200ull << 56;
	assert_int_equal(itrace_insn_mem_accesses(&in, &r, a, 2), 1);
	assert_int_equal(a[0].size, 16);
	r.gpr[4] = 0;
	assert_int_equal(itrace_insn_mem_accesses(&in, &r, a, 2), 0);
	itrace_decoder_free(d);
}

struct ea_case {
	uint32_t word; /* little-endian ppc64 instruction */
	int accesses;
	uint64_t addr;
	uint32_t size;
	uint8_t store;
};

/* POWER effective addresses from the registers (the gdb backend's MEM
 * records), capstone-known and table forms alike. */
static void test_ppc_effective_addresses(void **state)
{
	static const struct ea_case cases[] = {
		{0xe8810008, 1, 0x1008, 8, 0},	      /* ld r4,8(r1) */
		{0xf821ffe1, 1, 0x1000 - 32, 8, 1},   /* stdu r1,-32(r1) */
		{0x7c64282a, 1, 0x4000 + 0x50, 8, 0}, /* ldx r3,r4,r5 */
		{0x7c6020ae, 1, 0x4000, 1, 0},	      /* lbzx r3,0,r4: RA=0 reads as 0 */
		{0x7c60292d, 1, 0x50, 4, 1},	      /* stwcx. r3,0,r5 */
		{0xbbc1fff0, 1, 0x1000 - 16, 8, 0},   /* lmw r30,-16(r1): 2 words */
		{0xc8230008, 1, 0x3008, 8, 0},	      /* lfd f1,8(r3) */
		{0x7c0018ce, 1, 0x3000, 16, 0},	      /* lvx v0,0,r3 (aligned) */
		{0x7c201f98, 1, 0x3000, 16, 1},	      /* stxvd2x vs1,0,r3 */
		{0x7c641c28, 1, 0x4000 + 0x3000, 8, 0}, /* ldbrx r3,r4,r3 */
		{0x90610010, 1, 0x1010, 4, 1},	      /* stw r3,16(r1) */
		{0x7fa0f829, 1, 0x100e0740, 4, 0},    /* lwarx r29,0,r31,1 */
		{0x7c69f8a8, 1, 0x100e0760, 8, 0},    /* ldarx r3,r9,r31 */
		{0x38630001, 0, 0, 0, 0},	      /* addi: no access */
		{0x7c0802a6, 0, 0, 0, 0},	      /* mflr r0 */
		{0x7c001fec, 0, 0, 0, 0},	      /* dcbz 0,r3: block size unknown */
		{0x7c001a2c, 0, 0, 0, 0},	      /* dcbt 0,r3: a hint */
	};
	struct itrace_decoder *d = ppc(0);
	struct itrace_regs r;
	struct itrace_mem_access a[2];
	uint8_t buf[4];

	(void)state;
	memset(&r, 0, sizeof(r));
	r.gpr[0] = 0xdead0000; /* must never be used as a base */
	r.gpr[1] = 0x1000;
	r.gpr[3] = 0x3000;
	r.gpr[4] = 0x4000;
	r.gpr[5] = 0x50;
	r.gpr[9] = 0x20;
	r.gpr[31] = 0x100e0740;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct ea_case *c = &cases[i];
		int n;

		put_word(buf, c->word, 0);
		n = accesses(d, buf, 4, 0x10000000, &r, a);
		if (n != c->accesses || (n && (a[0].addr != c->addr || a[0].size != c->size ||
					       a[0].store != c->store)))
			fail_msg("word 0x%08x: got %d access(es) addr 0x%llx size %u store %u",
				 c->word, n, (unsigned long long)a[0].addr, a[0].size, a[0].store);
	}
	itrace_decoder_free(d);
}

static void test_unsupported(void **state)
{
	struct itrace_decoder *d = (void *)1;

	(void)state;
	assert_int_equal(itrace_decoder_alloc(EM_AARCH64, ELFDATA2LSB, &d), -ITRACE_E_NOTSUP);
	assert_null(d);
	assert_int_equal(itrace_decoder_alloc(EM_X86_64, ELFDATA2MSB, &d), -ITRACE_E_NOTSUP);
	itrace_decoder_free(NULL);
	assert_string_equal(itrace_insn_class_name(ITRACE_CLASS_FP_FMA), "fp_fma");
	assert_null(itrace_insn_class_name(ITRACE_CLASS_COUNT));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_x86_kinds),	  cmocka_unit_test(test_x86_bad_bytes),
		cmocka_unit_test(test_x86_extensions),	  cmocka_unit_test(test_x86_registers),
		cmocka_unit_test(test_x86_memory),	  cmocka_unit_test(test_x86_text),
		cmocka_unit_test(test_x86_rep_final_check),
		cmocka_unit_test(test_x86_fast_path_is_zydis),
		cmocka_unit_test(test_ppc64le_kinds),	  cmocka_unit_test(test_ppc64_big_kinds),
		cmocka_unit_test(test_ppc_isa3),	  cmocka_unit_test(test_ppc_capstone_forms),
		cmocka_unit_test(test_ppc64le_prefixed),  cmocka_unit_test(test_ppc64_big_prefixed),
		cmocka_unit_test(test_ppc_length_register), cmocka_unit_test(test_ppc_effective_addresses),
		cmocka_unit_test(test_unsupported),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
