/*
 * analysis_run.c - itrace_analysis_run: one trace through the reader (and
 * the filler for a branch trace) into an image, a symbolizer on it and the
 * analysis (itrace_code.h, section 9).
 */
#include "analysis_int.h"
#include "itrace_code.h"

#include <stdbool.h>
#include <string.h>

struct run_ctx {
	struct itrace_analysis *a;
	struct itrace_image *img;
	struct itrace_symbolizer *sym;
	const struct itrace_analysis_run_options *ro;
	uint64_t records;
	/* analysis_add_unexecuted(): the function being swept, whose name and
	 * range need no symbol-table search (libdwfl's is linear per address) */
	const struct itrace_analysis_function *sweep;
};

/* sym_from_symbol - what the analysis takes of a symbolizer's answer. */
static int sym_from_symbol(const struct itrace_symbol *s, struct itrace_analysis_sym *out)
{
	out->start = s->addr;
	out->size = s->size;
	out->name = s->name;
	out->file = s->file;
	out->line = s->line > 0 ? (uint32_t)s->line : 0;
	out->plt = (uint8_t)s->plt;
	out->unwind = (uint8_t)s->unwind;
	return s->name || s->file || s->plt ? 0 : -ITRACE_E_NOENT;
}

int itrace_analysis_symbolize(void *ctx, uint32_t pid, uint64_t addr, const char *path,
			      uint64_t file_offset, struct itrace_analysis_sym *out)
{
	struct itrace_symbol s;

	(void)path, (void)file_offset;
	if (!ctx || !out)
		return -ITRACE_E_INVAL;
	/* unusable files (missing, stale build-id) leave the code unnamed */
	if (itrace_symbolizer_lookup(ctx, pid, addr, ITRACE_SYM_NAME | ITRACE_SYM_LINE, &s) < 0)
		return -ITRACE_E_NOENT;
	return sym_from_symbol(&s, out);
}

static int run_symbolize(void *ctx, uint32_t pid, uint64_t addr, const char *path,
			 uint64_t off, struct itrace_analysis_sym *out)
{
	struct run_ctx *rc = ctx;
	struct itrace_symbol s;

	if (!rc->sweep)
		return itrace_analysis_symbolize(rc->sym, pid, addr, path, off, out);
	if (itrace_symbolizer_lookup(rc->sym, pid, addr, ITRACE_SYM_LINE, &s) < 0)
		return -ITRACE_E_NOENT;
	s.addr = rc->sweep->start;
	s.size = rc->sweep->size;
	s.name = rc->sweep->name;
	return sym_from_symbol(&s, out);
}

/* run_feed - one record into the analysis, which feeds the image. */
static int run_feed(void *arg, const struct itrace_record *rec)
{
	struct run_ctx *c = arg;
	int rc = itrace_analysis_add(c->a, rec);

	if (rc < 0)
		return rc;
	if ((++c->records & 0xffff) == 0 && c->ro->progress)
		c->ro->progress(c->ro->progress_arg, c->records);
	return 0;
}

static bool is_damage(int rc)
{
	return rc == -ITRACE_E_TRUNCATED || rc == -ITRACE_E_CORRUPT || rc == -ITRACE_E_NOFOOTER;
}

/* Read (or fill) every record of r into the analysis; returns the first
 * damage code met, or another error. */
static int run_records(struct run_ctx *c, struct itrace_reader *r, const char *path)
{
	struct itrace_record rec;
	int rc, damage = 0;

	if (itrace_reader_header(r)->level == ITRACE_LEVEL_BRANCH) {
		struct itrace_fill_options fo;
		struct itrace_filler *f;

		itrace_fill_options_init(&fo);
		fo.sysroot = c->ro->sysroot;
		fo.debug_dir = c->ro->debug_dir;
		if ((rc = itrace_filler_alloc(&fo, &f)) < 0)
			return rc;
		rc = itrace_filler_run(f, r, path, run_feed, c);
		if (rc < 0)
			analysis_set_run_error(c->a, itrace_filler_error(f));
		itrace_filler_free(f);
		return rc;
	}
	for (;;) {
		rc = itrace_reader_next(r, &rec, sizeof(rec));
		if (rc == ITRACE_EOF)
			return damage;
		if (rc < 0) {
			if (!damage) {
				damage = rc;
				analysis_set_run_error(c->a, itrace_reader_error(r));
			}
			if (rc == -ITRACE_E_CORRUPT)
				continue; /* the reader resynchronises with a GAP */
			return rc;
		}
		if ((rc = run_feed(c, &rec)) < 0)
			return rc;
	}
}

void itrace_analysis_run_options_init(struct itrace_analysis_run_options *o)
{
	memset(o, 0, sizeof(*o));
	o->size = sizeof(*o);
}

int itrace_analysis_run(struct itrace_reader *r, const char *path,
			const struct itrace_analysis_options *aopts,
			const struct itrace_analysis_run_options *ropts,
			struct itrace_analysis **ap)
{
	struct itrace_analysis_options ao;
	struct itrace_image_options io;
	struct run_ctx c = {0};
	int rc, frc;

	if (!ap)
		return -ITRACE_E_INVAL;
	*ap = NULL;
	if (!r || !aopts || !ropts || ropts->size < sizeof(*ropts) || aopts->size < sizeof(ao))
		return -ITRACE_E_INVAL;
	ao = *aopts;
	ao.machine = itrace_reader_header(r)->machine;
	ao.endian = itrace_reader_header(r)->target_endian;
	ao.symbolize = run_symbolize;
	ao.symbolize_ctx = &c;
	c.ro = ropts;
	itrace_image_options_init(&io);
	io.sysroot = ropts->sysroot;
	io.debug_dir = ropts->debug_dir;
	if ((rc = itrace_image_alloc(&io, &c.img)) < 0)
		return rc;
	if ((rc = itrace_symbolizer_alloc(c.img, &c.sym)) < 0)
		goto out;
	if ((rc = analysis_alloc_on(&ao, c.img, &c.a)) < 0)
		goto out;
	rc = run_records(&c, r, path);
	if (rc < 0 && !is_damage(rc))
		goto out;
	frc = ropts->flags & ITRACE_RUN_ALL_FUNCTIONS ? analysis_add_module_functions(c.a, c.sym) : 0;
	if (frc == 0)
		frc = analysis_add_unexecuted(c.a, &c.sweep);
	if (frc < 0) {
		rc = frc;
		goto out;
	}
	frc = itrace_analysis_finish(c.a); /* the analysis lets go of the image */
	if (frc < 0) {
		rc = frc;
		goto out;
	}
	*ap = c.a;
	c.a = NULL;
out:
	itrace_analysis_free(c.a);
	itrace_symbolizer_free(c.sym);
	itrace_image_free(c.img);
	return rc;
}
