/*
 * bts-gen - test helper: turn an itrace branch trace into the bytes Intel
 * BTS hardware and perf would have produced for the same run, written
 * independently of the importer from the documented layouts (Intel SDM
 * vol. 3B "Branch Trace Store", Linux UAPI perf_event.h, perf's
 * tools/perf/Documentation/perf.data-file-format.txt).
 *
 *   bts-gen raw IN.itr OUT [--pad-every N] [--pred]
 *       raw BTS buffer: 24-byte {from, to, flags} records
 *   bts-gen perf IN.itr OUT [--legacy] [--snapshot N] [--chunk N] [--pad N]
 *                [--inline-buildid] [--truncate-every N] [--repeat N]
 *                [--buildid-dir DIR] [--pipe]
 *       perf.data of perf record -e intel_bts//u --per-thread (AUXTRACE),
 *       -S snapshot mode (one snapshot of the last N records per thread at
 *       exit), or the legacy branches:u -c 1 -d samples; --pipe writes the
 *       stream format of perf record -o -
 *   bts-gen branches IN.itr [--kept [--legacy]]
 *       print "tid from to" for every taken BRANCH; --kept: the records a
 *       user-mode BTS would produce for IN, as itrace-import writes them
 *   bts-gen insns IN.itr
 *       print "tid addr" for every INSN record
 *
 * What user-mode BTS records: every taken branch whose source and target
 * are user addresses.  Transitions through the kernel (system calls,
 * signal delivery, sigreturn) are not user-to-user branches, so they are
 * left out, as is everything that is not a BRANCH (perf has no SYSCALL or
 * SIGNAL sideband).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "itrace.h"

#define PMU_TYPE_BTS 8
#define ID_BTS 100
#define ID_DUMMY 101
#define ID_LEGACY 200
#define ATTR_SIZE 128 /* PERF_ATTR_SIZE_VER7 */
#define CPU_ANY 0xffffffffu

/* ---- growable byte buffer -------------------------------------------- */

struct buf {
	uint8_t *p;
	size_t len, cap;
};

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n);
	if (!p) {
		fprintf(stderr, "bts-gen: out of memory\n");
		exit(1);
	}
	return p;
}

static void put(struct buf *b, const void *src, size_t n)
{
	if (!n)
		return;
	if (b->len + n > b->cap) {
		b->cap = (b->len + n) * 2 + 4096;
		b->p = xrealloc(b->p, b->cap);
	}
	memcpy(b->p + b->len, src, n);
	b->len += n;
}

static void put_zero(struct buf *b, size_t n)
{
	static const uint8_t z[64];
	while (n) {
		size_t k = n < sizeof z ? n : sizeof z;
		put(b, z, k);
		n -= k;
	}
}

static void put64(struct buf *b, uint64_t v)
{
	uint8_t x[8];
	for (int i = 0; i < 8; i++)
		x[i] = (uint8_t)(v >> (8 * i));
	put(b, x, 8);
}

static void put32(struct buf *b, uint32_t v)
{
	uint8_t x[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
	put(b, x, 4);
}

static void put16(struct buf *b, uint16_t v)
{
	uint8_t x[2] = {(uint8_t)v, (uint8_t)(v >> 8)};
	put(b, x, 2);
}

static void patch16(struct buf *b, size_t at, uint16_t v)
{
	b->p[at] = (uint8_t)v;
	b->p[at + 1] = (uint8_t)(v >> 8);
}

static void patch64(struct buf *b, size_t at, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		b->p[at + i] = (uint8_t)(v >> (8 * i));
}

/* A NUL-terminated string padded with NULs to a multiple of `align`. */
static void put_str(struct buf *b, const char *s, size_t n, size_t align)
{
	size_t total = (n + 1 + align - 1) / align * align;
	put(b, s, n);
	put_zero(b, total - n);
}

static void write_file(const char *path, const struct buf *b)
{
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(b->p, 1, b->len, f) != b->len || fclose(f)) {
		fprintf(stderr, "bts-gen: cannot write '%s': %s\n", path, strerror(errno));
		exit(1);
	}
}

/* ---- reading the itrace input ----------------------------------------- */

static struct itrace_reader *open_input(const char *path)
{
	struct itrace_reader *r;
	int rc = itrace_reader_open(path, &r);
	if (rc) {
		fprintf(stderr, "bts-gen: cannot open '%s': %s\n", path, itrace_errstr(rc));
		exit(1);
	}
	return r;
}

static int next_record(struct itrace_reader *r, struct itrace_record *rec)
{
	int rc = itrace_reader_next(r, rec, sizeof(*rec));
	if (rc < 0) {
		fprintf(stderr, "bts-gen: %s\n", itrace_reader_error(r));
		exit(1);
	}
	return rc == 0;
}

static int is_kernel(uint64_t a)
{
	return a >= 0xffff800000000000ull;
}

/* Would user-mode BTS hardware have recorded this branch? */
static int bts_would_record(const struct itrace_branch *b)
{
	if (!(b->flags & ITRACE_BRANCH_TAKEN))
		return 0;
	if (b->kind == ITRACE_BRANCH_SYSCALL || b->kind == ITRACE_BRANCH_INTERRUPT ||
	    b->kind == ITRACE_BRANCH_SIGRETURN)
		return 0;
	return !is_kernel(b->from) && !is_kernel(b->to);
}

/*
 * Deriving BTS records from the input.  A branch-level input gives its
 * taken user branches.  An instruction-level input is the ground truth:
 * every discontinuity between consecutive instructions of a thread is a
 * taken branch (a rep-prefixed instruction repeating itself is not), and
 * so is a jmp, call or ret that lands on the next address; a
 * system call is a crossing from its instruction into the kernel (what
 * BTS records even with kernel tracing off; the kernel address is
 * synthetic), and the jump into a signal handler goes through the kernel
 * (no user-to-user record).
 */
#define KERNEL_SYSCALL_ENTRY 0xffffffff81e00040ull

struct derive_thread {
	uint32_t tid;
	uint64_t addr;
	uint8_t len;
	int have, after_signal;
	int always_taken; /* jmp, call or ret: taken even to the next address */
};

/* Unconditional control transfer (from the instruction bytes)? */
static int always_taken(const struct itrace_insn *in)
{
	unsigned i = 0;

	if (!in->has_bytes)
		return 0;
	while (i < in->len && (in->bytes[i] == 0x66 || in->bytes[i] == 0xf2 || in->bytes[i] == 0xf3 ||
			       in->bytes[i] == 0x2e || in->bytes[i] == 0x3e || (in->bytes[i] & 0xf0) == 0x40))
		i++;
	if (i >= in->len)
		return 0;
	switch (in->bytes[i]) {
	case 0xe8: case 0xe9: case 0xeb: case 0xc3: case 0xc2:
		return 1;
	case 0xff:
		if (i + 1 >= in->len)
			return 0;
		unsigned reg = (in->bytes[i + 1] >> 3) & 7;
		return reg >= 2 && reg <= 5;
	default:
		return 0;
	}
}

struct derive {
	int insn_level;
	struct derive_thread *t;
	size_t n;
};

static struct derive_thread *derive_thread(struct derive *d, uint32_t tid)
{
	for (size_t i = 0; i < d->n; i++)
		if (d->t[i].tid == tid)
			return &d->t[i];
	d->t = xrealloc(d->t, (d->n + 1) * sizeof *d->t);
	memset(&d->t[d->n], 0, sizeof *d->t);
	d->t[d->n].tid = tid;
	return &d->t[d->n++];
}

/* Returns 1 with from and to set when `rec` yields a BTS record. */
static int derive(struct derive *d, const struct itrace_record *rec, uint64_t *from, uint64_t *to)
{
	struct derive_thread *t;
	int hit = 0;

	if (!d->insn_level) {
		if (rec->type != ITRACE_REC_BRANCH || !bts_would_record(&rec->u.branch))
			return 0;
		*from = rec->u.branch.from;
		*to = rec->u.branch.to;
		return 1;
	}
	switch (rec->type) {
	case ITRACE_REC_INSN:
		t = derive_thread(d, rec->tid);
		if (t->have && !t->after_signal && rec->u.insn.addr != t->addr &&
		    (rec->u.insn.addr != t->addr + t->len || t->always_taken)) {
			*from = t->addr;
			*to = rec->u.insn.addr;
			hit = 1;
		}
		t->addr = rec->u.insn.addr;
		t->len = rec->u.insn.len;
		t->always_taken = always_taken(&rec->u.insn);
		t->have = 1;
		t->after_signal = 0;
		return hit;
	case ITRACE_REC_SYSCALL:
		t = derive_thread(d, rec->tid);
		if (rec->u.syscall.dir != ITRACE_SYSCALL_ENTER || !t->have)
			return 0;
		*from = t->addr;
		*to = KERNEL_SYSCALL_ENTRY;
		return 1;
	case ITRACE_REC_SIGNAL:
		derive_thread(d, rec->tid)->after_signal = 1;
		return 0;
	default:
		return 0;
	}
}

static void derive_init(struct derive *d, struct itrace_reader *r)
{
	memset(d, 0, sizeof *d);
	d->insn_level = itrace_reader_header(r)->level == ITRACE_LEVEL_INSN;
}

/* ---- raw mode -------------------------------------------------------- */

static void put_bts(struct buf *b, uint64_t from, uint64_t to, uint64_t flags)
{
	put64(b, from);
	put64(b, to);
	put64(b, flags);
}

static int gen_raw(const char *in, const char *out, unsigned long pad_every, int pred)
{
	struct itrace_reader *r = open_input(in);
	struct itrace_record rec;
	struct buf b = {0};
	unsigned long n = 0;
	struct derive d;
	uint64_t from, to;

	derive_init(&d, r);
	while (next_record(r, &rec)) {
		if (!derive(&d, &rec, &from, &to))
			continue;
		put_bts(&b, from, to, pred && (n & 1) ? 0x10 : 0);
		if (pad_every && ++n % pad_every == 0)
			put_zero(&b, 2 * 24); /* chunk-end padding */
	}
	itrace_reader_close(r);
	free(d.t);
	write_file(out, &b);
	free(b.p);
	return 0;
}

/* ---- perf.data mode -------------------------------------------------- */

struct gen_opts {
	int legacy;
	unsigned long snapshot; /* records per final snapshot; 0 = full trace */
	unsigned long chunk;	/* records per AUXTRACE buffer */
	unsigned long pad;	/* zero records after each buffer */
	int inline_buildid;
	unsigned long truncate_every; /* mark every Nth AUX area TRUNCATED */
	unsigned long repeat;	      /* emit the branch stream this many times (benchmarks) */
	const char *buildid_dir;      /* write the vDSO into a perf build-id cache here */
	int pipe;		      /* pipe mode (perf record -o -) */
};

struct saved_branch {
	struct itrace_record rec;
	uint64_t from, to;
};

struct thread_buf {
	uint32_t tid, pid, idx;
	struct buf recs;  /* pending (full trace) or all (snapshot) records */
	uint64_t head;	  /* AUX position */
	unsigned long areas;
};

struct bid {
	char *path;
	uint8_t len;
	uint8_t id[20];
};

struct gen {
	const struct gen_opts *o;
	uint64_t vdso_start; /* from the [vdso] MMAP record */
	struct buf data;
	struct thread_buf *threads;
	size_t nthreads;
	struct bid *bids;
	size_t nbids;
	uint64_t time;
	uint64_t reference;
};

/*
 * sample_id trailer of sideband records: TID, TIME, then IDENTIFIER for
 * the AUX recording (IP|TID|TIME|IDENTIFIER); legacy: IP|TID|TIME|ADDR|PERIOD.
 */
static void put_sample_id(struct gen *g, uint32_t pid, uint32_t tid)
{
	put32(&g->data, pid);
	put32(&g->data, tid);
	put64(&g->data, ++g->time);
	if (!g->o->legacy)
		put64(&g->data, ID_DUMMY); /* IDENTIFIER comes last */
}

static size_t begin_record(struct gen *g, uint32_t type, uint16_t misc)
{
	size_t at = g->data.len;
	put32(&g->data, type);
	put16(&g->data, misc);
	put16(&g->data, 0); /* size, patched by end_record */
	return at;
}

static void end_record(struct gen *g, size_t at)
{
	patch16(&g->data, at + 6, (uint16_t)(g->data.len - at));
}

static struct thread_buf *thread_of(struct gen *g, uint32_t tid, uint32_t pid)
{
	for (size_t i = 0; i < g->nthreads; i++)
		if (g->threads[i].tid == tid)
			return &g->threads[i];
	g->threads = xrealloc(g->threads, (g->nthreads + 1) * sizeof *g->threads);
	struct thread_buf *t = &g->threads[g->nthreads];
	memset(t, 0, sizeof *t);
	t->tid = tid;
	t->pid = pid;
	t->idx = (uint32_t)g->nthreads++;
	return t;
}

/* PERF_RECORD_AUX then PERF_RECORD_AUXTRACE with the raw bytes, as perf writes them. */
static void emit_aux(struct gen *g, struct thread_buf *t, const uint8_t *bytes, size_t n, int truncated)
{
	size_t at, total = n + g->o->pad * 24;

	at = begin_record(g, 11, 0);
	put64(&g->data, t->head);
	put64(&g->data, total);
	put64(&g->data, (truncated ? 1 : 0) | (g->o->snapshot ? 2 : 0));
	put_sample_id(g, t->pid, t->tid);
	end_record(g, at);

	at = begin_record(g, 71, 0);
	put64(&g->data, total);
	put64(&g->data, t->head);
	put64(&g->data, ++g->time); /* reference: the TSC at copy time */
	put32(&g->data, t->idx);
	put32(&g->data, t->tid);
	put32(&g->data, CPU_ANY);
	put32(&g->data, 0);
	end_record(g, at);
	put(&g->data, bytes, n);
	put_zero(&g->data, g->o->pad * 24);
	t->head += total;
}

static void flush_thread(struct gen *g, struct thread_buf *t)
{
	if (g->o->snapshot || !t->recs.len)
		return;
	t->areas++;
	emit_aux(g, t, t->recs.p, t->recs.len,
		 g->o->truncate_every && t->areas % g->o->truncate_every == 0);
	t->recs.len = 0;
}

static void flush_all(struct gen *g)
{
	for (size_t i = 0; i < g->nthreads; i++)
		flush_thread(g, &g->threads[i]);
}

static void gen_branch(struct gen *g, const struct itrace_record *rec, uint64_t from, uint64_t to,
		       struct thread_buf **cur)
{
	if (g->o->legacy) {
		/* sample_type IP|TID|TIME|ADDR|PERIOD */
		if (is_kernel(to))
			return; /* the legacy path filters crossings in the kernel */
		size_t at = begin_record(g, 9, 2);
		put64(&g->data, from);
		put32(&g->data, rec->pid);
		put32(&g->data, rec->tid);
		put64(&g->data, ++g->time);
		put64(&g->data, to);
		put64(&g->data, 1);
		end_record(g, at);
		return;
	}
	struct thread_buf *t = thread_of(g, rec->tid, rec->pid);
	if (*cur && *cur != t)
		flush_thread(g, *cur); /* keep the global order across threads */
	*cur = t;
	put_bts(&t->recs, from, to, 0);
	if (!g->o->snapshot && t->recs.len / 24 >= g->o->chunk)
		flush_thread(g, t);
}

static const char *base_name(const char *s, size_t n, size_t *out_len)
{
	const char *b = s;
	for (size_t i = 0; i < n; i++)
		if (s[i] == '/')
			b = s + i + 1;
	*out_len = n - (size_t)(b - s);
	if (*out_len > 15)
		*out_len = 15; /* TASK_COMM_LEN - 1 */
	return b;
}

static void add_bid(struct gen *g, const char *path, size_t n, const uint8_t *id, uint8_t len);

static void gen_mmap(struct gen *g, const struct itrace_record *rec)
{
	const struct itrace_mmap *m = &rec->u.mmap;
	int inline_id = g->o->inline_buildid && m->buildid_len && m->buildid_len <= 20;
	size_t at = begin_record(g, 10, (uint16_t)(2 | (inline_id ? 1u << 14 : 0)));

	put32(&g->data, m->pid);
	put32(&g->data, m->pid);
	put64(&g->data, m->start);
	put64(&g->data, m->len);
	put64(&g->data, m->pgoff);
	if (inline_id) {
		uint8_t id[20] = {0};
		memcpy(id, m->buildid, m->buildid_len);
		uint8_t hdr[4] = {m->buildid_len, 0, 0, 0};
		put(&g->data, hdr, 4);
		put(&g->data, id, 20);
	} else {
		put_zero(&g->data, 24); /* maj, min, ino, ino_generation */
	}
	put32(&g->data, m->prot);
	put32(&g->data, 2); /* MAP_PRIVATE */
	put_str(&g->data, m->path, m->path_len, 8);
	put_sample_id(g, m->pid, m->pid);
	end_record(g, at);

	if (!m->buildid_len || m->buildid_len > 20 || inline_id)
		return;
	add_bid(g, m->path, m->path_len, m->buildid, m->buildid_len);
}

static void gen_comm(struct gen *g, uint32_t pid, uint32_t tid, const char *name, size_t n, int exec)
{
	size_t bl, at = begin_record(g, 3, (uint16_t)(2 | (exec ? 1u << 13 : 0)));
	const char *b = base_name(name ? name : "", name ? n : 0, &bl);

	put32(&g->data, pid);
	put32(&g->data, tid);
	put_str(&g->data, b, bl, 8);
	put_sample_id(g, pid, tid);
	end_record(g, at);
}

static void gen_task(struct gen *g, uint32_t type, uint32_t pid, uint32_t ppid, uint32_t tid,
		     uint32_t ptid)
{
	size_t at = begin_record(g, type, 0);
	put32(&g->data, pid);
	put32(&g->data, ppid);
	put32(&g->data, tid);
	put32(&g->data, ptid);
	put64(&g->data, ++g->time);
	put_sample_id(g, pid, tid);
	end_record(g, at);
}

static void add_bid(struct gen *g, const char *path, size_t n, const uint8_t *id, uint8_t len)
{
	for (size_t i = 0; i < g->nbids; i++)
		if (strlen(g->bids[i].path) == n && !memcmp(g->bids[i].path, path, n))
			return;
	g->bids = xrealloc(g->bids, (g->nbids + 1) * sizeof *g->bids);
	struct bid *b = &g->bids[g->nbids++];
	b->path = xrealloc(NULL, n + 1);
	memcpy(b->path, path, n);
	b->path[n] = 0;
	b->len = len;
	memset(b->id, 0, sizeof b->id);
	memcpy(b->id, id, len);
}

/*
 * The vDSO's bytes go where perf's build-id cache keeps them,
 * DIR/[vdso]/<build-id>/vdso, under a synthetic build-id (FNV-1a of the
 * bytes), which the feature section then lists for "[vdso]".
 */
static void gen_vdso(struct gen *g, const struct itrace_code *c)
{
	uint8_t id[20];
	uint64_t h = 0xcbf29ce484222325ull;
	char dir[4096], hex[41];
	struct buf b = {0};

	if (!g->o->buildid_dir || !g->vdso_start || c->addr != g->vdso_start)
		return;
	for (size_t i = 0; i < c->len; i++)
		h = (h ^ c->bytes[i]) * 0x100000001b3ull;
	for (int i = 0; i < 20; i++)
		id[i] = (uint8_t)(h >> (8 * (i % 8))) ^ (uint8_t)i;
	for (int i = 0; i < 20; i++)
		sprintf(hex + 2 * i, "%02x", id[i]);
	snprintf(dir, sizeof dir, "mkdir -p '%s/[vdso]/%s'", g->o->buildid_dir, hex);
	if (system(dir)) {
		fprintf(stderr, "bts-gen: cannot create the build-id cache in '%s'\n", g->o->buildid_dir);
		exit(1);
	}
	snprintf(dir, sizeof dir, "%s/[vdso]/%s/vdso", g->o->buildid_dir, hex);
	put(&b, c->bytes, c->len);
	write_file(dir, &b);
	free(b.p);
	add_bid(g, "[vdso]", 6, id, 20);
}

static void gen_sideband(struct gen *g, const struct itrace_record *rec)
{
	const struct itrace_thread *t = &rec->u.thread;
	const struct itrace_process *p = &rec->u.process;

	if (rec->type == ITRACE_REC_MMAP) {
		flush_all(g);
		if (rec->u.mmap.path_len == 6 && !memcmp(rec->u.mmap.path, "[vdso]", 6))
			g->vdso_start = rec->u.mmap.start;
		gen_mmap(g, rec);
	} else if (rec->type == ITRACE_REC_CODE) {
		gen_vdso(g, &rec->u.code);
	} else if (rec->type == ITRACE_REC_THREAD && t->event == ITRACE_THREAD_NAME) {
		gen_comm(g, t->pid, t->tid, t->name, t->name_len, 0);
	} else if (rec->type == ITRACE_REC_THREAD && t->event == ITRACE_THREAD_CREATE) {
		gen_task(g, 7, t->pid, t->pid, t->tid, (uint32_t)t->other);
	} else if (rec->type == ITRACE_REC_THREAD && t->event == ITRACE_THREAD_EXIT) {
		flush_all(g);
		gen_task(g, 4, t->pid, t->pid, t->tid, t->tid);
	} else if (rec->type == ITRACE_REC_PROCESS &&
		   (p->event == ITRACE_PROCESS_START || p->event == ITRACE_PROCESS_EXEC)) {
		gen_comm(g, p->pid, p->pid, p->name, p->name_len, 1);
	} else if (rec->type == ITRACE_REC_PROCESS && p->event == ITRACE_PROCESS_FORK) {
		gen_task(g, 7, (uint32_t)p->other, p->pid, (uint32_t)p->other, p->pid);
	}
}

static void put_attr_body(struct buf *b, uint32_t type, uint64_t config, uint64_t period,
			  uint64_t sample_type, uint64_t flags)
{
	size_t start = b->len;
	put32(b, type);
	put32(b, ATTR_SIZE);
	put64(b, config);
	put64(b, period);
	put64(b, sample_type);
	put64(b, 0); /* read_format */
	put64(b, flags);
	put_zero(b, ATTR_SIZE - (b->len - start));
}

/* File mode: the attr, then its ids section {offset, size}. */
static void put_attr(struct buf *b, uint32_t type, uint64_t config, uint64_t period,
		     uint64_t sample_type, uint64_t flags, uint64_t ids_off)
{
	put_attr_body(b, type, config, period, sample_type, flags);
	put64(b, ids_off);
	put64(b, 8);
}

/* Pipe mode: PERF_RECORD_HEADER_ATTR {header, attr, u64 id}. */
static void put_header_attr(struct buf *b, uint32_t type, uint64_t config, uint64_t period,
			    uint64_t sample_type, uint64_t flags, uint64_t id)
{
	put32(b, 64);
	put16(b, 0);
	put16(b, (uint16_t)(8 + ATTR_SIZE + 8));
	put_attr_body(b, type, config, period, sample_type, flags);
	put64(b, id);
}

/*
 * build_id_event entries {header, pid, build_id[20], size, pad[3], name
 * padded to 64}: the HEADER_BUILD_ID feature (type 0) or, in pipe mode,
 * PERF_RECORD_HEADER_BUILD_ID records (type 67).
 */
static void put_buildids(struct gen *g, struct buf *b, uint32_t type)
{
	for (size_t i = 0; i < g->nbids; i++) {
		size_t at = b->len, n = strlen(g->bids[i].path);
		put32(b, type);
		put16(b, (uint16_t)(2 | 1u << 15)); /* USER | BUILD_ID_SIZE */
		put16(b, 0);
		put32(b, 0xffffffffu); /* pid: host */
		put(b, g->bids[i].id, 20);
		uint8_t sz[4] = {g->bids[i].len, 0, 0, 0};
		put(b, sz, 4);
		put_str(b, g->bids[i].path, n, 64);
		patch16(b, at + 6, (uint16_t)(b->len - at));
	}
}

static void put_features(struct gen *g, struct buf *f, uint64_t base)
{
	/* Table: BUILD_ID (bit 2), PMU_MAPPINGS (bit 16); sections follow it. */
	struct buf bid = {0}, pmu = {0};

	put_buildids(g, &bid, 0);
	put32(&pmu, 2);
	put32(&pmu, 4);
	put32(&pmu, 64);
	put_str(&pmu, "cpu", 3, 64);
	put32(&pmu, PMU_TYPE_BTS);
	put32(&pmu, 64);
	put_str(&pmu, "intel_bts", 9, 64);

	uint64_t sec = base + 2 * 16;
	put64(f, sec);
	put64(f, bid.len);
	put64(f, sec + bid.len);
	put64(f, pmu.len);
	put(f, bid.p, bid.len);
	put(f, pmu.p, pmu.len);
	free(bid.p);
	free(pmu.p);
}

static void auxtrace_info(struct gen *g)
{
	size_t at = begin_record(g, 70, 0);
	put32(&g->data, 2); /* PERF_AUXTRACE_INTEL_BTS */
	put32(&g->data, 0);
	put64(&g->data, PMU_TYPE_BTS);
	put64(&g->data, 0); /* TIME_SHIFT */
	put64(&g->data, 1); /* TIME_MULT: perf time = TSC */
	put64(&g->data, 0); /* TIME_ZERO */
	put64(&g->data, 1); /* CAP_USER_TIME_ZERO */
	put64(&g->data, g->o->snapshot ? 1 : 0);
	end_record(g, at);
}

static void final_snapshots(struct gen *g)
{
	for (size_t i = 0; i < g->nthreads; i++) {
		struct thread_buf *t = &g->threads[i];
		size_t n = t->recs.len / 24, keep = n < g->o->snapshot ? n : g->o->snapshot;
		if (keep)
			emit_aux(g, t, t->recs.p + (n - keep) * 24, keep * 24, 0);
	}
}

static int gen_perf(const char *in, const char *out, const struct gen_opts *o)
{
	struct itrace_reader *r = open_input(in);
	struct itrace_record rec;
	struct gen g;
	struct thread_buf *cur = NULL;
	const uint64_t st = o->legacy ? 0x10f : 0x10007; /* see put_sample_id */
	const uint64_t track = 1u << 5 | 1u << 8 | 1u << 9 | 1u << 13 | 1u << 18 | 1u << 23 | 1u << 24;

	memset(&g, 0, sizeof g);
	g.o = o;
	if (!o->legacy)
		auxtrace_info(&g);
	struct derive d;
	uint64_t from, to;
	struct saved_branch *saved = NULL;
	size_t nsaved = 0;

	derive_init(&d, r);
	while (next_record(r, &rec)) {
		if (derive(&d, &rec, &from, &to)) {
			gen_branch(&g, &rec, from, to, &cur);
			if (o->repeat > 1) {
				saved = xrealloc(saved, (nsaved + 1) * sizeof *saved);
				saved[nsaved++] = (struct saved_branch){rec, from, to};
			}
		} else if (rec.type != ITRACE_REC_BRANCH && rec.type != ITRACE_REC_INSN) {
			gen_sideband(&g, &rec);
		}
	}
	itrace_reader_close(r);
	for (unsigned long k = 1; k < o->repeat; k++)
		for (size_t i = 0; i < nsaved; i++)
			gen_branch(&g, &saved[i].rec, saved[i].from, saved[i].to, &cur);
	free(saved);
	free(d.t);
	if (o->snapshot)
		final_snapshots(&g);
	flush_all(&g);

	struct buf f = {0};
	if (o->pipe) {
		/* Stream: header {magic, 16} | HEADER_ATTRs | data | HEADER_BUILD_IDs. */
		put(&f, "PERFILE2", 8);
		put64(&f, 16);
		if (o->legacy) {
			put_header_attr(&f, 0, 4, 1, st, track, ID_LEGACY);
		} else {
			put_header_attr(&f, PMU_TYPE_BTS, 0, 1, st, 1u << 5 | 1u << 18, ID_BTS);
			put_header_attr(&f, 1, 9, 1, st, track, ID_DUMMY);
		}
		put(&f, g.data.p, g.data.len);
		put_buildids(&g, &f, 67);
		goto write;
	}
	/* Layout: header | attrs | ids | data | feature table + sections. */
	size_t nattr = o->legacy ? 1 : 2, attr_entry = ATTR_SIZE + 16;
	uint64_t attrs_off = 104, ids_off = attrs_off + nattr * attr_entry;
	uint64_t data_off = ids_off + nattr * 8, feat_off = data_off + g.data.len;

	put(&f, "PERFILE2", 8);
	put64(&f, 104);
	put64(&f, attr_entry);
	put64(&f, attrs_off);
	put64(&f, nattr * attr_entry);
	put64(&f, data_off);
	put64(&f, g.data.len);
	put64(&f, 0);
	put64(&f, 0);
	put64(&f, (1u << 2) | ((uint64_t)1 << 16)); /* features BUILD_ID, PMU_MAPPINGS */
	put_zero(&f, 24);
	if (o->legacy) {
		put_attr(&f, 0, 4, 1, st, track, ids_off);
	} else {
		put_attr(&f, PMU_TYPE_BTS, 0, 1, st, 1u << 5 | 1u << 18, ids_off);
		put_attr(&f, 1, 9, 1, st, track, ids_off + 8);
	}
	put64(&f, o->legacy ? ID_LEGACY : ID_BTS);
	if (!o->legacy)
		put64(&f, ID_DUMMY);
	put(&f, g.data.p, g.data.len);
	put_features(&g, &f, feat_off);
	patch64(&f, 48, g.data.len);
write:
	write_file(out, &f);

	free(f.p);
	free(g.data.p);
	for (size_t i = 0; i < g.nthreads; i++)
		free(g.threads[i].recs.p);
	free(g.threads);
	for (size_t i = 0; i < g.nbids; i++)
		free(g.bids[i].path);
	free(g.bids);
	return 0;
}

/* ---- listing modes ---------------------------------------------------- */

static int list(const char *in, int insns, int kept, int legacy)
{
	struct itrace_reader *r = open_input(in);
	struct itrace_record rec;
	struct derive d;
	uint64_t from, to;

	derive_init(&d, r);
	while (next_record(r, &rec)) {
		if (insns && rec.type == ITRACE_REC_INSN)
			printf("%u %llx\n", rec.tid, (unsigned long long)rec.u.insn.addr);
		if (insns)
			continue;
		if (kept && derive(&d, &rec, &from, &to)) {
			if (legacy && is_kernel(to))
				continue; /* the legacy path filters crossings in the kernel */
			/* what the importer writes: a system call returns after its 2 bytes */
			printf("%u %llx %llx\n", rec.tid, (unsigned long long)from,
			       (unsigned long long)(is_kernel(to) ? from + 2 : to));
		} else if (!kept && rec.type == ITRACE_REC_BRANCH && (rec.u.branch.flags & ITRACE_BRANCH_TAKEN)) {
			printf("%u %llx %llx\n", rec.tid, (unsigned long long)rec.u.branch.from,
			       (unsigned long long)rec.u.branch.to);
		}
	}
	itrace_reader_close(r);
	free(d.t);
	return 0;
}

static unsigned long num(const char *s)
{
	char *end;
	unsigned long v = strtoul(s, &end, 0);
	if (!*s || *end) {
		fprintf(stderr, "bts-gen: '%s' is not a number\n", s);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	struct gen_opts o = {.chunk = 64};
	unsigned long pad_every = 0;
	int pred = 0, kept = 0;

	if (argc < 3) {
		fprintf(stderr, "usage: bts-gen raw|perf|branches|insns IN.itr [OUT] [options]\n");
		return 2;
	}
	int first_opt = (!strcmp(argv[1], "raw") || !strcmp(argv[1], "perf")) ? 4 : 3;
	if (argc < first_opt) {
		fprintf(stderr, "bts-gen: %s needs an output file\n", argv[1]);
		return 2;
	}
	for (int i = first_opt; i < argc; i++) {
		const char *a = argv[i];
		int has_val = i + 1 < argc;
		if (!strcmp(a, "--legacy")) o.legacy = 1;
		else if (!strcmp(a, "--inline-buildid")) o.inline_buildid = 1;
		else if (!strcmp(a, "--pred")) pred = 1;
		else if (!strcmp(a, "--kept")) kept = 1;
		else if (!strcmp(a, "--snapshot") && has_val) o.snapshot = num(argv[++i]);
		else if (!strcmp(a, "--chunk") && has_val) o.chunk = num(argv[++i]);
		else if (!strcmp(a, "--pad") && has_val) o.pad = num(argv[++i]);
		else if (!strcmp(a, "--pad-every") && has_val) pad_every = num(argv[++i]);
		else if (!strcmp(a, "--truncate-every") && has_val) o.truncate_every = num(argv[++i]);
		else if (!strcmp(a, "--repeat") && has_val) o.repeat = num(argv[++i]);
		else if (!strcmp(a, "--buildid-dir") && has_val) o.buildid_dir = argv[++i];
		else if (!strcmp(a, "--pipe")) o.pipe = 1;
		else {
			fprintf(stderr, "bts-gen: unknown option '%s'\n", a);
			return 2;
		}
	}
	if (!o.chunk)
		o.chunk = 1;
	if (!strcmp(argv[1], "raw"))
		return gen_raw(argv[2], argv[3], pad_every, pred);
	if (!strcmp(argv[1], "perf"))
		return gen_perf(argv[2], argv[3], &o);
	if (!strcmp(argv[1], "branches"))
		return list(argv[2], 0, kept, o.legacy);
	if (!strcmp(argv[1], "insns"))
		return list(argv[2], 1, 0, 0);
	fprintf(stderr, "bts-gen: unknown mode '%s'\n", argv[1]);
	return 2;
}
