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

int itrace_decoder_decode(struct itrace_decoder *d, const uint8_t *code, size_t avail,
			  uint64_t addr, struct itrace_decoded *out)
{
	const uint8_t *p = code;
	size_t n = avail;
	uint64_t a = addr;

	if (!d || !code || !out)
		return -ITRACE_E_INVAL;
	if (!cs_disasm_iter(d->cs, &p, &n, &a, d->insn))
		return -ITRACE_E_DECODE;
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
	if (!cs_disasm_iter(d->cs, &p, &n, &a, d->insn))
		return -ITRACE_E_DECODE;
	if (d->insn->op_str[0])
		snprintf(buf, cap, "%s %s", d->insn->mnemonic, d->insn->op_str);
	else
		snprintf(buf, cap, "%s", d->insn->mnemonic);
	return d->insn->size;
}
