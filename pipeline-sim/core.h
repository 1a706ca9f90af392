/*
 * core.h - the timing model.  Instructions are processed once, in program
 * order; each gets fetch, dispatch, issue, complete and retire cycles from
 * the constraints that bind it (widths, fetch queue, redirects, I-cache,
 * ROB/IQ/LQ/SQ, register and store-to-load dependencies, port calendars,
 * cache latencies).  Out-of-order issue falls out of the port calendars:
 * a younger instruction may take a cycle before an older one's.
 *
 * Lost cycles are counted in retire slots: each cycle has W slots
 * (W = the narrowest of fetch, dispatch and retire width).  An instruction
 * that retires after the slot clock has passed the start of its retire
 * cycle is charged the gap, taken from the waits nearest to its execution
 * (see charge() in core.c and MODEL.md).
 */
#ifndef SIM_CORE_H
#define SIM_CORE_H

#include <stdint.h>

#include "bpred.h"
#include "cache.h"
#include "config.h"
#include "sem.h"

/* One instruction's pipeline timing, kept for --timeline and --kanata. */
struct sim_tl {
	uint64_t seq;
	struct sim_sem *sem;
	uint64_t f, d, i, c, r; /* fetch, dispatch, issue, complete, retire */
	uint32_t tid;
	uint8_t cause;	   /* the reason that held it back longest */
	uint8_t mispredict; /* a branch that was mispredicted */
	uint8_t level;	   /* data-cache level that served a load */
	uint64_t producer; /* seq + 1 of the register producer waited for last; 0 none */
	float lost;	   /* retire slots lost before it */
};

#define SIM_CAL_BITS (1u << 16) /* cycles each port calendar looks ahead */

struct sim_core {
	struct sim_core_cfg cfg;
	struct sim_memsys mem;
	struct sim_bpred bp;
	unsigned width; /* slots per cycle */
	uint64_t ring_mask;
	uint64_t *ring_retire, *ring_dispatch, *ring_issue;
	uint8_t *ring_cause; /* what held each in-flight instruction back longest */
	uint64_t *iq_heap; /* issue cycles of the instructions in the issue queue (min-heap) */
	unsigned iq_n;
	uint64_t *ld_retire, *st_retire;
	uint64_t lq_mask, sq_mask;
	uint64_t reg_ready[SIM_MAX_REGS];
	uint8_t reg_cause[SIM_MAX_REGS];
	uint64_t reg_producer[SIM_MAX_REGS]; /* seq + 1 of the last writer */
	uint64_t last_producer;		     /* of the instruction in progress */
	uint32_t last_tid;
	/* calendars: the ports, then the fill paths from L2, LLC and memory
	 * (a line a `fill` cycles; ncal = nports + 3) */
	uint64_t *cal[SIM_MAX_PORTS + 3];
	int ncal;
	uint64_t cal_word;
	struct {
		uint64_t gran, ready, seq, pc, addr;
		uint32_t size;
	} stfwd[1024]; /* recent stores by 8-byte granule: data ready, seq,
			* the store instruction, its bytes */
	struct sim_psf {
		uint64_t load, store;
		uint8_t conf; /* times in a row that pair was seen, up to 3 */
	} psf[256]; /* per load instruction, the store it forwarded from last */
	/* micro-op model */
	struct sim_sem *prev_sem; /* the instruction before, for fusion and rep */
	uint32_t prev_tid;
	uint64_t rep_start;	  /* a rep string's data starts streaming */
	uint64_t rep_bytes;	  /* bytes of its iterations so far */
	uint64_t slots;		  /* retire slots used (fused pairs and rep
				   * iterations after the first share one) */
	/* pipeline state */
	uint64_t seq, nloads, nstores;
	uint64_t fetch_cycle, fetch_line;
	unsigned fetch_used;
	int group_ended;
	unsigned group_taken; /* taken branches in the current fetch group */
	uint64_t redirect_at;
	struct sim_sem *redirect_owner;
	uint8_t redirect_cause; /* what the redirect is charged to */
	uint64_t dispatch_cycle, retire_cycle, last_retire;
	unsigned dispatch_used, retire_used;
	uint64_t last_issue;
	unsigned issue_used;
	uint8_t last_cause;
	unsigned l1i_shift, l1d_shift;
	/* stride prefetcher: per load PC, and the lines it has in flight */
	struct sim_pf_stream {
		uint64_t pc, last;
		int64_t stride;
		uint8_t conf;
	} pf_table[256];
	struct sim_pf_line {
		uint64_t line; /* line + 1; 0 = empty */
		uint64_t ready;
		uint8_t level;
	} pf_inflight[512];
	uint64_t prefetches, prefetch_late;
	/* accounting */
	uint64_t slot_clock;
	double stack[SIM_CAUSE_COUNT]; /* lost slots by cause */
	/* bit k: stack[k] credited since a reader last cleared the mask
	 * (sim_calls_step: it visits only the causes that changed) */
	uint64_t credited;
	uint64_t insns, loads, stores, branches, mispredicts;
	uint64_t fwd_mispredicts; /* wrong store-to-load forwarding predictions */
	uint64_t load_level[4];
	uint64_t beyond_horizon;
	/* captured timeline of the first instructions */
	struct sim_tl *tl;
	uint64_t tl_from, tl_cap, tl_n; /* instructions tl_from .. +tl_cap */
};

/* sim_core_init - set up from a validated config; the timing of
 * keep_timeline instructions from instruction keep_from on is kept.
 * Returns 0 or -1. */
int sim_core_init(struct sim_core *c, const struct sim_core_cfg *cfg, uint64_t keep_timeline);
void sim_core_keep_from(struct sim_core *c, uint64_t first);
void sim_core_free(struct sim_core *c);

/*
 * sim_core_reset - back to the state sim_core_init (and sim_core_keep_from)
 * left: nothing simulated, caches, predictors and counters empty, the
 * same configuration and timeline size, without allocating.  For callers
 * that simulate many short traces (the fuzz target): the next run gives
 * exactly what a fresh core would.
 */
void sim_core_reset(struct sim_core *c);

/* sim_core_step - simulate one executed instruction. */
void sim_core_step(struct sim_core *c, struct sim_sem *s, const struct sim_dyn *d);

/* sim_core_cycles - cycles so far (last retire cycle + 1). */
uint64_t sim_core_cycles(const struct sim_core *c);

/* sim_core_cause_name - name of any cause, ports included ("port alu1"). */
const char *sim_core_cause_name(const struct sim_core *c, int cause, char *buf, size_t len);

#endif
