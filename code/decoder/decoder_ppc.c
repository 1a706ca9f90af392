/*
 * decoder_ppc.c - 64-bit POWER (both byte orders): capstone for validity,
 * text and the operands of what it knows; libitrace's own table
 * (decoder_ppc_isa.c) for loads and stores, for the ISA 3.0/3.1
 * instructions capstone 4 lacks and for prefixed instructions.
 *
 * Branch kinds come from the instruction fields, not from capstone's ids
 * (capstone gives the many extended mnemonics -- beq, bdnz, bnelr --
 * ids of their own): opcode 18 (b), 16 (bc), 19/16 (bclr), 19/528
 * (bcctr), 19/560 (bctar), the LK bit, and BO for whether the branch can
 * fall through (Power ISA 3.1, Book I, 2.4 "Branch Instructions");
 * opcode 17 is sc (bits 30-31 = 0b10) or scv (0b01).
 */
#include <elf.h>
#include <stdio.h>
#include <string.h>

#include "decoder_int.h"

static uint32_t ppc_word(const uint8_t *c, int big)
{
	if (big)
		return (uint32_t)c[0] << 24 | (uint32_t)c[1] << 16 | (uint32_t)c[2] << 8 | c[3];
	return (uint32_t)c[3] << 24 | (uint32_t)c[2] << 16 | (uint32_t)c[1] << 8 | c[0];
}

static int dec_ppc_open(struct itrace_decoder *d, int big_endian)
{
	cs_mode mode = (cs_mode)(CS_MODE_64 | (big_endian ? CS_MODE_BIG_ENDIAN : CS_MODE_LITTLE_ENDIAN));

	d->big_endian = big_endian;
	if (cs_open(CS_ARCH_PPC, mode, &d->cs) != CS_ERR_OK)
		return -ITRACE_E_INTERNAL;
	cs_option(d->cs, CS_OPT_DETAIL, CS_OPT_ON);
	d->ci = cs_malloc(d->cs);
	return d->ci ? 0 : -ITRACE_E_NOMEM;
}

static void dec_ppc_close(struct itrace_decoder *d)
{
	if (d->ci)
		cs_free(d->ci, 1);
	if (d->cs)
		cs_close(&d->cs);
}

/* ---- Branches from the fields -------------------------------------------- */

#define PPC_OP_BC 16
#define PPC_OP_SC 17
#define PPC_OP_B 18
#define PPC_OP_XL 19
#define PPC_XO_BCLR 16
#define PPC_XO_BCCTR 528
#define PPC_XO_BCTAR 560

/* BO = 1z1zz: neither the CR bit nor CTR is tested: always taken. */
static int bo_always(uint32_t w)
{
	return ((w >> 21) & 0x14) == 0x14;
}

static int is_branch_form(uint32_t w)
{
	unsigned op = w >> 26, xo = (w >> 1) & 0x3ff;

	return op == PPC_OP_B || op == PPC_OP_BC || op == PPC_OP_SC ||
	       (op == PPC_OP_XL && (xo == PPC_XO_BCLR || xo == PPC_XO_BCCTR || xo == PPC_XO_BCTAR));
}

/* branch_kind - kind and direct target of a branch-form word. */
static void branch_kind(uint32_t w, uint64_t addr, struct itrace_decoded *out)
{
	unsigned op = w >> 26, xo = (w >> 1) & 0x3ff, lk = w & 1, aa = (w >> 1) & 1;
	int always = op == PPC_OP_B || bo_always(w);
	int64_t disp;

	if (op == PPC_OP_SC) {
		out->kind = ITRACE_BRANCH_SYSCALL;
		return;
	}
	if (op == PPC_OP_B || op == PPC_OP_BC) {
		out->kind = !always ? ITRACE_BRANCH_COND : lk ? ITRACE_BRANCH_CALL : ITRACE_BRANCH_UNCOND;
		/* I-form LI (24 bits) or B-form BD (14 bits), both || 0b00 */
		disp = op == PPC_OP_B ? (int64_t)((uint64_t)(w & 0x03fffffc) << 38) >> 38
				      : (int16_t)(w & 0xfffc);
		out->target = aa ? (uint64_t)disp : addr + (uint64_t)disp;
		out->flags |= ITRACE_DECODED_HAS_TARGET;
		return;
	}
	if (!always)
		out->kind = ITRACE_BRANCH_COND;
	else if (lk)
		out->kind = ITRACE_BRANCH_INDIRECT_CALL;
	else
		out->kind = xo == PPC_XO_BCLR ? ITRACE_BRANCH_RETURN : ITRACE_BRANCH_INDIRECT;
}

/* Registers a branch reads and writes: CR bit, CTR, LR, TAR. */
static void branch_regs(uint32_t w, struct itrace_insn_info *in)
{
	unsigned op = w >> 26, xo = (w >> 1) & 0x3ff, bo = (w >> 21) & 31;

	if (op == PPC_OP_SC) {
		in->cls = ITRACE_CLASS_SYSTEM;
		in->attrs |= ITRACE_ATTR_SERIALIZING;
		return;
	}
	in->cls = ITRACE_CLASS_BRANCH;
	if (op != PPC_OP_B) {
		if (!(bo & 0x10)) /* the CR bit BI is tested */
			info_add_read(in, ITRACE_REG_CR(((w >> 16) & 31) >> 2));
		if (!(bo & 0x04)) { /* CTR is decremented and tested */
			info_add_read(in, ITRACE_REG_CTR);
			info_add_write(in, ITRACE_REG_CTR);
		}
	}
	if (op == PPC_OP_XL)
		info_add_read(in, xo == PPC_XO_BCLR ? ITRACE_REG_LR
				  : xo == PPC_XO_BCCTR ? ITRACE_REG_CTR : ITRACE_REG_TAR);
	if (w & 1)
		info_add_write(in, ITRACE_REG_LR);
}

/* ---- Capstone ------------------------------------------------------------ */

static int cs_decode(struct itrace_decoder *d, const uint8_t *code, uint64_t addr)
{
	const uint8_t *p = code;
	size_t n = 4;
	uint64_t a = addr;

	return cs_disasm_iter(d->cs, &p, &n, &a, d->ci);
}

static unsigned cs_reg(unsigned r)
{
	if (r >= PPC_REG_R0 && r <= PPC_REG_R31)
		return ITRACE_REG_GPR(r - PPC_REG_R0);
	if (r >= PPC_REG_F0 && r <= PPC_REG_F31)
		return ITRACE_REG_VEC(r - PPC_REG_F0);
	if (r >= PPC_REG_V0 && r <= PPC_REG_V31)
		return ITRACE_REG_VEC(32 + r - PPC_REG_V0);
	if (r >= PPC_REG_VS0 && r <= PPC_REG_VS63)
		return ITRACE_REG_VEC(r - PPC_REG_VS0);
	if (r >= PPC_REG_CR0 && r <= PPC_REG_CR7)
		return ITRACE_REG_CR(r - PPC_REG_CR0);
	switch (r) {
	case PPC_REG_INVALID:
		return ITRACE_REG_NONE;
	case PPC_REG_LR:
	case PPC_REG_LR8:
		return ITRACE_REG_LR;
	case PPC_REG_CTR:
	case PPC_REG_CTR8:
		return ITRACE_REG_CTR;
	case PPC_REG_CARRY:
		return ITRACE_REG_FLAGS;
	case PPC_REG_RM:
		return ITRACE_REG_FPCTL;
	case PPC_REG_CR1EQ:
		return ITRACE_REG_CR(1);
	case PPC_REG_X2:
		return ITRACE_REG_GPR(2);
	default:
		return ITRACE_REG_SYS;
	}
}


/* Floating point, VSX scalar/vector and VMX floating point, by operation;
 * `m` is the mnemonic without its f/xs/xv prefix. */
static unsigned fp_class(const char *m)
{
	if (dec_starts(m, "sqrt"))
		return ITRACE_CLASS_FP_SQRT;
	if (dec_starts(m, "div"))
		return ITRACE_CLASS_FP_DIV;
	if (strstr(m, "madd") || strstr(m, "msub"))
		return ITRACE_CLASS_FP_FMA;
	if (dec_starts(m, "mul") || dec_starts(m, "re") || dec_starts(m, "rsqrte"))
		return ITRACE_CLASS_FP_MUL; /* estimates: multiplier latency */
	return ITRACE_CLASS_FP_ADD;
}

/*
 * mnemonic_class - the class of a capstone-decoded instruction that is
 * neither a branch nor a load/store (those come from the fields and the
 * table), from its (base) mnemonic.
 */
static unsigned mnemonic_class(const char *m, struct itrace_insn_info *in)
{
	static const char *const fences[] = {"sync", "lwsync", "hwsync", "ptesync", "msync", "eieio",
					     "mbar", "isync", NULL};
	static const char *const moves[] = {"mtlr", "mflr", "mtctr", "mfctr", "mtxer", "mfxer",
					    "mfcr", "mtcr", "mtocrf", "mfocrf", "mfvsr", "mtvsr",
					    "li", "lis", "mr", "mffs", NULL};
	static const char *const vshuf[] = {"vperm", "vpk", "vupk", "vmrg", "vsplt", "vsldoi",
					    "vextract", "vinsert", "vsl", "vsr", NULL};
	static const char *const xshuf[] = {"xxperm", "xxmrg", "xxsplt", "xxsldwi", "xxswapd",
					    "xxextract", "xxinsert", NULL};

	if (!strcmp(m, "nop") || !strcmp(m, "xnop"))
		return ITRACE_CLASS_NOP;
	if (dec_starts_any(m, fences)) {
		if (!strcmp(m, "sync") || !strcmp(m, "hwsync") || !strcmp(m, "isync"))
			in->attrs |= ITRACE_ATTR_SERIALIZING;
		return ITRACE_CLASS_FENCE;
	}
	if (dec_starts_any(m, moves))
		return ITRACE_CLASS_MOVE;
	if (dec_starts(m, "mt") || dec_starts(m, "mf") || dec_starts(m, "tlb") || dec_starts(m, "slb") ||
	    dec_starts(m, "msg") || dec_starts(m, "rfi") || dec_starts(m, "hrfi") || !strcmp(m, "attn") ||
	    dec_starts(m, "wait") || dec_starts(m, "icb") || dec_starts(m, "dcb") || dec_starts(m, "stop"))
		return ITRACE_CLASS_SYSTEM;
	if (dec_starts(m, "mul") || dec_starts(m, "madd"))
		return ITRACE_CLASS_INT_MUL;
	if (dec_starts(m, "div") || dec_starts(m, "mod"))
		return ITRACE_CLASS_INT_DIV;
	if (m[0] == 'f') {
		if (dec_starts(m, "fmr"))
			return ITRACE_CLASS_MOVE;
		return fp_class(m + 1);
	}
	if (dec_starts(m, "xxl") || dec_starts(m, "xxsel")) {
		in->vec_bits = 128;
		return ITRACE_CLASS_VEC_ALU;
	}
	if (dec_starts_any(m, xshuf)) {
		in->vec_bits = 128;
		return ITRACE_CLASS_VEC_SHUFFLE;
	}
	if (dec_starts(m, "xs"))
		return fp_class(m + 2);
	if (dec_starts(m, "xv")) {
		in->vec_bits = 128;
		return fp_class(m + 2);
	}
	if (m[0] == 'v') {
		in->vec_bits = 128;
		if (dec_starts(m, "vcipher") || dec_starts(m, "vncipher") || dec_starts(m, "vsbox") ||
		    dec_starts(m, "vshasigma") || dec_starts(m, "vpmsum"))
			return ITRACE_CLASS_CRYPTO;
		if (dec_starts(m, "vmul") || dec_starts(m, "vmsum") || dec_starts(m, "vsum"))
			return ITRACE_CLASS_VEC_MUL;
		if (dec_starts(m, "vspltis"))
			return ITRACE_CLASS_MOVE; /* splat immediate: no source */
		if (dec_starts(m, "vmaddfp") || dec_starts(m, "vnmsubfp"))
			return ITRACE_CLASS_FP_FMA;
		if (dec_starts(m, "vrefp") || dec_starts(m, "vrsqrtefp"))
			return ITRACE_CLASS_FP_MUL;
		if (dec_starts(m, "vexptefp") || dec_starts(m, "vlogefp"))
			return ITRACE_CLASS_FP_DIV;
		if (strstr(m, "fp") || dec_starts(m, "vcfsx") || dec_starts(m, "vcfux") || dec_starts(m, "vcts") ||
		    dec_starts(m, "vctu") || dec_starts(m, "vrfi"))
			return ITRACE_CLASS_FP_ADD;
		if (dec_starts_any(m, vshuf) && !dec_starts(m, "vslw") && !dec_starts(m, "vslh") &&
		    !dec_starts(m, "vslb") && !dec_starts(m, "vsrw") && !dec_starts(m, "vsrh") && !dec_starts(m, "vsrb") &&
		    !dec_starts(m, "vsraw") && !dec_starts(m, "vsrah") && !dec_starts(m, "vsrab"))
			return ITRACE_CLASS_VEC_SHUFFLE;
		return ITRACE_CLASS_VEC_ALU;
	}
	if (!strcmp(m, "trap") || dec_starts(m, "tw") || dec_starts(m, "td"))
		return ITRACE_CLASS_INT_ALU; /* compare and trap */
	return ITRACE_CLASS_INT_ALU;
}

/* Instructions whose first register operand is read, not written. */
static int first_reg_is_source(const char *m)
{
	return dec_starts(m, "mt") || dec_starts(m, "tw") || dec_starts(m, "td") || !strcmp(m, "trap") ||
	       dec_starts(m, "dcb") || dec_starts(m, "icb") || dec_starts(m, "tlb") || dec_starts(m, "slb") ||
	       dec_starts(m, "msg") || dec_starts(m, "wrtee");
}

static void same_register_idioms(const cs_ppc *p, const char *m, struct itrace_insn_info *in)
{
	unsigned r1, r2;

	if (p->op_count != 3 || p->operands[0].type != PPC_OP_REG || p->operands[1].type != PPC_OP_REG ||
	    p->operands[2].type != PPC_OP_REG)
		return;
	r1 = p->operands[1].reg;
	r2 = p->operands[2].reg;
	if (r1 != r2)
		return;
	/* vor/xxlor x, y, y is vmr/xxmr; vxor/xxlxor x, y, y zeroes x;
	 * vcmpequb/xxleqv x, y, y sets all ones (Book I, 6.8 and 7.6) */
	if (!strcmp(m, "vor") || !strcmp(m, "xxlor") || !strcmp(m, "or"))
		in->attrs |= ITRACE_ATTR_REG_MOVE;
	else if (!strcmp(m, "vxor") || !strcmp(m, "xxlxor") || !strcmp(m, "xor") || !strcmp(m, "subf"))
		in->attrs |= ITRACE_ATTR_ZERO_IDIOM;
	else if (!strcmp(m, "vcmpequb") || !strcmp(m, "vcmpequw") || !strcmp(m, "xxleqv") ||
		 !strcmp(m, "veqv"))
		in->attrs |= ITRACE_ATTR_ONES_IDIOM;
}

/* classify_capstone - class and registers of a capstone-decoded word. */
static void classify_capstone(const cs_insn *ci, struct itrace_insn_info *in)
{
	const cs_ppc *p = &ci->detail->ppc;
	char m[32];
	size_t n = strlen(ci->mnemonic);
	int record = n && ci->mnemonic[n - 1] == '.';
	int first_dst = !first_reg_is_source(ci->mnemonic), is_cmp;

	snprintf(m, sizeof(m), "%.*s", (int)(record ? n - 1 : n), ci->mnemonic);
	in->cls = (uint8_t)mnemonic_class(m, in);
	is_cmp = (dec_starts(m, "cmp") && strcmp(m, "cmpb")) || dec_starts(m, "fcmp") || dec_starts(m, "xscmp") || dec_starts(m, "xvtdiv") ||
		 dec_starts(m, "ftdiv") || dec_starts(m, "ftsqrt");
	if (is_cmp && !(p->op_count && p->operands[0].type == PPC_OP_REG &&
			cs_reg(p->operands[0].reg) >= ITRACE_REG_CR(0) &&
			cs_reg(p->operands[0].reg) <= ITRACE_REG_CR(7))) {
		info_add_write(in, ITRACE_REG_CR(0)); /* "cmpdi r3, 0": cr0 implied */
		first_dst = 0;
	}
	for (unsigned i = 0; i < p->op_count; i++) {
		const cs_ppc_op *op = &p->operands[i];

		if (op->type == PPC_OP_REG) {
			if (first_dst && in->nwrite == 0 && i == 0)
				info_add_write(in, cs_reg(op->reg));
			else
				info_add_read(in, cs_reg(op->reg));
		} else if (op->type == PPC_OP_MEM) {
			info_add_read(in, cs_reg(op->mem.base));
		}
	}
	for (unsigned i = 0; i < ci->detail->regs_read_count; i++)
		info_add_read(in, cs_reg(ci->detail->regs_read[i]));
	for (unsigned i = 0; i < ci->detail->regs_write_count; i++)
		info_add_write(in, cs_reg(ci->detail->regs_write[i]));
	/* record forms: fixed point sets cr0, floating point cr1, vector
	 * compares cr6 (Book I, 3.3.8, 4.6.1, 6.8) */
	if (record)
		info_add_write(in, ITRACE_REG_CR(m[0] == 'f' ? 1 : m[0] == 'v' ? 6 : 0));
	if (in->cls >= ITRACE_CLASS_FP_ADD && in->cls <= ITRACE_CLASS_FP_SQRT)
		info_add_write(in, ITRACE_REG_FPCTL);
	if (!strcmp(m, "trap"))
		in->attrs |= ITRACE_ATTR_TRAP;
	if (!strcmp(m, "mr") || !strcmp(m, "fmr") || !strcmp(m, "xxmr") || !strcmp(m, "vmr"))
		in->attrs |= ITRACE_ATTR_REG_MOVE;
	same_register_idioms(p, m, in);
}

/* ---- Entry points ------------------------------------------------------- */

/* decode_common - the struct itrace_decoded of the word(s) at code, and
 * whether capstone knows it (1), only our table (2); -1 if invalid. */
static int decode_common(struct itrace_decoder *d, const uint8_t *code, size_t avail, uint64_t addr,
			 struct itrace_decoded *out, uint32_t *w, uint32_t *suffix)
{
	int cs;

	if (avail < 4)
		return -1;
	*w = ppc_word(code, d->big_endian);
	out->addr = addr;
	out->target = 0;
	out->kind = ITRACE_INSN_NOT_BRANCH;
	out->flags = 0;
	if ((*w >> 26) == 1) {
		/* a prefix: one 8-byte instruction with the next word (Power
		 * ISA 3.1, Book I, 1.6; no prefixed instruction branches) */
		if (avail < 8)
			return -1;
		*suffix = ppc_word(code + 4, d->big_endian);
		out->len = 8;
		out->flags = ITRACE_DECODED_PREFIXED;
		return 3;
	}
	out->len = 4;
	cs = cs_decode(d, code, addr);
	if (!cs && !ppc_isa_lookup(*w, NULL, NULL, 0))
		return -1;
	if (is_branch_form(*w))
		branch_kind(*w, addr, out);
	return cs ? 1 : 2;
}

static int dec_ppc_decode(struct itrace_decoder *d, const uint8_t *code, size_t avail, uint64_t addr,
			  struct itrace_decoded *out)
{
	uint32_t w, s = 0;
	int how = decode_common(d, code, avail, addr, out, &w, &s);

	if (how == 3 && !ppc_isa_prefixed(w, s, addr, NULL, NULL, 0))
		return -ITRACE_E_DECODE;
	return how < 0 ? -ITRACE_E_DECODE : 0;
}

static int dec_ppc_info(struct itrace_decoder *d, const uint8_t *code, size_t avail, uint64_t addr,
			struct itrace_insn_info *out)
{
	uint32_t w, s = 0;
	int how = decode_common(d, code, avail, addr, &out->d, &w, &s);

	if (how < 0)
		return -ITRACE_E_DECODE;
	if (how == 3) {
		if (!ppc_isa_prefixed(w, s, addr, out, NULL, 0))
			return -ITRACE_E_DECODE;
		out->attrs |= ITRACE_ATTR_OWN_TABLE;
		return 0;
	}
	if (how == 2)
		out->attrs |= ITRACE_ATTR_OWN_TABLE;
	if (is_branch_form(w))
		branch_regs(w, out);
	else if (ppc_isa_memory(w, out, NULL, 0))
		; /* loads, stores and cache operations: always from the table */
	else if (how == 1)
		classify_capstone(d->ci, out);
	else
		ppc_isa_lookup(w, out, NULL, 0);
	return 0;
}

static int dec_ppc_text(struct itrace_decoder *d, const uint8_t *code, size_t avail, uint64_t addr,
			char *buf, size_t cap)
{
	struct itrace_decoded dd;
	uint32_t w, s = 0;
	int how = decode_common(d, code, avail, addr, &dd, &w, &s);

	if (how < 0)
		return -ITRACE_E_DECODE;
	if (how == 3) {
		if (!ppc_isa_prefixed(w, s, addr, NULL, buf, cap))
			return -ITRACE_E_DECODE;
	} else if (how == 2) {
		ppc_isa_lookup(w, NULL, buf, cap);
	} else if (d->ci->op_str[0]) {
		snprintf(buf, cap, "%s %s", d->ci->mnemonic, d->ci->op_str);
	} else {
		snprintf(buf, cap, "%s", d->ci->mnemonic);
	}
	return dd.len;
}

static const char *dec_ppc_reg_name(unsigned reg)
{
	static const char *const gpr[32] = {
		"r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9",
		"r10", "r11", "r12", "r13", "r14", "r15", "r16", "r17", "r18", "r19",
		"r20", "r21", "r22", "r23", "r24", "r25", "r26", "r27", "r28", "r29",
		"r30", "r31",
	};
	static const char *const vsr[64] = {
		"vs0", "vs1", "vs2", "vs3", "vs4", "vs5", "vs6", "vs7", "vs8", "vs9",
		"vs10", "vs11", "vs12", "vs13", "vs14", "vs15", "vs16", "vs17", "vs18", "vs19",
		"vs20", "vs21", "vs22", "vs23", "vs24", "vs25", "vs26", "vs27", "vs28", "vs29",
		"vs30", "vs31", "vs32", "vs33", "vs34", "vs35", "vs36", "vs37", "vs38", "vs39",
		"vs40", "vs41", "vs42", "vs43", "vs44", "vs45", "vs46", "vs47", "vs48", "vs49",
		"vs50", "vs51", "vs52", "vs53", "vs54", "vs55", "vs56", "vs57", "vs58", "vs59",
		"vs60", "vs61", "vs62", "vs63",
	};
	static const char *const cr[8] = {
		"cr0", "cr1", "cr2", "cr3", "cr4", "cr5", "cr6", "cr7",
	};
	static const char *const acc[8] = {
		"acc0", "acc1", "acc2", "acc3", "acc4", "acc5", "acc6", "acc7",
	};

	if (reg >= ITRACE_REG_GPR(0) && reg <= ITRACE_REG_GPR(31))
		return gpr[reg - ITRACE_REG_GPR0];
	if (reg >= ITRACE_REG_VEC(0) && reg <= ITRACE_REG_VEC(63))
		return vsr[reg - ITRACE_REG_VEC0];
	if (reg >= ITRACE_REG_CR(0) && reg <= ITRACE_REG_CR(7))
		return cr[reg - ITRACE_REG_CR0];
	if (reg >= ITRACE_REG_ACC0 && reg < ITRACE_REG_ACC0 + 8)
		return acc[reg - ITRACE_REG_ACC0];
	switch (reg) {
	case ITRACE_REG_FLAGS:
		return "xer";
	case ITRACE_REG_FPCTL:
		return "fpscr";
	case ITRACE_REG_LR:
		return "lr";
	case ITRACE_REG_CTR:
		return "ctr";
	case ITRACE_REG_TAR:
		return "tar";
	case ITRACE_REG_SYS:
		return "spr";
	default:
		return NULL;
	}
}

/* The 64-bit POWER, either byte order back end, picked by decoder.c by ELF machine. */
const struct dec_ops dec_ppc_ops = {
	.machine = EM_PPC64,
	.little_endian = 1, .big_endian = 1,
	.open = dec_ppc_open,
	.close = dec_ppc_close,
	.decode = dec_ppc_decode,
	.info = dec_ppc_info,
	.text = dec_ppc_text,
	.reg_name = dec_ppc_reg_name,
};
