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

#endif
