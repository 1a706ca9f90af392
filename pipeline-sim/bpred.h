/*
 * bpred.h - branch prediction: a direction predictor (bimodal, gshare or
 * a TAGE-like predictor with four tagged tables), a direct-mapped BTB for
 * taken targets and a return address stack.
 */
#ifndef SIM_BPRED_H
#define SIM_BPRED_H

#include <stdint.h>

#include "config.h"

#define SIM_TAGE_TABLES 4

struct sim_tage_entry {
	uint16_t tag;
	int8_t ctr;	/* -4..3: taken when >= 0 */
	uint8_t useful; /* 0..3 */
};

struct sim_bpred {
	int kind;
	unsigned bits;
	uint64_t ghist, ghist_mask;
	int8_t *base; /* 2-bit counters, -2..1: taken when >= 0 */
	struct sim_tage_entry *tage[SIM_TAGE_TABLES];
	unsigned tage_hist[SIM_TAGE_TABLES];
	unsigned tage_bits;
	uint64_t rng;
	uint64_t *btb; /* tagged by address; target in btb_target */
	uint64_t *btb_target;
	uint64_t btb_mask;
	uint64_t *ras;
	unsigned ras_size, ras_top, ras_count;
	/* statistics */
	uint64_t cond, cond_miss, indirect, indirect_miss, ret, ret_miss;
};

int sim_bpred_init(struct sim_bpred *b, const struct sim_core_cfg *cfg);
void sim_bpred_free(struct sim_bpred *b);
/* sim_bpred_reset - every table, the history, the return stack and the
 * statistics as sim_bpred_init left them, without allocating. */
void sim_bpred_reset(struct sim_bpred *b);

/*
 * sim_bpred_cond - predict the conditional branch at `pc`, then train it
 * with the outcome.  Returns 1 when the prediction was wrong.
 */
int sim_bpred_cond(struct sim_bpred *b, uint64_t pc, int taken);

/* sim_bpred_target - predict the target of an indirect jump or call with
 * the BTB and train it; returns 1 on a wrong or missing target. */
int sim_bpred_target(struct sim_bpred *b, uint64_t pc, uint64_t target);

/* Return stack: calls push their return address; returns pop and compare. */
void sim_bpred_call(struct sim_bpred *b, uint64_t return_addr);
int sim_bpred_return(struct sim_bpred *b, uint64_t target);

#endif
