/*
 * analysis.c - call/return reconstruction and profile tables from the
 * executed-instruction stream (see itrace.h, section 9).
 *
 * Everything the analysis keeps is keyed by code, not by time: one entry
 * per distinct instruction (its class, function, line and counters), one
 * per function, call path, call-graph edge, module and thread.  The
 * per-thread shadow stack is the only thing that grows with run-time
 * depth.  Per-event rows go to the caller's callbacks immediately.
 */
#include "analysis_int.h"
#include "image_int.h"
#include "internal.h"
#include "itrace_code.h"
#include "map2.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EM_X86_64_ 62
#define UNKNOWN_START UINT64_MAX /* function key of "[unknown]" */
#define NO_RETURN_ADDR UINT64_MAX

static uint64_t str_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h;
}

/* ---- the analysis' state ---------------------------------------------- */

/* Instruction classes (what decoding says the instruction does). */
enum insn_class {
	IC_NONE = 0, /* not a control transfer */
	IC_COND,
	IC_UNCOND,
	IC_CALL,
	IC_RETURN,
	IC_INDIRECT,
	IC_INDIRECT_CALL,
	IC_SYSCALL,
};

enum insn_flags {
	IF_LEADER = 1u << 0,	 /* reached by a transfer: starts a block */
	IF_UNDECODED = 1u << 1,
	IF_REP = 1u << 2,	 /* seen repeating in place (rep prefix) */
	IF_PLT = 1u << 3,	 /* in a PLT section: a trampoline */
};

struct insn {
	uint64_t addr;
	uint64_t count;	     /* executions */
	uint64_t judged;     /* executions whose successor was seen (branches) */
	uint64_t taken;
	uint64_t last_target;
	uint32_t function;   /* index into functions */
	uint32_t file;	     /* index+1 into files, 0 = none */
	uint32_t line;
	uint32_t next_fall;  /* index+1 of the instruction after it in memory, seen
			      * executed after it; 0 = not yet */
	uint32_t next_jump;  /* index+1 of the last other one seen after it */
	uint16_t space;
	uint8_t len;
	uint8_t cls;	     /* enum insn_class */
	uint8_t flags;	     /* enum insn_flags */
};

/*
 * One address space: a process between exec()s.  Its mappings and code
 * are the image's (a->image), in the image's space of the same life.
 */
struct space {
	uint32_t pid;
	uint32_t image_space; /* the image's number of it, 0 until known */
	char *name; /* executable path, or NULL */
};

struct frame {
	uint64_t call_id;
	uint64_t ret_addr;   /* where a return lands; NO_RETURN_ADDR: none */
	uint64_t resume_pc;  /* SIGNAL frames: interrupted instruction */
	uint64_t call_ip;
	uint64_t entry_insn, entry_branch, entry_time, entry_index;
	uint32_t function, call_path, edge;
	uint32_t flags;	     /* ITRACE_CALL_NO_CALL / SIGNAL / JUMP */
	bool outermost;	     /* first activation of its function in the thread */
};

struct thread {
	struct itrace_analysis_thread pub;
	char *name;
	uint16_t space;
	int32_t prev;	     /* index of the previous instruction, -1 none */
	uint64_t last_index; /* trace-wide number of its last instruction */
	bool pending_signal;
	uint64_t sig_pc, sig_handler;
	VEC(struct frame) stack;
	struct map2 active;  /* function -> activations on the stack */
};

struct itrace_analysis {
	struct itrace_analysis_options opts;
	struct itrace_image *image; /* mappings and code, fed by add(); NULL after finish */
	bool own_image;		    /* made by itrace_analysis_alloc() */
	char run_error[256];
	struct itrace_decoder *dec;
	bool finished;
	uint64_t time_ns;
	uint64_t next_call_id;
	struct itrace_analysis_totals totals;

	VEC(struct insn) insns;
	struct map2 insn_map;	 /* (space, addr) -> insn */
	VEC(struct space) spaces;
	struct map2 pid_space;	 /* pid -> current space */
	VEC(struct itrace_analysis_dso) dsos;
	struct map2 name_dso;	 /* the image's name_id of a mapping -> dso */
	VEC(struct itrace_analysis_function) functions;
	VEC(uint16_t) function_space; /* space the function was first seen in */
	struct map2 function_map; /* (dso, start) -> function */
	VEC(struct itrace_analysis_call_path) paths;
	struct map2 path_map;	 /* (parent, ip ^ function) -> path */
	VEC(struct itrace_analysis_edge) edges;
	struct map2 edge_map;	 /* (caller, callee) -> edge */
	VEC(struct thread) threads;
	struct map2 thread_map;	 /* tid -> thread */
	int32_t last_thread;	 /* cache of the thread of the last record */
	VEC(char *) files;	 /* interned source file names */
	struct map2 file_map;	 /* (hash, n) -> file */

	/* results */
	VEC(struct itrace_analysis_block) blocks;
	VEC(struct itrace_analysis_branch_stat) branch_stats;
	VEC(struct itrace_analysis_line) lines;
};

/* ---- strings, modules, address spaces ---------------------------------- */

static char *dup_str(const char *s)
{
	return strdup(s ? s : "");
}

static char *dup_mem(const char *s, size_t len)
{
	char *p = malloc(len + 1);

	if (p) {
		memcpy(p, s, len);
		p[len] = '\0';
	}
	return p;
}

/* intern_file - index+1 of source file `name` (0 on NULL), or negative. */
static int64_t intern_file(struct itrace_analysis *a, const char *name)
{
	uint64_t h;
	uint64_t n;
	char **slot;
	int64_t at;

	if (!name)
		return 0;
	h = str_hash(name);
	for (n = 0;; n++) { /* n disambiguates hash collisions */
		at = map2_get(&a->file_map, h, n);
		if (at < 0)
			break;
		if (strcmp(a->files.v[at], name) == 0)
			return at + 1;
	}
	if (VEC_PUSH_SLOT(a->files, &slot) < 0)
		return -ITRACE_E_NOMEM;
	*slot = strdup(name);
	if (!*slot || map2_put(&a->file_map, h, n, (uint32_t)(a->files.n - 1)) < 0) {
		free(*slot);
		a->files.n--;
		return -ITRACE_E_NOMEM;
	}
	return (int64_t)a->files.n;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* dso_get - index of the module (path, build-id), created on first use. */
static int64_t dso_get(struct itrace_analysis *a, const char *path, size_t path_len,
		       const uint8_t *buildid, uint8_t buildid_len)
{
	struct itrace_analysis_dso *d;
	size_t i;

	for (i = 0; i < a->dsos.n; i++) {
		d = &a->dsos.v[i];
		if (strlen(d->path) == path_len && memcmp(d->path, path, path_len) == 0 &&
		    d->buildid_len == buildid_len &&
		    memcmp(d->buildid, buildid, buildid_len) == 0)
			return (int64_t)i;
	}
	if (VEC_PUSH_SLOT(a->dsos, &d) < 0)
		return -ITRACE_E_NOMEM;
	d->path = dup_mem(path, path_len);
	if (!d->path) {
		a->dsos.n--;
		return -ITRACE_E_NOMEM;
	}
	d->id = a->dsos.n;
	d->short_name = base_name(d->path);
	if (buildid_len > sizeof(d->buildid))
		buildid_len = sizeof(d->buildid);
	memcpy(d->buildid, buildid, buildid_len);
	d->buildid_len = buildid_len;
	return (int64_t)(a->dsos.n - 1);
}

/* mapping_dso - index of the module of mapping m (as dso_get made it for
 * m's MMAP record). */
static int64_t mapping_dso(struct itrace_analysis *a, const struct image_mapping_view *m)
{
	int64_t dso = map2_get(&a->name_dso, m->name_id, 0);

	if (dso >= 0)
		return dso;
	dso = dso_get(a, m->path, strlen(m->path), m->buildid, m->buildid_len);
	if (dso >= 0 && map2_put(&a->name_dso, m->name_id, 0, (uint32_t)dso) < 0)
		return -ITRACE_E_NOMEM;
	return dso;
}

static int64_t space_new(struct itrace_analysis *a, uint32_t pid)
{
	struct space *s;

	if (a->spaces.n >= UINT16_MAX)
		return -ITRACE_E_NOTSUP;
	if (VEC_PUSH_SLOT(a->spaces, &s) < 0)
		return -ITRACE_E_NOMEM;
	s->pid = pid;
	if (map2_put(&a->pid_space, pid, 0, (uint32_t)(a->spaces.n - 1)) < 0)
		return -ITRACE_E_NOMEM;
	return (int64_t)(a->spaces.n - 1);
}

/* space_of - current space of `pid`, created empty on first sight. */
static int64_t space_of(struct itrace_analysis *a, uint32_t pid)
{
	int64_t s = map2_get(&a->pid_space, pid, 0);

	return s >= 0 ? s : space_new(a, pid);
}

/* space_image - the image's number of space s, known once the image has
 * a space for s's process while s is its current space (first asked
 * when the first instruction of s is seen). */
static uint32_t space_image(const struct itrace_analysis *a, struct space *s)
{
	if (!s->image_space)
		s->image_space = image_space(a->image, s->pid);
	return s->image_space;
}

/* find_mapping - the mapping of space s that holds addr: 0 and *m, or
 * -ITRACE_E_NOENT (a later mmap over the same range replaced the older). */
static int find_mapping(const struct itrace_analysis *a, struct space *s, uint64_t addr,
			struct image_mapping_view *m)
{
	return image_mapping_find(a->image, space_image(a, s), addr, m);
}

/* ---- instruction bytes and classes ------------------------------------ */

/* code_bytes - up to `max` bytes at addr from CODE records or the mapped
 * file, as the image has them in space s (which may have ended: an exec
 * before add_unexecuted()); returns how many were found (0: none). */
static size_t code_bytes(struct itrace_analysis *a, struct space *s, uint64_t addr,
			 uint8_t *buf, size_t max)
{
	struct itrace_image_loc loc;
	size_t n;

	if (image_space_lookup(a->image, space_image(a, s), addr, &loc) < 0 || !loc.bytes)
		return 0;
	n = loc.avail < max ? loc.avail : max;
	memcpy(buf, loc.bytes, n);
	return n;
}

/* class_of - the analysis' class of a decoded instruction. */
static enum insn_class class_of(const struct itrace_decoded *d)
{
	switch (d->kind) {
	case ITRACE_INSN_NOT_BRANCH: return IC_NONE;
	case ITRACE_BRANCH_COND: return IC_COND;
	case ITRACE_BRANCH_UNCOND: return IC_UNCOND;
	case ITRACE_BRANCH_CALL: return IC_CALL;
	case ITRACE_BRANCH_RETURN: return IC_RETURN;
	case ITRACE_BRANCH_INDIRECT: return IC_INDIRECT;
	case ITRACE_BRANCH_INDIRECT_CALL: return IC_INDIRECT_CALL;
	default: return IC_SYSCALL; /* syscall, int, sigreturn: into the kernel */
	}
}

static uint8_t class_kind(uint8_t cls)
{
	static const uint8_t kinds[] = {
		[IC_NONE] = ITRACE_BRANCH_UNKNOWN,
		[IC_COND] = ITRACE_BRANCH_COND,
		[IC_UNCOND] = ITRACE_BRANCH_UNCOND,
		[IC_CALL] = ITRACE_BRANCH_CALL,
		[IC_RETURN] = ITRACE_BRANCH_RETURN,
		[IC_INDIRECT] = ITRACE_BRANCH_INDIRECT,
		[IC_INDIRECT_CALL] = ITRACE_BRANCH_INDIRECT_CALL,
		[IC_SYSCALL] = ITRACE_BRANCH_SYSCALL,
	};
	return kinds[cls];
}

static void decode_insn(struct itrace_analysis *a, struct space *s, struct insn *in,
			const struct itrace_insn *rec)
{
	uint8_t buf[ITRACE_INSN_MAX_LEN];
	const uint8_t *p = buf;
	struct itrace_decoded d;
	size_t n;
	uint64_t addr = in->addr;

	if (rec->has_bytes && rec->len) {
		n = rec->len;
		memcpy(buf, rec->bytes, n);
	} else {
		n = code_bytes(a, s, in->addr, buf, in->len ? in->len : sizeof(buf));
	}
	if (n && itrace_decoder_decode(a->dec, p, n, addr, &d) == 0) {
		in->cls = (uint8_t)class_of(&d);
		if (!in->len)
			in->len = d.len;
		return;
	}
	in->cls = IC_NONE;
	in->flags |= IF_UNDECODED;
	if (!a->totals.decode_failures++)
		a->totals.first_decode_failure = in->addr;
}

/* ---- functions --------------------------------------------------------- */

static int64_t function_get(struct itrace_analysis *a, uint32_t dso, const struct itrace_analysis_sym *sym)
{
	struct itrace_analysis_function *f;
	uint64_t start = sym ? sym->start : UNKNOWN_START;
	int64_t at = map2_get(&a->function_map, dso, start);

	if (at >= 0) {
		f = &a->functions.v[at];
		if (sym && !f->size && sym->size)
			f->size = sym->size;
		return at;
	}
	if (VEC_PUSH_SLOT(a->functions, &f) < 0)
		return -ITRACE_E_NOMEM;
	f->id = a->functions.n;
	f->dso_id = dso + 1;
	if (sym) {
		f->start = sym->start;
		f->size = sym->size;
		f->unwind = sym->unwind;
	}
	f->name = dup_str(sym ? sym->name : "[unknown]");
	if (!f->name || map2_put(&a->function_map, dso, start, (uint32_t)(a->functions.n - 1)) < 0)
		return -ITRACE_E_NOMEM;
	return (int64_t)(a->functions.n - 1);
}

/* symbolize - set in->function / file / line. */
static int symbolize(struct itrace_analysis *a, struct space *s, struct insn *in, uint32_t pid)
{
	struct image_mapping_view m;
	bool mapped = find_mapping(a, s, in->addr, &m) == 0;
	int64_t mdso = mapped ? mapping_dso(a, &m) : 0;
	uint32_t dso = (uint32_t)mdso; /* dso 0 is "[unknown]" */
	struct itrace_analysis_sym sym = {0};
	int64_t f, file;
	int rc = -ITRACE_E_NOENT;

	if (mdso < 0)
		return (int)mdso;
	if (a->opts.symbolize)
		rc = a->opts.symbolize(a->opts.symbolize_ctx, pid, in->addr,
				       mapped ? a->dsos.v[dso].path : NULL,
				       mapped ? m.pgoff + (in->addr - m.start) : in->addr, &sym);
	if (rc < 0 && rc != -ITRACE_E_NOENT)
		return rc;
	if (rc < 0)
		memset(&sym, 0, sizeof(sym));
	f = function_get(a, dso, rc >= 0 && sym.name ? &sym : NULL);
	if (f < 0)
		return (int)f;
	if ((size_t)f == a->function_space.n) {
		uint16_t *slot;

		if (VEC_PUSH_SLOT(a->function_space, &slot) < 0)
			return -ITRACE_E_NOMEM;
		*slot = in->space;
	}
	in->function = (uint32_t)f;
	if (rc >= 0 && sym.plt)
		in->flags |= IF_PLT;
	file = intern_file(a, rc >= 0 && sym.line ? sym.file : NULL);
	if (file < 0)
		return (int)file;
	in->file = (uint32_t)file;
	in->line = file ? sym.line : 0;
	return 0;
}

/* insn_get - index of the instruction at (space, addr), decoded and
 * symbolized on first sight. */
static int64_t insn_get(struct itrace_analysis *a, uint16_t sp, uint32_t pid,
			const struct itrace_insn *rec)
{
	int64_t at = map2_get(&a->insn_map, sp, rec->addr);
	struct insn *in;
	int rc;

	if (at >= 0)
		return at;
	if (a->insns.n >= UINT32_MAX / 2)
		return -ITRACE_E_NOMEM;
	if (VEC_PUSH_SLOT(a->insns, &in) < 0)
		return -ITRACE_E_NOMEM;
	in->addr = rec->addr;
	in->space = sp;
	in->len = rec->len;
	decode_insn(a, &a->spaces.v[sp], in, rec);
	rc = symbolize(a, &a->spaces.v[sp], in, pid);
	if (rc < 0) {
		a->insns.n--;
		return rc;
	}
	if (map2_put(&a->insn_map, sp, rec->addr, (uint32_t)(a->insns.n - 1)) < 0)
		return -ITRACE_E_NOMEM;
	return (int64_t)(a->insns.n - 1);
}

/* ---- threads and the shadow stack -------------------------------------- */

static int64_t thread_get(struct itrace_analysis *a, uint32_t tid, uint32_t pid)
{
	struct thread *t;
	int64_t at, sp;

	if (a->last_thread >= 0 && a->threads.v[a->last_thread].pub.tid == tid)
		return a->last_thread;
	at = map2_get(&a->thread_map, tid, 0);
	if (at < 0) {
		sp = space_of(a, pid);
		if (sp < 0)
			return sp;
		if (VEC_PUSH_SLOT(a->threads, &t) < 0)
			return -ITRACE_E_NOMEM;
		t->pub.id = a->threads.n;
		t->pub.tid = tid;
		t->pub.pid = pid;
		t->space = (uint16_t)sp;
		t->prev = -1;
		at = (int64_t)(a->threads.n - 1);
		if (map2_put(&a->thread_map, tid, 0, (uint32_t)at) < 0)
			return -ITRACE_E_NOMEM;
		a->totals.threads++;
	}
	a->last_thread = (int32_t)at;
	return at;
}

static uint64_t active_add(struct thread *t, uint32_t function, int delta, int *rc)
{
	int64_t n = map2_get(&t->active, function, 0);

	n = (n < 0 ? 0 : n) + delta;
	*rc = map2_put(&t->active, function, 0, (uint32_t)n);
	return (uint64_t)n;
}

static int64_t path_get(struct itrace_analysis *a, uint32_t parent /* id, 0 root */,
			uint32_t function, uint64_t ip)
{
	struct itrace_analysis_call_path *p;
	uint64_t key = ip ^ ((uint64_t)function << 48);
	int64_t at = map2_get(&a->path_map, parent, key);

	if (at >= 0)
		return at;
	if (VEC_PUSH_SLOT(a->paths, &p) < 0)
		return -ITRACE_E_NOMEM;
	p->id = a->paths.n;
	p->parent_id = parent;
	p->function_id = function + 1;
	p->ip = ip;
	if (map2_put(&a->path_map, parent, key, (uint32_t)(a->paths.n - 1)) < 0)
		return -ITRACE_E_NOMEM;
	return (int64_t)(a->paths.n - 1);
}

static int64_t edge_get(struct itrace_analysis *a, uint64_t caller_id, uint64_t callee_id)
{
	struct itrace_analysis_edge *e;
	int64_t at = map2_get(&a->edge_map, caller_id, callee_id);

	if (at >= 0)
		return at;
	if (VEC_PUSH_SLOT(a->edges, &e) < 0)
		return -ITRACE_E_NOMEM;
	e->id = a->edges.n;
	e->caller_id = caller_id;
	e->callee_id = callee_id;
	if (map2_put(&a->edge_map, caller_id, callee_id, (uint32_t)(a->edges.n - 1)) < 0)
		return -ITRACE_E_NOMEM;
	return (int64_t)(a->edges.n - 1);
}

/* describe_call - what is known of frame f at its entry; `below` is the
 * number of frames under it on the thread's stack. */
static void describe_call(const struct itrace_analysis *a, const struct thread *t,
			  const struct frame *f, size_t below, struct itrace_analysis_call *c)
{
	memset(c, 0, sizeof(*c));
	c->id = f->call_id;
	c->parent_id = below ? t->stack.v[below - 1].call_id : 0;
	c->thread_id = t->pub.id;
	c->call_path_id = f->call_path + 1;
	c->parent_call_path_id = a->paths.v[f->call_path].parent_id;
	c->function_id = f->function + 1;
	c->call_ip = f->call_ip;
	c->call_insn = f->entry_insn;
	c->call_index = f->entry_index;
	c->call_time = f->entry_time;
	c->depth = (uint32_t)below;
	c->flags = f->flags;
}

/* report_enter - hand the activation just pushed to on_enter. */
static int report_enter(struct itrace_analysis *a, const struct thread *t)
{
	struct itrace_analysis_call c;

	describe_call(a, t, &t->stack.v[t->stack.n - 1], t->stack.n - 1, &c);
	return a->opts.on_enter(a->opts.cb_ctx, &c);
}

/*
 * push_frame - enter an activation of the function of instruction `entry`.
 * flags: 0 for a call, ITRACE_CALL_JUMP for a jump that enters a function,
 * ITRACE_CALL_NO_CALL for a root, ITRACE_CALL_SIGNAL for a handler.
 * `counted`: the activation counts as a call of its function (callgrind's
 * calls=; see the rules above transition()).
 */
static int push_frame(struct itrace_analysis *a, struct thread *t, const struct insn *entry,
		      uint64_t ret_addr, uint64_t call_ip, uint32_t flags, uint64_t resume_pc,
		      bool counted)
{
	struct frame *top = t->stack.n ? &t->stack.v[t->stack.n - 1] : NULL;
	uint32_t parent_path = top ? top->call_path + 1 : 0;
	struct frame *f;
	int64_t path, edge;
	int rc;

	path = path_get(a, parent_path, entry->function, entry->addr);
	if (path < 0)
		return (int)path;
	edge = edge_get(a, top ? top->function + 1 : 0, entry->function + 1);
	if (edge < 0)
		return (int)edge;
	if (VEC_PUSH_SLOT(t->stack, &f) < 0)
		return -ITRACE_E_NOMEM;
	f->call_id = ++a->next_call_id;
	f->ret_addr = ret_addr;
	f->resume_pc = resume_pc;
	f->call_ip = call_ip;
	f->entry_insn = t->pub.insns;
	f->entry_branch = t->pub.branches;
	f->entry_time = a->time_ns;
	f->entry_index = a->totals.insns; /* entry is counted after the push */
	f->function = entry->function;
	f->call_path = (uint32_t)path;
	f->edge = (uint32_t)edge;
	f->flags = flags;
	f->outermost = active_add(t, entry->function, +1, &rc) == 1;
	if (rc < 0)
		return rc;
	a->paths.v[path].calls++;
	a->edges.v[edge].calls++;
	if (counted) {
		a->functions.v[entry->function].calls++;
		a->totals.calls++;
	}
	return a->opts.on_enter ? report_enter(a, t) : 0;
}

/* pop_frame - end the top activation and report it. */
static int pop_frame(struct itrace_analysis *a, struct thread *t, uint32_t extra_flags)
{
	struct frame *f = &t->stack.v[t->stack.n - 1];
	struct itrace_analysis_call c;
	uint64_t insns = t->pub.insns - f->entry_insn;
	int rc;

	active_add(t, f->function, -1, &rc);
	if (rc < 0)
		return rc;
	if (f->outermost)
		a->functions.v[f->function].total_insns += insns;
	a->paths.v[f->call_path].insns += insns;
	a->edges.v[f->edge].insns += insns;
	t->stack.n--;
	if (!a->opts.on_call)
		return 0;
	describe_call(a, t, f, t->stack.n, &c);
	c.return_insn = t->pub.insns;
	c.return_time = a->time_ns;
	c.return_index = t->pub.insns > f->entry_insn ? t->last_index + 1 : f->entry_index;
	c.insn_count = insns;
	c.branch_count = t->pub.branches - f->entry_branch;
	c.flags |= extra_flags;
	return a->opts.on_call(a->opts.cb_ctx, &c);
}

/* pop_to - end the activations above `keep`, marked with `flags`. */
static int pop_to(struct itrace_analysis *a, struct thread *t, size_t keep, uint32_t flags)
{
	int rc;

	while (t->stack.n > keep)
		if ((rc = pop_frame(a, t, flags)) < 0)
			return rc;
	return 0;
}

/* jump_chain_end - index past the frames above `i` entered by jumps from
 * i's activation (tail calls, cold parts): they run in i's stack frame
 * and end with it. */
static size_t jump_chain_end(const struct thread *t, size_t i)
{
	size_t k = i + 1;

	while (k < t->stack.n && (t->stack.v[k].flags & ITRACE_CALL_JUMP))
		k++;
	return k;
}

static int flush_thread(struct itrace_analysis *a, struct thread *t)
{
	t->prev = -1;
	t->pending_signal = false;
	return pop_to(a, t, 0, ITRACE_CALL_NO_RETURN);
}

/* signal_frame_resuming_at - index+1 of the SIGNAL frame that resumes at pc. */
static size_t signal_frame_resuming_at(const struct thread *t, uint64_t pc)
{
	size_t i;

	for (i = t->stack.n; i-- > 0;)
		if ((t->stack.v[i].flags & ITRACE_CALL_SIGNAL) && t->stack.v[i].resume_pc == pc)
			return i + 1;
	return 0;
}

/* innermost_signal - index+1 of the innermost SIGNAL frame, 0 if none. */
static size_t innermost_signal(const struct thread *t)
{
	size_t i;

	for (i = t->stack.n; i-- > 0;)
		if (t->stack.v[i].flags & ITRACE_CALL_SIGNAL)
			return i + 1;
	return 0;
}

static bool is_unknown(const struct itrace_analysis *a, uint32_t function)
{
	return a->functions.v[function].start == 0 && a->functions.v[function].size == 0;
}

/* is_entry - e is the first instruction of a function whose symbol has a
 * size (a label without one, such as crtstuff's frame_dummy, is no
 * function start for callgrind either: Valgrind ignores such symbols). */
static bool is_entry(const struct itrace_analysis *a, const struct insn *e)
{
	const struct itrace_analysis_function *f = &a->functions.v[e->function];

	return f->size && e->addr == f->start && !f->unwind;
}

/*
 * outer_frame_of - index+1 of the frame nearest the top, below the top
 * and above the innermost signal frame (siglongjmp may leave a handler:
 * signal frames do not stop the search when `cross_signals`), whose
 * function holds e; 0 if none.  Code without a symbol says nothing.
 */
static size_t outer_frame_of(const struct itrace_analysis *a, const struct thread *t,
			     const struct insn *e, bool cross_signals)
{
	size_t i;

	if (is_unknown(a, e->function) || a->functions.v[e->function].unwind || !t->stack.n)
		return 0; /* (nor code named from unwind data only: callgrind has no symbol there) */
	for (i = t->stack.n - 1; i-- > 0;) {
		if (t->stack.v[i].function == e->function)
			return i + 1;
		if (!cross_signals && (t->stack.v[i + 1].flags & ITRACE_CALL_SIGNAL))
			break;
	}
	return 0;
}

/*
 * unwind_into - control lands in the body of frame i's function, below
 * the top (longjmp, an exception handler): the activations it called
 * end, unwound.  Those it entered by a jump stay: they share its stack
 * frame, and callgrind unwinds by the stack pointer (so a function's
 * cold part jumping back into the function's body stays the activation
 * that runs it, as a tail call does).
 */
static int unwind_into(struct itrace_analysis *a, struct thread *t, size_t i)
{
	return pop_to(a, t, jump_chain_end(t, i), ITRACE_CALL_NO_RETURN | ITRACE_CALL_UNWOUND);
}

/* is_trampoline - code that forwards a call and is done: PLT stubs and
 * the dynamic linker's lazy-binding resolver, which ends by jumping to
 * the function it resolved (callgrind's "pop on jump"). */
static bool is_trampoline(const struct itrace_analysis *a, const struct insn *in)
{
	return (in->flags & IF_PLT) ||
	       strncmp(a->functions.v[in->function].name, "_dl_runtime_resolve", 19) == 0;
}

/* A return to `to`. */
static int do_return(struct itrace_analysis *a, struct thread *t, const struct insn *to)
{
	size_t i, keep;

	for (i = t->stack.n; i-- > 0;) {
		if (t->stack.v[i].ret_addr == to->addr) {
			/* what i called and never returned from ends without a
			 * return; what i jumped to returns with it */
			int rc = pop_to(a, t, jump_chain_end(t, i), ITRACE_CALL_NO_RETURN);

			return rc < 0 ? rc : pop_to(a, t, i, 0);
		}
		if (t->stack.v[i].flags & ITRACE_CALL_SIGNAL)
			break;
	}
	/* No frame expects this return.  An exception landing (the unwinder
	 * "returns" into a handler of an outer function) unwinds to it. */
	if ((i = outer_frame_of(a, t, to, false)))
		return unwind_into(a, t, i - 1);
	/* Otherwise the stack underflows: a handler returning into the
	 * signal trampoline, or a return past everything seen being called
	 * (the trace began inside a deeper call).  As callgrind does, the
	 * function returned to counts as called, from an unseen call. */
	keep = innermost_signal(t);
	if (keep < t->stack.n) {
		int rc = pop_to(a, t, keep, 0);

		if (rc < 0)
			return rc;
	}
	return push_frame(a, t, to, NO_RETURN_ADDR, 0, ITRACE_CALL_NO_CALL, 0, true);
}

/* in_stub_activation - is p, PLT code, in the activation of top's PLT stub
 * of the same module (lazy binding took the stub to PLT0: do_jump)? */
static bool in_stub_activation(const struct itrace_analysis *a, const struct thread *t,
				const struct frame *top, const struct insn *p)
{
	const struct itrace_analysis_function *f = &a->functions.v[top->function];
	int64_t entry;

	if (!(p->flags & IF_PLT) || f->dso_id != a->functions.v[p->function].dso_id || !f->size)
		return false;
	entry = map2_get(&a->insn_map, t->space, f->start);
	return entry >= 0 && (a->insns.v[entry].flags & IF_PLT);
}

/*
 * A jump (conditional, direct or indirect) from p to e, to another place
 * than where the previous instruction's own flow goes.
 */
static int do_jump(struct itrace_analysis *a, struct thread *t, const struct insn *p,
		   const struct insn *e)
{
	const struct frame *top = &t->stack.v[t->stack.n - 1];
	uint64_t ret_addr = NO_RETURN_ADDR, call_ip = p->addr;
	uint32_t flags = ITRACE_CALL_JUMP;
	size_t i;
	int rc;

	/* Lazy binding: a stub's jump to PLT0 of its module, which is named
	 * (symbolizer.c) but stays in the stub's activation, as in callgrind. */
	if ((p->flags & IF_PLT) && (e->flags & IF_PLT) &&
	    a->functions.v[p->function].dso_id == a->functions.v[e->function].dso_id)
		return 0;
	if (!is_entry(a, e)) {
		if (top->function == e->function)
			return 0; /* inside the function */
		/* longjmp, siglongjmp: into the body of an outer function */
		if ((i = outer_frame_of(a, t, e, true)))
			return unwind_into(a, t, i - 1);
		/* into another function's body, same module and section kind:
		 * control stays in this activation (callgrind does the same) */
		if (a->functions.v[p->function].dso_id == a->functions.v[e->function].dso_id &&
		    (p->flags & IF_PLT) == (e->flags & IF_PLT))
			return 0;
	}
	/* A jump to a function's start, into another module or between a
	 * PLT and other code enters a function: a tail call, a PLT or GOT
	 * jump.  A trampoline's activation ends there, and the function
	 * takes its place: called (or jumped to, or a root) as it was, and
	 * returning where it would have. */
	if (is_trampoline(a, p) && (top->function == p->function || in_stub_activation(a, t, top, p)) &&
	    !(top->flags & ITRACE_CALL_SIGNAL)) {
		ret_addr = top->ret_addr;
		call_ip = top->call_ip;
		flags = top->flags & (ITRACE_CALL_JUMP | ITRACE_CALL_NO_CALL);
		if ((rc = pop_frame(a, t, 0)) < 0)
			return rc;
	}
	return push_frame(a, t, e, ret_addr, call_ip, flags, 0, true);
}

static uint64_t function_offset(const struct itrace_analysis *a, const struct insn *in)
{
	const struct itrace_analysis_function *f = &a->functions.v[in->function];

	return f->start == 0 && f->size == 0 ? 0 : in->addr - f->start;
}

static int emit_branch(struct itrace_analysis *a, struct thread *t, const struct insn *p,
		       const struct insn *e, bool taken)
{
	struct itrace_analysis_branch_event ev;

	if (!a->opts.on_branch)
		return 0;
	ev.seq = a->totals.branches;
	ev.thread_id = t->pub.id;
	ev.from = p->addr;
	ev.to = e->addr;
	ev.from_function_id = p->function + 1;
	ev.to_function_id = e->function + 1;
	ev.from_dso_id = a->functions.v[p->function].dso_id;
	ev.to_dso_id = a->functions.v[e->function].dso_id;
	ev.from_offset = function_offset(a, p);
	ev.to_offset = function_offset(a, e);
	ev.call_path_id = t->stack.n ? t->stack.v[t->stack.n - 1].call_path + 1 : 0;
	ev.insn_seq = t->pub.insns - 1;
	ev.time_ns = a->time_ns;
	ev.kind = class_kind(p->cls);
	ev.taken = taken;
	ev.insn_index = t->last_index;
	return a->opts.on_branch(a->opts.cb_ctx, &ev);
}

/*
 * transition - account the step from instruction p to instruction e.
 *
 * Calls are counted as valgrind's callgrind counts them (its calls=, see
 * callgrind's setup_bbcc()), which needs no stack pointer for code that
 * calls and returns normally:
 *  - a call instruction calls the function it reaches (a call to the next
 *    instruction too);
 *  - a return pops down to the frame whose return address it reaches;
 *    reaching none, it lands in an outer function (exception) or the
 *    stack underflows (a new root, counted as called);
 *  - a jump to a function's start, into another module, or between a PLT
 *    and other code is a call (tail calls, PLT and GOT jumps), and so is
 *    a branch, taken or not, to the next instruction when that starts a
 *    function (callgrind's blocks end at every branch); leaving a
 *    trampoline that way ends the trampoline's activation (callgrind's
 *    "pop on jump" for _dl_runtime_resolve);
 *  - a jump into the body of a function further down the stack unwinds
 *    to it (longjmp); any other jump stays in the activation;
 *  - signal delivery pushes a handler frame, not a call.
 * Instructions count as "self" for the function of the activation that
 * executes them, as in callgrind: a jump into another function's body
 * (not a call) leaves them to the jumping function.
 */
static int transition(struct itrace_analysis *a, struct thread *t, struct insn *p, struct insn *e)
{
	uint64_t fall = p->addr + p->len;
	bool taken = e->addr != fall;
	size_t sig;
	int rc;

	if (t->pending_signal && e->addr == t->sig_handler) {
		/* delivery: p's own outcome is unknown (the signal came first) */
		t->pending_signal = false;
		e->flags |= IF_LEADER;
		return push_frame(a, t, e, NO_RETURN_ADDR, 0, ITRACE_CALL_SIGNAL, t->sig_pc, false);
	}
	if (p->cls == IC_NONE) {
		if (!taken)
			return 0;
		if (e->addr == p->addr) { /* a rep loop enters p again (ITRACE.md 6.5.2) */
			p->flags |= IF_REP;
			return 0;
		}
		e->flags |= IF_LEADER;
		if ((sig = signal_frame_resuming_at(t, e->addr)))
			return pop_to(a, t, sig - 1, 0);
		/* control left a plain instruction: asynchronous signal */
		return push_frame(a, t, e, NO_RETURN_ADDR, 0, ITRACE_CALL_SIGNAL, fall, false);
	}
	p->judged++;
	if (taken) {
		p->taken++;
		p->last_target = e->addr;
		e->flags |= IF_LEADER;
	}
	t->pub.branches++;
	a->totals.branches++;
	if ((rc = emit_branch(a, t, p, e, taken)) < 0)
		return rc;
	switch (p->cls) {
	case IC_CALL:
	case IC_INDIRECT_CALL:
		/* a call to the next instruction (reading the pc) is a call too */
		return push_frame(a, t, e, fall, p->addr, 0, 0, true);
	case IC_RETURN:
		return do_return(a, t, e);
	case IC_SYSCALL:
		if (!taken)
			return 0;
		if ((sig = signal_frame_resuming_at(t, e->addr)))
			return pop_to(a, t, sig - 1, 0); /* rt_sigreturn */
		return push_frame(a, t, e, NO_RETURN_ADDR, 0, ITRACE_CALL_SIGNAL, fall, false);
	default:
		/* a branch ends callgrind's block even when not taken: falling
		 * through to a function's start is entering it */
		if (!taken)
			return is_entry(a, e) ? do_jump(a, t, p, e) : 0;
		if ((sig = signal_frame_resuming_at(t, e->addr)))
			return pop_to(a, t, sig - 1, 0);
		return do_jump(a, t, p, e);
	}
}

/*
 * next_insn - insn_get() for thread t's next instruction, through the
 * successors its previous instruction had before (the one after it in
 * memory, and the last other one): a trace mostly repeats its paths, and
 * this skips the hash lookup.  The entry found is the one insn_get()
 * would give: entries are never replaced, and the check covers the
 * address and the space (an exec changes t->space).
 */
static int64_t next_insn(struct itrace_analysis *a, struct thread *t, const struct itrace_insn *rec)
{
	struct insn *p = t->prev >= 0 ? &a->insns.v[t->prev] : NULL;
	int fall = p && rec->addr == p->addr + p->len;
	uint32_t known = !p ? 0 : fall ? p->next_fall : p->next_jump;
	int64_t ei;

	if (known) {
		const struct insn *e = &a->insns.v[known - 1];

		if (e->addr == rec->addr && e->space == t->space)
			return (int64_t)known - 1;
	}
	ei = insn_get(a, t->space, t->pub.pid, rec);
	if (ei >= 0 && p) {
		p = &a->insns.v[t->prev]; /* insn_get may have moved the vector */
		if (fall)
			p->next_fall = (uint32_t)ei + 1;
		else
			p->next_jump = (uint32_t)ei + 1;
	}
	return ei;
}

static int on_insn(struct itrace_analysis *a, const struct itrace_record *rec)
{
	int64_t ti = thread_get(a, rec->tid ? rec->tid : rec->pid, rec->pid);
	struct thread *t;
	struct insn *e;
	int64_t ei;
	int rc;

	if (ti < 0)
		return (int)ti;
	t = &a->threads.v[ti];
	ei = next_insn(a, t, &rec->u.insn);
	if (ei < 0)
		return (int)ei;
	e = &a->insns.v[ei];
	if (t->prev >= 0) {
		rc = transition(a, t, &a->insns.v[t->prev], e);
	} else {
		e->flags |= IF_LEADER;
		rc = t->stack.n ? 0 : push_frame(a, t, e, NO_RETURN_ADDR, 0, ITRACE_CALL_NO_CALL, 0,
						 false);
	}
	/* a signal frame that was the root may have ended */
	if (rc >= 0 && !t->stack.n)
		rc = push_frame(a, t, e, NO_RETURN_ADDR, 0, ITRACE_CALL_NO_CALL, 0, false);
	if (rc < 0)
		return rc;
	/* self instructions go to the activation that executes them */
	a->functions.v[t->stack.v[t->stack.n - 1].function].insns++;
	e->count++;
	t->pub.insns++;
	a->totals.insns++;
	t->prev = (int32_t)ei;
	t->last_index = a->totals.insns - 1;
	if (a->opts.on_insn) {
		struct itrace_analysis_insn_event ev = {
			.thread_id = t->pub.id,
			.addr = e->addr,
			.function_id = e->function + 1,
			.offset = function_offset(a, e),
			.call_path_id = t->stack.n ? t->stack.v[t->stack.n - 1].call_path + 1 : 0,
			.time_ns = a->time_ns,
			.len = e->len,
			.insn_index = t->last_index,
			.dso_id = a->functions.v[e->function].dso_id,
		};
		return a->opts.on_insn(a->opts.cb_ctx, &ev);
	}
	return 0;
}

/* ---- other records ------------------------------------------------------ */

/* feed_image - an MMAP, CODE or PROCESS record into the image, which
 * keeps the mappings and code of every process; one it refuses (an empty
 * range) only leaves its addresses unmapped. */
static int feed_image(struct itrace_analysis *a, const struct itrace_record *rec)
{
	int rc = itrace_image_apply(a->image, rec);

	return rc < 0 && rc != -ITRACE_E_INVAL ? rc : 0;
}

/* release_image - the image is no longer needed (finish, free). */
static void release_image(struct itrace_analysis *a)
{
	if (a->own_image)
		itrace_image_free(a->image);
	a->image = NULL;
	a->own_image = false;
}

/* The mapping itself is the image's (feed_image); the analysis names its
 * module, in the order the MMAP records name them. */
static int on_mmap(struct itrace_analysis *a, const struct itrace_record *rec)
{
	const struct itrace_mmap *mm = &rec->u.mmap;
	int64_t sp = space_of(a, mm->pid ? mm->pid : rec->pid);
	int64_t dso;

	if (sp < 0)
		return (int)sp;
	if (!mm->len || mm->start + mm->len < mm->start)
		return 0; /* no range: nothing is mapped */
	dso = dso_get(a, mm->path ? mm->path : "", mm->path ? mm->path_len : 0, mm->buildid,
		      mm->buildid_len);
	return dso < 0 ? (int)dso : 0;
}

/* The bytes are the image's (feed_image); later CODE records replace
 * earlier ones there. */
static int on_code(struct itrace_analysis *a, const struct itrace_record *rec)
{
	int64_t sp = space_of(a, rec->pid);

	return sp < 0 ? (int)sp : 0;
}

/* Threads of `pid` now run in space `sp` (exec); their stacks end. */
static int move_threads(struct itrace_analysis *a, uint32_t pid, int64_t sp)
{
	size_t i;
	int rc;

	for (i = 0; i < a->threads.n; i++) {
		struct thread *t = &a->threads.v[i];

		if (t->pub.pid != pid)
			continue;
		if ((rc = flush_thread(a, t)) < 0)
			return rc;
		t->space = (uint16_t)sp;
	}
	return 0;
}

static int on_process(struct itrace_analysis *a, const struct itrace_record *rec)
{
	const struct itrace_process *p = &rec->u.process;
	int64_t sp, child;
	struct space *s;

	switch (p->event) {
	case ITRACE_PROCESS_START:
	case ITRACE_PROCESS_EXEC:
		sp = p->event == ITRACE_PROCESS_EXEC || map2_get(&a->pid_space, p->pid, 0) < 0
			     ? space_new(a, p->pid)
			     : space_of(a, p->pid);
		if (sp < 0)
			return (int)sp;
		s = &a->spaces.v[sp];
		if (p->name) {
			free(s->name);
			if (!(s->name = dup_mem(p->name, p->name_len)))
				return -ITRACE_E_NOMEM;
		}
		return p->event == ITRACE_PROCESS_EXEC ? move_threads(a, p->pid, sp) : 0;
	case ITRACE_PROCESS_FORK:
		sp = space_of(a, p->pid);
		if (sp < 0)
			return (int)sp;
		child = space_new(a, (uint32_t)p->other);
		if (child < 0)
			return (int)child;
		/* copy after creation: space_new may move the vector; the
		 * image copies the mappings and code */
		{
			struct space *src = &a->spaces.v[sp], *dst = &a->spaces.v[child];

			if (src->name && !(dst->name = strdup(src->name)))
				return -ITRACE_E_NOMEM;
		}
		return 0;
	case ITRACE_PROCESS_EXIT:
		return move_threads(a, p->pid, space_of(a, p->pid));
	default:
		return 0;
	}
}

static int on_thread(struct itrace_analysis *a, const struct itrace_record *rec)
{
	const struct itrace_thread *th = &rec->u.thread;
	int64_t ti;
	struct thread *t;

	if (th->event != ITRACE_THREAD_EXIT && th->event != ITRACE_THREAD_NAME)
		return 0;
	ti = thread_get(a, th->tid, th->pid ? th->pid : rec->pid);
	if (ti < 0)
		return (int)ti;
	t = &a->threads.v[ti];
	if (th->event == ITRACE_THREAD_EXIT)
		return flush_thread(a, t);
	free(t->name);
	t->name = th->name ? dup_mem(th->name, th->name_len) : NULL;
	return th->name && !t->name ? -ITRACE_E_NOMEM : 0;
}

/* A signal about to be delivered: the next instruction at `handler` is
 * its first. */
static int expect_signal(struct itrace_analysis *a, const struct itrace_record *rec,
			 uint64_t pc, uint64_t handler)
{
	int64_t ti;

	if (!handler)
		return 0;
	ti = thread_get(a, rec->tid ? rec->tid : rec->pid, rec->pid);
	if (ti < 0)
		return (int)ti;
	a->threads.v[ti].pending_signal = true;
	a->threads.v[ti].sig_pc = pc;
	a->threads.v[ti].sig_handler = handler;
	return 0;
}

/* After a gap the next instruction's predecessor is unknown. */
static int on_gap(struct itrace_analysis *a, const struct itrace_record *rec)
{
	size_t i;

	if (rec->type == ITRACE_REC_GAP) {
		a->totals.gaps++;
		a->totals.gaps_lost += rec->u.gap.reason != ITRACE_GAP_TRACE_OFF;
	} else
		a->totals.lost += rec->u.lost.count;
	for (i = 0; i < a->threads.n; i++)
		if (a->threads.v[i].pub.pid == rec->pid || !rec->pid)
			a->threads.v[i].prev = -1;
	return 0;
}

int itrace_analysis_add(struct itrace_analysis *a, const struct itrace_record *rec)
{
	int rc;

	if (!a || !rec)
		return -ITRACE_E_INVAL;
	if (a->finished)
		return -ITRACE_E_STATE;
	a->time_ns = rec->time_ns;
	switch (rec->type) {
	case ITRACE_REC_INSN: return on_insn(a, rec);
	case ITRACE_REC_MMAP: return (rc = feed_image(a, rec)) < 0 ? rc : on_mmap(a, rec);
	case ITRACE_REC_CODE: return (rc = feed_image(a, rec)) < 0 ? rc : on_code(a, rec);
	case ITRACE_REC_PROCESS: return (rc = feed_image(a, rec)) < 0 ? rc : on_process(a, rec);
	case ITRACE_REC_THREAD: return on_thread(a, rec);
	case ITRACE_REC_SIGNAL:
		return expect_signal(a, rec, rec->u.signal.pc, rec->u.signal.handler);
	case ITRACE_REC_BRANCH:
		if (rec->u.branch.kind == ITRACE_BRANCH_INTERRUPT)
			return expect_signal(a, rec, rec->u.branch.from, rec->u.branch.to);
		return 0;
	case ITRACE_REC_GAP:
	case ITRACE_REC_LOST: return on_gap(a, rec);
	default: return 0;
	}
}

/* ---- finishing: aggregate tables ---------------------------------------- */

static const struct itrace_analysis *cmp_ctx;

static int cmp_insn_addr(const void *x, const void *y)
{
	const struct insn *p = &cmp_ctx->insns.v[*(const uint32_t *)x];
	const struct insn *q = &cmp_ctx->insns.v[*(const uint32_t *)y];

	if (p->space != q->space)
		return p->space < q->space ? -1 : 1;
	return p->addr < q->addr ? -1 : p->addr > q->addr;
}

static int cmp_line(const void *x, const void *y)
{
	const struct itrace_analysis_line *p = x, *q = y;
	int c = strcmp(p->file, q->file);

	return c ? c : (p->line > q->line) - (p->line < q->line);
}

static bool starts_block(const struct insn *prev, const struct insn *e)
{
	return !prev || (e->flags & IF_LEADER) || prev->space != e->space ||
	       prev->addr + prev->len != e->addr || prev->cls != IC_NONE ||
	       prev->function != e->function ||
	       (prev->count != e->count && !(prev->flags & IF_REP));
}

/* file_offset_of - where instruction e lies in the file mapped there at
 * the end of the trace (0: none), as symbolize() passes it on. */
static uint64_t file_offset_of(const struct itrace_analysis *a, const struct insn *e)
{
	struct image_mapping_view m;

	if (find_mapping(a, &a->spaces.v[e->space], e->addr, &m) < 0)
		return 0;
	return m.pgoff + (e->addr - m.start);
}

static int build_blocks_and_branches(struct itrace_analysis *a, const uint32_t *order)
{
	struct itrace_analysis_block *b = NULL;
	const struct insn *prev = NULL;
	size_t i;

	for (i = 0; i < a->insns.n; i++) {
		const struct insn *e = &a->insns.v[order[i]];
		struct itrace_analysis_function *f = &a->functions.v[e->function];

		if (!f->file && e->file) { /* lowest executed address names it */
			f->file = a->files.v[e->file - 1];
			f->line = e->line;
		}
		if (starts_block(prev, e)) {
			if (VEC_PUSH_SLOT(a->blocks, &b) < 0)
				return -ITRACE_E_NOMEM;
			b->id = a->blocks.n;
			b->function_id = e->function + 1;
			b->start = e->addr;
		}
		b->executions = e->count; /* its last instruction: rep ops repeat inside */
		b->end = e->addr + e->len;
		b->insn_count++;
		if (e->cls != IC_NONE) {
			struct itrace_analysis_branch_stat *s;

			if (VEC_PUSH_SLOT(a->branch_stats, &s) < 0)
				return -ITRACE_E_NOMEM;
			s->id = a->branch_stats.n;
			s->function_id = e->function + 1;
			s->from = e->addr;
			s->to = e->last_target;
			s->fallthrough = e->addr + e->len;
			s->kind = class_kind(e->cls);
			s->executions = e->judged;
			s->taken = e->taken;
			s->file = e->file ? a->files.v[e->file - 1] : NULL;
			s->line = e->line;
			s->dso_offset = file_offset_of(a, e);
		}
		prev = e;
	}
	return 0;
}

static int build_lines(struct itrace_analysis *a, const uint32_t *order)
{
	struct map2 at = {0};
	size_t i;
	int rc = 0;

	for (i = 0; i < a->insns.n && rc == 0; i++) {
		const struct insn *e = &a->insns.v[order[i]];
		struct itrace_analysis_line *l;
		int64_t li;

		if (!e->file)
			continue;
		li = map2_get(&at, e->file, e->line);
		if (li < 0) {
			if (VEC_PUSH_SLOT(a->lines, &l) < 0 ||
			    map2_put(&at, e->file, e->line, (uint32_t)(a->lines.n - 1)) < 0) {
				rc = -ITRACE_E_NOMEM;
				break;
			}
			l->file = a->files.v[e->file - 1];
			l->line = e->line;
			l->function_id = e->function + 1;
		} else {
			l = &a->lines.v[li];
		}
		l->insns += e->count;
		if (e->count > l->executions)
			l->executions = e->count;
	}
	map2_free(&at);
	if (rc < 0)
		return rc;
	if (a->lines.n) /* qsort(NULL, 0) is undefined */
		qsort(a->lines.v, a->lines.n, sizeof(*a->lines.v), cmp_line);
	for (i = 0; i < a->lines.n; i++)
		a->lines.v[i].id = i + 1;
	return 0;
}

int itrace_analysis_finish(struct itrace_analysis *a)
{
	uint32_t *order;
	size_t i;
	int rc;

	if (!a)
		return -ITRACE_E_INVAL;
	if (a->finished)
		return -ITRACE_E_STATE;
	a->finished = true;
	for (i = 0; i < a->threads.n; i++) {
		struct thread *t = &a->threads.v[i];

		if ((rc = flush_thread(a, t)) < 0)
			return rc;
		t->pub.comm = t->name ? t->name : a->spaces.v[t->space].name ? base_name(a->spaces.v[t->space].name) : "";
	}
	order = malloc((a->insns.n ? a->insns.n : 1) * sizeof(*order));
	if (!order)
		return -ITRACE_E_NOMEM;
	for (i = 0; i < a->insns.n; i++)
		order[i] = (uint32_t)i;
	cmp_ctx = a; /* qsort has no context argument; finish is not reentrant */
	qsort(order, a->insns.n, sizeof(*order), cmp_insn_addr);
	rc = build_blocks_and_branches(a, order);
	if (rc == 0)
		rc = build_lines(a, order);
	free(order);
	release_image(a); /* after the branch table, whose file offsets need the mappings */
	return rc;
}

/* ---- lifetime and accessors --------------------------------------------- */

void itrace_analysis_options_init(struct itrace_analysis_options *opts)
{
	memset(opts, 0, sizeof(*opts));
	opts->size = sizeof(*opts);
	opts->machine = EM_X86_64_;
	opts->endian = 1;
}

int analysis_alloc_on(const struct itrace_analysis_options *opts, struct itrace_image *img,
		      struct itrace_analysis **ap)
{
	struct itrace_image_options io;
	struct itrace_analysis *a;
	struct itrace_analysis_dso *unknown;
	int rc;

	if (!ap)
		return -ITRACE_E_INVAL;
	*ap = NULL;
	if (!opts || opts->size < sizeof(*opts))
		return -ITRACE_E_INVAL;
	a = calloc(1, sizeof(*a));
	if (!a)
		return -ITRACE_E_NOMEM;
	a->opts = *opts;
	a->last_thread = -1;
	rc = itrace_decoder_alloc(opts->machine, opts->endian, &a->dec);
	if (rc < 0) {
		free(a);
		return rc == -ITRACE_E_INTERNAL ? -ITRACE_E_DECODE : rc;
	}
	a->image = img;
	if (!img) {
		itrace_image_options_init(&io);
		if ((rc = itrace_image_alloc(&io, &a->image)) < 0) {
			itrace_analysis_free(a);
			return rc;
		}
		a->own_image = true;
	}
	/* add_unexecuted() reads the code of spaces that ended (exec) */
	image_keep_spaces(a->image);
	/* module 1 is "[unknown]": code outside every mapping */
	if (VEC_PUSH_SLOT(a->dsos, &unknown) < 0 ||
	    !(unknown->path = strdup("[unknown]"))) {
		itrace_analysis_free(a);
		return -ITRACE_E_NOMEM;
	}
	unknown->id = 1;
	unknown->short_name = unknown->path;
	*ap = a;
	return 0;
}

int itrace_analysis_alloc(const struct itrace_analysis_options *opts, struct itrace_analysis **ap)
{
	return analysis_alloc_on(opts, NULL, ap);
}

void itrace_analysis_free(struct itrace_analysis *a)
{
	size_t i;

	if (!a)
		return;
	itrace_decoder_free(a->dec);
	free(a->insns.v);
	map2_free(&a->insn_map);
	release_image(a);
	for (i = 0; i < a->spaces.n; i++)
		free(a->spaces.v[i].name);
	free(a->spaces.v);
	map2_free(&a->pid_space);
	for (i = 0; i < a->dsos.n; i++)
		free((char *)a->dsos.v[i].path);
	free(a->dsos.v);
	map2_free(&a->name_dso);
	for (i = 0; i < a->functions.n; i++)
		free((char *)a->functions.v[i].name);
	free(a->functions.v);
	free(a->function_space.v);
	map2_free(&a->function_map);
	free(a->paths.v);
	map2_free(&a->path_map);
	free(a->edges.v);
	map2_free(&a->edge_map);
	for (i = 0; i < a->threads.n; i++) {
		free(a->threads.v[i].name);
		free(a->threads.v[i].stack.v);
		map2_free(&a->threads.v[i].active);
	}
	free(a->threads.v);
	map2_free(&a->thread_map);
	for (i = 0; i < a->files.n; i++)
		free(a->files.v[i]);
	free(a->files.v);
	map2_free(&a->file_map);
	free(a->blocks.v);
	free(a->branch_stats.v);
	free(a->lines.v);
	free(a);
}

void itrace_analysis_totals(const struct itrace_analysis *a, struct itrace_analysis_totals *t)
{
	*t = a->totals;
}

#define TABLE(name, type, vec, expr)                                                   \
	size_t itrace_analysis_##name##_count(const struct itrace_analysis *a)         \
	{                                                                              \
		return a->finished ? a->vec.n : 0;                                     \
	}                                                                              \
	const type *itrace_analysis_##name##_at(const struct itrace_analysis *a, size_t i) \
	{                                                                              \
		return a->finished && i < a->vec.n ? &a->vec.v[i] expr : NULL;         \
	}

TABLE(thread, struct itrace_analysis_thread, threads, .pub)
TABLE(dso, struct itrace_analysis_dso, dsos, )
TABLE(function, struct itrace_analysis_function, functions, )
TABLE(call_path, struct itrace_analysis_call_path, paths, )
TABLE(block, struct itrace_analysis_block, blocks, )
TABLE(branch_stat, struct itrace_analysis_branch_stat, branch_stats, )
TABLE(edge, struct itrace_analysis_edge, edges, )
TABLE(line, struct itrace_analysis_line, lines, )


/* ---- for the driver (analysis_run.c) -------------------------------------- */

/* One function of a module being listed (ITRACE_RUN_ALL_FUNCTIONS). */
struct list_ctx {
	struct itrace_analysis *a;
	uint32_t dso;
	uint16_t space;
};

static int list_function(void *arg, uint64_t start, uint64_t size, const char *name)
{
	struct list_ctx *l = arg;
	struct itrace_analysis *a = l->a;
	struct itrace_analysis_sym sym = {.start = start, .size = size, .name = name};
	int64_t f = function_get(a, l->dso, &sym);
	uint16_t *slot;

	if (f < 0)
		return (int)f;
	if ((size_t)f < a->function_space.n)
		return 0; /* seen already */
	if (VEC_PUSH_SLOT(a->function_space, &slot) < 0)
		return -ITRACE_E_NOMEM;
	*slot = l->space;
	return 0;
}

/*
 * analysis_add_module_functions - create every function with debug info
 * of each module that ran code, so that add_unexecuted() lists those never
 * called.  A module is found through one of its executed functions.
 */
int analysis_add_module_functions(struct itrace_analysis *a, struct itrace_symbolizer *sym)
{
	size_t ndso = a->dsos.n, nfunc = a->functions.n, i, d;
	int rc;

	for (d = 1; d < ndso; d++) { /* dso 0 is "[unknown]" */
		for (i = 0; i < nfunc; i++)
			if (a->functions.v[i].dso_id == d + 1 && !is_unknown(a, (uint32_t)i))
				break;
		if (i == nfunc)
			continue;
		{
			struct list_ctx l = {a, (uint32_t)d, a->function_space.v[i]};

			rc = itrace_symbolizer_functions(sym, a->spaces.v[l.space].pid,
							 a->functions.v[i].start, list_function, &l);
			if (rc < 0 && rc != -ITRACE_E_NOENT)
				return rc;
		}
	}
	return 0;
}

/*
 * analysis_add_unexecuted - give every executed function's instructions
 * that never ran an entry with count 0 (decoded linearly from the
 * function's start), so that blocks, branches and source lines show what
 * was not covered.
 */
int analysis_add_unexecuted(struct itrace_analysis *a, const struct itrace_analysis_function **sweep)
{
	size_t i, nfunc = a->functions.n;

	for (i = 0; i < nfunc; i++) {
		struct itrace_analysis_function f = a->functions.v[i];
		uint64_t addr = f.start, end = f.start + f.size;
		uint16_t sp = a->function_space.v[i];

		if (!f.size || f.size > (1u << 20))
			continue; /* "[unknown]" or implausible */
		*sweep = &f;
		while (addr < end) {
			struct itrace_insn probe = {.addr = addr};
			uint64_t failures = a->totals.decode_failures;
			uint64_t first = a->totals.first_decode_failure;
			int64_t at = insn_get(a, sp, a->spaces.v[sp].pid, &probe);

			/* only executed instructions count as failures */
			a->totals.decode_failures = failures;
			a->totals.first_decode_failure = first;
			if (at < 0) {
				*sweep = NULL;
				return (int)at;
			}
			if (!a->insns.v[at].len)
				break; /* undecodable: stop the sweep */
			addr += a->insns.v[at].len;
		}
		*sweep = NULL;
	}
	return 0;
}

void analysis_set_run_error(struct itrace_analysis *a, const char *msg)
{
	snprintf(a->run_error, sizeof(a->run_error), "%s", msg);
}

const char *itrace_analysis_run_error(const struct itrace_analysis *a)
{
	return a ? a->run_error : "";
}
