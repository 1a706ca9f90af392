/*
 * conv_isa.h - how one ISA maps onto qtrace's words (conv_isa.c), apart
 * from the stream logic of conv.h, which uses it: a new fixed-width ISA
 * is one more table entry there and touches nothing else.
 */
#ifndef QTRACE_CONV_ISA_H
#define QTRACE_CONV_ISA_H

#include <stdint.h>

#include "qtrace.h"

struct conv_isa {
	const char *name;
	uint16_t machines[4]; /* ELF e_machine values, 0-terminated */
	/*
	 * words - fill in->insn/suffix/len from `len` instruction bytes in the
	 * target byte order (`little`).  Returns 0, or -1 if the bytes are no
	 * instruction this ISA's qtrace form can hold (wrong length).
	 */
	int (*words)(const uint8_t *bytes, unsigned len, int little, struct qtrace_insn *in);
	/*
	 * term_code - QTRACE_TERM_* for an instruction whose branch kind
	 * libitrace's decoder gives as `kind` (enum itrace_branch_kind, or
	 * ITRACE_INSN_NOT_BRANCH): 0 for no branch.
	 */
	unsigned (*term_code)(unsigned kind);
};

/* conv_isa_for_machine - the ISA for an ELF machine, or NULL (not qtrace-able). */
const struct conv_isa *conv_isa_for_machine(uint16_t machine);

/* conv_machine_name - "x86-64", "ppc64", ... for messages; never NULL. */
const char *conv_machine_name(uint16_t machine);

#endif
