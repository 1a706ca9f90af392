/* core.c - the trace-driven timing model (see core.h). */
#include "core.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CAL_WORDS (SIM_CAL_BITS / 64)

static const char *const cause_names[SIM_CAUSE_PORT0] = {
	"base",		"dep-int",     "dep-fp",      "dep-mem",    "rob-full",
	"iq-full",	"lq-full",     "sq-full",     "serialize",  "branch-mispredict",
	"icache-l2",	"icache-llc",  "icache-mem",  "dcache-l2",  "dcache-llc",
	"dcache-mem",	"frontend",    "fwd-mispredict",
};

const char *sim_cause_name(int cause)
{
	return cause >= 0 && cause < SIM_CAUSE_PORT0 ? cause_names[cause] : NULL;
}

const char *sim_core_cause_name(const struct sim_core *c, int cause, char *buf, size_t len)
{
	if (cause < SIM_CAUSE_PORT0)
		return sim_cause_name(cause);
	snprintf(buf, len, "port-%s", c->cfg.port_names[cause - SIM_CAUSE_PORT0]);
	return buf;
}

static uint64_t pow2_at_least(uint64_t v)
{
	uint64_t p = 1;

	while (p < v)
		p <<= 1;
	return p;
}

static unsigned log2u(uint64_t v)
{
	unsigned n = 0;

	while (v > 1) {
		v >>= 1;
		n++;
	}
	return n;
}

/* clear_state - the state of a core that has simulated nothing, in the
 * buffers that sim_core_init allocated (shared by init and reset). */
static void clear_state(struct sim_core *c)
{
	size_t ring = c->ring_mask + 1;

	memset(c->ring_retire, 0, ring * sizeof(uint64_t));
	memset(c->ring_dispatch, 0, ring * sizeof(uint64_t));
	memset(c->ring_issue, 0, ring * sizeof(uint64_t));
	memset(c->ring_cause, 0, ring);
	memset(c->ld_retire, 0, (c->lq_mask + 1) * sizeof(uint64_t));
	memset(c->st_retire, 0, (c->sq_mask + 1) * sizeof(uint64_t));
	memset(c->iq_heap, 0, ((size_t)c->cfg.iq + 1) * sizeof(uint64_t));
	for (int p = 0; p < c->ncal; p++)
		memset(c->cal[p], 0, CAL_WORDS * sizeof(uint64_t));
	if (c->tl)
		memset(c->tl, 0, c->tl_cap * sizeof(*c->tl));
	sim_memsys_reset(&c->mem);
	sim_bpred_reset(&c->bp);
	c->fetch_line = ~0ull;
}

int sim_core_init(struct sim_core *c, const struct sim_core_cfg *cfg, uint64_t keep_timeline)
{
	uint64_t ring;

	memset(c, 0, sizeof(*c));
	c->cfg = *cfg;
	c->width = cfg->fetch_width;
	if (cfg->dispatch_width < c->width)
		c->width = cfg->dispatch_width;
	if (cfg->retire_width < c->width)
		c->width = cfg->retire_width;
	ring = pow2_at_least((uint64_t)cfg->rob + cfg->iq + cfg->fetch_queue + 1);
	c->ring_mask = ring - 1;
	c->lq_mask = pow2_at_least(cfg->lq) - 1;
	c->sq_mask = pow2_at_least(cfg->sq) - 1;
	c->ring_retire = calloc(ring, sizeof(uint64_t));
	c->ring_dispatch = calloc(ring, sizeof(uint64_t));
	c->ring_issue = calloc(ring, sizeof(uint64_t));
	c->ring_cause = calloc(ring, 1);
	c->ld_retire = calloc(c->lq_mask + 1, sizeof(uint64_t));
	c->iq_heap = calloc((size_t)cfg->iq + 1, sizeof(uint64_t));
	c->st_retire = calloc(c->sq_mask + 1, sizeof(uint64_t));
	if (!c->ring_retire || !c->ring_dispatch || !c->ring_issue || !c->ring_cause || !c->ld_retire ||
	    !c->st_retire || !c->iq_heap)
		goto fail;
	c->ncal = cfg->nports + 3;
	for (int p = 0; p < c->ncal; p++)
		if (!(c->cal[p] = calloc(CAL_WORDS, sizeof(uint64_t))))
			goto fail;
	if (keep_timeline) {
		c->tl = calloc(keep_timeline, sizeof(*c->tl));
		if (!c->tl)
			goto fail;
		c->tl_cap = keep_timeline;
	}
	if (sim_memsys_init(&c->mem, cfg) || sim_bpred_init(&c->bp, cfg))
		goto fail;
	c->l1i_shift = log2u(cfg->l1i.line);
	c->l1d_shift = log2u(cfg->l1d.line);
	clear_state(c);
	return 0;
fail:
	sim_core_free(c);
	return -1;
}

/*
 * The members sim_core_reset keeps: the configuration, what follows from
 * it, the buffers (cleared) and the caller's sim_core_keep_from().
 */
struct core_kept {
	struct sim_core_cfg cfg;
	unsigned width, l1i_shift, l1d_shift;
	uint64_t ring_mask, lq_mask, sq_mask;
	uint64_t *ring_retire, *ring_dispatch, *ring_issue, *iq_heap, *ld_retire, *st_retire;
	uint8_t *ring_cause;
	uint64_t *cal[SIM_MAX_PORTS + 3];
	int ncal;
	struct sim_tl *tl;
	uint64_t tl_cap, tl_from;
	struct sim_memsys mem;
	struct sim_bpred bp;
};

/* The members of struct core_kept but cal (an array, copied apart). */
#define CORE_KEPT(X)                                                                              \
	X(cfg) X(width) X(l1i_shift) X(l1d_shift) X(ring_mask) X(lq_mask) X(sq_mask)              \
	X(ring_retire) X(ring_dispatch) X(ring_issue) X(iq_heap) X(ld_retire) X(st_retire)        \
	X(ring_cause) X(ncal) X(tl) X(tl_cap) X(tl_from) X(mem) X(bp)
#define SAVE(m) k.m = c->m;
#define RESTORE(m) c->m = k.m;

void sim_core_reset(struct sim_core *c)
{
	struct core_kept k;

	CORE_KEPT(SAVE)
	memcpy(k.cal, c->cal, sizeof(k.cal));
	memset(c, 0, sizeof(*c));
	CORE_KEPT(RESTORE)
	memcpy(c->cal, k.cal, sizeof(c->cal));
	clear_state(c);
}

void sim_core_free(struct sim_core *c)
{
	free(c->ring_retire);
	free(c->ring_dispatch);
	free(c->ring_issue);
	free(c->ring_cause);
	free(c->iq_heap);
	free(c->ld_retire);
	free(c->st_retire);
	for (int p = 0; p < SIM_MAX_PORTS + 3; p++)
		free(c->cal[p]);
	free(c->tl);
	sim_memsys_free(&c->mem);
	sim_bpred_free(&c->bp);
	memset(c, 0, sizeof(*c));
}

void sim_core_keep_from(struct sim_core *c, uint64_t first)
{
	c->tl_from = first;
}

uint64_t sim_core_cycles(const struct sim_core *c)
{
	return c->insns ? c->last_retire + 1 : 0;
}

/* ---- port calendars ------------------------------------------------------ */

/* cal_advance - no query will come before cycle `now`: recycle older words. */
static void cal_advance(struct sim_core *c, uint64_t now)
{
	uint64_t w = now >> 6;

	if (w <= c->cal_word)
		return;
	if (w - c->cal_word >= CAL_WORDS) {
		for (int p = 0; p < c->ncal; p++)
			memset(c->cal[p], 0, CAL_WORDS * sizeof(uint64_t));
	} else {
		for (uint64_t i = c->cal_word; i < w; i++)
			for (int p = 0; p < c->ncal; p++)
				c->cal[p][i & (CAL_WORDS - 1)] = 0;
	}
	c->cal_word = w;
}

static int cal_busy(const uint64_t *cal, uint64_t t)
{
	uint64_t i = t & (SIM_CAL_BITS - 1);

	return (int)((cal[i >> 6] >> (i & 63)) & 1);
}

/* cal_find - first cycle >= t where port calendar `cal` is free for occ
 * cycles; cycles beyond the look-ahead are taken as free. */
static uint64_t cal_find(const struct sim_core *c, const uint64_t *cal, uint64_t t, unsigned occ)
{
	uint64_t limit = c->cal_word * 64 + SIM_CAL_BITS - 64 - occ;

	for (;;) {
		uint64_t i, free_bits;
		unsigned k;

		if (t >= limit)
			return t;
		i = t & (SIM_CAL_BITS - 1);
		free_bits = ~cal[i >> 6] >> (i & 63);
		if (!free_bits) {
			t += 64 - (i & 63);
			continue;
		}
		t += (uint64_t)__builtin_ctzll(free_bits);
		for (k = 1; k < occ && !cal_busy(cal, t + k); k++)
			;
		if (k == occ)
			return t;
		t += k + 1;
	}
}

/* issue_on - earliest cycle >= t on any port of `mask`; reserves it. */
static uint64_t issue_on(struct sim_core *c, uint32_t mask, uint64_t t, unsigned occ, int *port)
{
	uint64_t best = UINT64_MAX;
	int bp = -1;

	for (uint32_t m = mask; m; m &= m - 1) {
		int p = __builtin_ctz(m);
		uint64_t at = cal_find(c, c->cal[p], t, occ);

		if (at < best) {
			best = at;
			bp = p;
			if (at == t)
				break; /* nothing can be earlier */
		}
	}
	if (bp < 0) { /* a class without ports (nop) */
		*port = -1;
		return t;
	}
	if (best < c->cal_word * 64 + SIM_CAL_BITS - 64 - occ) {
		for (unsigned k = 0; k < occ; k++) {
			uint64_t i = (best + k) & (SIM_CAL_BITS - 1);

			c->cal[bp][i >> 6] |= 1ull << (i & 63);
		}
	} else {
		c->beyond_horizon++;
	}
	*port = bp;
	return best;
}

/* ---- the reasons an instruction was late --------------------------------- */

/*
 * An instruction's life as a chain of intervals, in time order: waits
 * (a redirect, an I-cache miss, a full structure, a producer, a busy
 * port), its own latencies, and pipeline steps that are no one's fault
 * (the front-end depth, the cycle from dispatch to issue, bandwidth).
 */
enum comp_kind { COMP_WAIT, COMP_OWN, COMP_PIPE };

struct comp {
	uint8_t cause;
	uint8_t kind; /* enum comp_kind */
	uint64_t cycles;
	struct sim_sem *owner; /* who is charged (the branch for a redirect) */
};

#define MAX_COMPS 16

struct comps {
	int n;
	int fe_cause; /* why fetch was late (redirect, I-cache), or -1 */
	struct sim_sem *fe_owner;
	struct comp c[MAX_COMPS];
};

static void add_kind(struct comps *cs, int kind, int cause, uint64_t cycles, struct sim_sem *owner)
{
	if (!cycles || cs->n == MAX_COMPS)
		return;
	cs->c[cs->n].cause = (uint8_t)cause;
	cs->c[cs->n].kind = (uint8_t)kind;
	cs->c[cs->n].cycles = cycles;
	cs->c[cs->n].owner = owner;
	cs->n++;
}

static void add_comp(struct comps *cs, int cause, uint64_t cycles, struct sim_sem *owner)
{
	add_kind(cs, COMP_WAIT, cause, cycles, owner);
}

static void add_own(struct comps *cs, int cause, uint64_t cycles, struct sim_sem *owner)
{
	add_kind(cs, COMP_OWN, cause, cycles, owner);
}

static void add_pipe(struct comps *cs, uint64_t cycles, struct sim_sem *owner)
{
	add_kind(cs, COMP_PIPE, SIM_CAUSE_FRONTEND, cycles, owner);
}

/* dominant_from - the wait or own latency (beyond one cycle) that held the
 * instruction back longest, from comp `from` on. */
static int dominant_from(const struct comps *cs, int from)
{
	uint64_t best = 0;
	int cause = SIM_CAUSE_BASE;

	for (int i = from; i < cs->n; i++) {
		const struct comp *k = &cs->c[i];

		if (k->kind == COMP_PIPE || (k->kind == COMP_OWN && k->cycles <= 1))
			continue;
		if (k->cycles > best) {
			best = k->cycles;
			cause = k->cause;
		}
	}
	return cause;
}

static int dominant(const struct comps *cs)
{
	return dominant_from(cs, 0);
}

/* own_cause - what a consumer waiting on this instruction's result waits for */
static int class_dep_cause(int cls)
{
	switch (cls) {
	case SIM_CLS_FP_ADD:
	case SIM_CLS_FP_MUL:
	case SIM_CLS_FP_DIV:
	case SIM_CLS_VEC:
		return SIM_CAUSE_DEP_FP;
	case SIM_CLS_LOAD:
		return SIM_CAUSE_DEP_MEM;
	case SIM_CLS_SYS:
		return SIM_CAUSE_SERIAL;
	default:
		return SIM_CAUSE_DEP_INT;
	}
}

/* ---- pipeline stages ------------------------------------------------------ */

/* What one instruction went through, passed between the stages below. */
struct step {
	struct sim_sem *s;
	const struct sim_dyn *dy;
	int is_load, is_store;
	int fused;	/* a jcc macro-fused with the instruction before it */
	int rep_more;	/* a rep string record after the first: an iteration,
			 * or the final check of its count (no access) */
	unsigned slots; /* retire slots it takes: 0 when fused or rep_more */
	uint64_t f, d, issue, last_issue, done, r;
	int lvl, mispredict;
	struct comps cs;
};

static uint64_t stage_fetch(struct sim_core *c, struct sim_sem *s, unsigned slots, struct comps *cs)
{
	uint64_t f = c->fetch_cycle;
	uint64_t first = s->addr >> c->l1i_shift;
	uint64_t last = (s->addr + (s->len ? s->len - 1 : 0)) >> c->l1i_shift;

	/* (an instruction of no slot, a jcc fused with the one before it,
	 * goes with its pair: a full group does not end before it) */
	if ((slots && c->fetch_used + slots > c->cfg.fetch_width) || c->group_ended) {
		f++;
		c->fetch_used = 0;
		c->group_ended = 0;
		c->group_taken = 0;
	}
	/* a full fetch queue holds fetch back until an older one dispatches */
	if (c->seq >= c->cfg.fetch_queue) {
		uint64_t t = c->ring_dispatch[(c->seq - c->cfg.fetch_queue) & c->ring_mask];

		if (t > f)
			f = t;
	}
	if (c->redirect_at > f) {
		add_comp(cs, c->redirect_cause, c->redirect_at - f, c->redirect_owner);
		cs->fe_cause = c->redirect_cause;
		cs->fe_owner = c->redirect_owner;
		f = c->redirect_at;
	}
	if (first != c->fetch_line || last != c->fetch_line) {
		int lvl = sim_memsys_fetch(&c->mem, s->addr, s->len ? s->len : 1);

		c->fetch_line = last;
		if (lvl != SIM_LVL_L1) {
			uint64_t pen = c->mem.lat[lvl];

			add_comp(cs, SIM_CAUSE_ICACHE_L2 + lvl - 1, pen, s);
			cs->fe_cause = SIM_CAUSE_ICACHE_L2 + lvl - 1;
			cs->fe_owner = s;
			f += pen;
		}
	}
	if (f > c->fetch_cycle) {
		c->fetch_cycle = f;
		c->fetch_used = 0;
		c->group_taken = 0;
	}
	c->fetch_used += slots;
	return f;
}

/* ---- issue queue: the issue cycles of its entries, earliest on top ----- */

static void iq_push(struct sim_core *c, uint64_t v)
{
	unsigned i = c->iq_n++;

	while (i > 0 && c->iq_heap[(i - 1) / 2] > v) {
		c->iq_heap[i] = c->iq_heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	c->iq_heap[i] = v;
}

static uint64_t iq_pop(struct sim_core *c)
{
	uint64_t top = c->iq_heap[0], v = c->iq_heap[--c->iq_n];
	unsigned i = 0;

	for (;;) {
		unsigned k = 2 * i + 1;

		if (k >= c->iq_n)
			break;
		if (k + 1 < c->iq_n && c->iq_heap[k + 1] < c->iq_heap[k])
			k++;
		if (c->iq_heap[k] >= v)
			break;
		c->iq_heap[i] = c->iq_heap[k];
		i = k;
	}
	c->iq_heap[i] = v;
	return top;
}

/* iq_free_at - the first cycle >= d with a free issue-queue entry: entries
 * leave when their instruction issues (dispatch is in order, so d only
 * grows and entries that issued by d can be dropped for good). */
static uint64_t iq_free_at(struct sim_core *c, uint64_t d)
{
	while (c->iq_n && c->iq_heap[0] <= d)
		iq_pop(c);
	if (c->iq_n < c->cfg.iq)
		return d;
	return iq_pop(c);
}

static uint64_t stage_dispatch(struct sim_core *c, const struct step *st, uint64_t f, unsigned slots,
			       struct comps *cs)
{
	struct sim_sem *s = st->s;
	const struct sim_core_cfg *g = &c->cfg;
	uint64_t d = f + g->frontend_depth, need = 0, d0;
	int cause = -1;

	/* the front end refilling after a redirect or miss is part of it */
	if (cs->fe_cause >= 0)
		add_comp(cs, cs->fe_cause, g->frontend_depth, cs->fe_owner);
	else
		add_pipe(cs, g->frontend_depth, s);
	d0 = d;
	if (d < c->dispatch_cycle)
		d = c->dispatch_cycle;
	if (d == c->dispatch_cycle && c->dispatch_used >= g->dispatch_width)
		d++;
	add_pipe(cs, d - d0, s); /* dispatch bandwidth */
	/* the structure that frees last decides */
	if (c->seq >= g->rob && c->ring_retire[(c->seq - g->rob) & c->ring_mask] > need) {
		int head = c->ring_cause[(c->seq - g->rob) & c->ring_mask];

		need = c->ring_retire[(c->seq - g->rob) & c->ring_mask];
		/* a ROB full behind a data-cache miss at its head is that
		 * miss's cost (memory-bound in Intel's top-down terms) */
		cause = head >= SIM_CAUSE_DCACHE_L2 && head <= SIM_CAUSE_DCACHE_MEM ? head : SIM_CAUSE_ROB;
	}
	/* issue queue: wait for an entry once d is known (below) */
	if (st->is_load && c->nloads >= g->lq &&
	    c->ld_retire[(c->nloads - g->lq) & c->lq_mask] > need) {
		need = c->ld_retire[(c->nloads - g->lq) & c->lq_mask];
		cause = SIM_CAUSE_LQ;
	}
	if (st->is_store && c->nstores >= g->sq &&
	    c->st_retire[(c->nstores - g->sq) & c->sq_mask] > need) {
		need = c->st_retire[(c->nstores - g->sq) & c->sq_mask];
		cause = SIM_CAUSE_SQ;
	}
	/* serialising instructions wait until everything older has retired */
	if (s->cls == SIM_CLS_SYS && c->insns && c->last_retire + 1 > need) {
		need = c->last_retire + 1;
		cause = SIM_CAUSE_SERIAL;
	}
	if (cause >= 0 && need > d) {
		add_comp(cs, cause, need - d, s);
		d = need;
	}
	if (!g->inorder && slots) {
		uint64_t q = iq_free_at(c, d);

		if (q > d) {
			add_comp(cs, SIM_CAUSE_IQ, q - d, s);
			d = q;
		}
	}
	if (d > c->dispatch_cycle) {
		c->dispatch_cycle = d;
		c->dispatch_used = 0;
	}
	c->dispatch_used += slots;
	return d;
}

/* regs_ready - the first cycle >= t when registers regs[0..n) are ready;
 * a wait past t is added as a component labelled with what held the
 * producer back. */
static uint64_t regs_ready(struct sim_core *c, const uint8_t *regs, unsigned n, uint64_t t,
			   struct comps *cs, struct sim_sem *owner)
{
	uint64_t base = t;
	int cause = -1;

	for (unsigned i = 0; i < n; i++) {
		uint64_t r = c->reg_ready[regs[i]];

		if (r > t) {
			t = r;
			cause = c->reg_cause[regs[i]];
			c->last_producer = c->reg_producer[regs[i]];
		}
	}
	if (cause >= 0)
		add_comp(cs, cause, t - base, owner);
	return t;
}

static unsigned stfwd_slot(uint64_t gran)
{
	return (unsigned)((gran * 0x9e3779b97f4a7c15ull) >> 54);
}

/*
 * forwarded_at - when the data of an in-flight store that a load reads
 * is ready (0 when it reads none).  With memory_renaming the core
 * predicts the store a load forwards from by the store it forwarded
 * from last time (AMD's memory renaming and predictive store forwarding,
 * Zen 3 and later; AMD, "Security Analysis of AMD Predictive Store
 * Forwarding", 2021): *renamed when the prediction holds (the load gets
 * the store's data at once), *wrong when it named another store (the
 * load and everything younger are re-executed, as after a mispredicted
 * branch).
 */
static uint64_t forwarded_at(struct sim_core *c, const struct sim_sem *s, const struct sim_dyn *dy,
			     int *renamed, int *wrong)
{
	uint64_t at = 0, from = 0;
	struct sim_psf *p = &c->psf[(s->addr >> 1) & 255];

	for (unsigned i = 0; i < dy->nmem; i++) {
		uint64_t g = dy->mem[i].addr >> 3;
		unsigned h = stfwd_slot(g);

		/* in flight (within a ROB's worth of instructions) and
		 * overlapping the bytes the load reads */
		if (!dy->mem[i].store && c->stfwd[h].gran == g + 1 && c->stfwd[h].ready > at &&
		    c->seq - c->stfwd[h].seq < c->cfg.rob &&
		    c->stfwd[h].addr < dy->mem[i].addr + (dy->mem[i].size ? dy->mem[i].size : 1) &&
		    dy->mem[i].addr < c->stfwd[h].addr + c->stfwd[h].size) {
			at = c->stfwd[h].ready;
			from = c->stfwd[h].pc;
		}
	}
	if (at && c->cfg.memory_renaming) {
		/* a pair is predicted once it has been seen twice in a row */
		if (p->load == s->addr && p->store == from) {
			*renamed = p->conf >= 1;
			if (p->conf < 3)
				p->conf++;
		} else {
			*wrong = p->load == s->addr && p->conf >= 2;
			p->load = s->addr;
			p->store = from;
			p->conf = 0;
		}
	}
	return at;
}

/* data_access - run the instruction's references through the hierarchy;
 * returns the level that served its loads. */
static int data_access(struct sim_core *c, const struct sim_dyn *dy)
{
	int lvl = SIM_LVL_L1;

	for (unsigned i = 0; i < dy->nmem; i++) {
		int l = sim_memsys_data(&c->mem, dy->mem[i].addr, dy->mem[i].size ? dy->mem[i].size : 1);

		if (!dy->mem[i].store && l > lvl)
			lvl = l;
	}
	return lvl;
}

static void record_stores(struct sim_core *c, const struct sim_sem *s, const struct sim_dyn *dy,
			  uint64_t ready)
{
	for (unsigned i = 0; i < dy->nmem; i++) {
		if (dy->mem[i].store) {
			uint64_t g = dy->mem[i].addr >> 3;
			unsigned h = stfwd_slot(g);

			c->stfwd[h].gran = g + 1;
			c->stfwd[h].ready = ready;
			c->stfwd[h].seq = c->seq;
			c->stfwd[h].pc = s->addr;
			c->stfwd[h].addr = dy->mem[i].addr;
			c->stfwd[h].size = dy->mem[i].size ? dy->mem[i].size : 1;
		}
	}
}

/* predict - train the predictors with the recorded outcome; returns 1 on
 * a misprediction. */
static int predict(struct sim_core *c, const struct sim_sem *s, const struct sim_dyn *dy)
{
	uint64_t fall = s->addr + s->len;
	int taken, miss = 0;

	if (!dy->next_addr)
		return 0;
	taken = dy->next_addr != fall;
	if (s->flags & SIM_SEM_COND)
		miss = sim_bpred_cond(&c->bp, s->addr, taken);
	else if (s->flags & SIM_SEM_RET)
		miss = sim_bpred_return(&c->bp, dy->next_addr);
	else if (s->flags & SIM_SEM_INDIRECT)
		miss = sim_bpred_target(&c->bp, s->addr, dy->next_addr);
	if (s->flags & SIM_SEM_CALL)
		sim_bpred_call(&c->bp, fall);
	return miss;
}

/*
 * prefetch_train - a stride prefetcher per load PC: after the same
 * non-zero stride twice, fetch prefetch_degree lines ahead (at least a
 * line apart).  Prefetched lines are filled at once but only usable from
 * the cycle their level's latency after `now`; a load that comes earlier
 * waits for them (prefetch_wait).
 */
static void prefetch_train(struct sim_core *c, uint64_t pc, uint64_t addr, uint64_t now)
{
	struct sim_pf_stream *e = &c->pf_table[(pc >> 1) & 255];
	int64_t d, step;
	int64_t line = (int64_t)1 << c->l1d_shift;

	if (e->pc != pc) {
		e->pc = pc;
		e->last = addr;
		e->stride = 0;
		e->conf = 0;
		return;
	}
	d = (int64_t)(addr - e->last);
	e->last = addr;
	if (d == 0)
		return;
	if (d != e->stride) {
		e->stride = d;
		e->conf = 0;
		return;
	}
	if (e->conf < 3)
		e->conf++;
	if (e->conf < 2)
		return;
	step = d > -line && d < line ? (d > 0 ? line : -line) : d;
	for (unsigned k = 1; k <= c->cfg.prefetch_degree; k++) {
		uint64_t target = addr + (uint64_t)(step * (int64_t)k);
		uint64_t tl = target >> c->l1d_shift;
		struct sim_pf_line *f = &c->pf_inflight[tl & 511];
		int lvl;

		if (f->line == tl + 1)
			continue;
		lvl = sim_memsys_prefetch(&c->mem, target);
		if (lvl == SIM_LVL_L1)
			continue;
		f->line = tl + 1;
		f->ready = now + c->mem.lat[lvl];
		f->level = (uint8_t)lvl;
		c->prefetches++;
	}
}

/* prefetch_wait - cycles a load issued at `at` waits for a prefetch of
 * its line still in flight; *lvl receives where that line comes from. */
static uint64_t prefetch_wait(struct sim_core *c, uint64_t addr, uint64_t at, int *lvl)
{
	uint64_t tl = addr >> c->l1d_shift;
	struct sim_pf_line *f = &c->pf_inflight[tl & 511];
	uint64_t hit = at + c->mem.lat[SIM_LVL_L1];

	if (f->line != tl + 1 || f->ready <= hit)
		return 0;
	*lvl = f->level;
	c->prefetch_late++;
	return f->ready - hit;
}

_Static_assert(SIM_CAUSE_COUNT <= 64, "sim_core.credited has a bit per cause");

static void credit(struct sim_core *c, struct sim_sem *owner, int cause, double slots)
{
	c->stack[cause] += slots;
	c->credited |= (uint64_t)1 << cause;
	owner->stall[cause] += slots;
}

/*
 * charge - blame `lost` retire slots.  The instruction retired late
 * because it completed late.  Its own latencies overlap with the work of
 * the instructions before it as long as it started early enough, so what
 * made it late is what delayed the start of that latency: the lost cycles
 * are taken from the waits nearest to its execution, walking back in time
 * with its own latencies cut out (a port-bound stream loses its cycles to
 * the port, a dependence chain to the producer, a mispredict to the
 * branch).  Cycles the waits do not cover were spent in its own latency
 * (a cache miss nothing could hide) or, for one-cycle operations, in the
 * front end not delivering it sooner.
 */
static void charge(struct sim_core *c, struct sim_sem *s, const struct comps *cs, uint64_t lost)
{
	double w = (double)c->width;
	double left = (double)lost / w, rest = 0, own = 0;

	for (int i = cs->n - 1; i >= 0 && left > 0; i--) {
		const struct comp *k = &cs->c[i];
		double take;

		if (k->kind == COMP_OWN)
			continue;
		take = (double)k->cycles < left ? (double)k->cycles : left;
		if (k->kind == COMP_WAIT)
			credit(c, k->owner, k->cause, take * w);
		else
			rest += take;
		left -= take;
	}
	rest += left;
	if (rest <= 0)
		return;
	for (int i = 0; i < cs->n; i++)
		if (cs->c[i].kind == COMP_OWN)
			own += (double)cs->c[i].cycles;
	if (own <= 1) {
		credit(c, s, SIM_CAUSE_FRONTEND, rest * w);
		return;
	}
	for (int i = 0; i < cs->n; i++)
		if (cs->c[i].kind == COMP_OWN)
			credit(c, cs->c[i].owner, cs->c[i].cause, rest * w * (double)cs->c[i].cycles / own);
}

/* What one instruction went through, passed between the stages below. */
/* inorder_gate - in order, nothing issues before the instruction ahead. */
static uint64_t inorder_gate(struct sim_core *c, struct step *st, uint64_t t)
{
	if (c->last_issue > t) {
		add_comp(&st->cs, c->last_cause, c->last_issue - t, st->s);
		t = c->last_issue;
	}
	if (t == c->last_issue && c->issue_used >= c->cfg.dispatch_width)
		t++;
	return t;
}

/* fill_cycles - cycles per line the level delivers towards L1, 0: any. */
static unsigned fill_cycles(const struct sim_core *c, int lvl)
{
	return lvl == SIM_LVL_L2 ? c->cfg.l2_fill : lvl == SIM_LVL_LLC ? c->cfg.llc_fill : c->cfg.mem_fill;
}

/* fill_line - a miss served by level lvl takes that level's fill path
 * for fill_cycles, from cycle `at`, and then L2's (a line from the LLC or
 * memory comes into L1 through L2's path too): independent misses queue
 * on each level's bandwidth (for memory, the outstanding misses a core
 * keeps); returns when this one's line starts coming. */
static uint64_t fill_line(struct sim_core *c, struct step *st, int lvl, uint64_t at)
{
	uint64_t from = at;

	for (int l = lvl; l >= SIM_LVL_L2; l = l > SIM_LVL_L2 ? SIM_LVL_L2 : SIM_LVL_L1) {
		unsigned occ = fill_cycles(c, l);
		int port;

		if (occ) {
			uint64_t t = issue_on(c, 1u << (c->cfg.nports + l - 1), from, occ, &port);

			add_comp(&st->cs, SIM_CAUSE_DCACHE_L2 + lvl - 1, t - from, st->s);
			from = t;
		}
	}
	return from;
}

/* exec_load - the load micro-op: a load port once its address registers
 * are ready (t), then the hierarchy's latency, or the data of an older
 * in-flight store it reads; returns when the data is there. */
static uint64_t exec_load(struct sim_core *c, struct step *st, uint64_t t)
{
	int lc_id = (st->s->uop & SIM_UOP_VEC_LOAD) ? SIM_CLS_VEC_LOAD : SIM_CLS_LOAD;
	const struct sim_class_cfg *lc = &c->cfg.cls[lc_id];
	struct sim_sem *s = st->s;
	int port, lvl = st->lvl;
	uint64_t at = issue_on(c, lc->port_mask, t, lc->occupancy, &port);
	int renamed = 0, wrong = 0;
	uint64_t fwd = forwarded_at(c, s, st->dy, &renamed, &wrong);

	add_comp(&st->cs, SIM_CAUSE_PORT0 + port, at - t, s);
	st->issue = st->last_issue = at;
	c->load_level[lvl]++;
	if (lvl != SIM_LVL_L1)
		s->l1d_miss++;
	if (fwd) {
		/* store-to-load forwarding: the store's data, then the
		 * forwarding latency; the cache is not waited for */
		unsigned lat = renamed ? 0 : c->cfg.store_forward_latency;

		if (fwd > at)
			add_comp(&st->cs, SIM_CAUSE_DEP_MEM, fwd - at, s);
		else
			fwd = at;
		add_own(&st->cs, SIM_CAUSE_DEP_MEM, lat, s);
		if (wrong && fwd + lat + c->cfg.mispredict_penalty > c->redirect_at) {
			c->redirect_at = fwd + lat + c->cfg.mispredict_penalty;
			c->redirect_owner = s;
			c->redirect_cause = SIM_CAUSE_FWD_MISPREDICT;
			c->fwd_mispredicts++;
		}
		return fwd + lat;
	}
	if (lvl != SIM_LVL_L1)
		at = fill_line(c, st, lvl, at);
	t = at + lc->latency + c->mem.lat[lvl];
	add_own(&st->cs, SIM_CAUSE_DEP_MEM, lc->latency + c->mem.lat[SIM_LVL_L1], s);
	if (lvl != SIM_LVL_L1)
		add_own(&st->cs, SIM_CAUSE_DCACHE_L2 + lvl - 1, c->mem.lat[lvl] - c->mem.lat[SIM_LVL_L1], s);
	if (c->cfg.prefetch && st->dy->nmem) {
		uint64_t a = st->dy->mem[0].addr;
		int plvl = SIM_LVL_L1;
		uint64_t wait = lvl == SIM_LVL_L1 ? prefetch_wait(c, a, at, &plvl) : 0;

		if (wait) {
			t += wait;
			add_own(&st->cs, SIM_CAUSE_DCACHE_L2 + plvl - 1, wait, s);
		}
		prefetch_train(c, s->addr, a, at);
	}
	return t;
}

/* exec_op - the operation micro-op on a port of its class, from cycle t
 * (divides by operand size: latency32/occupancy32 for 32 bits or less). */
static uint64_t exec_op(struct sim_core *c, struct step *st, uint64_t t)
{
	const struct sim_class_cfg *xc = &c->cfg.cls[st->s->cls];
	/* the first half of a macro-fused pair issues where branches do */
	uint32_t ports = (st->s->uop & SIM_UOP_FUSES) && c->cfg.macro_fusion ?
				 c->cfg.cls[SIM_CLS_BRANCH].port_mask : xc->port_mask;
	int narrow = (st->s->uop & SIM_UOP_NARROW) != 0;
	unsigned lat = narrow && xc->latency32 ? xc->latency32 : xc->latency;
	unsigned occ = narrow && xc->occupancy32 ? xc->occupancy32 : xc->occupancy;
	int port;
	uint64_t at = issue_on(c, ports, t, occ, &port);

	if (port >= 0)
		add_comp(&st->cs, SIM_CAUSE_PORT0 + port, at - t, st->s);
	if (!st->is_load)
		st->issue = at;
	st->last_issue = at;
	add_own(&st->cs, class_dep_cause(st->s->cls), lat, st->s);
	return at + lat;
}

/* exec_store - the store micro-ops once the data is ready at t: a store
 * port; younger loads of the same bytes forward from `t`. */
static void exec_store(struct sim_core *c, struct step *st, uint64_t t)
{
	int sc_id = (st->s->uop & SIM_UOP_VEC_STORE) ? SIM_CLS_VEC_STORE : SIM_CLS_STORE;
	const struct sim_class_cfg *sc = &c->cfg.cls[sc_id];
	unsigned occ = sc->occupancy, bytes = 0;
	int port;
	uint64_t at;

	/* a store wider than the port's path takes it for more cycles */
	for (unsigned i = 0; i < st->dy->nmem; i++)
		if (st->dy->mem[i].store && st->dy->mem[i].size > bytes)
			bytes = st->dy->mem[i].size;
	if (c->cfg.store_port_bytes && bytes > c->cfg.store_port_bytes)
		occ *= (bytes + c->cfg.store_port_bytes - 1) / c->cfg.store_port_bytes;
	at = issue_on(c, sc->port_mask, t, occ, &port);

	if (st->s->cls == SIM_CLS_STORE) {
		add_comp(&st->cs, SIM_CAUSE_PORT0 + port, at - t, st->s);
		add_own(&st->cs, SIM_CAUSE_DEP_INT, sc->latency, st->s);
		st->issue = at;
		st->done = at + sc->latency;
	}
	if (at > st->last_issue)
		st->last_issue = at;
	record_stores(c, st->s, st->dy, t);
}

/* eliminated - done at rename, no port: register moves, zero idioms and
 * folded immediate adds, on cores that do it.  Not the first half of a
 * macro-fused pair: a fused dec/jnz is one branch that still resolves on
 * a branch port (a loop of 7 independent ALU ops and dec/jnz runs at 8/5
 * cycles on Golden Cove's 5 ALU ports, bench/accuracy's alu_mix). */
static int eliminated(const struct sim_core *c, const struct sim_sem *s)
{
	const struct sim_core_cfg *g = &c->cfg;

	if (s->flags & (SIM_SEM_LOAD | SIM_SEM_STORE | SIM_SEM_BRANCH))
		return 0;
	if ((s->uop & SIM_UOP_FUSES) && g->macro_fusion)
		return 0;
	return ((s->uop & SIM_UOP_MOVE) && g->move_elimination) ||
	       ((s->uop & SIM_UOP_ZERO) && g->zero_idioms) ||
	       ((s->uop & SIM_UOP_ADD_IMM) && g->immediate_folding);
}

/* exec_uops - the micro-ops of an out-of-order core: the load waits only
 * for its address registers, so a load-op's load overlaps with whatever
 * computes its other operand; the operation waits for the load's data and
 * its other sources; the store for the data.  Returns completion. */
static uint64_t exec_uops(struct sim_core *c, struct step *st)
{
	struct sim_sem *s = st->s;
	uint64_t t0 = st->d + 1, t = t0;

	if (st->is_load)
		t = exec_load(c, st, regs_ready(c, s->addr_src, s->naddr, t0, &st->cs, s));
	st->done = t;
	if (s->cls != SIM_CLS_LOAD && s->cls != SIM_CLS_STORE && s->cls != SIM_CLS_NOP) {
		t = regs_ready(c, s->src, s->nsrc, t, &st->cs, s);
		st->done = exec_op(c, st, t);
	} else if (!st->is_load) {
		t = regs_ready(c, s->src, s->nsrc, t, &st->cs, s);
		st->done = t;
		if (!st->is_store)
			st->issue = st->last_issue = t;
	}
	if (st->is_store)
		exec_store(c, st, st->done);
	return st->done;
}

/* exec_inorder - an in-order pipe: every operand at issue, in order. */
static void exec_inorder(struct sim_core *c, struct step *st)
{
	struct sim_sem *s = st->s;
	uint64_t t = inorder_gate(c, st, regs_ready(c, s->src, s->nsrc, st->d + 1, &st->cs, s));

	st->issue = st->last_issue = t;
	if (st->is_load)
		t = exec_load(c, st, t);
	st->done = t;
	if (s->cls != SIM_CLS_LOAD && s->cls != SIM_CLS_STORE && s->cls != SIM_CLS_NOP)
		st->done = exec_op(c, st, t);
	if (st->is_store)
		exec_store(c, st, t);
	if (st->issue > c->last_issue) {
		c->last_issue = st->issue;
		c->issue_used = 0;
	}
	c->issue_used++;
	c->last_cause = (uint8_t)(st->cs.n ? dominant(&st->cs) : SIM_CAUSE_DEP_INT);
}

/* exec_fused - a jcc fused with the flag-setting instruction before it:
 * one operation, which the flag-setting half issued on a branch port
 * (SIM_UOP_FUSES); the jcc is done when the flags are. */
static void exec_fused(struct sim_core *c, struct step *st)
{
	uint64_t t = regs_ready(c, st->s->src, st->s->nsrc, st->d + 1, &st->cs, st->s);

	st->issue = st->last_issue = st->done = t;
}

/*
 * exec_rep_more - a rep string record after the first: the microcoded
 * copy streams rep_bytes_per_cycle once started (Intel Optimization
 * Reference Manual, "Enhanced REP MOVSB and STOSB"; AMD Software
 * Optimization Guide, "Repeated String Instructions"), so each iteration
 * adds its bytes' share of a cycle and takes no slot of its own.  The
 * record of the final check of a count that ran out (ITRACE.md 6.5.2) has
 * no access: it moves no data and costs nothing, whatever the model.
 */
static void exec_rep_more(struct sim_core *c, struct step *st)
{
	uint32_t bytes = 0;

	for (unsigned i = 0; i < st->dy->nmem; i++)
		if (!st->dy->mem[i].store || st->dy->nmem == 1)
			bytes += st->dy->mem[i].size;
	c->rep_bytes += bytes;
	st->done = c->cfg.rep_bytes_per_cycle ? c->rep_start + c->rep_bytes / c->cfg.rep_bytes_per_cycle
					      : st->d;
	if (st->done < st->d)
		st->done = st->d;
	st->issue = st->last_issue = st->done;
	add_own(&st->cs, SIM_CAUSE_DEP_MEM, st->done - st->d, st->s);
	record_stores(c, st->s, st->dy, st->done);
}

/* stage_execute - operands, ports, caches: sets issue and done. */
static void stage_execute(struct sim_core *c, struct step *st)
{
	struct sim_sem *s = st->s;
	int exec_comps;
	uint8_t rc;

	add_pipe(&st->cs, 1, s); /* dispatch to issue */
	exec_comps = st->cs.n;
	c->last_producer = 0;
	if (st->is_load || st->is_store)
		st->lvl = data_access(c, st->dy);
	if (st->rep_more) {
		exec_rep_more(c, st);
	} else if (st->fused) {
		exec_fused(c, st);
	} else if (c->cfg.inorder) {
		exec_inorder(c, st);
	} else if (eliminated(c, s)) {
		/* renamed: the result is its sources' (none for an idiom) */
		st->done = regs_ready(c, s->src, s->nsrc, st->d, &st->cs, s);
		st->issue = st->last_issue = st->done;
	} else {
		exec_uops(c, st);
		if ((s->uop & SIM_UOP_REP) && c->cfg.rep_bytes_per_cycle) {
			/* the first iteration starts the string engine */
			c->rep_start = st->done + c->cfg.rep_startup;
			c->rep_bytes = 0;
			add_own(&st->cs, SIM_CAUSE_DEP_MEM, c->cfg.rep_startup, s);
			st->done = c->rep_start;
		}
	}
	/*
	 * results: a consumer that waits for them waits for whatever held
	 * this instruction back longest once dispatched (its own producers,
	 * a busy port, its latency or its cache miss), so that a wait behind
	 * a port-bound or miss-bound chain is charged to the port or miss
	 */
	rc = (uint8_t)dominant_from(&st->cs, exec_comps);
	if (rc == SIM_CAUSE_BASE)
		rc = (uint8_t)class_dep_cause(s->cls);
	for (unsigned i = 0; i < s->ndst; i++) {
		c->reg_ready[s->dst[i]] = st->done;
		c->reg_cause[s->dst[i]] = rc;
		c->reg_producer[s->dst[i]] = c->seq + 1;
	}
}

/* stage_branch - a wrong prediction refetches after resolution; a taken
 * branch (or any jump in the flow) ends the fetch group, or the
 * taken_per_cycle'th does (a front end that predicts two taken branches a
 * cycle, as Zen 5's, keeps fetching past the first). */
static void stage_branch(struct sim_core *c, struct step *st)
{
	struct sim_sem *s = st->s;

	if (s->flags & SIM_SEM_BRANCH) {
		c->branches++;
		if (predict(c, s, st->dy)) {
			st->mispredict = 1;
			c->mispredicts++;
			s->branch_miss++;
			if (st->done + c->cfg.mispredict_penalty > c->redirect_at) {
				c->redirect_at = st->done + c->cfg.mispredict_penalty;
				c->redirect_owner = s;
				c->redirect_cause = SIM_CAUSE_MISPREDICT;
			}
		}
	}
	if (st->dy->next_addr && st->dy->next_addr != s->addr + s->len &&
	    ++c->group_taken >= (c->cfg.taken_per_cycle ? c->cfg.taken_per_cycle : 1))
		c->group_ended = 1;
}

/* stage_retire - in order, retire_width per cycle; frees ROB/LQ/SQ entries. */
static void stage_retire(struct sim_core *c, struct step *st)
{
	uint64_t r = st->done > c->retire_cycle ? st->done : c->retire_cycle;

	if (r == c->retire_cycle && c->retire_used >= c->cfg.retire_width)
		r++;
	if (r > c->retire_cycle) {
		c->retire_cycle = r;
		c->retire_used = 0;
	}
	c->retire_used += st->slots;
	c->last_retire = r;
	c->ring_retire[c->seq & c->ring_mask] = r;
	c->ring_dispatch[c->seq & c->ring_mask] = st->d;
	c->ring_issue[c->seq & c->ring_mask] = st->issue;
	c->ring_cause[c->seq & c->ring_mask] = (uint8_t)dominant(&st->cs);
	if (st->is_load)
		c->ld_retire[c->nloads++ & c->lq_mask] = r;
	if (st->is_store)
		c->st_retire[c->nstores++ & c->sq_mask] = r;
	st->r = r;
}

/* account - charge the retire slots lost before this instruction. */
static uint64_t account(struct sim_core *c, struct step *st)
{
	uint64_t start = (uint64_t)c->width * st->r;
	uint64_t lost = start > c->slot_clock ? start - c->slot_clock : 0;

	c->slot_clock = (start > c->slot_clock ? start : c->slot_clock) + st->slots;
	if (lost)
		charge(c, st->s, &st->cs, lost);
	st->s->count++;
	c->insns++;
	c->slots += st->slots;
	c->loads += (uint64_t)st->is_load;
	c->stores += (uint64_t)st->is_store;
	return lost;
}

/* keep_timeline - remember the timing of instructions in the window. */
static void keep_timeline(struct sim_core *c, const struct step *st, uint64_t lost)
{
	struct sim_tl *e;

	if (c->seq < c->tl_from || c->seq - c->tl_from >= c->tl_cap)
		return;
	e = &c->tl[c->seq - c->tl_from];
	e->seq = c->seq;
	e->sem = st->s;
	e->f = st->f;
	e->d = st->d;
	e->i = st->issue;
	e->c = st->done;
	e->r = st->r;
	e->tid = st->dy->tid;
	e->cause = (uint8_t)dominant(&st->cs);
	e->mispredict = (uint8_t)st->mispredict;
	e->level = (uint8_t)(st->is_load ? st->lvl : 0);
	e->lost = (float)lost;
	e->producer = c->last_producer;
	c->tl_n = c->seq - c->tl_from + 1;
}

/* classify - a jcc that macro-fuses with the instruction before it, or a
 * rep string record after the first (with rep_bytes_per_cycle 0, only the
 * final check; the iterations are loads and stores): both share a slot. */
static void classify(struct sim_core *c, struct step *st)
{
	const struct sim_sem *s = st->s;
	struct sim_sem *p = c->prev_sem;
	int same_thread = p && c->prev_tid == st->dy->tid;

	st->fused = c->cfg.macro_fusion && (s->flags & SIM_SEM_COND) && same_thread &&
		    (p->uop & SIM_UOP_FUSIBLE) && p->addr + p->len == s->addr;
	if (st->fused)
		p->uop |= SIM_UOP_FUSES; /* from its next execution on */
	st->rep_more = (s->uop & SIM_UOP_REP) && same_thread && p == s &&
		       (c->cfg.rep_bytes_per_cycle || st->dy->nmem == 0);
	st->slots = st->fused || st->rep_more ? 0 : 1;
}

/*
 * qtrace_access - a qtrace record has one data address, with neither
 * direction nor size (qtrace-tools' format: the data address node of a
 * record): the decoder's class gives the direction and its first memory
 * operand the size (a doubleword when it does not say).  The access then
 * goes wherever an itrace MEM record goes (caches, prefetcher, store
 * forwarding), so that one run read as .itr and as .qt is simulated alike.
 */
static const struct sim_dyn *qtrace_access(const struct sim_sem *s, const struct sim_dyn *dy,
					   struct sim_dyn *copy, struct sim_memref *m)
{
	const struct itrace_insn_mem *op = s->info.nmem ? &s->info.mem[0] : NULL;

	if (!dy->has_data_addr || !(s->flags & (SIM_SEM_LOAD | SIM_SEM_STORE)))
		return dy;
	*copy = *dy;
	m->addr = dy->data_addr;
	m->size = op && op->size ? op->size : 8;
	m->store = !(s->flags & SIM_SEM_LOAD);
	copy->mem = m;
	copy->nmem = 1;
	return copy;
}

void sim_core_step(struct sim_core *c, struct sim_sem *s, const struct sim_dyn *dy)
{
	struct sim_dyn qcopy;
	struct sim_memref qmem;
	struct step st;

	dy = qtrace_access(s, dy, &qcopy, &qmem);
	st.s = s;
	st.dy = dy;
	/* what the trace says the instruction accessed counts, whatever
	 * the decoder's class (push, pop, call, ret, string operations,
	 * gathers, memory operands of ALU instructions) */
	st.is_load = (s->flags & SIM_SEM_LOAD) != 0;
	st.is_store = (s->flags & SIM_SEM_STORE) != 0;
	for (unsigned i = 0; i < dy->nmem; i++) {
		st.is_load |= !dy->mem[i].store;
		st.is_store |= dy->mem[i].store;
	}
	st.lvl = SIM_LVL_L1;
	st.mispredict = 0;
	st.issue = st.last_issue = 0;
	st.cs.n = 0;
	st.cs.fe_cause = -1;
	st.cs.fe_owner = NULL;
	/* another thread's registers: no dependencies across a switch */
	if (dy->tid != c->last_tid) {
		if (c->insns)
			memset(c->reg_ready, 0, sizeof(c->reg_ready));
		c->last_tid = dy->tid;
	}
	classify(c, &st);
	if (st.rep_more) {
		/* the string engine runs on: nothing is fetched or dispatched */
		st.f = c->fetch_cycle;
		st.d = c->dispatch_cycle;
	} else {
		st.f = stage_fetch(c, s, st.slots, &st.cs);
		st.d = stage_dispatch(c, &st, st.f, st.slots, &st.cs);
	}
	cal_advance(c, st.d);
	stage_execute(c, &st);
	if (!c->cfg.inorder && st.slots)
		iq_push(c, st.last_issue);
	stage_branch(c, &st);
	stage_retire(c, &st);
	keep_timeline(c, &st, account(c, &st));
	c->prev_sem = s;
	c->prev_tid = dy->tid;
	c->seq++;
}
