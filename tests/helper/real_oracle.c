/*
 * real_oracle.c - real-oracle, the real-program suite's bridge between traces
 * and valgrind's callgrind (tests/real/).
 *
 *   real-oracle insns TRACE         "ADDR COUNT": executions of every
 *                                   instruction address of the trace
 *   real-oracle insns --callgrind TRACE
 *                                   the same as callgrind counts: without
 *                                   each thread's last block and blocks
 *                                   faults cut short (below)
 *   real-oracle final-blocks TRACE  "ADDR COUNT" of what callgrind does not
 *                                   count: those last blocks, and blocks
 *                                   cut short by a fault
 *   real-oracle cg-insns CG TRACE   the same from callgrind's Ir
 *                                   (--dump-instr=yes), at the addresses
 *                                   the trace's MMAP records give the code
 *   real-oracle cg-functions CG TRACE
 *                                   "ADDR[,ADDR...] IR CALLS NAME" per
 *                                   function of callgrind: the run-time
 *                                   addresses its calls reached (else the
 *                                   lowest it executed), its self cost, the
 *                                   sum of its calls= lines.  Callgrind
 *                                   tells functions apart by object, file
 *                                   and name, so two static functions of
 *                                   one name in one file are one for it.
 *   real-oracle same-insns A B      every thread of A and B executed the
 *                                   same instruction sequence (threads in
 *                                   the order they first ran), B has no
 *                                   GAP or LOST record; prints the count
 *
 * ADDR is hexadecimal without 0x, sorted, so that two listings compare
 * with cmp/diff.  `--module PATH` before the command keeps only code in
 * the mappings of file PATH (as the trace names it): the part of a run
 * that does not depend on a scheduler, say.
 *
 * Callgrind writes positions relative to each object's
 * text bias (its ELF virtual addresses) and code outside every object
 * (PLT stubs without debug information) under "???" at run-time
 * addresses (Callgrind Format Specification; callgrind's dump.c).  The
 * trace's MMAP records give each object's bias through libitrace's image.
 * Callgrind's recursion suffix ('N) is not part of a name.
 *
 * Callgrind adds a block's instructions to its counts when the next
 * block starts (callgrind's setup_bbcc()), so the block that ends a
 * thread (up to its exit system call, or the call it blocks in when
 * another thread ends the process) is never counted.  Its blocks are
 * Valgrind's: they end after every branch, taken or not, and after every
 * system call; the instructions after a thread's last one are its last
 * block.  Nor is a block that a fault (SIGSEGV, SIGBUS, SIGFPE, SIGILL,
 * SIGTRAP from the instruction itself) cuts short.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "itrace.h"
#include "itrace_code.h"

static const char *prog = "real-oracle";

static void die(const char *fmt, const char *arg)
{
	fprintf(stderr, "%s: ", prog);
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
	exit(1);
}

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		die("%s", "out of memory");
	return p;
}

/* --module: only addresses inside the mappings of this file count. */
static const char *only_module;
static struct {
	uint64_t start, end;
} *module_range;
static size_t nmodule_range;

static void note_module(const struct itrace_record *rec)
{
	const struct itrace_mmap *m = &rec->u.mmap;

	if (!only_module || !m->path || strlen(only_module) != m->path_len ||
	    memcmp(only_module, m->path, m->path_len) != 0)
		return;
	module_range = xrealloc(module_range, (nmodule_range + 1) * sizeof(*module_range));
	module_range[nmodule_range].start = m->start;
	module_range[nmodule_range++].end = m->start + m->len;
}

/* in_module - addr counts (always, without --module). */
static int in_module(uint64_t addr)
{
	if (!only_module)
		return 1;
	for (size_t i = 0; i < nmodule_range; i++)
		if (addr >= module_range[i].start && addr < module_range[i].end)
			return 1;
	return 0;
}

/* ---- a map from (u64, u64) to a slot index ------------------------------ */

struct map {
	uint64_t *k1, *k2;
	size_t *val; /* index + 1, 0 empty */
	size_t cap, n;
};

static size_t *map_slot(const struct map *m, uint64_t a, uint64_t b)
{
	uint64_t h = (a * 0x9E3779B97F4A7C15ull) ^ (b + 0x632BE59BD9B4E019ull) * 0xC2B2AE3D27D4EB4Full;
	size_t mask = m->cap - 1, i = (size_t)(h ^ (h >> 29)) & mask;

	while (m->val[i] && (m->k1[i] != a || m->k2[i] != b))
		i = (i + 1) & mask;
	return &m->val[i];
}

static void map_grow(struct map *m)
{
	struct map nm = {.cap = m->cap ? 2 * m->cap : 1024};

	nm.k1 = xrealloc(NULL, nm.cap * sizeof(*nm.k1));
	nm.k2 = xrealloc(NULL, nm.cap * sizeof(*nm.k2));
	nm.val = calloc(nm.cap, sizeof(*nm.val));
	if (!nm.val)
		die("%s", "out of memory");
	for (size_t i = 0; i < m->cap; i++) {
		if (m->val[i]) {
			size_t *s = map_slot(&nm, m->k1[i], m->k2[i]);

			*s = m->val[i];
			nm.k1[s - nm.val] = m->k1[i];
			nm.k2[s - nm.val] = m->k2[i];
		}
	}
	nm.n = m->n;
	free(m->k1);
	free(m->k2);
	free(m->val);
	*m = nm;
}

/* map_index - index of (a, b), added as `next` when absent. */
static size_t map_index(struct map *m, uint64_t a, uint64_t b, size_t next)
{
	size_t *s;

	if ((m->n + 1) * 2 > m->cap)
		map_grow(m);
	s = map_slot(m, a, b);
	if (!*s) {
		*s = next + 1;
		m->k1[s - m->val] = a;
		m->k2[s - m->val] = b;
		m->n++;
	}
	return *s - 1;
}

/* ---- counts per address -------------------------------------------------- */

struct count {
	uint64_t addr, n;
};

struct counts {
	struct map map;
	struct count *v;
	size_t n, cap;
};

static void count_add(struct counts *c, uint64_t addr, uint64_t n)
{
	size_t i = map_index(&c->map, addr, 0, c->n);

	if (i == c->n) {
		if (c->n == c->cap) {
			c->cap = c->cap ? 2 * c->cap : 1024;
			c->v = xrealloc(c->v, c->cap * sizeof(*c->v));
		}
		c->v[c->n++] = (struct count){addr, 0};
	}
	c->v[i].n += n;
}

static void counts_free(struct counts *c)
{
	free(c->map.k1);
	free(c->map.k2);
	free(c->map.val);
	free(c->v);
}

static int cmp_count(const void *x, const void *y)
{
	const struct count *a = x, *b = y;

	return (a->addr > b->addr) - (a->addr < b->addr);
}

/* print_counts - "ADDR COUNT" sorted by address, zero counts left out. */
static void print_counts(struct counts *c)
{
	qsort(c->v, c->n, sizeof(*c->v), cmp_count);
	for (size_t i = 0; i < c->n; i++)
		if (c->v[i].n)
			printf("%" PRIx64 " %" PRIu64 "\n", c->v[i].addr, c->v[i].n);
}

/* ---- the trace: instruction counts and where each object was loaded ---- */

struct object {
	char *path;
	uint64_t bias; /* run-time address - ELF virtual address */
};

/* A thread's instructions since its current block started. */
struct thread_block {
	uint32_t tid;
	struct counts cut; /* instructions of blocks faults cut short */
	uint64_t next;	   /* where its flow goes without a jump */
	int ends_block;	   /* its last instruction was a branch/system call */
	uint64_t *addr;
	size_t n, cap;
};

struct trace {
	struct counts insns;
	struct object *obj;
	size_t nobj;
	/* with_blocks: */
	struct itrace_decoder *dec;
	struct map ends;   /* addr -> 1 + (instruction ends a block) */
	struct thread_block *thr;
	size_t nthr;
};

static void note_object(struct trace *t, struct itrace_image *img, const struct itrace_record *rec)
{
	struct itrace_image_loc loc;
	const struct itrace_mmap *m = &rec->u.mmap;

	if (!m->path || !m->path_len || m->path[0] != '/')
		return;
	for (size_t i = 0; i < t->nobj; i++)
		if (strlen(t->obj[i].path) == m->path_len &&
		    memcmp(t->obj[i].path, m->path, m->path_len) == 0)
			return;
	/* the bias comes from the ELF program headers: one lookup in the
	 * mapping; files that cannot be read give no bias (and no match) */
	if (itrace_image_lookup(img, m->pid ? m->pid : rec->pid, m->start, &loc) < 0 || !loc.file)
		return;
	t->obj = xrealloc(t->obj, (t->nobj + 1) * sizeof(*t->obj));
	t->obj[t->nobj].path = strndup(m->path, m->path_len);
	t->obj[t->nobj++].bias = loc.bias;
}

/* ends_block - the instruction at addr is a branch or system call. */
static int ends_block(struct trace *t, struct itrace_image *img, uint32_t pid,
		      const struct itrace_insn *in)
{
	size_t *slot;
	struct itrace_image_loc loc;
	struct itrace_decoded d;
	const uint8_t *code = in->has_bytes ? in->bytes : NULL;
	size_t avail = in->has_bytes ? in->len : 0;

	if ((t->ends.n + 1) * 2 > t->ends.cap)
		map_grow(&t->ends);
	slot = map_slot(&t->ends, in->addr, 0);
	if (*slot)
		return (int)*slot - 1;
	if (!code && itrace_image_lookup(img, pid, in->addr, &loc) == 0 && loc.bytes) {
		code = loc.bytes;
		avail = loc.avail;
	}
	if (!code || itrace_decoder_decode(t->dec, code, avail, in->addr, &d) < 0) {
		char at[32];

		snprintf(at, sizeof(at), "%#" PRIx64, in->addr);
		die("cannot decode the instruction at %s", at);
	}
	*slot = 1 + (d.kind != ITRACE_INSN_NOT_BRANCH);
	t->ends.k1[slot - t->ends.val] = in->addr;
	t->ends.k2[slot - t->ends.val] = 0;
	t->ends.n++;
	return (int)*slot - 1;
}

static struct thread_block *thread_block(struct trace *t, uint32_t tid)
{
	for (size_t i = 0; i < t->nthr; i++)
		if (t->thr[i].tid == tid)
			return &t->thr[i];
	t->thr = xrealloc(t->thr, (t->nthr + 1) * sizeof(*t->thr));
	memset(&t->thr[t->nthr], 0, sizeof(*t->thr));
	t->thr[t->nthr].tid = tid;
	t->thr[t->nthr].ends_block = 1;
	return &t->thr[t->nthr++];
}

/* note_block - follow tid's blocks through one more instruction. */
static void note_block(struct trace *t, struct itrace_image *img, const struct itrace_record *rec)
{
	struct thread_block *b = thread_block(t, rec->tid);
	const struct itrace_insn *in = &rec->u.insn;

	if (b->ends_block || in->addr != b->next)
		b->n = 0;
	if (b->n == b->cap) {
		b->cap = b->cap ? 2 * b->cap : 64;
		b->addr = xrealloc(b->addr, b->cap * sizeof(*b->addr));
	}
	b->addr[b->n++] = in->addr;
	b->next = in->addr + in->len;
	b->ends_block = ends_block(t, img, rec->pid, in);
}

/* note_fault - a synchronous signal (si_code > 0, from the instruction
 * that faulted) cuts tid's block short: callgrind never counts it. */
static void note_fault(struct trace *t, const struct itrace_record *rec)
{
	struct thread_block *b = thread_block(t, rec->tid);

	if (rec->u.signal.code <= 0)
		return; /* sent by someone: arrives between blocks */
	for (size_t i = 0; i < b->n; i++)
		count_add(&b->cut, b->addr[i], 1);
	b->n = 0;
	b->ends_block = 1;
}

static void load_trace(const char *path, struct trace *t, int with_objects, int with_blocks)
{
	struct itrace_image_options io;
	struct itrace_image *img = NULL;
	struct itrace_reader *r;
	struct itrace_record rec;
	int rc = itrace_reader_open(path, &r);

	if (rc < 0)
		die("cannot open '%s'", path);
	itrace_image_options_init(&io);
	if ((with_objects || with_blocks) && itrace_image_alloc(&io, &img) < 0)
		die("%s", "cannot allocate an image");
	if (with_blocks && itrace_decoder_alloc(itrace_reader_header(r)->machine,
						itrace_reader_header(r)->target_endian, &t->dec) < 0)
		die("%s", "cannot open a decoder for the trace's machine");
	while ((rc = itrace_reader_next(r, &rec, sizeof(rec))) == 0) {
		if (rec.type == ITRACE_REC_MMAP)
			note_module(&rec);
		if (rec.type == ITRACE_REC_INSN) {
			if (in_module(rec.u.insn.addr))
				count_add(&t->insns, rec.u.insn.addr, 1);
			if (with_blocks)
				note_block(t, img, &rec);
		} else if (with_blocks && rec.type == ITRACE_REC_SIGNAL) {
			note_fault(t, &rec);
		} else if (img) {
			itrace_image_apply(img, &rec);
			if (with_objects && rec.type == ITRACE_REC_MMAP)
				note_object(t, img, &rec);
		}
	}
	itrace_decoder_free(t->dec);
	if (rc != ITRACE_EOF)
		die("'%s' is damaged", path);
	itrace_image_free(img);
	itrace_reader_close(r);
}

static void trace_free(struct trace *t)
{
	counts_free(&t->insns);
	for (size_t i = 0; i < t->nobj; i++)
		free(t->obj[i].path);
	free(t->obj);
	free(t->ends.k1);
	free(t->ends.k2);
	free(t->ends.val);
	for (size_t i = 0; i < t->nthr; i++) {
		free(t->thr[i].addr);
		counts_free(&t->thr[i].cut);
	}
	free(t->thr);
}

/* bias of the object callgrind names `path`; "???" is code outside every
 * object, positioned at its run-time address. */
static int object_bias(const struct trace *t, const char *path, uint64_t *bias)
{
	if (strcmp(path, "???") == 0) {
		*bias = 0;
		return 0;
	}
	for (size_t i = 0; i < t->nobj; i++) {
		if (strcmp(t->obj[i].path, path) == 0) {
			*bias = t->obj[i].bias;
			return 0;
		}
	}
	return -1;
}

/* ---- callgrind.out ------------------------------------------------------- */

/* Compressed names: "(id) name" defines id, "(id)" refers to it. */
struct names {
	char **v;
	size_t n;
};

static const char *name_of(struct names *t, const char *s)
{
	char *end;
	unsigned long id;

	if (s[0] != '(')
		return s;
	id = strtoul(s + 1, &end, 10);
	if (*end != ')')
		return s;
	if (id >= t->n) {
		t->v = xrealloc(t->v, (id + 1) * sizeof(*t->v));
		memset(t->v + t->n, 0, (id + 1 - t->n) * sizeof(*t->v));
		t->n = id + 1;
	}
	if (end[1] == ' ') {
		free(t->v[id]);
		t->v[id] = strdup(end + 2);
	}
	if (!t->v[id])
		die("undefined name '%s'", s);
	return t->v[id];
}

struct cg_function {
	char *obj, *file, *name;
	uint64_t ir, calls;
	uint64_t *entry; /* run-time addresses calls reached, else the lowest
			  * it executed (callgrind charges a function with
			  * code it jumps to, outside its symbol) */
	size_t nentry;
	int called;
};

struct callgrind {
	struct counts insns; /* run-time address -> Ir */
	struct cg_function *fn;
	size_t nfn;
	struct map fn_map; /* (hash(obj), hash(name)) -> fn */
	uint64_t total;
	size_t unplaced;     /* cost lines in objects the trace does not map */
};

static void names_free(struct names *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->v[i]);
	free(t->v);
}

static void callgrind_free(struct callgrind *cg)
{
	counts_free(&cg->insns);
	for (size_t i = 0; i < cg->nfn; i++) {
		free(cg->fn[i].obj);
		free(cg->fn[i].file);
		free(cg->fn[i].name);
		free(cg->fn[i].entry);
	}
	free(cg->fn);
	free(cg->fn_map.k1);
	free(cg->fn_map.k2);
	free(cg->fn_map.val);
}

static uint64_t str_hash(const char *s, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 0x100000001b3ull;
	return h;
}

/* the function (obj, file, name), name without callgrind's 'N recursion
 * suffix: callgrind tells functions apart by object, file and name */
static struct cg_function *cg_function(struct callgrind *cg, const char *obj, const char *file,
				       const char *name)
{
	size_t len = strlen(name), i;
	const char *q = strrchr(name, '\'');
	uint64_t salt;

	if (q && q[1] && strspn(q + 1, "0123456789") == strlen(q + 1))
		len = (size_t)(q - name);
	for (salt = 0;; salt++) { /* a hash collision: the next key */
		i = map_index(&cg->fn_map, str_hash(obj, strlen(obj)) ^ str_hash(file, strlen(file)),
			      str_hash(name, len) + salt, cg->nfn);
		if (i == cg->nfn) {
			cg->fn = xrealloc(cg->fn, (cg->nfn + 1) * sizeof(*cg->fn));
			memset(&cg->fn[i], 0, sizeof(cg->fn[i]));
			cg->fn[i].obj = strdup(obj);
			cg->fn[i].file = strdup(file);
			cg->fn[i].name = strndup(name, len);
			cg->nfn++;
		}
		if (strcmp(cg->fn[i].obj, obj) == 0 && strcmp(cg->fn[i].file, file) == 0 &&
		    strlen(cg->fn[i].name) == len &&
		    strncmp(cg->fn[i].name, name, len) == 0)
			return &cg->fn[i];
	}
}

/* add_entry - note where a call of cf arrived (called) or where it ran. */
static void add_entry(struct cg_function *cf, uint64_t at, int called)
{
	if (called && !cf->called) /* call targets replace executed code */
		cf->nentry = 0;
	else if (!called && (cf->called || (cf->nentry && at >= cf->entry[0])))
		return;
	cf->called |= called;
	for (size_t i = 0; i < cf->nentry; i++)
		if (cf->entry[i] == at)
			return;
	if (!called)
		cf->nentry = 0; /* only the lowest executed address */
	cf->entry = xrealloc(cf->entry, (cf->nentry + 1) * sizeof(*cf->entry));
	cf->entry[cf->nentry++] = at;
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return (a > b) - (a < b);
}

/* replace - *p := a copy of s (NULL: none). */
static void replace(char **p, const char *s)
{
	char *c = s ? strdup(s) : NULL;

	if (s && !c)
		die("%s", "out of memory");
	free(*p);
	*p = c;
}

/* A position: absolute (0x.. or decimal), +N / -N relative, * the same. */
static uint64_t position(const char *tok, uint64_t cur)
{
	if (tok[0] == '*')
		return cur;
	if (tok[0] == '+')
		return cur + strtoull(tok + 1, NULL, 0);
	if (tok[0] == '-')
		return cur - strtoull(tok + 1, NULL, 0);
	return strtoull(tok, NULL, 0);
}

static void load_callgrind(const char *path, const struct trace *t, struct callgrind *cg)
{
	struct names objs = {0}, files = {0}, fns = {0};
	char *line = NULL, *obj = NULL, *cobj = NULL, *fn = NULL, *cfn = NULL;
	/* the function's file, the current position's, the callee's */
	char *fl = NULL, *cur_file = NULL, *cfile = NULL;
	size_t cap = 0, npos = 1;
	uint64_t addr = 0, bias = 0;
	int placed = 0, after_calls = 0, after_jump = 0;
	FILE *f = fopen(path, "r");

	if (!f)
		die("cannot open '%s'", path);
	while (getline(&line, &cap, f) > 0) {
		line[strcspn(line, "\n")] = '\0';
		if (strncmp(line, "positions:", 10) == 0) {
			npos = 0;
			for (char *p = strtok(line + 10, " "); p; p = strtok(NULL, " "))
				npos++;
		} else if (strncmp(line, "ob=", 3) == 0) {
			replace(&obj, name_of(&objs, line + 3));
			placed = object_bias(t, obj, &bias) == 0;
		} else if (strncmp(line, "cob=", 4) == 0) {
			replace(&cobj, name_of(&objs, line + 4));
		} else if (strncmp(line, "fl=", 3) == 0) {
			replace(&cur_file, name_of(&files, line + 3));
		} else if (strncmp(line, "fi=", 3) == 0 || strncmp(line, "fe=", 3) == 0) {
			replace(&cur_file, name_of(&files, line + 3));
		} else if (strncmp(line, "cfi=", 4) == 0 || strncmp(line, "cfl=", 4) == 0) {
			replace(&cfile, name_of(&files, line + 4));
		} else if (strncmp(line, "fn=", 3) == 0) {
			/* fl= is written only when the file changes */
			replace(&fl, cur_file);
			replace(&fn, name_of(&fns, line + 3));
		} else if (strncmp(line, "cfn=", 4) == 0) {
			replace(&cfn, name_of(&fns, line + 4));
		} else if (strncmp(line, "calls=", 6) == 0) {
			/* the callee's object is the caller's unless cob= said,
			 * its file the current position's unless cfi= did */
			if (!cfn || !obj || !cur_file)
				die("calls= without ob=, fl= or cfn= in '%s'", path);
			{
				struct cg_function *cf = cg_function(cg, cobj ? cobj : obj,
								     cfile ? cfile : cur_file, cfn);
				char *target = strchr(line + 6, ' ');
				uint64_t cbias;

				cf->calls += strtoull(line + 6, NULL, 10);
				/* the target position is relative to the current
				 * one, in the callee's object; it does not move
				 * the current position */
				if (target && object_bias(t, cobj ? cobj : obj, &cbias) == 0)
					add_entry(cf, position(target + 1, addr) + cbias, 1);
			}
			replace(&cobj, NULL);
			replace(&cfile, NULL);
			after_calls = 1;
		} else if (strncmp(line, "jump=", 5) == 0 || strncmp(line, "jcnd=", 5) == 0) {
			after_jump = 1;
		} else if (strncmp(line, "totals:", 7) == 0 || strncmp(line, "summary:", 8) == 0) {
			cg->total = strtoull(line + 8, NULL, 10);
		} else if (line[0] == '+' || line[0] == '-' || line[0] == '*' ||
			   (line[0] >= '0' && line[0] <= '9')) {
			char *tok[8];
			size_t n = 0;

			for (char *p = strtok(line, " "); p && n < 8; p = strtok(NULL, " "))
				tok[n++] = p;
			addr = position(tok[0], addr);
			if (after_jump) { /* the jump's source position: no cost */
				after_jump = 0;
				continue;
			}
			if (after_calls) { /* inclusive cost of the call */
				after_calls = 0;
				continue;
			}
			if (n <= npos || !fn || !obj || !fl)
				continue;
			{
				struct cg_function *cf = cg_function(cg, obj, fl, fn);
				uint64_t ir = strtoull(tok[npos], NULL, 10);

				cf->ir += ir;
				if (!placed) {
					cg->unplaced++;
					continue;
				}
				if (in_module(addr + bias))
					count_add(&cg->insns, addr + bias, ir);
				add_entry(cf, addr + bias, 0);
			}
		}
	}
	free(line);
	free(obj);
	free(cobj);
	free(fn);
	free(cfn);
	free(fl);
	free(cur_file);
	free(cfile);
	names_free(&objs);
	names_free(&files);
	names_free(&fns);
	fclose(f);
}

/* ---- same-insns -------------------------------------------------------- */

/* A thread's instructions; threads pair up by the order in which they
 * first run (two runs have different thread ids). */
struct seq {
	uint32_t tid[2]; /* in A, in B */
	uint64_t *v;
	size_t n, cap, pos;
};

static struct seq *seq_of(struct seq **s, size_t *n, size_t *seen, int which, uint32_t tid)
{
	for (size_t i = 0; i < *seen; i++)
		if ((*s)[i].tid[which] == tid)
			return &(*s)[i];
	if (*seen == *n) {
		*s = xrealloc(*s, (*n + 1) * sizeof(**s));
		memset(&(*s)[*n], 0, sizeof(**s));
		(*n)++;
	}
	(*s)[*seen].tid[which] = tid;
	return &(*s)[(*seen)++];
}

static int same_insns(const char *a_path, const char *b_path)
{
	struct seq *s = NULL;
	size_t n = 0, seen_a = 0, seen_b = 0, gaps = 0;
	uint64_t total = 0;
	struct itrace_reader *r;
	struct itrace_record rec;
	int rc, bad = 0;

	if (itrace_reader_open(a_path, &r) < 0)
		die("cannot open '%s'", a_path);
	while ((rc = itrace_reader_next(r, &rec, sizeof(rec))) == 0) {
		struct seq *q;

		if (rec.type == ITRACE_REC_MMAP)
			note_module(&rec);
		if (rec.type != ITRACE_REC_INSN || !in_module(rec.u.insn.addr))
			continue;
		q = seq_of(&s, &n, &seen_a, 0, rec.tid);
		if (q->n == q->cap) {
			q->cap = q->cap ? 2 * q->cap : 4096;
			q->v = xrealloc(q->v, q->cap * sizeof(*q->v));
		}
		q->v[q->n++] = rec.u.insn.addr;
	}
	if (rc != ITRACE_EOF)
		die("'%s' is damaged", a_path);
	itrace_reader_close(r);
	if (itrace_reader_open(b_path, &r) < 0)
		die("cannot open '%s'", b_path);
	while ((rc = itrace_reader_next(r, &rec, sizeof(rec))) == 0 && !bad) {
		struct seq *q;

		if (rec.type == ITRACE_REC_GAP || rec.type == ITRACE_REC_LOST) {
			gaps++;
			continue;
		}
		if (rec.type != ITRACE_REC_INSN || !in_module(rec.u.insn.addr))
			continue;
		q = seq_of(&s, &n, &seen_b, 1, rec.tid);
		if (q->pos >= q->n || q->v[q->pos] != rec.u.insn.addr) {
			printf("thread %zu, instruction %zu: %s has %#" PRIx64 ", %s %s\n",
			       (size_t)(q - s) + 1, q->pos, b_path, rec.u.insn.addr, a_path,
			       q->pos < q->n ? "has another" : "has ended");
			if (q->pos < q->n)
				printf("  (%s: %#" PRIx64 ")\n", a_path, q->v[q->pos]);
			bad = 1;
		}
		q->pos++;
		total++;
	}
	if (!bad && rc != ITRACE_EOF)
		die("'%s' is damaged", b_path);
	itrace_reader_close(r);
	for (size_t i = 0; i < n && !bad; i++) {
		if (s[i].pos != s[i].n) {
			printf("thread %zu: %s has %zu instructions, %s %zu\n", i + 1, a_path,
			       s[i].n, b_path, s[i].pos);
			bad = 1;
		}
	}
	if (gaps) {
		printf("%s: %zu GAP or LOST records\n", b_path, gaps);
		bad = 1;
	}
	if (!bad)
		printf("same: %" PRIu64 " instructions in %zu threads\n", total, n);
	for (size_t i = 0; i < n; i++)
		free(s[i].v);
	free(s);
	return bad;
}

/* ---- main ---------------------------------------------------------------- */

static int cmp_fn(const void *x, const void *y)
{
	const struct cg_function *a = x, *b = y;

	if (!a->nentry || !b->nentry)
		return (a->nentry < b->nentry) - (a->nentry > b->nentry);
	if (a->entry[0] != b->entry[0])
		return (a->entry[0] > b->entry[0]) - (a->entry[0] < b->entry[0]);
	return strcmp(a->name, b->name);
}

/* insns_as_callgrind - the trace's counts less what callgrind never counts
 * (print_counts leaves out what ran only there); with `only_last`, just
 * that. */
static void insns_as_callgrind(struct trace *t, int only_last)
{
	struct counts last = {0};

	for (size_t i = 0; i < t->nthr; i++) {
		for (size_t j = 0; j < t->thr[i].n; j++)
			count_add(&last, t->thr[i].addr[j], 1);
		for (size_t j = 0; j < t->thr[i].cut.n; j++)
			count_add(&last, t->thr[i].cut.v[j].addr, t->thr[i].cut.v[j].n);
	}
	if (only_last) {
		print_counts(&last);
	} else {
		for (size_t i = 0; i < last.n; i++)
			if (in_module(last.v[i].addr))
				count_add(&t->insns, last.v[i].addr, (uint64_t)0 - last.v[i].n);
		print_counts(&t->insns);
	}
	counts_free(&last);
}

static void print_functions(struct callgrind *cg)
{
	for (size_t i = 0; i < cg->nfn; i++)
		qsort(cg->fn[i].entry, cg->fn[i].nentry, sizeof(uint64_t), cmp_u64);
	qsort(cg->fn, cg->nfn, sizeof(*cg->fn), cmp_fn);
	for (size_t i = 0; i < cg->nfn && cg->fn[i].nentry; i++) {
		if (!in_module(cg->fn[i].entry[0]))
			continue;
		for (size_t j = 0; j < cg->fn[i].nentry; j++)
			printf("%s%" PRIx64, j ? "," : "", cg->fn[i].entry[j]);
		printf(" %" PRIu64 " %" PRIu64 " %s\n", cg->fn[i].ir, cg->fn[i].calls, cg->fn[i].name);
	}
}

int main(int argc, char **argv)
{
	struct trace t = {0};
	struct callgrind cg = {0};
	int rc = 0;

	if (argc > 3 && strcmp(argv[1], "--module") == 0) {
		only_module = argv[2];
		argv += 2;
		argc -= 2;
	}
	if (argc == 3 && strcmp(argv[1], "insns") == 0) {
		load_trace(argv[2], &t, 0, 0);
		print_counts(&t.insns);
	} else if ((argc == 4 && strcmp(argv[1], "insns") == 0 && strcmp(argv[2], "--callgrind") == 0) ||
		   (argc == 3 && strcmp(argv[1], "final-blocks") == 0)) {
		load_trace(argv[argc - 1], &t, 0, 1);
		insns_as_callgrind(&t, argc == 3);
	} else if (argc == 4 && strcmp(argv[1], "same-insns") == 0) {
		rc = same_insns(argv[2], argv[3]);
	} else if (argc == 4 && (strcmp(argv[1], "cg-insns") == 0 || strcmp(argv[1], "cg-functions") == 0)) {
		load_trace(argv[3], &t, 1, 0);
		load_callgrind(argv[2], &t, &cg);
		if (cg.unplaced)
			fprintf(stderr, "%s: %zu cost lines of objects the trace does not map\n", prog,
				cg.unplaced);
		if (argv[1][3] == 'i')
			print_counts(&cg.insns);
		else
			print_functions(&cg);
		rc = cg.unplaced != 0;
	} else {
		fprintf(stderr, "usage: %s [--module PATH] insns [--callgrind] TRACE | final-blocks TRACE | "
				"cg-insns CG TRACE | cg-functions CG TRACE | same-insns A B\n", prog);
		rc = 2;
	}
	trace_free(&t);
	callgrind_free(&cg);
	free(module_range);
	return rc;
}
