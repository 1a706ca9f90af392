/*
 * conv.c - the itrace -> qtrace stream conversion (see conv.h).
 *
 * An INSN record is held back until the next INSN of its thread arrives,
 * because the MEM records of an instruction follow it; then it goes to
 * that thread's qtrace writer (which itself waits for the successor's
 * address).  qtrace has one data address per record: the first MEM of an
 * instruction is kept, further ones are counted.
 */
#include "conv.h"

#include "cli.h"

#include <elf.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The decoded-instruction cache: direct-mapped, indexed by address.  A
 * program's hot loops are a few thousand instructions; a collision only
 * costs a decode.  POWER instructions are 4 or 8 bytes. */
#define CONV_CACHE_SLOTS 8192
#define CONV_CACHE_MAX_LEN 8

struct conv_thread {
	uint32_t tid;
	char *path; /* NULL for stdout */
	struct itrace_outfile *file; /* the output file of `path` */
	struct qtrace_writer *w;
	int has_pending;
	struct qtrace_insn pending;
};

/*
 * One decoded instruction: its qtrace words and termination code, a pure
 * function of its address, length and bytes.  The key holds all three, so
 * that code that changes under the same address (self-modifying code, a
 * CODE record, a new MMAP over an old one) misses and is decoded again.
 */
struct conv_decoded {
	uint64_t addr;
	uint8_t len; /* 0: empty slot */
	uint8_t bytes[CONV_CACHE_MAX_LEN];
	struct qtrace_insn words; /* addr and data address left 0 */
};

struct conv {
	struct conv_options opts;
	const struct conv_isa *isa;
	struct itrace_decoder *dec; /* branch kinds and lengths */
	int little;
	struct itrace_image *image; /* for INSN records without bytes */
	struct conv_thread *threads;
	size_t n_threads, cap_threads;
	size_t last;		    /* index of the last thread used */
	struct conv_decoded *decoded; /* CONV_CACHE_SLOTS entries */
	struct conv_stats st;
	char err[512];
};

static int fail(struct conv *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int fail(struct conv *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->err, sizeof(c->err), fmt, ap);
	va_end(ap);
	return -1;
}

const char *conv_error(const struct conv *c)
{
	return c->err;
}

int conv_open(const struct conv_options *o, uint16_t machine, uint8_t endian, struct conv **cp)
{
	const struct conv_isa *isa = conv_isa_for_machine(machine);
	struct conv *c;
	int rc;

	*cp = NULL;
	if (!isa)
		return -ITRACE_E_NOTSUP;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ITRACE_E_NOMEM;
	c->decoded = calloc(CONV_CACHE_SLOTS, sizeof(*c->decoded));
	if (!c->decoded) {
		free(c);
		return -ITRACE_E_NOMEM;
	}
	/* 32-bit POWER code is decoded as the 64-bit ISA it is a subset of */
	rc = itrace_decoder_alloc(machine == EM_PPC ? EM_PPC64 : machine, endian, &c->dec);
	if (rc < 0) {
		free(c->decoded);
		free(c);
		return rc;
	}
	c->opts = *o;
	c->isa = isa;
	c->little = endian == 1;
	*cp = c;
	return 0;
}

/* ---- Output files, one per thread -------------------------------------- */

/* thread_path - OUT.qt -> OUT.TID.qt (".qt" appended when OUT lacks it). */
static char *thread_path(const char *output, uint32_t tid)
{
	size_t n = strlen(output);
	char *p;

	if (n >= 3 && strcmp(output + n - 3, ".qt") == 0)
		n -= 3;
	if (asprintf(&p, "%.*s.%u.qt", (int)n, output, tid) < 0)
		return NULL;
	return p;
}

static int open_writer(struct conv *c, struct conv_thread *t)
{
	char comment[1024];
	int rc;

	snprintf(comment, sizeof(comment), "qtrace-conv from itrace '%s', thread %u",
		 c->opts.source, t->tid);
	if (t->path && !(t->file = cli_output_create(t->path)))
		return fail(c, "%s", ""); /* cli_output_create said why */
	rc = qtrace_writer_open_fd(t->file ? itrace_outfile_fd(t->file) : STDOUT_FILENO, comment,
				   &t->w);
	if (rc < 0)
		return fail(c, "cannot create '%s': %s", t->path ? t->path : "stdout",
			    rc == -QTRACE_E_IO ? strerror(errno) : qtrace_errstr(rc));
	c->st.threads++;
	return 0;
}

/*
 * split_outputs - a second thread appears: the first thread's file moves
 * to its per-thread name (it is still a temporary: only its destination
 * changes).
 */
static int split_outputs(struct conv *c, uint32_t new_tid)
{
	struct conv_thread *first = &c->threads[0];
	char *p;

	if (strcmp(c->opts.output, "-") == 0)
		return fail(c, "the trace has several threads (%u and %u) but one output stream; "
			    "use -o FILE for one file per thread, or --tid TID",
			    first->tid, new_tid);
	p = thread_path(c->opts.output, first->tid);
	if (!p)
		return fail(c, "out of memory");
	if (itrace_outfile_rename(first->file, p) < 0) {
		fail(c, "cannot name the output of thread %u '%s'", first->tid, p);
		free(p);
		return -1;
	}
	free(first->path);
	first->path = p;
	return 0;
}

static struct conv_thread *new_thread(struct conv *c, uint32_t tid)
{
	struct conv_thread *t;
	int split = c->n_threads == 1 && !c->opts.has_tid;

	if (split && split_outputs(c, tid) < 0)
		return NULL;
	if (c->n_threads == c->cap_threads) {
		size_t cap = c->cap_threads ? 2 * c->cap_threads : 4;
		struct conv_thread *bigger = realloc(c->threads, cap * sizeof(*bigger));

		if (!bigger) {
			fail(c, "out of memory");
			return NULL;
		}
		c->threads = bigger;
		c->cap_threads = cap;
	}
	t = &c->threads[c->n_threads];
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	if (strcmp(c->opts.output, "-") != 0) {
		t->path = c->n_threads == 0 ? strdup(c->opts.output)
					    : thread_path(c->opts.output, tid);
		if (!t->path) {
			fail(c, "out of memory");
			return NULL;
		}
	}
	c->n_threads++;
	if (open_writer(c, t) < 0)
		return NULL;
	return t;
}

static struct conv_thread *find_thread(struct conv *c, uint32_t tid)
{
	if (c->n_threads && c->threads[c->last].tid == tid)
		return &c->threads[c->last];
	for (size_t i = 0; i < c->n_threads; i++) {
		if (c->threads[i].tid == tid) {
			c->last = i;
			return &c->threads[i];
		}
	}
	return NULL;
}

/* ---- Instructions ------------------------------------------------------ */

/* flush_pending - hand the held-back instruction to the thread's writer. */
static int flush_pending(struct conv *c, struct conv_thread *t)
{
	int rc;

	if (!t->has_pending)
		return 0;
	t->has_pending = 0;
	rc = qtrace_writer_add(t->w, &t->pending);
	if (rc == -QTRACE_E_UNREPRESENTABLE) {
		c->st.dropped++;
		return 0;
	}
	if (rc < 0)
		return fail(c, "cannot write '%s': %s", t->path ? t->path : "stdout",
			    rc == -QTRACE_E_IO ? strerror(errno) : qtrace_errstr(rc));
	c->st.insns++;
	return 0;
}

/* code_bytes - the instruction's bytes: from the record, else the image. */
static const uint8_t *code_bytes(struct conv *c, const struct itrace_record *rec)
{
	const struct itrace_insn *in = &rec->u.insn;
	struct itrace_image_loc loc;
	int rc;

	if (in->has_bytes)
		return in->bytes;
	if (!c->image) {
		fail(c, "instruction at 0x%llx has no bytes in the trace and the trace maps no "
		     "code; collect with instruction bytes or keep the MMAP records",
		     (unsigned long long)in->addr);
		return NULL;
	}
	rc = itrace_image_lookup(c->image, rec->pid, in->addr, &loc);
	if (rc < 0 || loc.avail < in->len) {
		fail(c, "no code for the instruction at 0x%llx in %s: %s", (unsigned long long)in->addr,
		     loc.path && rc != -ITRACE_E_NOENT ? loc.path : "any mapping",
		     rc < 0 ? itrace_errstr(rc) : "mapping ends inside the instruction");
		return NULL;
	}
	return loc.bytes;
}

/*
 * decode_words - the qtrace words and termination code of the instruction
 * `len` bytes at `bytes`, address `addr`, into *out.  Returns 0, or -1
 * (message set) if the bytes are no instruction of the ISA's qtrace form.
 */
static int decode_words(struct conv *c, uint64_t addr, const uint8_t *bytes, unsigned len,
			struct qtrace_insn *out)
{
	struct itrace_decoded d;

	memset(out, 0, sizeof(*out));
	if (c->isa->words(bytes, len, c->little, out) < 0)
		return fail(c, "instruction at 0x%llx is %u bytes long: not a %s instruction",
			    (unsigned long long)addr, len, c->isa->name);
	/* bytes that do not decode, or decode to another length, are no
	 * branch; the writer refuses what qtrace cannot represent */
	if (itrace_decoder_decode(c->dec, bytes, len, addr, &d) == 0 && d.len == len)
		out->term_code = (uint8_t)c->isa->term_code(d.kind);
	return 0;
}

/*
 * cached_words - decode_words through the cache: each distinct instruction
 * (address, length, bytes) is decoded once.  Same returns.
 */
static int cached_words(struct conv *c, uint64_t addr, const uint8_t *bytes, unsigned len,
			struct qtrace_insn *out)
{
	struct conv_decoded *e;

	if (len == 0 || len > CONV_CACHE_MAX_LEN)
		return decode_words(c, addr, bytes, len, out);
	/* POWER instructions are word-aligned: the low two bits say nothing */
	e = &c->decoded[(addr >> 2 ^ addr >> 15) & (CONV_CACHE_SLOTS - 1)];
	/* memcmp of a constant 4 is inlined: most POWER instructions */
	if (e->len != len || e->addr != addr ||
	    (len == 4 ? memcmp(e->bytes, bytes, 4) : memcmp(e->bytes, bytes, len)) != 0) {
		if (decode_words(c, addr, bytes, len, &e->words) < 0) {
			e->len = 0;
			return -1;
		}
		e->addr = addr;
		e->len = (uint8_t)len;
		memcpy(e->bytes, bytes, len);
	}
	*out = e->words;
	return 0;
}

static int on_insn(struct conv *c, const struct itrace_record *rec)
{
	const struct itrace_insn *in = &rec->u.insn;
	struct conv_thread *t = find_thread(c, rec->tid);
	const uint8_t *bytes;

	if (!t) {
		t = new_thread(c, rec->tid);
		if (!t)
			return -1;
	}
	if (flush_pending(c, t) < 0)
		return -1;
	bytes = code_bytes(c, rec);
	if (!bytes)
		return -1;
	if (cached_words(c, in->addr, bytes, in->len, &t->pending) < 0)
		return -1;
	t->pending.addr = in->addr;
	t->has_pending = 1;
	return 0;
}

static void on_mem(struct conv *c, const struct itrace_record *rec)
{
	struct conv_thread *t = find_thread(c, rec->tid);

	if (!t || !t->has_pending)
		return;
	if (t->pending.has_data_addr) {
		c->st.extra_mem++;
		return;
	}
	t->pending.has_data_addr = 1;
	t->pending.data_addr = rec->u.mem.addr;
}

static int on_image_record(struct conv *c, const struct itrace_record *rec)
{
	int rc;

	if (!c->image) {
		struct itrace_image_options io;

		itrace_image_options_init(&io);
		rc = itrace_image_alloc(&io, &c->image);
		if (rc < 0)
			return fail(c, "cannot create the code image: %s", itrace_errstr(rc));
	}
	rc = itrace_image_apply(c->image, rec);
	if (rc < 0)
		return fail(c, "bad mapping record: %s", itrace_errstr(rc));
	return 0;
}

int conv_record(struct conv *c, const struct itrace_record *rec)
{
	switch (rec->type) {
	case ITRACE_REC_MMAP:
	case ITRACE_REC_CODE:
	case ITRACE_REC_PROCESS:
		return on_image_record(c, rec);
	case ITRACE_REC_INSN:
		if (c->opts.has_tid && rec->tid != c->opts.tid) {
			c->st.other_tids++;
			return 0;
		}
		return on_insn(c, rec);
	case ITRACE_REC_MEM:
		on_mem(c, rec);
		return 0;
	default:
		return 0;
	}
}

int conv_close(struct conv *c, int keep, struct conv_stats *st)
{
	int ret = 0;

	/* No instruction at all: still a valid (empty) qtrace file. */
	if (c->n_threads == 0 && !new_thread(c, c->opts.has_tid ? c->opts.tid : 0))
		ret = -1;
	for (size_t i = 0; i < c->n_threads; i++) {
		struct conv_thread *t = &c->threads[i];
		int rc;

		if (flush_pending(c, t) < 0)
			ret = -1;
		rc = qtrace_writer_close(t->w);
		t->w = NULL;
		if (rc < 0 && ret == 0)
			ret = fail(c, "cannot write '%s': %s", t->path ? t->path : "stdout",
				   rc == -QTRACE_E_IO ? strerror(errno) : qtrace_errstr(rc));
	}
	/* Every file is replaced, or none: they are one conversion. */
	for (size_t i = 0; i < c->n_threads; i++) {
		if (cli_output_finish(c->threads[i].file, keep && ret == 0) < 0 && ret == 0)
			ret = fail(c, "%s", "");
		c->threads[i].file = NULL;
	}
	if (st)
		*st = c->st;
	if (ret == 0 && c->opts.has_tid && c->st.insns == 0 && c->st.dropped == 0)
		ret = fail(c, "thread %u has no instructions in the trace (%llu instructions of "
			   "other threads)", c->opts.tid, (unsigned long long)c->st.other_tids);
	return ret;
}

void conv_free(struct conv *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n_threads; i++) {
		qtrace_writer_close(c->threads[i].w);
		cli_output_finish(c->threads[i].file, 0);
		free(c->threads[i].path);
	}
	free(c->threads);
	itrace_image_free(c->image);
	itrace_decoder_free(c->dec);
	free(c->decoded);
	free(c);
}
