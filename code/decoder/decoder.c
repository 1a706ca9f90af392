/*
 * decoder.c - the one instruction decoder: public entry points, which
 * pick the back end's operations table by ELF machine, and effective
 * addresses from register values (see itrace_code.h, section 5, and
 * decoder_int.h for the files behind it).
 */
#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "decoder_int.h"

/* The back ends, by ELF machine. */
static const struct dec_ops *const backends[] = {&dec_x86_ops, &dec_ppc_ops};

/* backend_for - the back end that decodes machine's code in byte order
 * endian (ELFDATA2LSB/MSB), or NULL. */
static const struct dec_ops *backend_for(uint16_t machine, uint8_t endian)
{
	for (size_t i = 0; i < sizeof(backends) / sizeof(backends[0]); i++) {
		const struct dec_ops *o = backends[i];

		if (o->machine == machine && ((endian == ELFDATA2LSB && o->little_endian) ||
					      (endian == ELFDATA2MSB && o->big_endian)))
			return o;
	}
	return NULL;
}

int itrace_decoder_alloc(uint16_t machine, uint8_t endian, struct itrace_decoder **dp)
{
	const struct dec_ops *ops;
	struct itrace_decoder *d;
	int rc;

	if (!dp)
		return -ITRACE_E_INVAL;
	*dp = NULL;
	ops = backend_for(machine, endian);
	if (!ops)
		return -ITRACE_E_NOTSUP;
	d = calloc(1, sizeof(*d));
	if (!d)
		return -ITRACE_E_NOMEM;
	d->ops = ops;
	rc = ops->open(d, endian == ELFDATA2MSB);
	if (rc < 0) {
		itrace_decoder_free(d);
		return rc;
	}
	*dp = d;
	return 0;
}

void itrace_decoder_free(struct itrace_decoder *d)
{
	if (!d)
		return;
	d->ops->close(d);
	free(d);
}

int itrace_decoder_decode(struct itrace_decoder *d, const uint8_t *code, size_t avail,
			  uint64_t addr, struct itrace_decoded *out)
{
	if (!d || !code || !out)
		return -ITRACE_E_INVAL;
	return d->ops->decode(d, code, avail, addr, out);
}

int itrace_decoder_info(struct itrace_decoder *d, const uint8_t *code, size_t avail,
			uint64_t addr, struct itrace_insn_info *out)
{
	if (!d || !code || !out)
		return -ITRACE_E_INVAL;
	memset(out, 0, sizeof(*out));
	return d->ops->info(d, code, avail, addr, out);
}

int itrace_decoder_text(struct itrace_decoder *d, const uint8_t *code, size_t avail,
			uint64_t addr, char *buf, size_t cap)
{
	if (!d || !code || !buf || !cap)
		return -ITRACE_E_INVAL;
	buf[0] = '\0';
	return d->ops->text(d, code, avail, addr, buf, cap);
}

const char *itrace_decoder_reg_name(const struct itrace_decoder *d, unsigned reg)
{
	if (!d || reg == ITRACE_REG_NONE || reg >= ITRACE_REG_MAX_)
		return NULL;
	return d->ops->reg_name(reg);
}

const char *itrace_insn_class_name(unsigned cls)
{
	static const char *const names[ITRACE_CLASS_COUNT] = {
		[ITRACE_CLASS_NOP] = "nop",	      [ITRACE_CLASS_MOVE] = "move",
		[ITRACE_CLASS_LOAD] = "load",	      [ITRACE_CLASS_STORE] = "store",
		[ITRACE_CLASS_INT_ALU] = "int_alu",   [ITRACE_CLASS_INT_MUL] = "int_mul",
		[ITRACE_CLASS_INT_DIV] = "int_div",   [ITRACE_CLASS_BRANCH] = "branch",
		[ITRACE_CLASS_FP_ADD] = "fp_add",     [ITRACE_CLASS_FP_MUL] = "fp_mul",
		[ITRACE_CLASS_FP_FMA] = "fp_fma",     [ITRACE_CLASS_FP_DIV] = "fp_div",
		[ITRACE_CLASS_FP_SQRT] = "fp_sqrt",   [ITRACE_CLASS_VEC_ALU] = "vec_alu",
		[ITRACE_CLASS_VEC_MUL] = "vec_mul",   [ITRACE_CLASS_VEC_SHUFFLE] = "vec_shuffle",
		[ITRACE_CLASS_CRYPTO] = "crypto",     [ITRACE_CLASS_STRING] = "string",
		[ITRACE_CLASS_ATOMIC] = "atomic",     [ITRACE_CLASS_FENCE] = "fence",
		[ITRACE_CLASS_SYSTEM] = "system",     [ITRACE_CLASS_MATRIX] = "matrix",
	};

	return cls < ITRACE_CLASS_COUNT ? names[cls] : NULL;
}

/* ---- Effective addresses ---------------------------------------------- */

static uint64_t gpr_value(const struct itrace_regs *r, unsigned reg)
{
	return reg >= ITRACE_REG_GPR(0) && reg <= ITRACE_REG_GPR(31) ? r->gpr[reg - ITRACE_REG_GPR0] : 0;
}

static int is_gpr(unsigned reg)
{
	return reg >= ITRACE_REG_GPR(0) && reg <= ITRACE_REG_GPR(31);
}

/* The x86 count register is rcx (ecx with a 32-bit address size). */
static int rep_count_is_zero(const struct itrace_insn_info *in, const struct itrace_regs *r)
{
	int addr32 = in->nmem && (in->mem[0].flags & ITRACE_MEMOP_ADDR32);
	uint64_t count = r->gpr[1];

	if (!(in->d.flags & ITRACE_DECODED_REP))
		return 0;
	return (addr32 ? (uint32_t)count : count) == 0;
}

/*
 * VEX (Valgrind) and QEMU's TCG run a rep string instruction as a loop
 * that tests the count on entry, makes one iteration, then, for cmps and
 * scas, leaves when the comparison ends the loop, and else enters the
 * instruction again: after the iteration that ran the count out, once
 * more, only to find it zero.  A processor that single-steps it leaves it
 * right after that iteration.  ITRACE.md 6.5.2 records the entries.
 */
int itrace_insn_rep_final_check(const struct itrace_insn_info *in, const struct itrace_regs *before,
				const struct itrace_regs *after)
{
	int zf;

	if (!in || !before || !after || !(in->d.flags & ITRACE_DECODED_REP) ||
	    rep_count_is_zero(in, before) || !rep_count_is_zero(in, after))
		return 0;
	zf = (after->flags >> 6) & 1;
	if (in->attrs & ITRACE_ATTR_REPE)
		return zf; /* repe: another round unless the bytes differed */
	if (in->attrs & ITRACE_ATTR_REPNE)
		return !zf;
	return 1;
}

/* operand_address - EA of operand m; -1 when the registers do not give it. */
static int operand_address(const struct itrace_insn_info *in, const struct itrace_insn_mem *m,
			   const struct itrace_regs *r, uint64_t *ea)
{
	uint64_t a = (uint64_t)m->disp;

	if (m->flags & ITRACE_MEMOP_VSIB)
		return -1;
	if (m->flags & ITRACE_MEMOP_PCREL)
		/* x86: after the instruction; POWER (prefixed only): at it */
		a += in->d.addr + (in->d.flags & ITRACE_DECODED_PREFIXED ? 0 : in->d.len);
	if (m->base != ITRACE_REG_NONE) {
		if (!is_gpr(m->base))
			return -1;
		a += gpr_value(r, m->base);
	}
	if (m->index != ITRACE_REG_NONE && !(m->flags & ITRACE_MEMOP_LEN_REG)) {
		uint64_t v;

		if (!is_gpr(m->index))
			return -1;
		v = gpr_value(r, m->index);
		if (m->flags & ITRACE_MEMOP_INDEX8)
			v &= 0xff;
		a += v * m->scale;
	}
	if (m->flags & ITRACE_MEMOP_PUSH)
		a -= m->size;
	if (m->flags & ITRACE_MEMOP_AFTER_POP)
		a += m->size;
	if (m->flags & ITRACE_MEMOP_ADDR32)
		a = (uint32_t)a;
	if (m->segment == ITRACE_REG_X86_FS)
		a += r->fs_base;
	else if (m->segment == ITRACE_REG_X86_GS)
		a += r->gs_base;
	if (m->align > 1)
		a &= ~(uint64_t)(m->align - 1);
	*ea = a;
	return 0;
}

/* operand_size - bytes accessed: the size, or for lxvl/stxvl the length in
 * bits 0-7 of RB (Power ISA 3.1, 7.6.1 "Load VSX Vector with Length"),
 * at most the size. */
static uint32_t operand_size(const struct itrace_insn_mem *m, const struct itrace_regs *r)
{
	uint64_t len;

	if (!(m->flags & ITRACE_MEMOP_LEN_REG))
		return m->size;
	len = gpr_value(r, m->index) >> 56;
	return len < m->size ? (uint32_t)len : m->size;
}

static int add_accesses(const struct itrace_insn_info *in, const struct itrace_regs *r,
			struct itrace_mem_access *out, int n, int max, unsigned want)
{
	for (unsigned i = 0; i < in->nmem && n < max; i++) {
		const struct itrace_insn_mem *m = &in->mem[i];
		uint32_t size = operand_size(m, r);
		uint64_t ea;

		if (!(m->flags & want) || size == 0 || operand_address(in, m, r, &ea) < 0)
			continue;
		out[n].addr = ea;
		out[n].size = size;
		out[n].store = want == ITRACE_MEMOP_WRITE;
		n++;
	}
	return n;
}

int itrace_insn_mem_accesses(const struct itrace_insn_info *in, const struct itrace_regs *r,
			     struct itrace_mem_access *out, int max)
{
	int n;

	if (!in || !r || !out || max <= 0 || rep_count_is_zero(in, r))
		return 0;
	n = add_accesses(in, r, out, 0, max, ITRACE_MEMOP_READ);
	return add_accesses(in, r, out, n, max, ITRACE_MEMOP_WRITE);
}
