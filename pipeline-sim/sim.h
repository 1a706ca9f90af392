/*
 * sim.h - types shared by the pipeline-sim modules: instruction classes,
 * stall causes and the dynamic instruction the input layer hands the core.
 */
#ifndef SIM_H
#define SIM_H

#include <stdint.h>

/* Execution classes: each maps to ports, a latency and an occupancy. */
enum sim_class {
	SIM_CLS_INT_ALU,
	SIM_CLS_INT_MUL,
	SIM_CLS_INT_DIV,
	SIM_CLS_BRANCH,
	SIM_CLS_LOAD,  /* pure load (mov from memory) */
	SIM_CLS_STORE, /* pure store */
	SIM_CLS_FP_ADD,
	SIM_CLS_FP_MUL,
	SIM_CLS_FP_DIV,
	SIM_CLS_VEC,   /* vector integer, logic, shuffle, moves */
	SIM_CLS_NOP,
	SIM_CLS_SYS,   /* serialising: syscall, cpuid, fences */
	/* Classes added later; a core description may leave them out and
	 * they then take the figures of the class sim_class_parent() names. */
	SIM_CLS_FP_FMA,	     /* fused multiply-add (parent fp_mul) */
	SIM_CLS_VEC_MUL,     /* vector integer multiply (parent vec) */
	SIM_CLS_VEC_SHUFFLE, /* permute, shuffle, pack, insert (parent vec) */
	SIM_CLS_VEC_LOAD,    /* the load micro-op of a vector or FP load:
			      * latency added to the cache level's (parent load) */
	SIM_CLS_VEC_STORE,   /* the store micro-op of a vector or FP store
			      * (parent store) */
	SIM_CLS_COUNT
};

#define SIM_MAX_PORTS 24 /* a calibrated core may add ports to a preset's */

/*
 * Stall causes of the CPI stack.  Port causes follow the fixed ones:
 * cause SIM_CAUSE_PORT0 + p is "port p busy".
 */
enum sim_cause {
	SIM_CAUSE_BASE,
	SIM_CAUSE_DEP_INT,
	SIM_CAUSE_DEP_FP,
	SIM_CAUSE_DEP_MEM,
	SIM_CAUSE_ROB,
	SIM_CAUSE_IQ,
	SIM_CAUSE_LQ,
	SIM_CAUSE_SQ,
	SIM_CAUSE_SERIAL,
	SIM_CAUSE_MISPREDICT,
	SIM_CAUSE_ICACHE_L2,
	SIM_CAUSE_ICACHE_LLC,
	SIM_CAUSE_ICACHE_MEM,
	SIM_CAUSE_DCACHE_L2,
	SIM_CAUSE_DCACHE_LLC,
	SIM_CAUSE_DCACHE_MEM,
	SIM_CAUSE_FRONTEND,
	SIM_CAUSE_FWD_MISPREDICT, /* a predicted store-to-load forwarding was
				   * wrong: the load and what follows re-run */
	SIM_CAUSE_PORT0,
	SIM_CAUSE_COUNT = SIM_CAUSE_PORT0 + SIM_MAX_PORTS
};

/* The largest access simulated, in bytes: more than any instruction
 * touches (an XSAVE area with AVX-512 state is 2.7 KiB); a larger MEM
 * record is simulated as this many bytes from its address. */
#define SIM_MAX_ACCESS 4096

struct sim_memref {
	uint64_t addr;
	uint32_t size;
	uint8_t store;
};

/* One executed instruction as the input layer delivers it. */
struct sim_dyn {
	uint64_t addr;
	uint64_t next_addr; /* executed next; 0 when unknown */
	uint8_t len;
	uint8_t has_bytes;
	uint8_t bytes[16];
	uint8_t has_data_addr; /* qtrace: one address, direction from decode */
	uint32_t nmem;	       /* every MEM record of the instruction, in order */
	uint32_t tid, pid;
	uint64_t data_addr;
	const struct sim_memref *mem; /* nmem entries, owned by the input */
};

/* sim_cause_name - short name of a fixed cause, NULL for port causes. */
const char *sim_cause_name(int cause);
/* sim_class_name - "int_alu", ...; NULL for an unknown class. */
const char *sim_class_name(int cls);
int sim_class_from_name(const char *name);
/* sim_class_parent - the class whose figures a class left out of a core
 * description takes; -1 for the classes every description must give. */
int sim_class_parent(int cls);

#endif
