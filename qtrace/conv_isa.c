/*
 * conv_isa.c - how each ISA maps onto qtrace's fixed 32-bit words.
 *
 * qtrace has no architecture field and steps every record by 4 bytes
 * (qtrace-tools' qtreader_next_record() adds 4 to the address), so only
 * fixed-width ISAs fit.  POWER is
 * the one its consumers understand; a new fixed-width ISA is one more
 * table entry with its own words() and term_code().
 */
#include "conv_isa.h"
#include "itrace_code.h"

#include <elf.h>

static uint32_t word_at(const uint8_t *b, int little)
{
	if (little)
		return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
		       (uint32_t)b[3] << 24;
	return (uint32_t)b[3] | (uint32_t)b[2] << 8 | (uint32_t)b[1] << 16 |
	       (uint32_t)b[0] << 24;
}

/* POWER: 4-byte words, or an 8-byte POWER10 prefixed pair (prefix first). */
static int power_words(const uint8_t *bytes, unsigned len, int little, struct qtrace_insn *in)
{
	in->insn = word_at(bytes, little);
	in->suffix = 0;
	in->len = (uint8_t)len;
	if (len == 4)
		return 0;
	if (len == 8 && qtrace_power_is_prefix(in->insn)) {
		in->suffix = word_at(bytes + 4, little);
		return 0;
	}
	return -1;
}

/* qtrace-tools' codes: 0x80 conditional, 0x08 unconditional (termination codes
 * of qtlib/qtrace.h); sc/scv and non-branches get none (a jump after
 * them is written as a discontinuity, 0x10).  Prefixed instructions are
 * never branches (Power ISA 3.1, 1.6). */
static unsigned power_term_code(unsigned kind)
{
	switch (kind) {
	case ITRACE_BRANCH_COND:
		return QTRACE_TERM_COND;
	case ITRACE_BRANCH_UNCOND:
	case ITRACE_BRANCH_CALL:
	case ITRACE_BRANCH_RETURN:
	case ITRACE_BRANCH_INDIRECT:
	case ITRACE_BRANCH_INDIRECT_CALL:
		return QTRACE_TERM_UNCOND;
	default:
		return QTRACE_TERM_NONE;
	}
}

static const struct conv_isa isa_power = {
	.name = "POWER",
	.machines = {EM_PPC64, EM_PPC, 0},
	.words = power_words,
	.term_code = power_term_code,
};

static const struct conv_isa *const isas[] = {&isa_power};

const struct conv_isa *conv_isa_for_machine(uint16_t machine)
{
	for (size_t i = 0; i < sizeof(isas) / sizeof(isas[0]); i++)
		for (const uint16_t *m = isas[i]->machines; *m; m++)
			if (*m == machine)
				return isas[i];
	return NULL;
}

const char *conv_machine_name(uint16_t machine)
{
	switch (machine) {
	case EM_X86_64:
		return "x86-64";
	case EM_386:
		return "i386";
	case EM_AARCH64:
		return "AArch64";
	case EM_ARM:
		return "ARM";
	case EM_RISCV:
		return "RISC-V";
	case EM_S390:
		return "s390";
	case EM_PPC64:
		return "ppc64";
	case EM_PPC:
		return "ppc";
	default:
		return "non-POWER";
	}
}
