/*
 * gen_testutil.h - the unit tests' pseudo-random numbers: a 64-bit linear
 * congruential generator (Knuth's MMIX constants), 31 bits per call, the
 * same sequence for a seed on every machine, so that a failing case can
 * be run again.
 */
#ifndef GEN_TESTUTIL_H
#define GEN_TESTUTIL_H

#include <stdint.h>

struct gen {
	uint64_t x; /* the seed, then the state */
};

/* next - the next number, 0 .. 2^31 - 1. */
static inline uint64_t next(struct gen *g)
{
	g->x = g->x * 6364136223846793005ull + 1442695040888963407ull;
	return g->x >> 33;
}

#endif
