/*
 * sem.h - instruction semantics from libitrace's decoder, decoded once per
 * static instruction and cached by address: the simulator's class,
 * registers read and written (flags included, sub-registers folded onto
 * their full register: the decoder's register ids), memory direction,
 * branch kind and the disassembly text.  The decoder's full answer stays
 * in `info` for models that need more (micro-op splitting, idioms).
 */
#ifndef SIM_SEM_H
#define SIM_SEM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "itrace.h"
#include "itrace_code.h"
#include "sim.h"

enum sim_sem_flags {
	SIM_SEM_LOAD = 1u << 0,
	SIM_SEM_STORE = 1u << 1,
	SIM_SEM_BRANCH = 1u << 2,
	SIM_SEM_COND = 1u << 3,
	SIM_SEM_CALL = 1u << 4,
	SIM_SEM_RET = 1u << 5,
	SIM_SEM_INDIRECT = 1u << 6,
	SIM_SEM_UNDECODED = 1u << 7, /* no bytes: simulated as a one-cycle
				      * integer operation, and counted */
	SIM_SEM_UNDECODABLE = 1u << 8, /* bytes the decoder rejects: not
					* simulated, counted and reported */
};

/* Micro-op facts (struct sim_sem.uop), from the decoder's attributes;
 * the core description says which of them the core exploits. */
enum sim_sem_uop {
	SIM_UOP_MOVE = 1u << 0,	    /* eliminable register move */
	SIM_UOP_ZERO = 1u << 1,	    /* zero idiom (no sources) */
	SIM_UOP_ADD_IMM = 1u << 2,  /* add/sub/inc/dec reg, imm */
	SIM_UOP_FUSIBLE = 1u << 3,  /* may fuse with a following jcc */
	SIM_UOP_VEC_LOAD = 1u << 4, /* its load goes to a vector register */
	SIM_UOP_NARROW = 1u << 5,   /* integer operands of 32 bits or less */
	SIM_UOP_REP = 1u << 6,	    /* rep string: one iteration */
	SIM_UOP_VEC_STORE = 1u << 7, /* its store comes from a vector register */
	SIM_UOP_FUSES = 1u << 8,    /* seen macro-fused with the jcc after it:
				     * the pair issues as one op on a branch port */
};

#define SIM_SEM_MAX_SRC 8
#define SIM_SEM_MAX_ADDR 4
#define SIM_SEM_MAX_DST 6
#define SIM_MAX_REGS 256 /* canonical register ids */

struct sim_sem {
	uint64_t addr;
	uint8_t len;
	uint8_t cls;   /* enum sim_class */
	uint16_t flags; /* enum sim_sem_flags */
	uint8_t nsrc, ndst;
	uint8_t has_bytes;
	uint16_t uop;	/* enum sim_sem_uop */
	uint8_t naddr;	/* registers that form memory addresses: the load
			 * micro-op waits only for these */
	uint8_t addr_src[SIM_SEM_MAX_ADDR];
	uint8_t src[SIM_SEM_MAX_SRC];
	uint8_t dst[SIM_SEM_MAX_DST];
	uint8_t bytes[16];
	uint32_t id;	   /* dense index, 0.. */
	uint32_t pid;	   /* process it was first seen in */
	uint64_t count;	   /* times executed */
	uint64_t branch_miss; /* mispredictions */
	uint64_t l1d_miss;    /* references that missed L1D */
	double stall[SIM_CAUSE_COUNT]; /* lost retire slots by cause */
	char text[56];	   /* "mnemonic operands" */
	struct itrace_insn_info info; /* the decoder's answer (when decoded) */
};

struct sim_semtab;

enum sim_arch { SIM_ARCH_X86_64, SIM_ARCH_PPC64LE, SIM_ARCH_PPC64BE };

/* sim_semtab_open - a table for `arch`; NULL when out of memory or
 * the decoder cannot open the architecture. */
struct sim_semtab *sim_semtab_open(int arch);
void sim_semtab_close(struct sim_semtab *t);
/* sim_semtab_reset - empty again, as sim_semtab_open left it, keeping the
 * decoder and the memory (callers that simulate many short traces). */
void sim_semtab_reset(struct sim_semtab *t);

/*
 * sim_semtab_get - the semantics of the instruction at addr; decoded on
 * first sight (or when bytes differ from the cached ones).  `bytes` may be
 * NULL when unknown: the entry is then marked SIM_SEM_UNDECODED and
 * simulated as a one-cycle integer operation.  Bytes the decoder rejects
 * give an entry marked SIM_SEM_UNDECODABLE, which the caller must not
 * simulate (no class is made up for it).  Returns NULL only when out of
 * memory.
 */
struct sim_sem *sim_semtab_get(struct sim_semtab *t, uint64_t addr, unsigned len,
			       const uint8_t *bytes);

/* sim_semtab_find - the cached entry for addr, NULL if never seen. */
struct sim_sem *sim_semtab_find(struct sim_semtab *t, uint64_t addr);

/* Number of static instructions and access by dense id. */
size_t sim_semtab_count(const struct sim_semtab *t);
struct sim_sem *sim_semtab_at(struct sim_semtab *t, size_t id);

/* sim_semtab_undecoded - static instructions simulated without bytes. */
size_t sim_semtab_undecoded(const struct sim_semtab *t);

/* sim_semtab_undecodable - static instructions whose bytes do not decode. */
size_t sim_semtab_undecodable(const struct sim_semtab *t);

/*
 * sim_semtab_report_undecodable - one warning line on `out` naming how many
 * executions of undecodable instructions were left out of the simulation,
 * and the `top` most executed encodings (address, bytes, count).
 * Nothing when there are none.
 */
void sim_semtab_report_undecodable(const struct sim_semtab *t, FILE *out, const char *prog, int top);

/* sim_sem_decode - decode one instruction into *s (tests use it). */
int sim_sem_decode(struct sim_semtab *t, struct sim_sem *s, uint64_t addr, const uint8_t *bytes,
		   unsigned len);

#endif
