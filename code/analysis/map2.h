/*
 * map2.h - the analysis' containers: a growable vector (VEC) and an
 * open-addressing map from a pair of u64 keys to a u32 (map2).  The
 * lookups are inline: the analysis makes one or more per instruction.
 * Internal to libitrace-code.
 */
#ifndef ITRACE_MAP2_H
#define ITRACE_MAP2_H

#include "internal.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define VEC(T)                 \
	struct {               \
		T *v;          \
		size_t n, cap; \
	}
/* VEC_PUSH_SLOT - append a zeroed element, *slotp pointing at it: 0 or
 * -ITRACE_E_NOMEM.  The vector may move. */
#define VEC_PUSH_SLOT(vec, slotp)                                                   \
	(itrace_reserve((void **)&(vec).v, &(vec).cap, (vec).n + 1, sizeof(*(vec).v)) < 0       \
		 ? -ITRACE_E_NOMEM                                                     \
		 : ((*(slotp) = &(vec).v[(vec).n++]), memset(*(slotp), 0, sizeof(**(slotp))), 0))

/* Open-addressing map from a pair of u64 keys to a u32 (stored +1);
 * all-zero is an empty map. */
struct map2 {
	uint64_t *k1, *k2;
	uint32_t *val; /* 0 = empty slot */
	size_t cap, n;
};

static inline uint64_t map2_mix(uint64_t a, uint64_t b)
{
	uint64_t h = a * 0x9E3779B97F4A7C15ull ^ (b + 0x632BE59BD9B4E019ull) * 0xC2B2AE3D27D4EB4Full;

	h ^= h >> 31;
	h *= 0xBF58476D1CE4E5B9ull;
	return h ^ (h >> 29);
}

static inline uint32_t *map2_slot(const struct map2 *m, uint64_t a, uint64_t b)
{
	size_t mask = m->cap - 1, i = map2_mix(a, b) & mask;

	while (m->val[i] && (m->k1[i] != a || m->k2[i] != b))
		i = (i + 1) & mask;
	return &m->val[i];
}

/* map2_get - value for (a, b), or -1 when absent. */
static inline int64_t map2_get(const struct map2 *m, uint64_t a, uint64_t b)
{
	uint32_t *s;

	if (!m->cap)
		return -1;
	s = map2_slot(m, a, b);
	return *s ? (int64_t)*s - 1 : -1;
}

/* map2_rehash - twice the slots (8 at first): 0 or -ITRACE_E_NOMEM. */
int map2_rehash(struct map2 *m);

/* map2_put - set (a, b) -> v (insert or overwrite): 0 or -ITRACE_E_NOMEM. */
static inline int map2_put(struct map2 *m, uint64_t a, uint64_t b, uint32_t v)
{
	uint32_t *s;
	size_t at;

	if ((m->n + 1) * 4 > m->cap * 3 && map2_rehash(m) < 0)
		return -ITRACE_E_NOMEM;
	s = map2_slot(m, a, b);
	at = (size_t)(s - m->val);
	if (!*s)
		m->n++;
	*s = v + 1;
	m->k1[at] = a;
	m->k2[at] = b;
	return 0;
}

/* map2_free - release the slots; the map is empty again. */
void map2_free(struct map2 *m);

#endif
