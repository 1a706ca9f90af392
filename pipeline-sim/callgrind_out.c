/*
 * callgrind_out.c - callgrind profiles and call timelines of a simulation
 * (see callgrind_out.h).
 *
 * Self costs are the simulator's own per-instruction counters (sim_sem:
 * executions and lost retire slots by cause, charged to the instruction
 * that caused them, as in the text report).  Call arcs carry inclusive
 * costs: the instructions of the call (from the call tracking) and the
 * cycles and stalls that the calling thread's instructions took while the
 * call was active.  Cycles are retire slots / width, so that an
 * instruction costs 1/width cycle plus the cycles lost before it; values
 * are rounded per cost line.
 */
#include "callgrind_out.h"

#include <stdlib.h>
#include <string.h>

#include "timeline_json.h"

#define EM_X86_64_ 62
#define EM_PPC64_ 21
#define NCOST (1 + SIM_CAUSE_COUNT) /* slots, then lost slots by cause */

struct pending {
	uint64_t id, begin_cycle;
	double cost[NCOST];
};

struct thread_costs {
	uint32_t tid, pid;
	double cum[NCOST];
	struct pending *stack;
	size_t depth, cap;
};

struct arc {
	uint64_t call_ip, callee; /* key; callee = analysis function id */
	uint32_t pid;
	uint64_t count, insns;
	double cost[NCOST];
};

struct sim_calls {
	struct itrace_analysis *a;
	struct sim_input *in;
	struct sim_core *core; /* its credited mask is cleared at each step */
	int ncauses;
	double last_stack[SIM_CAUSE_COUNT];
	uint64_t last_cycles;
	struct thread_costs *threads; /* analysis thread id - 1 */
	size_t nthreads;
	struct arc *arcs; /* open addressing, call_ip 0 = empty */
	size_t narcs, caparcs;
	int want_arcs;
	struct timeline *tl;
	int failed;
	struct itrace_record rec; /* the INSN record handed to the analysis:
				   * cleared once, its fields set per step */
};

/* ---- following the calls ---------------------------------------------------- */

static struct thread_costs *thread_costs(struct sim_calls *c, uint64_t id)
{
	return id >= 1 && id <= c->nthreads ? &c->threads[id - 1] : NULL;
}

/* thread_of_tid - the analysis numbers threads in order of first sight,
 * as this does: the same index. */
static struct thread_costs *thread_of_tid(struct sim_calls *c, uint32_t tid, uint32_t pid)
{
	struct thread_costs *t;
	size_t i;

	for (i = c->nthreads; i-- > 0;)
		if (c->threads[i].tid == tid)
			return &c->threads[i];
	t = realloc(c->threads, (c->nthreads + 1) * sizeof(*t));
	if (!t)
		return NULL;
	c->threads = t;
	t = &c->threads[c->nthreads++];
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	t->pid = pid;
	return t;
}

static int on_enter(void *arg, const struct itrace_analysis_call *call)
{
	struct sim_calls *c = arg;
	struct thread_costs *t = thread_costs(c, call->thread_id);
	struct pending *p;

	if (!t)
		return 0;
	if (t->depth == t->cap) {
		size_t n = t->cap ? 2 * t->cap : 16;

		p = realloc(t->stack, n * sizeof(*p));
		if (!p)
			return -ITRACE_E_NOMEM;
		t->stack = p;
		t->cap = n;
	}
	p = &t->stack[t->depth++];
	p->id = call->id;
	p->begin_cycle = c->last_cycles;
	memcpy(p->cost, t->cum, sizeof(p->cost));
	return 0;
}

static uint64_t mix(uint64_t a, uint64_t b)
{
	uint64_t h = a * 0x9E3779B97F4A7C15ull ^ b * 0xC2B2AE3D27D4EB4Full;

	return h ^ (h >> 29);
}

static struct arc *arc_slot(struct arc *v, size_t cap, uint64_t ip, uint64_t callee)
{
	size_t i = mix(ip, callee) & (cap - 1);

	while (v[i].call_ip && (v[i].call_ip != ip || v[i].callee != callee))
		i = (i + 1) & (cap - 1);
	return &v[i];
}

static struct arc *arc_get(struct sim_calls *c, uint64_t ip, uint64_t callee)
{
	struct arc *s;

	if ((c->narcs + 1) * 2 > c->caparcs) {
		size_t cap = c->caparcs ? 2 * c->caparcs : 256, i;
		struct arc *v = calloc(cap, sizeof(*v));

		if (!v)
			return NULL;
		for (i = 0; i < c->caparcs; i++)
			if (c->arcs[i].call_ip)
				*arc_slot(v, cap, c->arcs[i].call_ip, c->arcs[i].callee) = c->arcs[i];
		free(c->arcs);
		c->arcs = v;
		c->caparcs = cap;
	}
	s = arc_slot(c->arcs, c->caparcs, ip, callee);
	if (!s->call_ip) {
		s->call_ip = ip;
		s->callee = callee;
		c->narcs++;
	}
	return s;
}

static int on_call(void *arg, const struct itrace_analysis_call *call)
{
	struct sim_calls *c = arg;
	struct thread_costs *t = thread_costs(c, call->thread_id);
	const struct pending *p = NULL;
	struct arc *a;
	int k;

	if (!t)
		return 0;
	while (t->depth > 0) /* calls end innermost first */
		if ((p = &t->stack[--t->depth])->id == call->id)
			break;
	if (!p || p->id != call->id)
		return 0;
	if (c->tl) {
		struct timeline_call tc = {p->begin_cycle, c->last_cycles, call->thread_id,
					   call->function_id, call->depth};

		if (timeline_add(c->tl, &tc) < 0)
			return -ITRACE_E_NOMEM;
	}
	/* arcs: calls made by a call instruction; roots and signal
	 * handlers have no call site */
	if (!c->want_arcs || !call->call_ip)
		return 0;
	a = arc_get(c, call->call_ip, call->function_id);
	if (!a)
		return -ITRACE_E_NOMEM;
	a->pid = t->pid;
	a->count++;
	a->insns += call->insn_count;
	for (k = 0; k < NCOST; k++)
		a->cost[k] += t->cum[k] - p->cost[k];
	return 0;
}

static int symbolize(void *ctx, uint32_t pid, uint64_t addr, const char *path, uint64_t off,
		     struct itrace_analysis_sym *out)
{
	struct sim_calls *c = ctx;
	struct itrace_symbol s;

	(void)path, (void)off;
	if (sim_input_symbol(c->in, pid, addr, 0, &s) < 0 || !s.name)
		return -ITRACE_E_NOENT;
	out->start = s.addr;
	out->size = s.size;
	out->name = s.name;
	out->plt = (uint8_t)s.plt; /* as in itrace-sqlite's calls: a stub is a trampoline, */
	out->unwind = (uint8_t)s.unwind; /* code without a symbol no function entry */
	return 0;
}

struct sim_calls *sim_calls_open(struct sim_input *in, struct sim_core *core, int arcs,
				 int timeline, uint64_t max_events)
{
	struct itrace_analysis_options ao;
	struct sim_calls *c = calloc(1, sizeof(*c));
	int arch = sim_input_arch(in);

	if (!c)
		return NULL;
	c->in = in;
	c->core = core;
	c->rec.type = ITRACE_REC_INSN;
	c->ncauses = SIM_CAUSE_PORT0 + core->cfg.nports;
	c->want_arcs = arcs;
	itrace_analysis_options_init(&ao);
	ao.machine = arch == SIM_ARCH_X86_64 ? EM_X86_64_ : EM_PPC64_;
	ao.endian = arch == SIM_ARCH_PPC64BE ? 2 : 1;
	ao.symbolize = symbolize;
	ao.symbolize_ctx = c;
	ao.on_enter = on_enter;
	ao.on_call = on_call;
	ao.cb_ctx = c;
	if (itrace_analysis_alloc(&ao, &c->a) < 0 ||
	    (timeline && !(c->tl = timeline_alloc(max_events)))) {
		sim_calls_close(c);
		return NULL;
	}
	return c;
}

void sim_calls_close(struct sim_calls *c)
{
	size_t i;

	if (!c)
		return;
	itrace_analysis_free(c->a);
	for (i = 0; i < c->nthreads; i++)
		free(c->threads[i].stack);
	free(c->threads);
	free(c->arcs);
	timeline_free(c->tl);
	free(c);
}

int sim_calls_step(struct sim_calls *c, const struct sim_dyn *d)
{
	struct itrace_record *rec = &c->rec;
	struct thread_costs *t;
	double slots = 1; /* its own retire slot */
	uint64_t changed;
	int k;

	if (c->failed)
		return -1;
	/* only what the analysis reads of an INSN record (the bytes up to len) */
	rec->tid = d->tid;
	rec->pid = d->pid;
	rec->u.insn.addr = d->addr;
	rec->u.insn.len = d->len;
	rec->u.insn.has_bytes = 0;
	if (d->has_bytes && d->len) {
		rec->u.insn.has_bytes = 1;
		memcpy(rec->u.insn.bytes, d->bytes, d->len < 15 ? d->len : 15);
	} else {
		size_t avail = 0;
		const uint8_t *code = sim_input_code(c->in, d->pid, d->addr, &avail);

		if (code && d->len && avail >= d->len) {
			rec->u.insn.has_bytes = 1;
			memcpy(rec->u.insn.bytes, code, d->len < 15 ? d->len : 15);
		}
	}
	t = thread_of_tid(c, d->tid ? d->tid : d->pid, d->pid);
	/* the calls it enters or leaves are measured without it */
	if (!t || itrace_analysis_add(c->a, rec) < 0) {
		c->failed = 1;
		return -1;
	}
	/* Only the causes credited since the last step can have changed: the
	 * others' delta is 0.  Visited in increasing order, as a loop over
	 * every cause would: the sums are the same to the bit. */
	changed = c->core->credited;
	c->core->credited = 0;
	for (; changed; changed &= changed - 1) {
		double delta;

		k = __builtin_ctzll(changed);
		if (k == 0 || k >= c->ncauses)
			continue;
		delta = c->core->stack[k] - c->last_stack[k];
		if (delta != 0) {
			t->cum[1 + k] += delta;
			slots += delta;
			c->last_stack[k] = c->core->stack[k];
		}
	}
	t->cum[0] += slots;
	c->last_cycles = sim_core_cycles(c->core);
	return 0;
}

int sim_calls_finish(struct sim_calls *c)
{
	if (c->failed || itrace_analysis_finish(c->a) < 0) {
		c->failed = 1;
		return -1;
	}
	return 0;
}

/* ---- the callgrind file --------------------------------------------------------- */

/* One cost line: an executed instruction, or a call site's arc. */
struct row {
	const char *module, *function, *file;
	uint64_t addr;	   /* address in the ELF file */
	uint32_t line;
	uint64_t costs[2 + SIM_CAUSE_COUNT]; /* Ir, Cycles, stall cycles */
	/* arcs only */
	const struct arc *arc;
	const char *callee_module, *callee_function, *callee_file;
	uint64_t callee_addr;
	uint32_t callee_line;
};

struct rows {
	struct row *v;
	size_t n, cap;
};

static struct row *row_new(struct rows *r)
{
	if (r->n == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 1024;
		struct row *v = realloc(r->v, cap * sizeof(*v));

		if (!v)
			return NULL;
		r->v = v;
		r->cap = cap;
	}
	memset(&r->v[r->n], 0, sizeof(r->v[0]));
	return &r->v[r->n++];
}

static const char *or_unknown(const char *s)
{
	return s ? s : "???";
}

/*
 * locate - symbol, source line and ELF-file address of a runtime address
 * (callgrind's "instr" positions are relative to the binary, so that
 * KCachegrind can disassemble it): the symbol's value in the file plus the
 * offset into it; the runtime address when the file does not say.
 */
static void locate(struct sim_input *in, uint32_t pid, uint64_t addr, const char **module,
		   const char **function, const char **file, uint32_t *line, uint64_t *faddr)
{
	struct itrace_symbol s;
	struct itrace_elf_symbol es;

	memset(&s, 0, sizeof(s));
	sim_input_symbol(in, pid, addr, 1, &s);
	*module = or_unknown(s.module);
	*function = s.name ? s.name : "[unknown]";
	*file = or_unknown(s.file);
	*line = s.line > 0 ? (uint32_t)s.line : 0;
	*faddr = addr;
	if (s.name && s.module && itrace_elf_find_symbol(s.module, s.name, &es) == 0)
		*faddr = es.vaddr + s.offset;
}

static uint64_t cycles(const struct sim_core *core, double slots)
{
	double v = slots / (double)core->width;

	return v > 0 ? (uint64_t)(v + 0.5) : 0;
}

static int cmp_row(const void *x, const void *y)
{
	const struct row *a = x, *b = y;
	int c = strcmp(a->module, b->module);

	if (!c)
		c = strcmp(a->function, b->function);
	if (!c)
		c = (a->addr > b->addr) - (a->addr < b->addr);
	if (!c) /* the instruction before the calls made from it */
		c = (a->arc != NULL) - (b->arc != NULL);
	return c;
}

static int collect_rows(const struct sim_report *r, struct sim_calls *c, struct rows *rows)
{
	const struct sim_core *core = r->core;
	size_t i, n = sim_semtab_count(r->sems);
	int k;

	for (i = 0; i < n; i++) {
		const struct sim_sem *s = sim_semtab_at(r->sems, i);
		double slots = (double)s->count;
		struct row *w;

		if (!s->count)
			continue;
		if (!(w = row_new(rows)))
			return -1;
		locate(r->in, s->pid, s->addr, &w->module, &w->function, &w->file, &w->line, &w->addr);
		for (k = 1; k < c->ncauses; k++) {
			slots += s->stall[k];
			w->costs[1 + k] = cycles(core, s->stall[k]);
		}
		w->costs[0] = s->count;
		w->costs[1] = cycles(core, slots);
	}
	for (i = 0; c->arcs && i < c->caparcs; i++) {
		const struct arc *a = &c->arcs[i];
		const struct itrace_analysis_function *f;
		struct row *w;

		if (!a->call_ip || !(f = itrace_analysis_function_at(c->a, a->callee - 1)))
			continue;
		if (!(w = row_new(rows)))
			return -1;
		w->arc = a;
		locate(r->in, a->pid, a->call_ip, &w->module, &w->function, &w->file, &w->line, &w->addr);
		locate(r->in, a->pid, f->start, &w->callee_module, &w->callee_function,
		       &w->callee_file, &w->callee_line, &w->callee_addr);
		w->costs[0] = a->insns;
		w->costs[1] = cycles(core, a->cost[0]);
		for (k = 1; k < c->ncauses; k++)
			w->costs[1 + k] = cycles(core, a->cost[1 + k]);
	}
	if (rows->n)
		qsort(rows->v, rows->n, sizeof(*rows->v), cmp_row);
	return 0;
}

/* event_name - "dep-int" -> "DepInt", "port-alu1" -> "PortAlu1": the
 * format's event names are letters and digits. */
static void event_name(const char *cause, char *out, size_t len)
{
	size_t o = 0;
	int up = 1;

	for (; *cause && o + 1 < len; cause++) {
		if ((*cause >= 'a' && *cause <= 'z') || (*cause >= 'A' && *cause <= 'Z') ||
		    (*cause >= '0' && *cause <= '9')) {
			out[o++] = (char)(up && *cause >= 'a' && *cause <= 'z' ? *cause - 32 : *cause);
			up = 0;
		} else {
			up = 1;
		}
	}
	out[o] = '\0';
}

static void write_costs(FILE *out, const struct row *w, const int *used, int nused)
{
	int k;

	fprintf(out, " %llu %llu", (unsigned long long)w->costs[0], (unsigned long long)w->costs[1]);
	for (k = 0; k < nused; k++)
		fprintf(out, " %llu", (unsigned long long)w->costs[1 + used[k]]);
	fputc('\n', out);
}

static void write_header(FILE *out, const struct sim_report *r, const struct sim_calls *c,
			 const int *used, int nused, const char *incomplete)
{
	const struct sim_core *core = r->core;
	char nb[32], ev[40];
	int k;

	fprintf(out, "# callgrind format\nversion: 1\ncreator: pipeline-sim (itrace) %s\n",
		itrace_version());
	fprintf(out, "cmd: %s\n", r->trace);
	fprintf(out, "desc: Core: %s (%s, %u-wide)\n", core->cfg.name,
		core->cfg.inorder ? "in-order" : "out-of-order", core->width);
	fprintf(out, "desc: Cycles: %llu simulated, IPC %.3f\n",
		(unsigned long long)sim_core_cycles(core),
		sim_core_cycles(core) ? (double)core->insns / (double)sim_core_cycles(core) : 0.0);
	if (incomplete)
		fprintf(out, "desc: Incomplete: %s\n", incomplete);
	fprintf(out, "positions: instr line\n");
	fprintf(out, "event: Ir : Instructions executed\n");
	fprintf(out, "event: Cycles : Cycles (1/%u per instruction + cycles lost before it)\n",
		core->width);
	for (k = 0; k < nused; k++) {
		event_name(sim_core_cause_name(core, used[k], nb, sizeof(nb)), ev, sizeof(ev));
		fprintf(out, "event: %s : Stall cycles: %s\n", ev,
			sim_core_cause_name(core, used[k], nb, sizeof(nb)));
	}
	fprintf(out, "events: Ir Cycles");
	for (k = 0; k < nused; k++) {
		event_name(sim_core_cause_name(core, used[k], nb, sizeof(nb)), ev, sizeof(ev));
		fprintf(out, " %s", ev);
	}
	fputc('\n', out);
	(void)c;
}

int sim_report_callgrind(FILE *out, const struct sim_report *r, struct sim_calls *c,
			 const char *incomplete)
{
	struct rows rows = {0};
	struct row sum = {0};
	int used[SIM_CAUSE_COUNT], nused = 0, k;
	const char *module = NULL, *function = NULL, *file = NULL;
	size_t i;

	if (collect_rows(r, c, &rows) < 0) {
		free(rows.v);
		return -1;
	}
	for (k = 1; k < c->ncauses; k++) /* the causes that lost cycles */
		if (r->core->stack[k] > 0)
			used[nused++] = k;
	write_header(out, r, c, used, nused, incomplete);
	for (i = 0; i < rows.n; i++)
		if (!rows.v[i].arc)
			for (k = 0; k < 2 + SIM_CAUSE_COUNT; k++)
				sum.costs[k] += rows.v[i].costs[k];
	fprintf(out, "summary:");
	write_costs(out, &sum, used, nused);
	fputc('\n', out);
	for (i = 0; i < rows.n; i++) {
		const struct row *w = &rows.v[i];

		if (!module || strcmp(module, w->module) || strcmp(function, w->function)) {
			if (!module || strcmp(module, w->module))
				fprintf(out, "ob=%s\n", w->module);
			fprintf(out, "fl=%s\nfn=%s\n", w->file, w->function);
			module = w->module;
			function = w->function;
			file = w->file;
		} else if (strcmp(file, w->file)) {
			fprintf(out, "fi=%s\n", w->file); /* inlined code */
			file = w->file;
		}
		if (w->arc) {
			fprintf(out, "cob=%s\ncfi=%s\ncfn=%s\ncalls=%llu %#llx %u\n", w->callee_module,
				w->callee_file, w->callee_function, (unsigned long long)w->arc->count,
				(unsigned long long)w->callee_addr, w->callee_line);
		}
		fprintf(out, "%#llx %u", (unsigned long long)w->addr, w->line);
		write_costs(out, w, used, nused);
	}
	free(rows.v);
	return ferror(out) ? -1 : 0;
}

/* ---- the call timeline ------------------------------------------------------------ */

static const char *tl_function(void *arg, uint64_t id)
{
	const struct itrace_analysis_function *f = itrace_analysis_function_at(arg, id - 1);

	return f ? f->name : "[unknown]";
}

static const char *tl_process(void *arg, uint64_t id, uint32_t *pid)
{
	const struct itrace_analysis_thread *t = itrace_analysis_thread_at(arg, id - 1);

	*pid = t ? t->pid : 0;
	return "simulated core";
}

static const char *tl_thread(void *arg, uint64_t id, uint32_t *tid)
{
	const struct itrace_analysis_thread *t = itrace_analysis_thread_at(arg, id - 1);

	*tid = t ? t->tid : 0;
	return "thread";
}

int sim_report_call_timeline(FILE *out, const struct sim_report *r, struct sim_calls *c,
			     const char *incomplete, uint64_t *merged, uint64_t *threshold)
{
	const struct timeline_names names = {tl_function, tl_process, tl_thread, c->a};
	struct timeline_stats st;
	const char *meta[16];
	char cyc[32], insns[32];
	size_t m = 0;

	timeline_stats(c->tl, &st);
	*merged = st.calls - st.kept;
	*threshold = st.threshold;
	snprintf(cyc, sizeof(cyc), "%llu", (unsigned long long)sim_core_cycles(r->core));
	snprintf(insns, sizeof(insns), "%llu", (unsigned long long)r->core->insns);
	meta[m++] = "exporter", meta[m++] = "pipeline-sim (itrace)";
	meta[m++] = "source_trace", meta[m++] = r->trace;
	meta[m++] = "core", meta[m++] = r->core->cfg.name;
	meta[m++] = "time_unit", meta[m++] = "simulated cycles (1 us in the viewers = 1 cycle)";
	meta[m++] = "cycles", meta[m++] = cyc;
	meta[m++] = "instructions", meta[m++] = insns;
	meta[m++] = "complete", meta[m++] = incomplete ? "false" : "true";
	if (incomplete)
		meta[m++] = "damage", meta[m++] = incomplete;
	meta[m] = NULL;
	return timeline_write(c->tl, out, &names, 1.0, meta);
}
