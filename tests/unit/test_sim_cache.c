/*
 * test_sim_cache.c - pipeline-sim's caches against a reference model.
 *
 * The reference is written the plain way, independently of cache.c: each
 * set is a list of (line, last-use time) pairs, LRU evicts the oldest use,
 * FIFO the oldest fill.  Miss counts must agree exactly on the same
 * address streams, for several geometries, with line-straddling accesses
 * and through a two-level hierarchy.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cache.h"
#include "config.h"

/* ---- the reference model -------------------------------------------------- */

struct ref_way {
	int valid;
	uint64_t line, used, filled;
};

struct ref_cache {
	uint64_t sets, assoc, line_bytes, clock;
	int fifo;
	struct ref_way *ways;
	uint64_t misses;
};

static void ref_init(struct ref_cache *r, uint64_t size, uint64_t assoc, uint64_t line, int fifo)
{
	r->sets = size / (assoc * line);
	r->assoc = assoc;
	r->line_bytes = line;
	r->fifo = fifo;
	r->clock = 0;
	r->misses = 0;
	r->ways = calloc(r->sets * assoc, sizeof(*r->ways));
	assert_non_null(r->ways);
}

/* ref_line - 1 on a miss (and fill). */
static int ref_line(struct ref_cache *r, uint64_t line)
{
	struct ref_way *set = r->ways + (line % r->sets) * r->assoc;
	struct ref_way *victim = NULL;

	r->clock++;
	for (uint64_t i = 0; i < r->assoc; i++)
		if (set[i].valid && set[i].line == line) {
			set[i].used = r->clock;
			return 0;
		}
	for (uint64_t i = 0; i < r->assoc; i++) {
		struct ref_way *w = &set[i];

		if (!w->valid) {
			victim = w;
			break;
		}
		if (!victim || (r->fifo ? w->filled < victim->filled : w->used < victim->used))
			victim = w;
	}
	victim->valid = 1;
	victim->line = line;
	victim->used = victim->filled = r->clock;
	return 1;
}

/* ref_access - touch every line of [addr, addr+size); one miss at most. */
static int ref_access(struct ref_cache *r, uint64_t addr, uint64_t size)
{
	int miss = 0;

	for (uint64_t l = addr / r->line_bytes; l <= (addr + size - 1) / r->line_bytes; l++)
		miss |= ref_line(r, l);
	r->misses += (uint64_t)miss;
	return miss;
}

/* ---- streams -------------------------------------------------------------- */

static uint64_t rng = 88172645463325252ull;

static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* addr_stream - a mix of strided sweeps, hot-set reuse and random jumps. */
static uint64_t next_addr(uint64_t i, uint64_t span)
{
	switch (next_rand() % 4) {
	case 0: return (i * 64) % span;
	case 1: return next_rand() % 4096;
	case 2: return (next_rand() % span) & ~7ull;
	default: return next_rand() % span; /* unaligned: may straddle lines */
	}
}

static void compare_one(uint64_t size, unsigned assoc, unsigned line, int repl)
{
	struct sim_cache_cfg cfg = { 1, size, assoc, line, 4, repl };
	struct sim_cache c;
	struct ref_cache r;
	uint64_t span = size * 4;

	assert_int_equal(sim_cache_init(&c, &cfg), 0);
	ref_init(&r, size, assoc, line, repl == SIM_REPL_FIFO);
	for (uint64_t i = 0; i < 200000; i++) {
		uint64_t a = next_addr(i, span);
		unsigned sz = 1u << (next_rand() % 4);

		assert_int_equal(sim_cache_ref(&c, a, sz), ref_access(&r, a, sz));
	}
	assert_int_equal(c.misses, r.misses);
	assert_int_equal(c.accesses, 200000);
	assert_true(r.misses > 1000); /* the stream exercises misses */
	sim_cache_free(&c);
	free(r.ways);
}

static void test_lru_matches_reference(void **state)
{
	(void)state;
	compare_one(32 << 10, 8, 64, SIM_REPL_LRU);
	compare_one(4 << 10, 1, 32, SIM_REPL_LRU);
	compare_one(48 << 10, 6, 128, SIM_REPL_LRU);
	compare_one(256 << 10, 16, 64, SIM_REPL_LRU);
	compare_one(8 << 10, 64, 128, SIM_REPL_LRU); /* fully associative */
}

static void test_fifo_matches_reference(void **state)
{
	(void)state;
	compare_one(32 << 10, 8, 64, SIM_REPL_FIFO);
	compare_one(16 << 10, 4, 64, SIM_REPL_FIFO);
}

static void test_random_replacement_is_sane(void **state)
{
	struct sim_cache_cfg cfg = { 1, 32 << 10, 8, 64, 4, SIM_REPL_RANDOM };
	struct sim_cache c;

	(void)state;
	assert_int_equal(sim_cache_init(&c, &cfg), 0);
	/* a working set that fits never misses after the first touch */
	for (int pass = 0; pass < 3; pass++)
		for (uint64_t a = 0; a < (32 << 10); a += 64)
			sim_cache_ref(&c, a, 8);
	assert_int_equal(c.misses, 512);
	/* a set thrashed with 9 lines into 8 ways misses sometimes, not always */
	c.misses = 0;
	for (int k = 0; k < 9000; k++)
		sim_cache_ref(&c, (uint64_t)(k % 9) * 4096, 8);
	assert_true(c.misses > 100 && c.misses < 9000);
	sim_cache_free(&c);
}

static void test_straddle_counts_once(void **state)
{
	struct sim_cache_cfg cfg = { 1, 4 << 10, 2, 64, 4, SIM_REPL_LRU };
	struct sim_cache c;

	(void)state;
	assert_int_equal(sim_cache_init(&c, &cfg), 0);
	assert_int_equal(sim_cache_ref(&c, 60, 8), 1); /* lines 0 and 1 */
	assert_int_equal(c.accesses, 1);
	assert_int_equal(c.misses, 1);
	assert_int_equal(sim_cache_ref(&c, 64, 8), 0); /* line 1 was filled */
	assert_int_equal(sim_cache_ref(&c, 0, 8), 0);
	sim_cache_free(&c);
}

/* the hierarchy: L1 misses go to L2, L2 misses to the LLC */
static void test_hierarchy_matches_reference(void **state)
{
	struct sim_core_cfg cfg;
	struct sim_memsys m;
	struct ref_cache r1, r2, r3;
	uint64_t l2_miss = 0, llc_miss = 0;

	(void)state;
	memset(&cfg, 0, sizeof(cfg));
	cfg.l1i = (struct sim_cache_cfg){ 1, 32 << 10, 8, 64, 1, SIM_REPL_LRU };
	cfg.l1d = (struct sim_cache_cfg){ 1, 16 << 10, 4, 64, 4, SIM_REPL_LRU };
	cfg.l2 = (struct sim_cache_cfg){ 1, 64 << 10, 8, 64, 12, SIM_REPL_LRU };
	cfg.llc = (struct sim_cache_cfg){ 1, 256 << 10, 16, 64, 40, SIM_REPL_LRU };
	cfg.mem_latency = 200;
	assert_int_equal(sim_memsys_init(&m, &cfg), 0);
	ref_init(&r1, 16 << 10, 4, 64, 0);
	ref_init(&r2, 64 << 10, 8, 64, 0);
	ref_init(&r3, 256 << 10, 16, 64, 0);
	for (uint64_t i = 0; i < 300000; i++) {
		uint64_t a = next_addr(i, 1 << 20);
		int lvl = sim_memsys_data(&m, a, 8);
		int want = SIM_LVL_L1;

		if (ref_access(&r1, a, 8)) {
			want = SIM_LVL_L2;
			if (ref_access(&r2, a, 8)) {
				l2_miss++;
				want = SIM_LVL_LLC;
				if (ref_access(&r3, a, 8)) {
					llc_miss++;
					want = SIM_LVL_MEM;
				}
			}
		}
		assert_int_equal(lvl, want);
	}
	assert_int_equal(m.l1d.misses, r1.misses);
	assert_int_equal(m.l2_miss[1], l2_miss);
	assert_int_equal(m.llc_miss[1], llc_miss);
	assert_true(llc_miss > 1000);
	assert_int_equal(m.lat[SIM_LVL_MEM], 240);
	sim_memsys_free(&m);
	free(r1.ways);
	free(r2.ways);
	free(r3.ways);
}

/* sim_cache_reset: empty again, counters at 0, and random replacement
 * picks the same victims as in a fresh cache. */
static void test_reset_is_a_fresh_cache(void **state)
{
	struct sim_cache_cfg cfg = { 1, 4 << 10, 4, 64, 4, SIM_REPL_RANDOM };
	struct sim_cache c;
	uint64_t first;

	(void)state;
	assert_int_equal(sim_cache_init(&c, &cfg), 0);
	for (int k = 0; k < 5000; k++)
		sim_cache_ref(&c, (uint64_t)(k * 7 % 97) * 64, 8);
	first = c.misses;
	assert_true(first > 97 && first < 5000);
	sim_cache_reset(&c);
	assert_int_equal(c.accesses, 0);
	assert_int_equal(c.misses, 0);
	assert_int_equal(sim_cache_ref(&c, 0, 8), 1); /* it was there before */
	sim_cache_reset(&c);
	for (int k = 0; k < 5000; k++)
		sim_cache_ref(&c, (uint64_t)(k * 7 % 97) * 64, 8);
	assert_int_equal(c.misses, first);
	sim_cache_free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lru_matches_reference),
		cmocka_unit_test(test_fifo_matches_reference),
		cmocka_unit_test(test_random_replacement_is_sane),
		cmocka_unit_test(test_straddle_counts_once),
		cmocka_unit_test(test_hierarchy_matches_reference),
		cmocka_unit_test(test_reset_is_a_fresh_cache),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
