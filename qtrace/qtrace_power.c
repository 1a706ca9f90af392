/*
 * qtrace_power.c - error strings and the POWER decoding qtrace needs.
 *
 * qtrace consumers decode every word as POWER (qtrace-tools qtlib/branch.h),
 * so writer and reader classify branches the same way: I-form b (opcode
 * 18), B-form bc (16) and XL-form bclr/bcctr/bctar (19 with XO 16, 528,
 * 560).  A BO field of the form 1z1zz branches always (Power ISA 3.1,
 * section 2.4), so such a bc is unconditional.
 */
#include "qtrace.h"

static const char *const error_text[QTRACE_E_MAX_] = {
	[QTRACE_OK] = "success",
	[QTRACE_E_NOMEM] = "out of memory",
	[QTRACE_E_IO] = "input/output error",
	[QTRACE_E_INVAL] = "invalid argument",
	[QTRACE_E_TRUNCATED] = "qtrace file ends inside a record",
	[QTRACE_E_FORMAT] = "not a valid qtrace file",
	[QTRACE_E_UNREPRESENTABLE] = "instruction cannot be represented in qtrace",
};

const char *qtrace_errstr(int code)
{
	if (code < 0)
		code = -code;
	if (code >= QTRACE_E_MAX_)
		return "unknown error";
	return error_text[code];
}

#define PPC_OP_BC 16
#define PPC_OP_B 18
#define PPC_OP_XL 19
#define PPC_XO_BCLR 16
#define PPC_XO_BCCTR 528
#define PPC_XO_BCTAR 560

/* BO = 1z1zz: neither the CR bit nor CTR is tested. */
static int bo_always(uint32_t insn)
{
	return ((insn >> 21) & 0x14) == 0x14;
}

int qtrace_power_branch_kind(uint32_t insn)
{
	unsigned op = insn >> 26;
	unsigned xo = (insn >> 1) & 0x3ff;

	if (op == PPC_OP_B)
		return QTRACE_POWER_UNCOND;
	if (op == PPC_OP_BC || (op == PPC_OP_XL && (xo == PPC_XO_BCLR || xo == PPC_XO_BCCTR ||
						    xo == PPC_XO_BCTAR)))
		return bo_always(insn) ? QTRACE_POWER_UNCOND : QTRACE_POWER_COND;
	return QTRACE_POWER_NOT_BRANCH;
}
