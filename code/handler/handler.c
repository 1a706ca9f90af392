/*
 * handler.c - handler chains: loading handler shared objects, their
 * context (streams, symbols) and the one dispatch function every driver
 * calls per record (itrace_handler.h, sections 10 and 11).
 *
 * The table checks follow perf's dlfilter loader (tools/perf/util/
 * dlfilter.c: dlopen, dlsym of a versioned struct, refuse what it does
 * not know) with libipt's size rule for growing structs: a handler built
 * against an older header has a smaller table and loads; a larger one
 * loads only when the bytes this library does not know are zero.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* dladdr1 */
#endif
#include "itrace_handler.h"

#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The first fields every table has, whatever its version. */
#define TABLE_MIN_SIZE (offsetof(struct itrace_handler, name) + sizeof(const char *))
/* A table read through itrace_handler_get() has no symbol size to bound
 * it: larger than this is no table built from any header. */
#define TABLE_MAX_SIZE 4096

struct itrace_handler_ctx {
	struct itrace_handler_chain *chain;
	size_t index; /* of the handler in the chain */
	char error[256];
};

struct handler {
	struct itrace_handler t; /* the handler's table, zero-extended */
	void *dl;		 /* NULL for a table of the program */
	char *name, *args;
	void *data;
	int started;
	struct itrace_handler_ctx ctx;
};

struct stream {
	char *name, *path;
	size_t owner;
	struct itrace_outfile *of; /* NULL for "-" */
	FILE *fp;
};

struct itrace_handler_chain {
	/* what every record touches, first (one cache line or two) */
	struct handler *h;
	size_t nh;
	uint64_t records;
	int hold;     /* a handler asks for MEM records with its instructions */
	int dropping; /* fast path: the last instruction was dropped */
	struct itrace_decoder *dec;
	itrace_handler_output_fn output;
	void *output_arg;
	/* what the fault handler reads */
	const char *volatile cur_name;
	volatile uint64_t cur_index;
	/* the instruction held until its MEM records are in */
	int have_pend;
	uint64_t pend_index;
	struct itrace_record pend;
	struct itrace_record *mem_rec;
	struct itrace_mem *mem;
	size_t nmem, mem_cap;
	struct itrace_handler_chain_options o;
	char *stream_dir, *sysroot, *debug_dir;
	struct stream *s;
	size_t ns;
	struct itrace_header header;
	const struct itrace_meta *meta;
	size_t meta_count;
	struct itrace_image *img;
	struct itrace_symbolizer *sym;
	int stopped, failed;
	char error[512];
};

static void chain_error(struct itrace_handler_chain *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void chain_error(struct itrace_handler_chain *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->error, sizeof(c->error), fmt, ap);
	va_end(ap);
}

static char *dup_or_null(const char *s, int *bad)
{
	char *d;

	if (!s)
		return NULL;
	if (!(d = strdup(s)))
		*bad = 1;
	return d;
}

void itrace_handler_chain_options_init(struct itrace_handler_chain_options *o)
{
	memset(o, 0, sizeof(*o));
	o->size = sizeof(*o);
	o->shards = 1;
}

int itrace_handler_chain_alloc(const struct itrace_handler_chain_options *o,
			       struct itrace_handler_chain **cp)
{
	struct itrace_handler_chain *c;
	int bad = 0;

	if (!cp)
		return -ITRACE_E_INVAL;
	*cp = NULL;
	if (!o || o->size < sizeof(*o) || (o->shards && o->shard >= o->shards))
		return -ITRACE_E_INVAL;
	if (!(c = calloc(1, sizeof(*c))))
		return -ITRACE_E_NOMEM;
	c->o = *o;
	c->output = o->output;
	c->output_arg = o->output_arg;
	if (!c->o.shards)
		c->o.shards = 1;
	c->stream_dir = dup_or_null(o->stream_dir ? o->stream_dir : ".", &bad);
	c->sysroot = dup_or_null(o->sysroot, &bad);
	c->debug_dir = dup_or_null(o->debug_dir, &bad);
	if (bad) {
		itrace_handler_chain_free(c);
		return -ITRACE_E_NOMEM;
	}
	*cp = c;
	return 0;
}

void itrace_handler_chain_free(struct itrace_handler_chain *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->ns; i++) {
		struct stream *s = &c->s[i];

		if (s->of) {
			fclose(s->fp);
			itrace_outfile_discard(s->of); /* not published: removed */
		}
		free(s->name);
		free(s->path);
	}
	free(c->s);
	for (size_t i = 0; i < c->nh; i++) {
		if (c->h[i].dl)
			dlclose(c->h[i].dl);
		free(c->h[i].name);
		free(c->h[i].args);
	}
	free(c->h);
	itrace_decoder_free(c->dec);
	itrace_symbolizer_free(c->sym);
	itrace_image_free(c->img);
	free(c->mem_rec);
	free(c->mem);
	free(c->stream_dir);
	free(c->sysroot);
	free(c->debug_dir);
	free(c);
}

/* ---- loading ----------------------------------------------------------- */

static int has_callback(const struct itrace_handler *t)
{
	return t->start || t->stop || t->insn || t->branch || t->mmap || t->thread || t->process ||
	       t->syscall || t->signal || t->trace_ctl || t->gap || t->lost || t->other;
}

/*
 * check_table - copy the handler's table of `size` bytes at `t` into
 * *out, zero-extended, after the size and abi checks.
 */
static int check_table(struct itrace_handler_chain *c, const char *who,
		       const struct itrace_handler *t, size_t avail, struct itrace_handler *out)
{
	const unsigned char *p = (const unsigned char *)t;
	size_t size;

	if (avail < sizeof(size_t)) {
		chain_error(c, "handler '%s': its table is %zu bytes, too small to hold its size", who,
			    avail);
		return -ITRACE_E_INVAL;
	}
	size = t->size;
	if (size < TABLE_MIN_SIZE) {
		chain_error(c, "handler '%s': table size %zu is smaller than any itrace_handler.h's (%zu)",
			    who, size, (size_t)TABLE_MIN_SIZE);
		return -ITRACE_E_INVAL;
	}
	if (size > avail) {
		chain_error(c, "handler '%s': table size %zu is larger than the table itself (%zu bytes)",
			    who, size, avail);
		return -ITRACE_E_INVAL;
	}
	for (size_t i = sizeof(*out); i < size; i++)
		if (p[i]) {
			chain_error(c, "handler '%s' was built against a newer itrace_handler.h "
				    "(table of %zu bytes, this library knows %zu): rebuild it or "
				    "upgrade libitrace-code", who, size, sizeof(*out));
			return -ITRACE_E_VERSION;
		}
	if (t->abi != ITRACE_HANDLER_ABI) {
		chain_error(c, "handler '%s': handler ABI %u, this library speaks %d%s", who,
			    (unsigned)t->abi, ITRACE_HANDLER_ABI,
			    t->abi > ITRACE_HANDLER_ABI ? " (built against a newer itrace_handler.h)" : "");
		return -ITRACE_E_VERSION;
	}
	memset(out, 0, sizeof(*out));
	memcpy(out, t, size < sizeof(*out) ? size : sizeof(*out));
	if (!has_callback(out)) {
		chain_error(c, "handler '%s' defines no callback", who);
		return -ITRACE_E_INVAL;
	}
	return 0;
}

static int push_handler(struct itrace_handler_chain *c, const struct itrace_handler *t,
			size_t avail, const char *who, const char *args, void *dl)
{
	struct itrace_handler tab;
	struct handler *h;
	int rc = check_table(c, who, t, avail, &tab);

	if (rc < 0)
		return rc;
	h = realloc(c->h, (c->nh + 1) * sizeof(*h));
	if (!h)
		return -ITRACE_E_NOMEM;
	c->h = h;
	h = &c->h[c->nh];
	memset(h, 0, sizeof(*h));
	h->t = tab;
	h->name = strdup(tab.name ? tab.name : who);
	h->args = strdup(args ? args : "");
	if (!h->name || !h->args) {
		free(h->name);
		free(h->args);
		return -ITRACE_E_NOMEM;
	}
	h->dl = dl;
	h->ctx.chain = c;
	h->ctx.index = c->nh;
	c->nh++;
	return 0;
}

int itrace_handler_chain_add(struct itrace_handler_chain *c, const struct itrace_handler *table,
			     const char *args)
{
	if (!c || !table)
		return -ITRACE_E_INVAL;
	if (c->stopped || c->img)
		return -ITRACE_E_STATE;
	/* the table's own size is all there is to bound it: within reason */
	return push_handler(c, table,
			    table->size < TABLE_MIN_SIZE ? TABLE_MIN_SIZE
			    : table->size > TABLE_MAX_SIZE ? TABLE_MAX_SIZE : table->size,
			    table->name ? table->name : "(built in)", args, NULL);
}

/* Is `path` a file at all?  dlopen's message says less than errno. */
static int missing_file(const char *path)
{
	struct stat st;

	return strchr(path, '/') && stat(path, &st) < 0;
}

int itrace_handler_chain_load(struct itrace_handler_chain *c, const char *spec)
{
	const struct itrace_handler *t;
	const char *colon;
	char *path;
	void *dl;
	size_t avail = TABLE_MAX_SIZE;
	int rc;

	if (!c || !spec || !*spec)
		return -ITRACE_E_INVAL;
	if (c->stopped || c->img)
		return -ITRACE_E_STATE;
	colon = strchr(spec, ':');
	path = colon ? strndup(spec, (size_t)(colon - spec)) : strdup(spec);
	if (!path)
		return -ITRACE_E_NOMEM;
	if (missing_file(path)) {
		int e = errno;

		chain_error(c, "cannot load handler '%s': %s", path, strerror(e));
		free(path);
		errno = e;
		return e == ENOENT ? -ITRACE_E_NOENT : -ITRACE_E_IO;
	}
	dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!dl) {
		const char *why = dlerror();

		chain_error(c, "cannot load handler '%s': not a shared object it can load (%s)", path,
			    why ? why : "dlopen failed");
		free(path);
		return -ITRACE_E_ELF;
	}
	t = dlsym(dl, "itrace_handler");
	if (t) {
		/* the symbol's own size bounds what may be read of it */
		const ElfW(Sym) *sym = NULL;
		Dl_info info;

		if (dladdr1(t, &info, (void **)&sym, RTLD_DL_SYMENT) && sym && sym->st_size)
			avail = sym->st_size;
	} else {
		const struct itrace_handler *(*get)(void);

		*(void **)&get = dlsym(dl, "itrace_handler_get");
		t = get ? get() : NULL;
		if (!t) {
			chain_error(c, "handler '%s' exports no table: define "
				    "'const struct itrace_handler itrace_handler' (itrace_handler.h)%s",
				    path, get ? " (itrace_handler_get returned NULL)" : "");
			dlclose(dl);
			free(path);
			return -ITRACE_E_NOENT;
		}
	}
	rc = push_handler(c, t, avail, path, colon ? colon + 1 : "", dl);
	if (rc < 0)
		dlclose(dl);
	free(path);
	return rc;
}

size_t itrace_handler_chain_count(const struct itrace_handler_chain *c)
{
	return c ? c->nh : 0;
}

const char *itrace_handler_chain_name(const struct itrace_handler_chain *c, size_t i)
{
	return c && i < c->nh ? c->h[i].name : NULL;
}

unsigned itrace_handler_chain_flags(const struct itrace_handler_chain *c)
{
	unsigned f = ~0u;

	if (!c || !c->nh)
		return 0;
	for (size_t i = 0; i < c->nh; i++)
		f &= c->h[i].t.flags;
	return f;
}

/* ---- the context ------------------------------------------------------- */

const struct itrace_header *itrace_handler_header(const struct itrace_handler_ctx *ctx)
{
	return &ctx->chain->header;
}

const char *itrace_handler_meta(const struct itrace_handler_ctx *ctx, const char *key)
{
	const struct itrace_handler_chain *c = ctx->chain;

	for (size_t i = 0; key && i < c->meta_count; i++)
		if (c->meta[i].key && strcmp(c->meta[i].key, key) == 0)
			return c->meta[i].value;
	return NULL;
}

void itrace_handler_shard(const struct itrace_handler_ctx *ctx, unsigned *index, unsigned *count)
{
	if (index)
		*index = ctx->chain->o.shard;
	if (count)
		*count = ctx->chain->o.shards;
}

void itrace_handler_set_error(struct itrace_handler_ctx *ctx, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(ctx->error, sizeof(ctx->error), fmt, ap);
	va_end(ap);
}

static int stream_name_ok(const char *name)
{
	if (strcmp(name, "-") == 0)
		return 1;
	if (!*name || name[0] == '.' || strlen(name) > 200)
		return 0;
	for (const char *p = name; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		      *p == '.' || *p == '-' || *p == '_'))
			return 0;
	return 1;
}

static FILE *stream_create(struct itrace_handler_chain *c, struct stream *s, const char *who)
{
	int rc, fd;

	if (strcmp(s->name, "-") == 0)
		return c->o.stdout_stream ? c->o.stdout_stream : stdout;
	rc = itrace_outfile_open(s->path, c->o.out_flags, &s->of);
	if (rc < 0) {
		int e = rc == -ITRACE_E_IO ? errno : ENOMEM;

		chain_error(c, "handler '%s': cannot create stream '%s': %s", who, s->path, strerror(e));
		s->of = NULL;
		errno = e;
		return NULL;
	}
	fd = dup(itrace_outfile_fd(s->of));
	s->fp = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!s->fp) {
		int e = errno;

		chain_error(c, "handler '%s': cannot create stream '%s': %s", who, s->path, strerror(e));
		if (fd >= 0)
			close(fd);
		itrace_outfile_discard(s->of);
		s->of = NULL;
		errno = e;
	}
	return s->fp;
}

FILE *itrace_handler_stream_open(struct itrace_handler_ctx *ctx, const char *name)
{
	struct itrace_handler_chain *c = ctx ? ctx->chain : NULL;
	const char *who;
	struct stream *s;
	FILE *fp;

	if (!c || !name || !stream_name_ok(name)) {
		if (c)
			chain_error(c, "handler '%s': bad stream name '%s'", c->h[ctx->index].name,
				    name ? name : "(null)");
		errno = EINVAL;
		return NULL;
	}
	who = c->h[ctx->index].name;
	for (size_t i = 0; i < c->ns; i++) {
		if (strcmp(c->s[i].name, name) != 0)
			continue;
		if (c->s[i].owner == ctx->index || strcmp(name, "-") == 0)
			return c->s[i].of ? c->s[i].fp : (c->o.stdout_stream ? c->o.stdout_stream : stdout);
		chain_error(c, "handler '%s': stream '%s' is handler '%s''s already", who, name,
			    c->h[c->s[i].owner].name);
		errno = EEXIST;
		return NULL;
	}
	s = realloc(c->s, (c->ns + 1) * sizeof(*s));
	if (!s) {
		errno = ENOMEM;
		return NULL;
	}
	c->s = s;
	s = &c->s[c->ns];
	memset(s, 0, sizeof(*s));
	s->owner = ctx->index;
	s->name = strdup(name);
	if (s->name && asprintf(&s->path, "%s/%s", c->stream_dir, name) < 0)
		s->path = NULL;
	if (!s->name || !s->path) {
		free(s->name);
		free(s->path);
		errno = ENOMEM;
		return NULL;
	}
	fp = stream_create(c, s, who);
	if (!fp) {
		int e = errno;

		free(s->name);
		free(s->path);
		errno = e;
		return NULL;
	}
	c->ns++;
	return fp;
}

const char *itrace_handler_stream_path(const struct itrace_handler_chain *c, size_t i)
{
	return c && i < c->ns ? c->s[i].path : NULL;
}

int itrace_handler_symbolize(struct itrace_handler_ctx *ctx, uint32_t pid, uint64_t addr,
			     unsigned what, struct itrace_symbol *out)
{
	struct itrace_handler_chain *c = ctx ? ctx->chain : NULL;

	if (!c || !out)
		return -ITRACE_E_INVAL;
	if (!c->sym)
		return -ITRACE_E_STATE;
	return itrace_symbolizer_lookup(c->sym, pid, addr, what, out);
}

int itrace_handler_analysis_symbolize(void *ctx, uint32_t pid, uint64_t addr, const char *path,
				      uint64_t file_offset, struct itrace_analysis_sym *out)
{
	struct itrace_handler_chain *c = ctx ? ((struct itrace_handler_ctx *)ctx)->chain : NULL;

	if (!c || !out)
		return -ITRACE_E_INVAL;
	if (!c->sym)
		return -ITRACE_E_STATE;
	return itrace_analysis_symbolize(c->sym, pid, addr, path, file_offset, out);
}

int itrace_handler_find_symbol(struct itrace_handler_ctx *ctx, uint32_t pid, const char *name,
			       struct itrace_symbol *out)
{
	struct itrace_handler_chain *c = ctx ? ctx->chain : NULL;

	if (!c || !name || !out)
		return -ITRACE_E_INVAL;
	if (!c->sym)
		return -ITRACE_E_STATE;
	return itrace_symbolizer_find(c->sym, pid, name, out);
}

/* ---- running ----------------------------------------------------------- */

/* The callback of a record of `type`, or NULL. */
static itrace_handler_record_fn record_callback(const struct itrace_handler *t, int type)
{
	switch (type) {
	case ITRACE_REC_BRANCH: return t->branch;
	case ITRACE_REC_MMAP: return t->mmap;
	case ITRACE_REC_THREAD: return t->thread;
	case ITRACE_REC_PROCESS: return t->process;
	case ITRACE_REC_SYSCALL: return t->syscall;
	case ITRACE_REC_SIGNAL: return t->signal;
	case ITRACE_REC_TRACE_CTL: return t->trace_ctl;
	case ITRACE_REC_GAP: return t->gap;
	case ITRACE_REC_LOST: return t->lost;
	default: return t->other;
	}
}

static const char *callback_name(int type)
{
	switch (type) {
	case ITRACE_REC_INSN: return "insn";
	case ITRACE_REC_BRANCH: return "branch";
	case ITRACE_REC_MMAP: return "mmap";
	case ITRACE_REC_THREAD: return "thread";
	case ITRACE_REC_PROCESS: return "process";
	case ITRACE_REC_SYSCALL: return "syscall";
	case ITRACE_REC_SIGNAL: return "signal";
	case ITRACE_REC_TRACE_CTL: return "trace_ctl";
	case ITRACE_REC_GAP: return "gap";
	case ITRACE_REC_LOST: return "lost";
	default: return "other";
	}
}

/*
 * verdict - check what handler h's callback `what` returned for record
 * `index`: 1 keep, 0 drop, or the negative code (message set).
 */
static int bad_verdict(struct itrace_handler_chain *c, struct handler *h, const char *what,
		       uint64_t index, int v)
{
	if (v < 0) {
		chain_error(c, "handler '%s': %s callback failed at record %llu: %s", h->name, what,
			    (unsigned long long)index, h->ctx.error[0] ? h->ctx.error : itrace_errstr(v));
		return v;
	}
	chain_error(c, "handler '%s': %s callback returned %d at record %llu, not KEEP (0), DROP (1) "
		    "or a negative error", h->name, what, v, (unsigned long long)index);
	return -ITRACE_E_INVAL;
}

static inline int verdict(struct itrace_handler_chain *c, struct handler *h, const char *what,
			  uint64_t index, int v)
{
	if (__builtin_expect(v == ITRACE_HANDLER_KEEP, 1))
		return 1;
	if (v == ITRACE_HANDLER_DROP)
		return 0;
	return bad_verdict(c, h, what, index, v);
}

static int fail(struct itrace_handler_chain *c, int rc)
{
	c->failed = 1;
	return rc;
}

static int output(struct itrace_handler_chain *c, const struct itrace_record *rec)
{
	int rc;

	if (!c->output)
		return 0;
	rc = c->output(c->output_arg, rec);
	if (rc < 0)
		chain_error(c, "cannot write record %llu: %s", (unsigned long long)c->records,
			    itrace_errstr(rc));
	return rc;
}

/* decode - instruction record rec's decoder description, or NULL. */
static const struct itrace_insn_info *decode(struct itrace_handler_chain *c,
					     const struct itrace_record *rec,
					     struct itrace_insn_info *info)
{
	const struct itrace_insn *in = &rec->u.insn;
	struct itrace_image_loc loc;
	const uint8_t *bytes = NULL;
	size_t avail = 0;

	if (!c->dec)
		return NULL;
	if (in->has_bytes) {
		bytes = in->bytes;
		avail = in->len;
	} else if (itrace_image_lookup(c->img, rec->pid, in->addr, &loc) == 0 && loc.bytes) {
		bytes = loc.bytes;
		avail = loc.avail;
	}
	if (!bytes || itrace_decoder_info(c->dec, bytes, avail, in->addr, info) < 0)
		return NULL;
	return info;
}

/*
 * run_insn - instruction record `rec` (number `index`) with its accesses
 * mem[0..nmem) through the chain; kept, it is written with the MEM
 * records mem_rec[0..nmem) (NULL: none held).  Returns 1 kept, 0 dropped,
 * or a negative code.
 */
static inline __attribute__((always_inline)) int run_insn(struct itrace_handler_chain *c, const struct itrace_record *rec, uint64_t index,
		    const struct itrace_mem *mem, size_t nmem, const struct itrace_record *mem_rec)
{
	struct itrace_handler_insn hi;
	struct itrace_insn_info info;
	int rc;

	hi.rec = rec;
	hi.index = index;
	hi.info = c->dec ? decode(c, rec, &info) : NULL;
	hi.mem = mem;
	hi.nmem = nmem;
	for (size_t i = 0; i < c->nh; i++) {
		struct handler *h = &c->h[i];

		if (!h->t.insn)
			continue;
		c->cur_index = index;
		c->cur_name = h->name;
		rc = h->t.insn(h->data, &hi, &h->ctx);
		c->cur_name = NULL;
		if ((rc = verdict(c, h, "insn", index, rc)) <= 0)
			return rc < 0 ? fail(c, rc) : 0;
	}
	if ((rc = output(c, rec)) < 0)
		return fail(c, rc);
	for (size_t i = 0; mem_rec && i < nmem; i++)
		if ((rc = output(c, &mem_rec[i])) < 0)
			return fail(c, rc);
	return 1;
}

int itrace_handler_chain_flush(struct itrace_handler_chain *c)
{
	int rc;

	if (!c)
		return -ITRACE_E_INVAL;
	if (!c->have_pend)
		return 0;
	c->have_pend = 0;
	rc = run_insn(c, &c->pend, c->pend_index, c->mem, c->nmem, c->o.output ? c->mem_rec : NULL);
	return rc < 0 ? rc : 0;
}

static int hold_mem(struct itrace_handler_chain *c, const struct itrace_record *rec)
{
	if (c->nmem == c->mem_cap) {
		size_t cap = c->mem_cap ? 2 * c->mem_cap : 8;
		struct itrace_record *r = realloc(c->mem_rec, cap * sizeof(*r));
		struct itrace_mem *m;

		if (!r)
			return -ITRACE_E_NOMEM;
		c->mem_rec = r;
		m = realloc(c->mem, cap * sizeof(*m));
		if (!m)
			return -ITRACE_E_NOMEM;
		c->mem = m;
		c->mem_cap = cap;
	}
	/* the records themselves only when they are written */
	if (c->o.output)
		c->mem_rec[c->nmem] = *rec;
	c->mem[c->nmem] = rec->u.mem;
	c->nmem++;
	return 0;
}

/* dispatch - one record that is not an instruction through the chain. */
static int dispatch(struct itrace_handler_chain *c, const struct itrace_record *rec, uint64_t index)
{
	int rc;

	for (size_t i = 0; i < c->nh; i++) {
		struct handler *h = &c->h[i];
		itrace_handler_record_fn fn = record_callback(&h->t, rec->type);

		if (!fn)
			continue;
		c->cur_index = index;
		c->cur_name = h->name;
		rc = fn(h->data, rec, &h->ctx);
		c->cur_name = NULL;
		if ((rc = verdict(c, h, callback_name(rec->type), index, rc)) <= 0)
			return rc < 0 ? fail(c, rc) : 0;
	}
	if ((rc = output(c, rec)) < 0)
		return fail(c, rc);
	return 0;
}

/* record_one - itrace_handler_chain_record() on a running chain: inlined
 * into itrace_handler_chain_run()'s loop, where the per-record call is a
 * tenth of the cost of a handler that does nothing. */
static inline __attribute__((always_inline)) int record_one(struct itrace_handler_chain *c,
							   const struct itrace_record *rec)
{
	uint64_t index;
	int rc;

	index = c->records++;
	if (!c->hold) {
		/* the fast path: instructions go through at once, and their
		 * MEM records follow the verdict */
		if (rec->type == ITRACE_REC_INSN) {
			rc = run_insn(c, rec, index, NULL, 0, NULL);
			c->dropping = rc == 0;
			return rc < 0 ? rc : 0;
		}
		if (rec->type == ITRACE_REC_MEM) {
			if (c->dropping)
				return 0;
			return (rc = output(c, rec)) < 0 ? fail(c, rc) : 0;
		}
		c->dropping = 0;
	}
	if (rec->type == ITRACE_REC_MEM && c->have_pend)
		return hold_mem(c, rec) < 0 ? fail(c, -ITRACE_E_NOMEM) : 0;
	if ((rc = itrace_handler_chain_flush(c)) < 0)
		return rc;
	/* the image follows the records that change it (itrace_image_apply) */
	rc = rec->type == ITRACE_REC_MMAP || rec->type == ITRACE_REC_CODE ||
	     rec->type == ITRACE_REC_PROCESS ? itrace_image_apply(c->img, rec) : 0;
	/* a mapping the image refuses (an empty range) only costs its symbols */
	if (rc < 0 && rc != -ITRACE_E_INVAL) {
		chain_error(c, "record %llu: %s", (unsigned long long)index, itrace_errstr(rc));
		return fail(c, rc);
	}
	if (rec->type == ITRACE_REC_INSN && c->hold) {
		/* the common fields and the instruction, not the whole union:
		 * this copy is most of what a chain costs per instruction */
		memcpy(&c->pend, rec, offsetof(struct itrace_record, u) + sizeof(rec->u.insn));
		c->pend_index = index;
		c->nmem = 0;
		c->have_pend = 1;
		return 0;
	}
	return dispatch(c, rec, index);
}

int itrace_handler_chain_record(struct itrace_handler_chain *c, const struct itrace_record *rec)
{
	if (!c || !rec)
		return -ITRACE_E_INVAL;
	if (!c->img || c->stopped || c->failed)
		return -ITRACE_E_STATE;
	return record_one(c, rec);
}

int itrace_handler_chain_run(struct itrace_handler_chain *c, struct itrace_reader *r,
			     uint64_t first, uint64_t end, int *damage)
{
	struct itrace_record rec;
	uint64_t chunk = first;
	int rc;

	if (!c || !r || !damage || (end && end <= first))
		return -ITRACE_E_INVAL;
	if (!c->img || c->stopped || c->failed)
		return -ITRACE_E_STATE;
	*damage = 0;
	if (end && (rc = itrace_reader_seek_chunk(r, first)) < 0) {
		chain_error(c, "cannot seek to chunk %llu: %s", (unsigned long long)first,
			    itrace_errstr(rc));
		return fail(c, rc);
	}
	for (;;) {
		/* (two calls rather than a pointer: the whole trace is the
		 * common case, and a direct call is cheaper) */
		if (!end)
			rc = itrace_reader_next(r, &rec, sizeof(rec));
		else
			rc = itrace_reader_next_in_chunk(r, &rec, sizeof(rec));
		if (__builtin_expect(rc == 0, 1)) {
			if ((rc = record_one(c, &rec)) < 0)
				return rc;
			continue;
		}
		if (rc == ITRACE_CHUNK_END) {
			if (++chunk == end)
				return 0;
			continue;
		}
		if (rc == ITRACE_EOF)
			return 0;
		if (!*damage)
			*damage = rc;
		if (rc != -ITRACE_E_CORRUPT)
			return 0; /* the reader resynchronises after a corrupt chunk only */
	}
}

int itrace_handler_chain_start(struct itrace_handler_chain *c, const struct itrace_header *h,
			       const struct itrace_meta *meta, size_t meta_count)
{
	struct itrace_image_options io;
	int rc;

	if (!c || !h)
		return -ITRACE_E_INVAL;
	if (c->img)
		return -ITRACE_E_STATE;
	c->header = *h;
	c->meta = meta;
	c->meta_count = meta_count;
	itrace_image_options_init(&io);
	io.sysroot = c->sysroot;
	io.debug_dir = c->debug_dir;
	if ((rc = itrace_image_alloc(&io, &c->img)) < 0 ||
	    (rc = itrace_symbolizer_alloc(c->img, &c->sym)) < 0)
		return fail(c, rc);
	for (size_t i = 0; i < c->nh; i++)
		if (c->h[i].t.flags & ITRACE_HANDLER_MEM)
			c->hold = 1;
	for (size_t i = 0; i < c->nh; i++)
		if ((c->h[i].t.flags & ITRACE_HANDLER_DECODE) && !c->dec &&
		    (rc = itrace_decoder_alloc(h->machine, h->target_endian, &c->dec)) < 0) {
			chain_error(c, "handler '%s' asks for decoded instructions: %s", c->h[i].name,
				    itrace_errstr(rc));
			return fail(c, rc);
		}
	for (size_t i = 0; i < c->nh; i++) {
		struct handler *hd = &c->h[i];

		if (!hd->t.start) {
			hd->started = 1;
			continue;
		}
		c->cur_index = 0;
		c->cur_name = hd->name;
		c->error[0] = '\0';
		rc = hd->t.start(&hd->ctx, hd->args, &hd->data);
		c->cur_name = NULL;
		if (rc < 0) {
			/* a stream it could not open has said why already */
			if (hd->ctx.error[0] || !c->error[0])
				chain_error(c, "handler '%s': start failed: %s", hd->name,
					    hd->ctx.error[0] ? hd->ctx.error : itrace_errstr(rc));
			return fail(c, rc);
		}
		if (rc != 0) {
			chain_error(c, "handler '%s': start returned %d, not 0 or a negative error",
				    hd->name, rc);
			return fail(c, -ITRACE_E_INVAL);
		}
		hd->started = 1;
	}
	return 0;
}

static int publish(struct itrace_handler_chain *c)
{
	for (size_t i = 0; i < c->ns; i++) {
		struct stream *s = &c->s[i];
		int bad, e;

		if (!s->of) {
			FILE *fp = c->o.stdout_stream ? c->o.stdout_stream : stdout;

			if (fflush(fp) != 0) {
				chain_error(c, "cannot write to stdout: %s", strerror(errno));
				return -ITRACE_E_IO;
			}
			continue;
		}
		bad = fflush(s->fp) != 0 || ferror(s->fp);
		e = errno;
		if (fclose(s->fp) != 0 && !bad) {
			bad = 1;
			e = errno;
		}
		s->fp = NULL;
		if (bad || itrace_outfile_commit(s->of) < 0) {
			if (!bad)
				e = errno;
			if (bad)
				itrace_outfile_discard(s->of);
			s->of = NULL;
			chain_error(c, "cannot write stream '%s': %s", s->path, strerror(e ? e : EIO));
			errno = e;
			return -ITRACE_E_IO;
		}
		s->of = NULL;
	}
	return 0;
}

int itrace_handler_chain_stop(struct itrace_handler_chain *c)
{
	int rc, first = 0;

	if (!c)
		return -ITRACE_E_INVAL;
	if (!c->img || c->stopped || c->failed)
		return -ITRACE_E_STATE;
	if ((first = itrace_handler_chain_flush(c)) < 0)
		return first;
	c->stopped = 1;
	for (size_t i = 0; i < c->nh; i++) {
		struct handler *h = &c->h[i];

		if (!h->started || !h->t.stop)
			continue;
		c->cur_index = c->records;
		c->cur_name = h->name;
		rc = h->t.stop(h->data, &h->ctx);
		c->cur_name = NULL;
		if (rc != 0 && !first) {
			first = rc < 0 ? rc : -ITRACE_E_INVAL;
			if (rc < 0)
				chain_error(c, "handler '%s': stop failed: %s", h->name,
					    h->ctx.error[0] ? h->ctx.error : itrace_errstr(rc));
			else
				chain_error(c, "handler '%s': stop returned %d, not 0 or a negative error",
					    h->name, rc);
		}
	}
	if (first < 0)
		return fail(c, first);
	return (rc = publish(c)) < 0 ? fail(c, rc) : 0;
}

uint64_t itrace_handler_chain_records(const struct itrace_handler_chain *c)
{
	return c ? c->records : 0;
}

const char *itrace_handler_chain_error(const struct itrace_handler_chain *c)
{
	return c ? c->error : "";
}

const char *itrace_handler_chain_fault(struct itrace_handler_chain *c, uint64_t *index)
{
	if (!c)
		return NULL;
	for (size_t i = 0; i < c->ns; i++) {
		const char *tmp = c->s[i].of ? itrace_outfile_temp(c->s[i].of) : NULL;

		if (tmp)
			unlink(tmp);
	}
	if (index)
		*index = c->cur_index;
	return c->cur_name;
}
