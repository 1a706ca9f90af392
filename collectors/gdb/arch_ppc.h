/*
 * arch_ppc.h - POWER load-reserve/store-conditional sequences for the gdb
 * backend.
 *
 * Load-reserve/store-conditional sequences cannot be single-stepped: the
 * step loses the reservation, the stcx. fails and the loop never ends
 * (gdb has the same problem and runs such sequences at full speed,
 * ppc_deal_with_atomic_sequence).  arch_ppc_atomic_sequence recognises
 * one, through libitrace's decoder, so the backend can do the same.
 */
#ifndef ITRACE_GDB_ARCH_PPC_H
#define ITRACE_GDB_ARCH_PPC_H

#include <stddef.h>
#include <stdint.h>

#include "itrace.h"
#include "itrace_code.h"

#define ARCH_PPC_ATOMIC_MAX 16 /* instructions scanned for the stcx. */

struct arch_ppc_atomic {
	unsigned n;		/* instructions from the larx to the stcx. */
	unsigned n_exits;
	unsigned exit_index[ARCH_PPC_ATOMIC_MAX]; /* branch leaving the sequence */
	uint64_t exit_target[ARCH_PPC_ATOMIC_MAX];
};

/* arch_ppc_is_larx - the instruction at code is a load and reserve
 * (lbarx, lharx, lwarx, ldarx, lqarx). */
int arch_ppc_is_larx(struct itrace_decoder *d, const uint8_t *code, size_t avail);

/*
 * arch_ppc_atomic_sequence - the instruction at code (address `pc`,
 * `avail` bytes readable) is a larx and a stcx. follows within
 * ARCH_PPC_ATOMIC_MAX instructions, all 4 bytes long: fill *seq with the
 * sequence length and the branches inside it whose target lies outside.
 * Returns 1 if so, 0 if no such sequence starts at code.
 */
int arch_ppc_atomic_sequence(struct itrace_decoder *d, const uint8_t *code, size_t avail,
			     uint64_t pc, struct arch_ppc_atomic *seq);

#endif
