/*
 * fill_run.c - the filler's public API: options, the sequential driver over
 * a reader, and the parallel driver (chunks filled by worker threads with
 * their own readers, stitched in chunk order).
 */
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fill_int.h"
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

int itrace_fill_output_writer(void *arg, const struct itrace_record *rec)
{
	struct itrace_writer *w = arg;

	if (rec->type == ITRACE_REC_INSN)
		return itrace_write_insn(w, rec->u.insn.addr, rec->u.insn.len,
					 rec->u.insn.has_bytes ? rec->u.insn.bytes : NULL);
	return itrace_writer_write(w, rec);
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

/* GAP for damage of the input at the thread the output is on. */
/* GAP for damage that ends the input, where the current thread was. */
static int report_damage(struct fill_ctx *c, struct itrace_filler *f, struct itrace_reader *r)
{
	struct itrace_record rec;

	snprintf(f->err, sizeof(f->err), "%s", itrace_reader_error(r));
	memset(&rec, 0, sizeof(rec));
	rec.type = ITRACE_REC_GAP;
	rec.tid = c->out_known ? c->out_tid : 0;
	rec.pid = c->out_known ? c->out_pid : 0;
	rec.u.gap.reason = ITRACE_GAP_CORRUPT_CHUNK;
	rec.u.gap.addr = rec.tid ? fill_thread_position(c, rec.tid) : 0;
	c->st->gaps++;
	if (!c->st->gap_reason[ITRACE_GAP_CORRUPT_CHUNK])
		c->st->first_gap_addr[ITRACE_GAP_CORRUPT_CHUNK] = rec.u.gap.addr;
	c->st->gap_reason[ITRACE_GAP_CORRUPT_CHUNK]++;
	return fill_emit_record(c, &rec);
}

static void progress(const struct itrace_fill_options *o, uint64_t n)
{
	if (o->progress && (n & 0xffff) == 0)
		o->progress(o->progress_arg, n);
}

/*
 * Fill everything `r` delivers.  Corrupt chunks are passed over (the
 * reader resynchronises and delivers a GAP); other damage ends the input.
 * Returns 0, the damage code, or a negative error.
 */
int fill_sequential(struct itrace_filler *f, struct fill_ctx *c, struct itrace_reader *r)
{
	struct itrace_record rec;
	uint64_t chunk = UINT64_MAX;
	int damage = 0;

	for (;;) {
		int rc = itrace_reader_next(r, &rec);

		if (rc == 0 && rec.chunk != chunk) {
			chunk = rec.chunk;
			if ((rc = fill_chunk_start(c)) < 0)
				return rc;
		}

		if (rc == ITRACE_EOF)
			break;
		if (rc == -ITRACE_E_CORRUPT) {
			snprintf(f->err, sizeof(f->err), "%s", itrace_reader_error(r));
			damage = rc;
			fill_forget_positions(c);
			continue;
		}
		if (rc == -ITRACE_E_NOFOOTER) {
			snprintf(f->err, sizeof(f->err), "%s", itrace_reader_error(r));
			damage = damage ? damage : rc;
			break;
		}
		if (rc < 0) {
			int rc2 = report_damage(c, f, r);

			return rc2 < 0 ? rc2 : rc;
		}
		rc = fill_record(c, &rec);
		if (rc < 0) {
			if (!f->err[0])
				snprintf(f->err, sizeof(f->err), "%s", itrace_errstr(rc));
			return rc;
		}
		progress(&f->opts, c->st->records_in);
	}
	{
		int rc = fill_finish(c);

		if (rc < 0)
			return rc;
	}
	return damage;
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
	if (f->opts.jobs > 1 && path) {
		struct fill_par_args a = { &f->opts, out, out_arg, &f->st, f->gap_module, { 0 } };

		rc = fill_parallel(f, r, path, &a);
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
	c.out = out;
	c.out_arg = out_arg;
	c.gap_module = f->gap_module;
	rc = fill_sequential(f, &c, r);
	fill_ctx_fini(&c);
	return finish_error(f, rc);
}

const char *itrace_filler_gap_module(const struct itrace_filler *f, int reason)
{
	if (!f || reason <= 0 || reason >= 16 || !f->gap_module[reason][0])
		return NULL;
	return f->gap_module[reason];
}
