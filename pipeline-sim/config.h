/*
 * config.h - the core description: widths, queues, ports and classes,
 * branch predictor, cache hierarchy.  Read from a small text file of
 * `key = value` lines (see cores/NAME.core for the documented presets).
 */
#ifndef SIM_CONFIG_H
#define SIM_CONFIG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sim.h"

enum sim_repl { SIM_REPL_LRU, SIM_REPL_FIFO, SIM_REPL_RANDOM };
enum sim_bpred_kind { SIM_BP_BIMODAL, SIM_BP_GSHARE, SIM_BP_TAGE };

struct sim_cache_cfg {
	int enabled;
	uint64_t size;	  /* bytes */
	unsigned assoc;
	unsigned line;	  /* bytes, power of two */
	unsigned latency; /* load-to-use cycles on a hit at this level */
	int repl;	  /* enum sim_repl */
};

struct sim_class_cfg {
	uint32_t port_mask; /* bit p: may issue on port p */
	unsigned latency;   /* result latency in cycles */
	unsigned occupancy; /* cycles the port stays busy (1 = pipelined) */
	unsigned latency32, occupancy32; /* for operands of 32 bits or less
					  * (divides); 0 = as latency/occupancy */
};

struct sim_core_cfg {
	char name[64];
	int inorder;
	unsigned fetch_width, dispatch_width, retire_width;
	unsigned frontend_depth; /* cycles from fetch to dispatch */
	unsigned fetch_queue;	 /* decoded instructions buffered before dispatch */
	unsigned taken_per_cycle; /* taken branches a fetch group may hold: the
				   * last one ends it (0: as 1, the default for
				   * descriptions without it) */
	unsigned rob, iq, lq, sq;
	unsigned mispredict_penalty; /* cycles from resolve to refetch */
	unsigned store_forward_latency; /* store data ready -> forwarded load's result */
	/* micro-op model (0 = off, the default for descriptions without them) */
	unsigned macro_fusion;	    /* cmp/test/add/sub/and/inc/dec + jcc: one op */
	unsigned move_elimination;  /* register moves renamed, no port, no latency */
	unsigned zero_idioms;	    /* xor r,r and friends renamed to zero, no port */
	unsigned immediate_folding; /* add/sub/inc/dec reg, imm folded at rename */
	unsigned rep_startup;	    /* rep string: cycles before the first iteration's data */
	unsigned rep_bytes_per_cycle; /* rep string: bytes per cycle after it (0: one
				       * iteration as an ordinary load/store) */
	unsigned memory_renaming;   /* a load that forwards from the same store
				     * instruction as last time gets the data at
				     * once (no forwarding latency) */
	unsigned store_port_bytes;  /* bytes a store port writes per cycle: a wider
				     * store keeps it longer (0: any width in one) */
	int nports;
	char port_names[SIM_MAX_PORTS][16];
	struct sim_class_cfg cls[SIM_CLS_COUNT];
	int bpred;		/* enum sim_bpred_kind */
	unsigned bpred_bits;	/* log2 entries of the base/pattern table */
	unsigned ghist_bits;	/* gshare history length */
	unsigned btb_entries;	/* power of two */
	unsigned ras_entries;
	struct sim_cache_cfg l1i, l1d, l2, llc;
	unsigned mem_latency;
	/* fill paths: cycles per line L2, the LLC and memory deliver towards
	 * L1 (bandwidth; for memory, latency / outstanding misses); 0: no
	 * limit.  `fill=` in the l2 and llc lines, mem_fill. */
	unsigned l2_fill, llc_fill, mem_fill;
	int prefetch;		  /* enum sim_prefetch */
	unsigned prefetch_degree; /* lines fetched ahead of a stride */
};

enum sim_prefetch { SIM_PF_NONE, SIM_PF_STRIDE };

/* sim_config_init - an empty config (everything must come from a file). */
void sim_config_init(struct sim_core_cfg *c);

/*
 * sim_config_parse - apply the `key = value` lines of `text` (NUL-
 * terminated).  `origin` names the source in messages.  Returns 0, or -1
 * with a message "origin:line: problem" in err.
 */
int sim_config_parse(struct sim_core_cfg *c, const char *text, const char *origin,
		     char *err, size_t errlen);

/* sim_config_set - apply one "key=value" override (--set). */
int sim_config_set(struct sim_core_cfg *c, const char *kv, char *err, size_t errlen);

/* sim_config_validate - give the classes left out their parent's figures
 * (sim_class_parent), then check completeness and ranges. */
int sim_config_validate(struct sim_core_cfg *c, char *err, size_t errlen);

/*
 * sim_config_load - NAME of a bundled preset or a file path.  Returns 0 or
 * -1 with err set.
 */
int sim_config_load(struct sim_core_cfg *c, const char *name_or_path, char *err, size_t errlen);

/*
 * sim_config_set_port_count - give class `cls` n ports (n >= 1): the
 * first n of its own when it has more; else its own, then the other ports
 * of its kind of unit (integer, load, store, vector/FP: an imul on more
 * of the ALUs), then new ports of that kind named "alu4", "ld3", "st2",
 * "fp4" and so on.  Returns the ports it has then (fewer than n only when
 * SIM_MAX_PORTS is reached).  What --calibrate does with a measured
 * throughput.
 */
unsigned sim_config_set_port_count(struct sim_core_cfg *c, int cls, unsigned n);

/* sim_config_print - the description as a core file that --core reads. */
void sim_config_print(FILE *out, const struct sim_core_cfg *c);

/* Bundled presets (generated from cores/NAME.core at build time). */
struct sim_preset {
	const char *name;
	const char *text;
};
extern const struct sim_preset sim_presets[];
extern const size_t sim_preset_count;

/* The preset used without --core. */
#define SIM_DEFAULT_PRESET "zen4"

#endif
