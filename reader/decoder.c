/*
 * decoder.c - instruction length and control-flow class via capstone.
 *
 * The filler asks one question per instruction it walks: how long is it and
 * does it transfer control (and where, when the target is encoded).  Capstone
 * answers with instruction ids and groups; this file maps those onto
 * enum itrace_branch_kind for x86-64 and 64-bit PowerPC.
 */
#include <capstone/capstone.h>
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "itrace.h"

struct itrace_decoder {
	csh cs;
	cs_arch arch;
	cs_insn *insn; /* one reusable instruction buffer (with detail) */
	int big_endian;
};

int itrace_decoder_alloc(uint16_t machine, uint8_t endian, struct itrace_decoder **dp)
{
	struct itrace_decoder *d;
	cs_arch arch;
	int mode;

	if (!dp)
		return -ITRACE_E_INVAL;
	*dp = NULL;
	if (machine == EM_X86_64 && endian == ELFDATA2LSB) {
		arch = CS_ARCH_X86;
		mode = CS_MODE_64;
	} else if (machine == EM_PPC64 && (endian == ELFDATA2LSB || endian == ELFDATA2MSB)) {
		arch = CS_ARCH_PPC;
		mode = CS_MODE_64 | (endian == ELFDATA2MSB ? CS_MODE_BIG_ENDIAN : CS_MODE_LITTLE_ENDIAN);
	} else {
		return -ITRACE_E_NOTSUP;
	}
	d = calloc(1, sizeof(*d));
	if (!d)
		return -ITRACE_E_NOMEM;
	d->arch = arch;
	d->big_endian = endian == ELFDATA2MSB;
	if (cs_open(arch, (cs_mode)mode, &d->cs) != CS_ERR_OK) {
		free(d);
		return -ITRACE_E_INTERNAL;
	}
	cs_option(d->cs, CS_OPT_DETAIL, CS_OPT_ON);
	d->insn = cs_malloc(d->cs);
	if (!d->insn) {
		cs_close(&d->cs);
		free(d);
		return -ITRACE_E_NOMEM;
	}
	*dp = d;
	return 0;
}

void itrace_decoder_free(struct itrace_decoder *d)
{
	if (!d)
		return;
	cs_free(d->insn, 1);
	cs_close(&d->cs);
	free(d);
}

static int in_group(const cs_insn *insn, uint8_t group)
{
	const cs_detail *det = insn->detail;

	for (uint8_t i = 0; i < det->groups_count; i++)
		if (det->groups[i] == group)
			return 1;
	return 0;
}

/* First immediate operand of an x86 branch, the direct target. */
static int x86_direct_target(const cs_insn *insn, uint64_t *target)
{
	const cs_x86 *x = &insn->detail->x86;

	if (x->op_count >= 1 && x->operands[0].type == X86_OP_IMM) {
		*target = (uint64_t)x->operands[0].imm;
		return 1;
	}
	return 0;
}

static void classify_x86(const cs_insn *insn, struct itrace_decoded *out)
{
	uint64_t target;
	int direct = x86_direct_target(insn, &target);
	const uint8_t *prefix = insn->detail->x86.prefix;

	if (prefix[0] == X86_PREFIX_REP || prefix[0] == X86_PREFIX_REPNE)
		out->flags |= ITRACE_DECODED_REP;
	switch (insn->id) {
	case X86_INS_SYSCALL:
	case X86_INS_SYSENTER:
	case X86_INS_INT:
	case X86_INS_INT1:
	case X86_INS_INT3:
	case X86_INS_INTO:
		out->kind = ITRACE_BRANCH_SYSCALL;
		return;
	case X86_INS_JMP:
	case X86_INS_LJMP:
		out->kind = direct ? ITRACE_BRANCH_UNCOND : ITRACE_BRANCH_INDIRECT;
		break;
	case X86_INS_CALL:
	case X86_INS_LCALL:
		out->kind = direct ? ITRACE_BRANCH_CALL : ITRACE_BRANCH_INDIRECT_CALL;
		break;
	case X86_INS_LOOP:
	case X86_INS_LOOPE:
	case X86_INS_LOOPNE:
	case X86_INS_JCXZ:
	case X86_INS_JECXZ:
	case X86_INS_JRCXZ:
		/* Capstone 4 leaves these out of CS_GRP_JUMP. */
		out->kind = ITRACE_BRANCH_COND;
		break;
	default:
		if (in_group(insn, CS_GRP_RET) || in_group(insn, CS_GRP_IRET)) {
			out->kind = ITRACE_BRANCH_RETURN;
			return;
		}
		if (!in_group(insn, CS_GRP_JUMP))
			return;
		/* Every other jump (jcc, loop*, jrcxz) is conditional. */
		out->kind = ITRACE_BRANCH_COND;
		break;
	}
	if (direct) {
		out->target = target;
		out->flags |= ITRACE_DECODED_HAS_TARGET;
	}
}

/* PPC: the BO field of bc/bclr/bcctr says whether the branch can fall through. */
static int ppc_bo_always(uint32_t word)
{
	unsigned bo = (word >> 21) & 0x1f;

	return (bo & 0x14) == 0x14;
}

static uint32_t ppc_word(const uint8_t *code, int big)
{
	if (big)
		return (uint32_t)code[0] << 24 | (uint32_t)code[1] << 16 | (uint32_t)code[2] << 8 | code[3];
	return (uint32_t)code[3] << 24 | (uint32_t)code[2] << 16 | (uint32_t)code[1] << 8 | code[0];
}

static int ppc_imm_target(const cs_insn *insn, uint64_t *target)
{
	const cs_ppc *p = &insn->detail->ppc;

	for (uint8_t i = 0; i < p->op_count; i++)
		if (p->operands[i].type == PPC_OP_IMM) {
			*target = (uint64_t)p->operands[i].imm;
			return 1;
		}
	return 0;
}

/*
 * Capstone gives the many extended mnemonics (beq, bdnz, bnelr, ...) ids of
 * their own, so the class is taken from the instruction form instead:
 * opcode 18 (b), 16 (bc), 19/16 (bclr), 19/528 (bcctr), 19/560 (bctar),
 * the link bit, and BO for whether the branch can fall through.  Capstone
 * still supplies the length, validity and the resolved target.
 */
static void classify_ppc(const cs_insn *insn, uint32_t w, struct itrace_decoded *out)
{
	unsigned opcd = w >> 26, xo = (w >> 1) & 0x3ff, lk = w & 1;
	int always = opcd == 18 || ppc_bo_always(w);
	uint64_t target;

	if (insn->id == PPC_INS_SC) {
		out->kind = ITRACE_BRANCH_SYSCALL;
		return;
	}
	if (opcd == 18 || opcd == 16) {
		if (!always)
			out->kind = ITRACE_BRANCH_COND;
		else
			out->kind = lk ? ITRACE_BRANCH_CALL : ITRACE_BRANCH_UNCOND;
		if (ppc_imm_target(insn, &target)) {
			out->target = target;
			out->flags |= ITRACE_DECODED_HAS_TARGET;
		}
	} else if (opcd == 19 && (xo == 16 || xo == 528 || xo == 560)) {
		if (!always)
			out->kind = ITRACE_BRANCH_COND;
		else if (lk)
			out->kind = ITRACE_BRANCH_INDIRECT_CALL;
		else
			out->kind = xo == 16 ? ITRACE_BRANCH_RETURN : ITRACE_BRANCH_INDIRECT;
	}
}

/* ---- What capstone 4 does not know --------------------------------- */

/*
 * Capstone 4.0 predates AVX-512 (EVEX, and the VEX-encoded mask register
 * instructions such as kmovq) and POWER8+ instructions, which
 * today's glibc runs in its string functions.  None of them transfers
 * control, so the walk only needs their length; these two fallbacks give
 * it, and mark the result ITRACE_DECODED_NO_TEXT.
 */

/* ModRM, SIB, displacement and imm8 of a VEX/EVEX instruction at c[i]. */
static unsigned vex_tail(const uint8_t *c, size_t avail, size_t i, unsigned map)
{
	unsigned op, modrm, mod, rm;
	size_t need = i + 2;

	if (need > avail)
		return 0;
	op = c[i];
	modrm = c[i + 1];
	mod = modrm >> 6;
	rm = modrm & 7;
	if (mod != 3 && rm == 4) {
		if (need >= avail)
			return 0;
		if (mod == 0 && (c[need] & 7) == 5)
			need += 4; /* SIB without base: disp32 */
		need++;
	}
	if (mod == 1)
		need += 1; /* disp8 (scaled for EVEX, still one byte) */
	else if (mod == 2 || (mod == 0 && rm == 5))
		need += 4;
	if (map == 3 || (map == 1 && ((op >= 0x70 && op <= 0x73) || op == 0xc2 || (op >= 0xc4 && op <= 0xc6))))
		need += 1;
	return need <= avail && need <= 15 ? (unsigned)need : 0;
}

/*
 * Length of a VEX (c4/c5) or EVEX (62) instruction (Intel SDM vol. 2,
 * 2.3 and 2.7): optional segment/address-size prefixes, the VEX/EVEX
 * bytes, opcode, ModRM, SIB and displacement as usual, and an imm8 for map
 * 0F3A and the 0F opcodes that take one.  Returns 0 for anything else.
 */
static unsigned vex_length(const uint8_t *c, size_t avail)
{
	size_t i = 0;
	unsigned map;

	while (i < avail && i < 4 && (c[i] == 0x26 || c[i] == 0x2e || c[i] == 0x36 || c[i] == 0x3e ||
				      c[i] == 0x64 || c[i] == 0x65 || c[i] == 0x67))
		i++;
	if (i + 2 > avail)
		return 0;
	switch (c[i]) {
	case 0xc5:
		return vex_tail(c, avail, i + 2, 1);
	case 0xc4:
		map = c[i + 1] & 0x1f;
		return map >= 1 && map <= 3 ? vex_tail(c, avail, i + 3, map) : 0;
	case 0x62:
		if (i + 4 > avail)
			return 0;
		map = c[i + 1] & 7;
		if (map == 0 || map == 4 || map == 7 || !(c[i + 2] & 0x04))
			return 0; /* reserved map, or the fixed 1 bit of P1 clear */
		return vex_tail(c, avail, i + 4, map);
	default:
		return 0;
	}
}

/* A POWER instruction capstone 4 lacks is 4 bytes; refuse branch opcodes. */
static unsigned ppc_unknown_length(uint32_t w, size_t avail)
{
	unsigned opcd = w >> 26, xo = (w >> 1) & 0x3ff;

	if (avail < 4 || opcd == 16 || opcd == 17 || opcd == 18 ||
	    (opcd == 19 && (xo == 16 || xo == 528 || xo == 560)))
		return 0;
	return 4;
}

static int decode_unknown(struct itrace_decoder *d, const uint8_t *code, size_t avail,
			  uint64_t addr, struct itrace_decoded *out)
{
	unsigned len = d->arch == CS_ARCH_X86 ? vex_length(code, avail)
					      : (avail >= 4 ? ppc_unknown_length(ppc_word(code, d->big_endian), avail) : 0);

	if (!len)
		return -ITRACE_E_DECODE;
	out->addr = addr;
	out->target = 0;
	out->len = (uint8_t)len;
	out->kind = ITRACE_INSN_NOT_BRANCH;
	out->flags = ITRACE_DECODED_NO_TEXT;
	return 0;
}

int itrace_decoder_decode(struct itrace_decoder *d, const uint8_t *code, size_t avail,
			  uint64_t addr, struct itrace_decoded *out)
{
	const uint8_t *p = code;
	size_t n = avail;
	uint64_t a = addr;

	if (!d || !code || !out)
		return -ITRACE_E_INVAL;
	if (!cs_disasm_iter(d->cs, &p, &n, &a, d->insn))
		return decode_unknown(d, code, avail, addr, out);
	out->addr = addr;
	out->target = 0;
	out->len = (uint8_t)d->insn->size;
	out->kind = ITRACE_INSN_NOT_BRANCH;
	out->flags = 0;
	if (d->arch == CS_ARCH_X86)
		classify_x86(d->insn, out);
	else
		classify_ppc(d->insn, ppc_word(code, d->big_endian), out);
	return 0;
}

int itrace_decoder_text(struct itrace_decoder *d, const uint8_t *code, size_t avail,
			uint64_t addr, char *buf, size_t cap)
{
	const uint8_t *p = code;
	size_t n = avail;
	uint64_t a = addr;

	if (!d || !code || !buf || !cap)
		return -ITRACE_E_INVAL;
	if (!cs_disasm_iter(d->cs, &p, &n, &a, d->insn)) {
		struct itrace_decoded di;

		if (decode_unknown(d, code, avail, addr, &di) < 0)
			return -ITRACE_E_DECODE;
		snprintf(buf, cap, "(%s instruction unknown to capstone 4)",
			 d->arch == CS_ARCH_X86 ? "VEX/EVEX" : "POWER");
		return di.len;
	}
	if (d->insn->op_str[0])
		snprintf(buf, cap, "%s %s", d->insn->mnemonic, d->insn->op_str);
	else
		snprintf(buf, cap, "%s", d->insn->mnemonic);
	return d->insn->size;
}
