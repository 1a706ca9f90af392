/* cache.c - set-associative caches (see cache.h). */
#include "cache.h"

#include <stdlib.h>
#include <string.h>

static unsigned log2u(uint64_t v)
{
	unsigned n = 0;

	while (v > 1) {
		v >>= 1;
		n++;
	}
	return n;
}

int sim_cache_init(struct sim_cache *c, const struct sim_cache_cfg *cfg)
{
	uint64_t sets = cfg->size / ((uint64_t)cfg->assoc * cfg->line);

	memset(c, 0, sizeof(*c));
	c->assoc = cfg->assoc;
	c->line_shift = log2u(cfg->line);
	c->set_mask = sets - 1;
	c->repl = cfg->repl;
	c->tags = calloc(sets * cfg->assoc, sizeof(uint64_t));
	if (!c->tags)
		return -1;
	sim_cache_reset(c);
	return 0;
}

void sim_cache_reset(struct sim_cache *c)
{
	memset(c->tags, 0, (c->set_mask + 1) * c->assoc * sizeof(uint64_t));
	c->rng = 0x9e3779b97f4a7c15ull;
	c->accesses = 0;
	c->misses = 0;
}

void sim_cache_free(struct sim_cache *c)
{
	free(c->tags);
	c->tags = NULL;
}

static uint64_t xorshift(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*s = x;
	return x;
}

/*
 * line_ref - look up one line in its set.  Entries are kept in order:
 * for LRU most recently used first, for FIFO most recently filled first,
 * so the victim is always the last way (random picks any way).
 */
static int line_ref(struct sim_cache *c, uint64_t line)
{
	uint64_t *set = c->tags + (line & c->set_mask) * c->assoc;
	uint64_t key = line + 1;
	unsigned n = c->assoc, i, victim;

	if (set[0] == key)
		return 0;
	for (i = 1; i < n; i++) {
		if (set[i] == key) {
			if (c->repl == SIM_REPL_LRU) {
				memmove(set + 1, set, i * sizeof(*set));
				set[0] = key;
			}
			return 0;
		}
	}
	if (c->repl == SIM_REPL_RANDOM) {
		/* fill empty ways first, in order, then evict at random */
		for (victim = 0; victim < n && set[victim]; victim++)
			;
		if (victim == n)
			victim = (unsigned)(xorshift(&c->rng) % n);
		set[victim] = key;
		return 1;
	}
	memmove(set + 1, set, (n - 1) * sizeof(*set));
	set[0] = key;
	return 1;
}

int sim_cache_ref(struct sim_cache *c, uint64_t addr, unsigned size)
{
	uint64_t first = addr >> c->line_shift;
	uint64_t last = (addr + (size ? size - 1 : 0)) >> c->line_shift;
	int miss = 0;

	c->accesses++;
	/* touch every line (state changes even after the first miss) */
	for (uint64_t l = first; l <= last; l++)
		miss |= line_ref(c, l);
	c->misses += (uint64_t)miss;
	return miss;
}

int sim_cache_fill(struct sim_cache *c, uint64_t addr)
{
	return line_ref(c, addr >> c->line_shift);
}

int sim_memsys_init(struct sim_memsys *m, const struct sim_core_cfg *cfg)
{
	memset(m, 0, sizeof(*m));
	if (sim_cache_init(&m->l1i, &cfg->l1i) || sim_cache_init(&m->l1d, &cfg->l1d))
		goto fail;
	m->has_l2 = cfg->l2.enabled;
	m->has_llc = cfg->llc.enabled;
	if (m->has_l2 && sim_cache_init(&m->l2, &cfg->l2))
		goto fail;
	if (m->has_llc && sim_cache_init(&m->llc, &cfg->llc))
		goto fail;
	m->lat[SIM_LVL_L1] = cfg->l1d.latency;
	m->lat[SIM_LVL_L2] = m->has_l2 ? cfg->l2.latency : cfg->l1d.latency;
	m->lat[SIM_LVL_LLC] = m->has_llc ? cfg->llc.latency : m->lat[SIM_LVL_L2];
	m->lat[SIM_LVL_MEM] = m->lat[SIM_LVL_LLC] + cfg->mem_latency;
	return 0;
fail:
	sim_memsys_free(m);
	return -1;
}

void sim_memsys_reset(struct sim_memsys *m)
{
	sim_cache_reset(&m->l1i);
	sim_cache_reset(&m->l1d);
	if (m->has_l2)
		sim_cache_reset(&m->l2);
	if (m->has_llc)
		sim_cache_reset(&m->llc);
	memset(m->l2_acc, 0, sizeof(m->l2_acc));
	memset(m->l2_miss, 0, sizeof(m->l2_miss));
	memset(m->llc_acc, 0, sizeof(m->llc_acc));
	memset(m->llc_miss, 0, sizeof(m->llc_miss));
}

void sim_memsys_free(struct sim_memsys *m)
{
	sim_cache_free(&m->l1i);
	sim_cache_free(&m->l1d);
	sim_cache_free(&m->l2);
	sim_cache_free(&m->llc);
}

/* below_l1 - a reference that missed L1 on `side`: walk L2, LLC, memory. */
static int below_l1(struct sim_memsys *m, int side, uint64_t addr, unsigned size)
{
	if (m->has_l2) {
		m->l2_acc[side]++;
		if (!sim_cache_ref(&m->l2, addr, size))
			return SIM_LVL_L2;
		m->l2_miss[side]++;
	}
	if (m->has_llc) {
		m->llc_acc[side]++;
		if (!sim_cache_ref(&m->llc, addr, size))
			return SIM_LVL_LLC;
		m->llc_miss[side]++;
	}
	return SIM_LVL_MEM;
}

int sim_memsys_data(struct sim_memsys *m, uint64_t addr, unsigned size)
{
	if (!sim_cache_ref(&m->l1d, addr, size))
		return SIM_LVL_L1;
	return below_l1(m, 1, addr, size);
}

int sim_memsys_fetch(struct sim_memsys *m, uint64_t addr, unsigned size)
{
	if (!sim_cache_ref(&m->l1i, addr, size))
		return SIM_LVL_L1;
	return below_l1(m, 0, addr, size);
}

int sim_memsys_prefetch(struct sim_memsys *m, uint64_t addr)
{
	if (!sim_cache_fill(&m->l1d, addr))
		return SIM_LVL_L1;
	if (m->has_l2 && !sim_cache_fill(&m->l2, addr))
		return SIM_LVL_L2;
	if (m->has_llc && !sim_cache_fill(&m->llc, addr))
		return SIM_LVL_LLC;
	return SIM_LVL_MEM;
}
