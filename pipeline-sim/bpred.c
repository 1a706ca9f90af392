/* bpred.c - branch predictors, BTB and return stack (see bpred.h). */
#include "bpred.h"

#include <stdlib.h>
#include <string.h>

/* History lengths of the tagged tables: a geometric series. */
static const unsigned tage_lengths[SIM_TAGE_TABLES] = { 5, 12, 27, 60 };

int sim_bpred_init(struct sim_bpred *b, const struct sim_core_cfg *cfg)
{
	memset(b, 0, sizeof(*b));
	b->kind = cfg->bpred;
	b->bits = cfg->bpred_bits;
	b->ghist_mask = cfg->ghist_bits >= 64 ? ~0ull : (1ull << cfg->ghist_bits) - 1;
	b->base = calloc((size_t)1 << b->bits, 1);
	if (!b->base)
		goto fail;
	if (b->kind == SIM_BP_TAGE) {
		b->tage_bits = b->bits > 2 ? b->bits - 2 : 2;
		for (int t = 0; t < SIM_TAGE_TABLES; t++) {
			b->tage[t] = calloc((size_t)1 << b->tage_bits, sizeof(struct sim_tage_entry));
			if (!b->tage[t])
				goto fail;
			b->tage_hist[t] = tage_lengths[t];
		}
	}
	b->btb_mask = cfg->btb_entries - 1;
	b->btb = calloc(cfg->btb_entries, sizeof(uint64_t));
	b->btb_target = calloc(cfg->btb_entries, sizeof(uint64_t));
	b->ras_size = cfg->ras_entries ? cfg->ras_entries : 1;
	b->ras = calloc(b->ras_size, sizeof(uint64_t));
	if (!b->btb || !b->btb_target || !b->ras)
		goto fail;
	sim_bpred_reset(b);
	return 0;
fail:
	sim_bpred_free(b);
	return -1;
}

void sim_bpred_reset(struct sim_bpred *b)
{
	memset(b->base, 0, (size_t)1 << b->bits);
	for (int t = 0; t < SIM_TAGE_TABLES && b->tage[t]; t++)
		memset(b->tage[t], 0, ((size_t)1 << b->tage_bits) * sizeof(struct sim_tage_entry));
	memset(b->btb, 0, (b->btb_mask + 1) * sizeof(uint64_t));
	memset(b->btb_target, 0, (b->btb_mask + 1) * sizeof(uint64_t));
	memset(b->ras, 0, b->ras_size * sizeof(uint64_t));
	b->ghist = 0;
	b->rng = 0x2545f4914f6cdd1dull;
	b->ras_top = 0;
	b->ras_count = 0;
	b->cond = b->cond_miss = 0;
	b->indirect = b->indirect_miss = 0;
	b->ret = b->ret_miss = 0;
}

void sim_bpred_free(struct sim_bpred *b)
{
	free(b->base);
	for (int t = 0; t < SIM_TAGE_TABLES; t++)
		free(b->tage[t]);
	free(b->btb);
	free(b->btb_target);
	free(b->ras);
	memset(b, 0, sizeof(*b));
}

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	return x;
}

static void ctr_update(int8_t *c, int taken, int lo, int hi)
{
	if (taken && *c < hi)
		(*c)++;
	else if (!taken && *c > lo)
		(*c)--;
}

static int predict_base(struct sim_bpred *b, uint64_t pc, int taken, int use_history)
{
	uint64_t mask = ((uint64_t)1 << b->bits) - 1;
	uint64_t idx = (pc >> 1) ^ (use_history ? (b->ghist & b->ghist_mask) : 0);
	int8_t *c = &b->base[idx & mask];
	int pred = *c >= 0;

	ctr_update(c, taken, -2, 1);
	return pred;
}

static uint64_t hist_bits(const struct sim_bpred *b, unsigned len)
{
	return len >= 64 ? b->ghist : b->ghist & ((1ull << len) - 1);
}

/*
 * predict_tage - the longest matching tagged table provides the
 * prediction, the base bimodal table when none matches; on a wrong
 * prediction an entry is allocated in a longer table (TAGE, Seznec 2006,
 * without the alternate-prediction and periodic useful-bit reset).
 */
static int predict_tage(struct sim_bpred *b, uint64_t pc, int taken)
{
	uint64_t mask = ((uint64_t)1 << b->tage_bits) - 1;
	uint64_t idx[SIM_TAGE_TABLES];
	uint16_t tag[SIM_TAGE_TABLES];
	int provider = -1, pred;
	int8_t *base = &b->base[(pc >> 1) & (((uint64_t)1 << b->bits) - 1)];

	for (int t = 0; t < SIM_TAGE_TABLES; t++) {
		uint64_t h = mix(hist_bits(b, b->tage_hist[t]) * 0x9e3779b97f4a7c15ull + (uint64_t)t);

		idx[t] = ((pc >> 1) ^ h) & mask;
		tag[t] = (uint16_t)(((pc >> 1) ^ (h >> 20) ^ (h >> 40)) & 0xff) | 0x100;
		if (b->tage[t][idx[t]].tag == tag[t])
			provider = t;
	}
	if (provider >= 0) {
		struct sim_tage_entry *e = &b->tage[provider][idx[provider]];

		pred = e->ctr >= 0;
		ctr_update(&e->ctr, taken, -4, 3);
		if (pred == taken && e->useful < 3)
			e->useful++;
		else if (pred != taken && e->useful > 0)
			e->useful--;
	} else {
		pred = *base >= 0;
		ctr_update(base, taken, -2, 1);
	}
	if (pred != taken) {
		/* allocate in a longer table with a free (not useful) entry */
		for (int t = provider + 1; t < SIM_TAGE_TABLES; t++) {
			struct sim_tage_entry *e = &b->tage[t][idx[t]];

			if (e->useful == 0) {
				e->tag = tag[t];
				e->ctr = taken ? 0 : -1;
				break;
			}
			e->useful--;
		}
	}
	return pred;
}

int sim_bpred_cond(struct sim_bpred *b, uint64_t pc, int taken)
{
	int pred;

	switch (b->kind) {
	case SIM_BP_BIMODAL: pred = predict_base(b, pc, taken, 0); break;
	case SIM_BP_GSHARE: pred = predict_base(b, pc, taken, 1); break;
	default: pred = predict_tage(b, pc, taken); break;
	}
	b->ghist = (b->ghist << 1) | (uint64_t)(taken != 0);
	b->cond++;
	b->cond_miss += (uint64_t)(pred != taken);
	return pred != taken;
}

int sim_bpred_target(struct sim_bpred *b, uint64_t pc, uint64_t target)
{
	uint64_t i = (pc >> 1) & b->btb_mask;
	int miss = b->btb[i] != pc || b->btb_target[i] != target;

	b->btb[i] = pc;
	b->btb_target[i] = target;
	b->indirect++;
	b->indirect_miss += (uint64_t)miss;
	return miss;
}

void sim_bpred_call(struct sim_bpred *b, uint64_t return_addr)
{
	b->ras_top = (b->ras_top + 1) % b->ras_size;
	b->ras[b->ras_top] = return_addr;
	if (b->ras_count < b->ras_size)
		b->ras_count++;
}

int sim_bpred_return(struct sim_bpred *b, uint64_t target)
{
	int miss = 1;

	if (b->ras_count) {
		miss = b->ras[b->ras_top] != target;
		b->ras_top = (b->ras_top + b->ras_size - 1) % b->ras_size;
		b->ras_count--;
	}
	b->ret++;
	b->ret_miss += (uint64_t)miss;
	return miss;
}
