/*
 * fill_run.c - the filler's public API: options, and itrace_filler_run(),
 * which picks the driver: parallel (fill_par.c) when the input is a file of
 * several chunks and more than one job is asked for, else sequential
 * (fill_serial.c).  Output goes through a sink (fill_sink.c).
 */
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fill_int.h"
#include "fill_sink.h"
#include "itrace_format.h"

struct itrace_filler {
	struct itrace_fill_options opts;
	char *sysroot, *debug_dir;
	struct itrace_fill_stats st;
	char err[512];
	char gap_module[16][256];
};

void itrace_fill_options_init(struct itrace_fill_options *o)
{
	memset(o, 0, sizeof(*o));
	o->size = sizeof(*o);
	o->jobs = 1;
	o->max_walk = 1u << 20;
}

int itrace_fill_writer_options(const struct itrace_reader *r, unsigned fill_flags,
			       struct itrace_writer_options *wo, struct itrace_meta *meta,
			       size_t meta_cap)
{
	const struct itrace_header *h;
	size_t n = 0;

	if (!r || !wo || (!meta && meta_cap))
		return -ITRACE_E_INVAL;
	h = itrace_reader_header(r);
	itrace_writer_options_init(wo);
	wo->machine = h->machine;
	wo->target_endian = h->target_endian;
	wo->level = ITRACE_LEVEL_INSN;
	wo->flags = (h->flags & ~(uint32_t)ITRACE_FF_TAKEN_ONLY) | ITRACE_FF_FILLED;
	if (fill_flags & ITRACE_FILL_BYTES)
		wo->flags |= ITRACE_FF_INSN_BYTES;
	else
		wo->flags &= ~(uint32_t)ITRACE_FF_INSN_BYTES;
	if (h->meta_count > meta_cap)
		return -ITRACE_E_INVAL;
	for (size_t i = 0; i < h->meta_count; i++) {
		const char *k, *v;

		if (itrace_reader_meta_at(r, i, &k, &v) == 0) {
			meta[n].key = k;
			meta[n].value = v;
			n++;
		}
	}
	wo->meta = meta;
	wo->meta_count = n;
	return 0;
}

int itrace_filler_alloc(const struct itrace_fill_options *o, struct itrace_filler **fp)
{
	struct itrace_filler *f;

	if (!fp)
		return -ITRACE_E_INVAL;
	*fp = NULL;
	f = calloc(1, sizeof(*f));
	if (!f)
		return -ITRACE_E_NOMEM;
	itrace_fill_options_init(&f->opts);
	if (o) {
		size_t n = o->size && o->size < sizeof(f->opts) ? o->size : sizeof(f->opts);

		memcpy(&f->opts, o, n);
		f->opts.size = sizeof(f->opts);
	}
	if (f->opts.jobs == 0 || f->opts.jobs > 256 || f->opts.max_walk == 0) {
		free(f);
		return -ITRACE_E_INVAL;
	}
	f->sysroot = f->opts.sysroot ? strdup(f->opts.sysroot) : NULL;
	f->debug_dir = f->opts.debug_dir ? strdup(f->opts.debug_dir) : NULL;
	if ((f->opts.sysroot && !f->sysroot) || (f->opts.debug_dir && !f->debug_dir)) {
		itrace_filler_free(f);
		return -ITRACE_E_NOMEM;
	}
	f->opts.sysroot = f->sysroot;
	f->opts.debug_dir = f->debug_dir;
	*fp = f;
	return 0;
}

void itrace_filler_free(struct itrace_filler *f)
{
	if (!f)
		return;
	free(f->sysroot);
	free(f->debug_dir);
	free(f);
}

const struct itrace_fill_stats *itrace_filler_stats(const struct itrace_filler *f)
{
	return &f->st;
}

const char *itrace_filler_error(const struct itrace_filler *f)
{
	return f->err;
}

static int check_input(struct itrace_filler *f, const struct itrace_header *h)
{
	if (h->level != ITRACE_LEVEL_BRANCH) {
		snprintf(f->err, sizeof(f->err), "input is not a branch-level trace (level %u)",
			 h->level);
		return -ITRACE_E_NOTSUP;
	}
	return 0;
}

/* Name errors that did not come with a message. */
static int finish_error(struct itrace_filler *f, int rc)
{
	if (rc < 0 && !f->err[0])
		snprintf(f->err, sizeof(f->err), "%s", itrace_errstr(rc));
	return rc;
}

int itrace_filler_run(struct itrace_filler *f, struct itrace_reader *r, const char *path,
		      itrace_fill_output_fn out, void *out_arg)
{
	const struct itrace_header *h;
	struct fill_sink sink;
	struct fill_ctx c;
	int rc;

	if (!f || !r || !out)
		return -ITRACE_E_INVAL;
	memset(&f->st, 0, sizeof(f->st));
	memset(f->gap_module, 0, sizeof(f->gap_module));
	f->err[0] = 0;
	h = itrace_reader_header(r);
	rc = check_input(f, h);
	if (rc < 0)
		return rc;
	fill_sink_output(&sink, out, out_arg, !!(f->opts.flags & ITRACE_FILL_BYTES));
	if (f->opts.jobs > 1 && path) {
		struct fill_par_args a = {
			&f->opts, &sink, &f->st, f->gap_module, f->err, sizeof(f->err), { 0 },
		};

		rc = fill_parallel(r, path, &a);
		if (rc != -ITRACE_E_NOTSUP)
			return finish_error(f, rc);
		memset(&f->st, 0, sizeof(f->st)); /* not parallelisable: do it here */
	}
	rc = fill_ctx_init(&c, &f->opts, h, &f->st);
	if (rc < 0) {
		snprintf(f->err, sizeof(f->err), "cannot decode machine %u: %s", h->machine,
			 itrace_errstr(rc));
		return rc;
	}
	c.sink = &sink;
	c.gap_module = f->gap_module;
	rc = fill_sequential(&f->opts, f->err, sizeof(f->err), &c, r);
	fill_ctx_fini(&c);
	return finish_error(f, rc);
}

const char *itrace_filler_gap_module(const struct itrace_filler *f, int reason)
{
	if (!f || reason <= 0 || reason >= 16 || !f->gap_module[reason][0])
		return NULL;
	return f->gap_module[reason];
}
