/* report.c - summaries, tables, JSON, timeline and Kanata (see report.h). */
#include "report.h"

#include <stdlib.h>
#include <string.h>

/* ---- helpers -------------------------------------------------------------- */

static double cycles_of(const struct sim_core *c, double slots)
{
	return slots / (double)c->width;
}

static const char *cause_name(const struct sim_core *c, int cause, char *buf, size_t len)
{
	return sim_core_cause_name(c, cause, buf, len);
}

static int ncauses(const struct sim_core *c)
{
	return SIM_CAUSE_PORT0 + c->cfg.nports;
}

static double stall_total(const double *stall, int n)
{
	double t = 0;

	for (int i = 1; i < n; i++)
		t += stall[i];
	return t;
}

/* top_causes - "dep-int 80%, port-alu1 15%" of a stall vector. */
static void top_causes(const struct sim_core *c, const double *stall, char *out, size_t len)
{
	double total = stall_total(stall, ncauses(c));
	int used[2] = { -1, -1 };
	size_t o = 0;

	out[0] = '\0';
	if (total <= 0) {
		snprintf(out, len, "-");
		return;
	}
	for (int k = 0; k < 2; k++) {
		int best = -1;
		char nb[32];

		for (int i = 1; i < ncauses(c); i++)
			if (i != used[0] && stall[i] > 0 && (best < 0 || stall[i] > stall[best]))
				best = i;
		if (best < 0 || stall[best] < total * 0.05)
			break;
		used[k] = best;
		o += (size_t)snprintf(out + o, o < len ? len - o : 0, "%s%s %.0f%%", k ? ", " : "",
				      cause_name(c, best, nb, sizeof(nb)), 100.0 * stall[best] / total);
		if (o >= len)
			break;
	}
}

static void json_str(FILE *out, const char *s)
{
	fputc('"', out);
	for (; s && *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '"' || ch == '\\')
			fprintf(out, "\\%c", ch);
		else if (ch < 0x20)
			fprintf(out, "\\u%04x", ch);
		else
			fputc(ch, out);
	}
	fputc('"', out);
}

/* ---- symbols and functions ----------------------------------------------- */

struct func {
	const char *name, *module;
	uint64_t insns, statics;
	double stall[SIM_CAUSE_COUNT];
	double lost;
};

struct funcs {
	struct func *v;
	size_t n, cap;
};

static const char *base_name(const char *path)
{
	const char *s = path ? strrchr(path, '/') : NULL;

	return s ? s + 1 : path;
}

static void symbol_of(const struct sim_report *r, const struct sim_sem *s, int lines,
		      struct itrace_symbol *sym)
{
	memset(sym, 0, sizeof(*sym));
	if (r->in)
		sim_input_symbol(r->in, s->pid, s->addr, lines, sym);
}

static struct func *func_get(struct funcs *fs, const char *name, const char *module)
{
	for (size_t i = 0; i < fs->n; i++)
		if (!strcmp(fs->v[i].name, name) &&
		    ((!fs->v[i].module && !module) ||
		     (fs->v[i].module && module && !strcmp(fs->v[i].module, module))))
			return &fs->v[i];
	if (fs->n == fs->cap) {
		size_t cap = fs->cap ? fs->cap * 2 : 64;
		struct func *v = realloc(fs->v, cap * sizeof(*v));

		if (!v)
			return NULL;
		fs->v = v;
		fs->cap = cap;
	}
	memset(&fs->v[fs->n], 0, sizeof(fs->v[0]));
	fs->v[fs->n].name = name;
	fs->v[fs->n].module = module;
	return &fs->v[fs->n++];
}

static int by_lost(const void *a, const void *b)
{
	const struct func *x = a, *y = b;

	return x->lost < y->lost ? 1 : x->lost > y->lost ? -1 : 0;
}

/* collect_funcs - aggregate the static instructions by symbol. */
static void collect_funcs(const struct sim_report *r, struct funcs *fs)
{
	size_t n = sim_semtab_count(r->sems);
	int nc = ncauses(r->core);

	memset(fs, 0, sizeof(*fs));
	for (size_t i = 0; i < n; i++) {
		struct sim_sem *s = sim_semtab_at(r->sems, i);
		struct itrace_symbol sym;
		struct func *f;

		if (!s->count)
			continue;
		symbol_of(r, s, 0, &sym);
		f = func_get(fs, sym.name ? sym.name : "[unknown]", sym.module);
		if (!f)
			return;
		f->insns += s->count;
		f->statics++;
		for (int k = 1; k < nc; k++)
			f->stall[k] += s->stall[k];
		f->lost += stall_total(s->stall, nc);
	}
	if (fs->n)
		qsort(fs->v, fs->n, sizeof(fs->v[0]), by_lost);
}

static int sem_by_lost(const void *a, const void *b)
{
	const struct sim_sem *const *x = a, *const *y = b;
	double lx = 0, ly = 0;

	for (int i = 1; i < SIM_CAUSE_COUNT; i++) {
		lx += (*x)->stall[i];
		ly += (*y)->stall[i];
	}
	if (lx != ly)
		return lx < ly ? 1 : -1;
	return (*x)->addr < (*y)->addr ? -1 : (*x)->addr > (*y)->addr;
}

/* top_insns - the executed static instructions sorted by lost slots. */
static struct sim_sem **top_insns(const struct sim_report *r, size_t *np)
{
	size_t n = sim_semtab_count(r->sems), k = 0;
	struct sim_sem **v = malloc((n ? n : 1) * sizeof(*v));

	if (!v) {
		*np = 0;
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		struct sim_sem *s = sim_semtab_at(r->sems, i);

		if (s->count)
			v[k++] = s;
	}
	if (k)
		qsort(v, k, sizeof(*v), sem_by_lost);
	*np = k;
	return v;
}

static void where(const struct itrace_symbol *sym, char *buf, size_t len)
{
	if (sym->name)
		snprintf(buf, len, "%s+0x%llx", sym->name, (unsigned long long)sym->offset);
	else
		snprintf(buf, len, "[unknown]");
}

/* ---- text ------------------------------------------------------------------ */

static void text_caches(FILE *out, const struct sim_core *c)
{
	const struct sim_memsys *m = &c->mem;

	fprintf(out, "\nCaches                accesses       misses   miss%%\n");
	fprintf(out, "  L1I       %18llu %12llu %6.2f%%\n", (unsigned long long)m->l1i.accesses,
		(unsigned long long)m->l1i.misses,
		m->l1i.accesses ? 100.0 * (double)m->l1i.misses / (double)m->l1i.accesses : 0.0);
	fprintf(out, "  L1D       %18llu %12llu %6.2f%%\n", (unsigned long long)m->l1d.accesses,
		(unsigned long long)m->l1d.misses,
		m->l1d.accesses ? 100.0 * (double)m->l1d.misses / (double)m->l1d.accesses : 0.0);
	if (m->has_l2)
		fprintf(out, "  L2        %18llu %12llu %6.2f%%   (data %llu misses, instr %llu)\n",
			(unsigned long long)m->l2.accesses, (unsigned long long)m->l2.misses,
			m->l2.accesses ? 100.0 * (double)m->l2.misses / (double)m->l2.accesses : 0.0,
			(unsigned long long)m->l2_miss[1], (unsigned long long)m->l2_miss[0]);
	if (m->has_llc)
		fprintf(out, "  LLC       %18llu %12llu %6.2f%%   (data %llu misses, instr %llu)\n",
			(unsigned long long)m->llc.accesses, (unsigned long long)m->llc.misses,
			m->llc.accesses ? 100.0 * (double)m->llc.misses / (double)m->llc.accesses : 0.0,
			(unsigned long long)m->llc_miss[1], (unsigned long long)m->llc_miss[0]);
}

static void text_branches(FILE *out, const struct sim_core *c)
{
	const struct sim_bpred *b = &c->bp;
	static const char *const kinds[] = { "bimodal", "gshare", "tage" };

	fprintf(out, "\nBranches (%s)       executed  mispredicted\n", kinds[c->cfg.bpred]);
	fprintf(out, "  conditional %16llu %12llu %6.2f%%\n", (unsigned long long)b->cond,
		(unsigned long long)b->cond_miss, b->cond ? 100.0 * (double)b->cond_miss / (double)b->cond : 0.0);
	fprintf(out, "  indirect    %16llu %12llu\n", (unsigned long long)b->indirect,
		(unsigned long long)b->indirect_miss);
	fprintf(out, "  return      %16llu %12llu\n", (unsigned long long)b->ret,
		(unsigned long long)b->ret_miss);
}

static void text_stack(FILE *out, const struct sim_core *c)
{
	uint64_t cycles = sim_core_cycles(c);
	double stalls = 0;
	char nb[32];

	for (int i = 1; i < ncauses(c); i++)
		stalls += c->stack[i];
	fprintf(out, "\nCPI stack                  cycles        CPI    share\n");
	{
		double base = (double)cycles - cycles_of(c, stalls);

		fprintf(out, "  %-18s %14.0f %10.4f %7.2f%%\n", "base", base,
			c->insns ? base / (double)c->insns : 0.0, cycles ? 100.0 * base / (double)cycles : 0.0);
	}
	for (int i = 1; i < ncauses(c); i++) {
		double cy = cycles_of(c, c->stack[i]);

		if (cy < 0.5)
			continue;
		fprintf(out, "  %-18s %14.0f %10.4f %7.2f%%\n", cause_name(c, i, nb, sizeof(nb)), cy,
			c->insns ? cy / (double)c->insns : 0.0, cycles ? 100.0 * cy / (double)cycles : 0.0);
	}
}

void sim_report_text(FILE *out, const struct sim_report *r)
{
	const struct sim_core *c = r->core;
	uint64_t cycles = sim_core_cycles(c);
	struct funcs fs;
	struct sim_sem **top;
	size_t ntop;
	char causes[96], loc[160];

	fprintf(out, "Core %s (%s, %u-wide)   trace %s\n", c->cfg.name, c->cfg.inorder ? "in-order" : "out-of-order",
		c->width, r->trace);
	fprintf(out, "  instructions %16llu\n", (unsigned long long)c->insns);
	fprintf(out, "  cycles       %16llu\n", (unsigned long long)cycles);
	fprintf(out, "  IPC          %16.3f\n", cycles ? (double)c->insns / (double)cycles : 0.0);
	fprintf(out, "  CPI          %16.3f\n", c->insns ? (double)cycles / (double)c->insns : 0.0);
	fprintf(out, "  loads %llu, stores %llu, branches %llu, mispredicted %llu\n",
		(unsigned long long)c->loads, (unsigned long long)c->stores, (unsigned long long)c->branches,
		(unsigned long long)c->mispredicts);
	text_stack(out, c);
	text_branches(out, c);
	text_caches(out, c);

	collect_funcs(r, &fs);
	fprintf(out, "\nTop functions by lost cycles\n");
	fprintf(out, "  %12s %7s %14s %7s  %-36s %s\n", "lost-cycles", "share", "instructions", "IPC",
		"causes", "function");
	for (size_t i = 0; i < fs.n && (int)i < r->top; i++) {
		const struct func *f = &fs.v[i];
		double own = cycles_of(c, (double)f->insns + f->lost);

		top_causes(c, f->stall, causes, sizeof(causes));
		fprintf(out, "  %12.0f %6.2f%% %14llu %7.3f  %-36s %s%s%s%s\n", cycles_of(c, f->lost),
			cycles ? 100.0 * cycles_of(c, f->lost) / (double)cycles : 0.0,
			(unsigned long long)f->insns, own > 0 ? (double)f->insns / own : 0.0, causes, f->name,
			f->module ? " (" : "", f->module ? base_name(f->module) : "", f->module ? ")" : "");
	}
	free(fs.v);

	top = top_insns(r, &ntop);
	fprintf(out, "\nTop instructions by lost cycles\n");
	fprintf(out, "  %12s %12s %-18s %-36s %-28s %s\n", "lost-cycles", "executed", "address", "causes",
		"where", "instruction");
	for (size_t i = 0; i < ntop && (int)i < r->top; i++) {
		const struct sim_sem *s = top[i];
		struct itrace_symbol sym;

		symbol_of(r, s, r->lines, &sym);
		where(&sym, loc, sizeof(loc));
		top_causes(c, s->stall, causes, sizeof(causes));
		fprintf(out, "  %12.0f %12llu 0x%-16llx %-36s %-28s %s", cycles_of(c, stall_total(s->stall, ncauses(c))),
			(unsigned long long)s->count, (unsigned long long)s->addr, causes, loc, s->text);
		if (sym.file)
			fprintf(out, "   %s:%d", base_name(sym.file), sym.line);
		if (s->flags & SIM_SEM_BRANCH)
			fprintf(out, "   [mispredicted %.1f%%]", 100.0 * (double)s->branch_miss / (double)s->count);
		if (s->flags & SIM_SEM_LOAD)
			fprintf(out, "   [L1D miss %.1f%%]", 100.0 * (double)s->l1d_miss / (double)s->count);
		fputc('\n', out);
	}
	free(top);
}

/* ---- JSON ------------------------------------------------------------------ */

static void json_causes(FILE *out, const struct sim_core *c, const double *stall)
{
	char nb[32];
	int first = 1;

	fputc('{', out);
	for (int i = 1; i < ncauses(c); i++) {
		if (stall[i] <= 0)
			continue;
		fprintf(out, "%s", first ? "" : ",");
		json_str(out, cause_name(c, i, nb, sizeof(nb)));
		fprintf(out, ":%.3f", cycles_of(c, stall[i]));
		first = 0;
	}
	fputc('}', out);
}

static void json_cache(FILE *out, const char *name, const struct sim_cache *k, int last)
{
	fprintf(out, "\"%s\":{\"accesses\":%llu,\"misses\":%llu}%s", name, (unsigned long long)k->accesses,
		(unsigned long long)k->misses, last ? "" : ",");
}

void sim_report_json(FILE *out, const struct sim_report *r)
{
	const struct sim_core *c = r->core;
	const struct sim_memsys *m = &c->mem;
	uint64_t cycles = sim_core_cycles(c);
	double stalls = stall_total(c->stack, ncauses(c));
	struct funcs fs;
	struct sim_sem **top;
	size_t ntop;
	char loc[160];

	fprintf(out, "{\"core\":");
	json_str(out, c->cfg.name);
	fprintf(out, ",\"model\":\"%s\",\"width\":%u,\"trace\":", c->cfg.inorder ? "inorder" : "ooo", c->width);
	json_str(out, r->trace);
	fprintf(out, ",\"instructions\":%llu,\"cycles\":%llu,\"ipc\":%.6f,", (unsigned long long)c->insns,
		(unsigned long long)cycles, cycles ? (double)c->insns / (double)cycles : 0.0);
	fprintf(out, "\"loads\":%llu,\"stores\":%llu,", (unsigned long long)c->loads, (unsigned long long)c->stores);
	/* retire slots used: base is slots / width (a fused pair is one) */
	fprintf(out, "\"slots\":%llu,", (unsigned long long)c->slots);
	fprintf(out, "\"cpi_stack\":{\"base\":%.3f,\"stalls\":", (double)cycles - cycles_of(c, stalls));
	json_causes(out, c, c->stack);
	fprintf(out, "},\"branches\":{\"executed\":%llu,\"mispredicted\":%llu,\"conditional\":%llu,"
		     "\"conditional_mispredicted\":%llu,\"indirect\":%llu,\"indirect_mispredicted\":%llu,"
		     "\"return\":%llu,\"return_mispredicted\":%llu},",
		(unsigned long long)c->branches, (unsigned long long)c->mispredicts,
		(unsigned long long)c->bp.cond, (unsigned long long)c->bp.cond_miss,
		(unsigned long long)c->bp.indirect, (unsigned long long)c->bp.indirect_miss,
		(unsigned long long)c->bp.ret, (unsigned long long)c->bp.ret_miss);
	fprintf(out, "\"caches\":{");
	json_cache(out, "l1i", &m->l1i, 0);
	json_cache(out, "l1d", &m->l1d, !m->has_l2 && !m->has_llc);
	if (m->has_l2)
		json_cache(out, "l2", &m->l2, !m->has_llc);
	if (m->has_llc)
		json_cache(out, "llc", &m->llc, 1);
	fprintf(out, "},\"data_misses\":{\"l2\":%llu,\"llc\":%llu},",
		(unsigned long long)m->l2_miss[1], (unsigned long long)m->llc_miss[1]);
	fprintf(out, "\"load_levels\":{\"l1\":%llu,\"l2\":%llu,\"llc\":%llu,\"mem\":%llu},",
		(unsigned long long)c->load_level[0], (unsigned long long)c->load_level[1],
		(unsigned long long)c->load_level[2], (unsigned long long)c->load_level[3]);

	collect_funcs(r, &fs);
	fprintf(out, "\"functions\":[");
	for (size_t i = 0; i < fs.n && (int)i < r->top; i++) {
		const struct func *f = &fs.v[i];

		fprintf(out, "%s{\"name\":", i ? "," : "");
		json_str(out, f->name);
		fprintf(out, ",\"module\":");
		if (f->module)
			json_str(out, f->module);
		else
			fprintf(out, "null");
		fprintf(out, ",\"instructions\":%llu,\"cycles\":%.3f,\"lost_cycles\":%.3f,\"causes\":",
			(unsigned long long)f->insns, cycles_of(c, (double)f->insns + f->lost), cycles_of(c, f->lost));
		json_causes(out, c, f->stall);
		fputc('}', out);
	}
	free(fs.v);
	fprintf(out, "],\"top_instructions\":[");
	top = top_insns(r, &ntop);
	for (size_t i = 0; i < ntop && (int)i < r->top; i++) {
		const struct sim_sem *s = top[i];
		struct itrace_symbol sym;

		symbol_of(r, s, r->lines, &sym);
		where(&sym, loc, sizeof(loc));
		fprintf(out, "%s{\"address\":\"0x%llx\",\"executed\":%llu,\"lost_cycles\":%.3f,\"symbol\":",
			i ? "," : "", (unsigned long long)s->addr, (unsigned long long)s->count,
			cycles_of(c, stall_total(s->stall, ncauses(c))));
		json_str(out, loc);
		fprintf(out, ",\"disassembly\":");
		json_str(out, s->text);
		if (sym.file) {
			fprintf(out, ",\"file\":");
			json_str(out, sym.file);
			fprintf(out, ",\"line\":%d", sym.line);
		}
		fprintf(out, ",\"class\":\"%s\",\"mispredicted\":%llu,\"l1d_misses\":%llu,\"causes\":",
			sim_class_name(s->cls), (unsigned long long)s->branch_miss, (unsigned long long)s->l1d_miss);
		json_causes(out, c, s->stall);
		fputc('}', out);
	}
	free(top);
	fprintf(out, "]}\n");
}

/* ---- timeline ----------------------------------------------------------------- */

#define TL_COLS 100

void sim_report_timeline(FILE *out, const struct sim_report *r, uint64_t n)
{
	const struct sim_core *c = r->core;
	uint64_t first;
	char nb[32];

	if (n > c->tl_n)
		n = c->tl_n;
	if (!n)
		return;
	first = c->tl[0].f;
	fprintf(out, "\nTimeline (cycle 0 = %llu; F fetch, f front end, D dispatch, = waiting, "
		     "e executing, E done, - waiting to retire, R retire)\n",
		(unsigned long long)first);
	for (uint64_t k = 0; k < n; k++) {
		const struct sim_tl *e = &c->tl[k];
		char row[TL_COLS + 2];
		int over = 0;

		memset(row, ' ', sizeof(row));
		for (uint64_t cy = e->f; cy <= e->r; cy++) {
			uint64_t col = cy - first;
			char ch;

			if (col >= TL_COLS) {
				over = 1;
				break;
			}
			if (cy == e->f)
				ch = 'F';
			else if (cy < e->d)
				ch = 'f';
			else if (cy == e->d)
				ch = 'D';
			else if (cy < e->i)
				ch = '=';
			else if (cy < e->c)
				ch = 'e';
			else if (cy == e->c && cy != e->r)
				ch = 'E';
			else if (cy < e->r)
				ch = '-';
			else
				ch = 'R';
			row[col] = ch;
		}
		row[TL_COLS] = over ? '>' : ' ';
		row[TL_COLS + 1] = '\0';
		fprintf(out, "[%llu] %s 0x%llx %-32s %s\n", (unsigned long long)e->seq, row,
			(unsigned long long)e->sem->addr, e->sem->text,
			e->cause != SIM_CAUSE_BASE ? sim_core_cause_name(c, e->cause, nb, sizeof(nb)) : "");
	}
}

/* ---- Kanata ------------------------------------------------------------------- */

struct kev {
	uint64_t cycle;
	uint64_t id;
	uint8_t order; /* within a cycle and instruction: start before end */
	uint8_t what;
	uint8_t lane;
	uint8_t stage;
};

enum { KV_INSN, KV_START, KV_END, KV_RETIRE, KV_WAIT };
static const char *const stage_names[] = { "F", "Ds", "Is", "X", "Cm" };

static int kev_cmp(const void *a, const void *b)
{
	const struct kev *x = a, *y = b;

	if (x->cycle != y->cycle)
		return x->cycle < y->cycle ? -1 : 1;
	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->order - y->order;
}

static int is_frontend_cause(int cause)
{
	return cause == SIM_CAUSE_MISPREDICT || cause == SIM_CAUSE_FWD_MISPREDICT || cause == SIM_CAUSE_FRONTEND ||
	       (cause >= SIM_CAUSE_ICACHE_L2 && cause <= SIM_CAUSE_ICACHE_MEM);
}

int sim_report_kanata(FILE *out, const struct sim_report *r)
{
	const struct sim_core *c = r->core;
	size_t cap = c->tl_n * 16 + 1, n = 0;
	struct kev *ev = malloc(cap * sizeof(*ev));
	uint64_t now = 0, retired = 0;
	char nb[32];

	if (!ev)
		return -1;
	for (uint64_t k = 0; k < c->tl_n; k++) {
		const struct sim_tl *e = &c->tl[k];
		uint64_t t[6] = { e->f, e->d, e->d + 1, e->i, e->c, e->r };
		uint8_t ord = 0;

		ev[n++] = (struct kev){ e->f, k, ord++, KV_INSN, 0, 0 };
		/* lane 0: F [f,d) Ds [d,d+1) Is [d+1,i) X [i,c) Cm [c,r) */
		for (int s = 0; s < 5; s++) {
			uint64_t a = t[s], b = t[s + 1] > t[s] ? t[s + 1] : t[s];

			if (s == 2 && e->i <= e->d + 1)
				continue;
			ev[n++] = (struct kev){ a, k, (uint8_t)(10 + s * 3), KV_START, 0, (uint8_t)s };
			ev[n++] = (struct kev){ b, k, (uint8_t)(11 + s * 3), KV_END, 0, (uint8_t)s };
		}
		/* lane 1: the main stall, where it happened */
		if (e->cause != SIM_CAUSE_BASE) {
			uint64_t a = is_frontend_cause(e->cause) ? e->f : e->d;
			uint64_t b = is_frontend_cause(e->cause) ? e->d : (e->i > e->d ? e->i : e->c);

			if (b > a) {
				ev[n++] = (struct kev){ a, k, 40, KV_START, 1, (uint8_t)e->cause };
				ev[n++] = (struct kev){ b, k, 41, KV_END, 1, (uint8_t)e->cause };
			}
		}
		ev[n++] = (struct kev){ e->r, k, 60, KV_RETIRE, 0, 0 };
		/* the dependency arrow from the producer it waited for, if shown */
		if (e->producer && e->producer - 1 >= c->tl_from && e->producer - 1 - c->tl_from < k)
			ev[n++] = (struct kev){ e->i, k, 50, KV_WAIT, 0, 0 };
	}
	qsort(ev, n, sizeof(*ev), kev_cmp);
	fprintf(out, "Kanata\t0004\n");
	if (n)
		now = ev[0].cycle;
	fprintf(out, "C=\t%llu\n", (unsigned long long)now);
	for (size_t i = 0; i < n; i++) {
		const struct kev *v = &ev[i];
		const struct sim_tl *e = &c->tl[v->id];

		if (v->cycle > now) {
			fprintf(out, "C\t%llu\n", (unsigned long long)(v->cycle - now));
			now = v->cycle;
		}
		switch (v->what) {
		case KV_INSN:
			fprintf(out, "I\t%llu\t%llu\t%u\n", (unsigned long long)v->id, (unsigned long long)e->seq, e->tid);
			fprintf(out, "L\t%llu\t0\t%llx: %s\n", (unsigned long long)v->id,
				(unsigned long long)e->sem->addr, e->sem->text);
			fprintf(out, "L\t%llu\t1\t%s%s%s, %.1f cycles lost\n", (unsigned long long)v->id,
				e->cause == SIM_CAUSE_BASE ? "no stall" : sim_core_cause_name(c, e->cause, nb, sizeof(nb)),
				e->mispredict ? ", mispredicted" : "",
				e->level ? (e->level == 1 ? ", L2 hit" : e->level == 2 ? ", LLC hit" : ", memory") : "",
				(double)e->lost / c->width);
			break;
		case KV_START:
		case KV_END:
			fprintf(out, "%s\t%llu\t%u\t%s\n", v->what == KV_START ? "S" : "E",
				(unsigned long long)v->id, v->lane,
				v->lane ? sim_core_cause_name(c, v->stage, nb, sizeof(nb)) : stage_names[v->stage]);
			break;
		case KV_WAIT:
			fprintf(out, "W\t%llu\t%llu\t0\n", (unsigned long long)v->id,
				(unsigned long long)(e->producer - 1 - c->tl_from));
			break;
		default:
			fprintf(out, "R\t%llu\t%llu\t0\n", (unsigned long long)v->id, (unsigned long long)retired++);
			break;
		}
	}
	free(ev);
	return 0;
}
