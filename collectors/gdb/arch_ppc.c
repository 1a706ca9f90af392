/*
 * arch_ppc.c - POWER atomic sequences for the gdb backend (see arch_ppc.h).
 * What each instruction is comes from libitrace's decoder.
 */
#include "arch_ppc.h"

static int decode(struct itrace_decoder *d, const uint8_t *code, size_t avail, uint64_t pc,
		  struct itrace_insn_info *in)
{
	return avail >= 4 && itrace_decoder_info(d, code, avail, pc, in) == 0;
}

int arch_ppc_is_larx(struct itrace_decoder *d, const uint8_t *code, size_t avail)
{
	struct itrace_insn_info in;

	return decode(d, code, avail, 0, &in) && (in.attrs & ITRACE_ATTR_LOAD_RESERVE);
}

int arch_ppc_atomic_sequence(struct itrace_decoder *d, const uint8_t *code, size_t avail,
			     uint64_t pc, struct arch_ppc_atomic *seq)
{
	uint64_t targets[ARCH_PPC_ATOMIC_MAX];
	unsigned from[ARCH_PPC_ATOMIC_MAX], n_br = 0, end = 0, i = 0;
	size_t off = 0;
	struct itrace_insn_info in;

	if (!decode(d, code, avail, pc, &in) || !(in.attrs & ITRACE_ATTR_LOAD_RESERVE))
		return 0;
	off = in.d.len;
	for (i = 1; i < ARCH_PPC_ATOMIC_MAX && !end; i++) {
		if (!decode(d, code + off, avail - off, pc + off, &in) || in.d.len != 4)
			return 0; /* the backend counts 4-byte instructions */
		if (in.attrs & ITRACE_ATTR_STORE_COND)
			end = i;
		else if (in.d.flags & ITRACE_DECODED_HAS_TARGET) {
			targets[n_br] = in.d.target;
			from[n_br++] = i;
		}
		off += in.d.len;
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
