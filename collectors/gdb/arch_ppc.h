/*
 * arch_ppc.h - POWER (ppc64, ppc64le) memory accesses of one instruction,
 * from capstone's operands and the general registers before it executes.
 *
 * Covers the D/DS-form loads and stores (base + displacement), the X-form
 * indexed ones (RA|0 + RB), update forms, byte-reversed, reserve/conditional
 * (larx/stcx.), floating-point, AltiVec/VSX element and vector forms (with
 * their alignment) and lmw/stmw.  RA = r0 means the value 0, as the ISA
 * says.  Cache-management instructions (dcbz, dcbt, ...) are not counted
 * as data accesses.
 */
#ifndef ITRACE_GDB_ARCH_PPC_H
#define ITRACE_GDB_ARCH_PPC_H

#include <stdint.h>

#include <capstone/capstone.h>

struct arch_ppc_mem_access {
	uint64_t addr;
	uint32_t size;
	uint8_t store;
};

/*
 * arch_ppc_mem_accesses - the access of `insn` (decoded with detail) given
 * gpr[0..31] before it executes.  Returns 1 with *out filled, or 0 when the
 * instruction does not access data memory.
 */
int arch_ppc_mem_accesses(const cs_insn *insn, const uint64_t gpr[32],
			  struct arch_ppc_mem_access *out);

/*
 * arch_ppc_word_mem_accesses - the same from the raw instruction word, for
 * what capstone 4 cannot decode: larx with the EH hint set (glibc's locks
 * use "lwarx rT,rA,rB,1").  Returns 1 with *out filled, or 0.
 */
int arch_ppc_word_mem_accesses(uint32_t word, const uint64_t gpr[32],
			       struct arch_ppc_mem_access *out);

/*
 * arch_ppc_prefixed_mem_accesses - POWER10 prefixed loads and stores
 * (8LS and MLS forms: pld, pstd, plwz, plxv, ...; capstone 4 knows none):
 * EA = (RA|0) + d34, or pc + d34 when R = 1.  `pc` is the prefix's address.
 * Returns 1 with *out filled, or 0 (not a prefixed load/store, e.g. pli).
 */
int arch_ppc_prefixed_mem_accesses(uint32_t prefix, uint32_t suffix, uint64_t pc,
				   const uint64_t gpr[32], struct arch_ppc_mem_access *out);

/*
 * Load-reserve/store-conditional sequences cannot be single-stepped: the
 * step loses the reservation, the stcx. fails and the loop never ends
 * (gdb has the same problem and runs such sequences at full speed,
 * ppc_deal_with_atomic_sequence).  arch_ppc_atomic_sequence recognises
 * one from its instruction words so the backend can do the same.
 */
#define ARCH_PPC_ATOMIC_MAX 16 /* instructions scanned for the stcx. */

struct arch_ppc_atomic {
	unsigned n;		/* instructions from the larx to the stcx. */
	unsigned n_exits;
	unsigned exit_index[ARCH_PPC_ATOMIC_MAX]; /* branch leaving the sequence */
	uint64_t exit_target[ARCH_PPC_ATOMIC_MAX];
};

/* arch_ppc_is_larx - lbarx, lharx, lwarx, ldarx or lqarx. */
int arch_ppc_is_larx(uint32_t word);

/*
 * arch_ppc_atomic_sequence - words[0] (at `pc`) is a larx and a stcx.
 * follows within `n_words` (at most ARCH_PPC_ATOMIC_MAX): fill *seq with
 * the sequence length and the branches inside it whose target lies
 * outside.  Returns 1 if so, 0 if words[0] starts no such sequence.
 */
int arch_ppc_atomic_sequence(const uint32_t *words, unsigned n_words, uint64_t pc,
			     struct arch_ppc_atomic *seq);

#endif
