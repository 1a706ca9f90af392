/*
 * cache.h - set-associative caches and the L1I/L1D/L2/LLC hierarchy.
 *
 * A reference (address, size) that straddles two lines touches both and
 * counts as one access and at most one miss; a level that misses passes
 * the whole reference on to the next level.  Misses allocate at every
 * level (write-allocate, no write-back traffic).  This is the model of
 * valgrind's cachegrind, so that miss counts can be compared with it.
 */
#ifndef SIM_CACHE_H
#define SIM_CACHE_H

#include <stdint.h>

#include "config.h"

struct sim_cache {
	unsigned assoc, line_shift;
	uint64_t set_mask;
	int repl;
	uint64_t rng;
	uint64_t *tags; /* per set, assoc entries: line+1, 0 = empty; LRU: MRU first */
	uint64_t accesses, misses;
};

/* sim_cache_init - allocate; returns 0 or -1 (out of memory). */
int sim_cache_init(struct sim_cache *c, const struct sim_cache_cfg *cfg);
void sim_cache_free(struct sim_cache *c);
/* sim_cache_reset - empty again, counters at 0, as sim_cache_init left it. */
void sim_cache_reset(struct sim_cache *c);

/* sim_cache_ref - one reference; returns 1 when it missed (and fills). */
int sim_cache_ref(struct sim_cache *c, uint64_t addr, unsigned size);

/* sim_cache_fill - bring the line of addr in without counting an access
 * (prefetches); returns 1 when it was not there. */
int sim_cache_fill(struct sim_cache *c, uint64_t addr);

/* Levels a reference can be served from. */
enum sim_level { SIM_LVL_L1, SIM_LVL_L2, SIM_LVL_LLC, SIM_LVL_MEM };

struct sim_memsys {
	struct sim_cache l1i, l1d, l2, llc;
	int has_l2, has_llc;
	unsigned lat[4]; /* load-to-use latency by level */
	/* accesses and misses of the shared levels, by side (0 = I, 1 = D) */
	uint64_t l2_acc[2], l2_miss[2], llc_acc[2], llc_miss[2];
};

int sim_memsys_init(struct sim_memsys *m, const struct sim_core_cfg *cfg);
void sim_memsys_free(struct sim_memsys *m);
/* sim_memsys_reset - every cache empty and every counter 0, as
 * sim_memsys_init left it, without allocating. */
void sim_memsys_reset(struct sim_memsys *m);

/* sim_memsys_data / _fetch - reference through the hierarchy; returns the
 * level that served it (enum sim_level). */
int sim_memsys_data(struct sim_memsys *m, uint64_t addr, unsigned size);
int sim_memsys_fetch(struct sim_memsys *m, uint64_t addr, unsigned size);

/* sim_memsys_prefetch - fill the line of addr into L1D and the levels
 * below without counting accesses; returns the level it came from. */
int sim_memsys_prefetch(struct sim_memsys *m, uint64_t addr);

#endif
