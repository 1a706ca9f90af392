/*
 * arch_ppc.c - POWER load/store effective addresses (see arch_ppc.h).
 *
 * capstone gives the operands (a MEM operand base+disp for D/DS forms,
 * three REG operands RT, RA, RB for X forms) but not the access size or
 * direction, so those come from the mnemonic through the table below,
 * after stripping the suffixes that do not change them: '.' (record),
 * 'x' (indexed) and 'u' (update).
 */
#include "arch_ppc.h"

#include <string.h>

struct ppc_mem_op {
	const char *mnemonic; /* base form */
	uint8_t size;	      /* bytes; 0 = lmw/stmw (depends on RT) */
	uint8_t store;
	uint8_t align;	      /* EA is rounded down to this (vector forms) */
};

static const struct ppc_mem_op mem_ops[] = {
	/* fixed-point loads */
	{"lbz", 1, 0, 1}, {"lhz", 2, 0, 1}, {"lha", 2, 0, 1}, {"lwz", 4, 0, 1},
	{"lwa", 4, 0, 1}, {"ld", 8, 0, 1}, {"lq", 16, 0, 1}, {"lhbr", 2, 0, 1},
	{"lwbr", 4, 0, 1}, {"ldbr", 8, 0, 1}, {"lbarx", 1, 0, 1}, {"lharx", 2, 0, 1},
	{"lwarx", 4, 0, 1}, {"ldarx", 8, 0, 1}, {"lqarx", 16, 0, 1}, {"lmw", 0, 0, 1},
	/* fixed-point stores */
	{"stb", 1, 1, 1}, {"sth", 2, 1, 1}, {"stw", 4, 1, 1}, {"std", 8, 1, 1},
	{"stq", 16, 1, 1}, {"sthbr", 2, 1, 1}, {"stwbr", 4, 1, 1}, {"stdbr", 8, 1, 1},
	{"stbcx", 1, 1, 1}, {"sthcx", 2, 1, 1}, {"stwcx", 4, 1, 1}, {"stdcx", 8, 1, 1},
	{"stqcx", 16, 1, 1}, {"stmw", 0, 1, 1},
	/* floating point */
	{"lfs", 4, 0, 1}, {"lfd", 8, 0, 1}, {"lfiwax", 4, 0, 1}, {"lfiwzx", 4, 0, 1},
	{"stfs", 4, 1, 1}, {"stfd", 8, 1, 1}, {"stfiwx", 4, 1, 1},
	/* AltiVec */
	{"lvx", 16, 0, 16}, {"lvxl", 16, 0, 16}, {"lvebx", 1, 0, 1}, {"lvehx", 2, 0, 2},
	{"lvewx", 4, 0, 4}, {"stvx", 16, 1, 16}, {"stvxl", 16, 1, 16}, {"stvebx", 1, 1, 1},
	{"stvehx", 2, 1, 2}, {"stvewx", 4, 1, 4},
	/* VSX */
	{"lxvd2x", 16, 0, 1}, {"lxvw4x", 16, 0, 1}, {"lxvdsx", 8, 0, 1}, {"lxsdx", 8, 0, 1},
	{"lxsiwax", 4, 0, 1}, {"lxsiwzx", 4, 0, 1}, {"lxsspx", 4, 0, 1}, {"lxv", 16, 0, 1},
	{"lxvx", 16, 0, 1}, {"lxsd", 8, 0, 1}, {"lxssp", 4, 0, 1},
	{"stxvd2x", 16, 1, 1}, {"stxvw4x", 16, 1, 1}, {"stxsdx", 8, 1, 1},
	{"stxsiwx", 4, 1, 1}, {"stxsspx", 4, 1, 1}, {"stxv", 16, 1, 1}, {"stxvx", 16, 1, 1},
	{"stxsd", 8, 1, 1}, {"stxssp", 4, 1, 1},
};

static const struct ppc_mem_op *find_exact(const char *m)
{
	for (size_t i = 0; i < sizeof(mem_ops) / sizeof(mem_ops[0]); i++)
		if (strcmp(mem_ops[i].mnemonic, m) == 0)
			return &mem_ops[i];
	return NULL;
}

/* lookup - "lwzux" -> "lwzu" -> "lwz"; exact names first ("lxvd2x"). */
static const struct ppc_mem_op *lookup(const char *mnemonic)
{
	char m[32];
	size_t n = strlen(mnemonic);
	const struct ppc_mem_op *op;

	if (n == 0 || n >= sizeof(m))
		return NULL;
	memcpy(m, mnemonic, n + 1);
	if (m[n - 1] == '.')
		m[--n] = '\0';
	if ((op = find_exact(m)))
		return op;
	if (n > 1 && m[n - 1] == 'x') {
		m[--n] = '\0';
		if ((op = find_exact(m)))
			return op;
	}
	if (n > 1 && m[n - 1] == 'u') {
		m[--n] = '\0';
		if ((op = find_exact(m)))
			return op;
	}
	return NULL;
}

/* gpr_index - 0..31 for a capstone GPR, -1 otherwise. */
static int gpr_index(unsigned reg)
{
	if (reg >= PPC_REG_R0 && reg <= PPC_REG_R31)
		return (int)(reg - PPC_REG_R0);
	return -1;
}

/* ra_or_zero - the RA|0 rule: r0 as a base register reads as 0. */
static int ra_or_zero(unsigned reg, const uint64_t gpr[32], uint64_t *v)
{
	int i = gpr_index(reg);

	if (i < 0)
		return -1;
	*v = i == 0 ? 0 : gpr[i];
	return 0;
}

/*
 * effective_address - from the MEM operand, or for X forms from RA and RB,
 * the register operands after RT (an EH hint immediate may follow, as in
 * "lwarx r29, 0, r31, 0").
 */
static int effective_address(const cs_ppc *d, const uint64_t gpr[32], uint64_t *ea)
{
	unsigned regs[8];
	int n = 0, rbi;
	uint64_t ra;

	for (int i = 0; i < d->op_count; i++) {
		if (d->operands[i].type == PPC_OP_MEM) {
			if (ra_or_zero(d->operands[i].mem.base, gpr, &ra) < 0)
				return -1;
			*ea = ra + (uint64_t)(int64_t)d->operands[i].mem.disp;
			return 0;
		}
		if (d->operands[i].type == PPC_OP_REG && n < 8)
			regs[n++] = d->operands[i].reg;
	}
	if (n != 3)
		return -1;
	rbi = gpr_index(regs[2]);
	if (rbi < 0 || ra_or_zero(regs[1], gpr, &ra) < 0)
		return -1;
	*ea = ra + gpr[rbi];
	return 0;
}

int arch_ppc_mem_accesses(const cs_insn *insn, const uint64_t gpr[32],
			  struct arch_ppc_mem_access *out)
{
	const struct ppc_mem_op *op = lookup(insn->mnemonic);
	const cs_ppc *d;
	uint64_t ea;
	int rt;

	if (!op || !insn->detail)
		return 0;
	d = &insn->detail->ppc;
	if (effective_address(d, gpr, &ea) < 0)
		return 0;
	out->addr = ea & ~(uint64_t)(op->align - 1);
	out->store = op->store;
	out->size = op->size;
	if (op->size == 0) { /* lmw/stmw: registers RT..r31, one word each */
		rt = d->op_count > 0 && d->operands[0].type == PPC_OP_REG
			     ? gpr_index(d->operands[0].reg) : -1;
		if (rt < 0)
			return 0;
		out->size = 4u * (32u - (unsigned)rt);
	}
	return 1;
}

/* ---- POWER10 prefixed forms --------------------------------------------- */

struct ppc_prefixed_op {
	uint8_t type;	/* prefix type: 0 = 8LS, 2 = MLS */
	uint8_t opcode; /* suffix primary opcode */
	uint8_t size, store;
};

/* Power ISA 3.1, section 1.6.3/1.6.4 prefixed loads and stores. */
static const struct ppc_prefixed_op prefixed_ops[] = {
	{0, 41, 4, 0},	/* plwa */	{0, 57, 8, 0},	/* pld */
	{0, 56, 16, 0}, /* plq */	{0, 61, 8, 1},	/* pstd */
	{0, 60, 16, 1}, /* pstq */	{0, 42, 8, 0},	/* plxsd */
	{0, 43, 4, 0},	/* plxssp */	{0, 50, 16, 0}, /* plxv */
	{0, 51, 16, 0}, /* plxv (TX) */ {0, 46, 8, 1},	/* pstxsd */
	{0, 47, 4, 1},	/* pstxssp */	{0, 54, 16, 1}, /* pstxv */
	{0, 55, 16, 1}, /* pstxv (SX) */
	{2, 34, 1, 0},	/* plbz */	{2, 40, 2, 0},	/* plhz */
	{2, 42, 2, 0},	/* plha */	{2, 32, 4, 0},	/* plwz */
	{2, 38, 1, 1},	/* pstb */	{2, 44, 2, 1},	/* psth */
	{2, 36, 4, 1},	/* pstw */	{2, 48, 4, 0},	/* plfs */
	{2, 50, 8, 0},	/* plfd */	{2, 52, 4, 1},	/* pstfs */
	{2, 54, 8, 1},	/* pstfd */
};

int arch_ppc_prefixed_mem_accesses(uint32_t prefix, uint32_t suffix, uint64_t pc,
				   const uint64_t gpr[32], struct arch_ppc_mem_access *out)
{
	unsigned type = (prefix >> 24) & 3, opcode = suffix >> 26, ra = (suffix >> 16) & 31;
	uint64_t d34 = (uint64_t)(prefix & 0x3ffff) << 16 | (suffix & 0xffff);
	int64_t disp = (int64_t)(d34 << 30) >> 30; /* sign-extend 34 bits */
	int pcrel = (prefix >> 20) & 1;

	if ((prefix >> 26) != 1)
		return 0;
	for (size_t i = 0; i < sizeof(prefixed_ops) / sizeof(prefixed_ops[0]); i++) {
		const struct ppc_prefixed_op *op = &prefixed_ops[i];

		if (op->type != type || op->opcode != opcode)
			continue;
		out->addr = (pcrel ? pc : ra ? gpr[ra] : 0) + (uint64_t)disp;
		out->size = op->size;
		out->store = op->store;
		return 1;
	}
	return 0;
}

/* ---- Atomic sequences --------------------------------------------------- */

#define PPC_OP_X 31

/* larx_size - bytes loaded by a larx with extended opcode xo, 0 if none. */
static unsigned larx_size(unsigned xo)
{
	switch (xo) {
	case 52:
		return 1; /* lbarx */
	case 116:
		return 2; /* lharx */
	case 20:
		return 4; /* lwarx */
	case 84:
		return 8; /* ldarx */
	case 276:
		return 16; /* lqarx */
	default:
		return 0;
	}
}

int arch_ppc_word_mem_accesses(uint32_t word, const uint64_t gpr[32],
			       struct arch_ppc_mem_access *out)
{
	unsigned ra = (word >> 16) & 31, rb = (word >> 11) & 31;
	unsigned size = (word >> 26) == PPC_OP_X ? larx_size((word >> 1) & 0x3ff) : 0;

	if (!size)
		return 0;
	out->addr = (ra ? gpr[ra] : 0) + gpr[rb];
	out->size = size;
	out->store = 0;
	return 1;
}

int arch_ppc_is_larx(uint32_t w)
{
	return (w >> 26) == PPC_OP_X && larx_size((w >> 1) & 0x3ff) != 0;
}

static int is_stcx(uint32_t w)
{
	unsigned xo = (w >> 1) & 0x3ff;

	return (w >> 26) == PPC_OP_X && (w & 1) &&
	       (xo == 150 || xo == 182 || xo == 214 || xo == 694 || xo == 726);
}

/* direct_target - the target of a direct b/bc at `pc`; 0 if not one. */
static int direct_target(uint32_t w, uint64_t pc, uint64_t *target)
{
	unsigned op = w >> 26;
	int64_t disp;

	if (op == 18) /* I-form: LI, sign-extended 26 bits */
		disp = (int64_t)((uint64_t)(w & 0x03fffffc) << 38) >> 38;
	else if (op == 16) /* B-form: BD, sign-extended 16 bits */
		disp = (int16_t)(w & 0xfffc);
	else
		return 0;
	*target = (w & 2) ? (uint64_t)disp : pc + (uint64_t)disp; /* AA */
	return 1;
}

int arch_ppc_atomic_sequence(const uint32_t *words, unsigned n_words, uint64_t pc,
			     struct arch_ppc_atomic *seq)
{
	uint64_t targets[ARCH_PPC_ATOMIC_MAX];
	unsigned from[ARCH_PPC_ATOMIC_MAX], n_br = 0, end = 0;

	if (n_words == 0 || !arch_ppc_is_larx(words[0]))
		return 0;
	if (n_words > ARCH_PPC_ATOMIC_MAX)
		n_words = ARCH_PPC_ATOMIC_MAX;
	for (unsigned i = 1; i < n_words && !end; i++) {
		uint64_t t;

		if (is_stcx(words[i]))
			end = i;
		else if (direct_target(words[i], pc + 4 * i, &t)) {
			targets[n_br] = t;
			from[n_br++] = i;
		}
	}
	if (!end)
		return 0;
	seq->n = end + 1;
	seq->n_exits = 0;
	for (unsigned k = 0; k < n_br; k++) {
		if (targets[k] >= pc && targets[k] <= pc + 4 * end)
			continue; /* stays inside: runs on to the breakpoints anyway */
		seq->exit_index[seq->n_exits] = from[k];
		seq->exit_target[seq->n_exits++] = targets[k];
	}
	return 1;
}
