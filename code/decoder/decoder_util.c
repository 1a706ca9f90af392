/*
 * decoder_util.c - what the decoder's back ends share: register lists
 * kept without duplicates, memory operands, mnemonic prefixes.  It calls
 * nothing of the decoder, so the back ends depend on it one way only
 * (decoder_int.h).
 */
#include <string.h>

#include "decoder_int.h"

int dec_starts(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

int dec_starts_any(const char *s, const char *const *prefixes)
{
	for (; *prefixes; prefixes++)
		if (dec_starts(s, *prefixes))
			return 1;
	return 0;
}

static void add_once(uint8_t *list, uint8_t *n, unsigned max, unsigned reg, uint16_t *attrs)
{
	if (reg == ITRACE_REG_NONE)
		return;
	for (unsigned i = 0; i < *n; i++)
		if (list[i] == reg)
			return;
	if (*n < max)
		list[(*n)++] = (uint8_t)reg;
	else
		*attrs |= ITRACE_ATTR_REGS_CUT;
}

void info_add_read(struct itrace_insn_info *in, unsigned reg)
{
	add_once(in->read, &in->nread, ITRACE_INSN_MAX_READS, reg, &in->attrs);
}

void info_add_write(struct itrace_insn_info *in, unsigned reg)
{
	add_once(in->write, &in->nwrite, ITRACE_INSN_MAX_WRITES, reg, &in->attrs);
}

struct itrace_insn_mem *info_add_mem(struct itrace_insn_info *in)
{
	struct itrace_insn_mem *m;

	if (in->nmem >= ITRACE_INSN_MAX_MEM)
		return NULL;
	m = &in->mem[in->nmem++];
	memset(m, 0, sizeof(*m));
	m->scale = 1;
	m->align = 1;
	return m;
}
