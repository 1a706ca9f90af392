/*
 * fill_serial.c - the sequential driver: every record a reader delivers,
 * in order, through one fill context.  Corrupt chunks are passed over
 * with a GAP, other damage ends the input with one (format/ITRACE.md,
 * section 8, "Reader obligations for damaged files").
 */
#include <stdio.h>
#include <string.h>

#include "fill_int.h"

/* GAP for damage that ends the input, where the current thread was. */
static int report_damage(struct fill_ctx *c, char *err, size_t errlen, struct itrace_reader *r)
{
	struct itrace_record rec;

	snprintf(err, errlen, "%s", itrace_reader_error(r));
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
int fill_sequential(const struct itrace_fill_options *o, char *err, size_t errlen,
		    struct fill_ctx *c, struct itrace_reader *r)
{
	struct itrace_record rec;
	uint64_t chunk = UINT64_MAX;
	int damage = 0;

	for (;;) {
		int rc = itrace_reader_next(r, &rec, sizeof(rec));

		if (rc == 0 && rec.chunk != chunk) {
			chunk = rec.chunk;
			if ((rc = fill_chunk_start(c)) < 0)
				return rc;
		}

		if (rc == ITRACE_EOF)
			break;
		if (rc == -ITRACE_E_CORRUPT) {
			snprintf(err, errlen, "%s", itrace_reader_error(r));
			damage = rc;
			fill_forget_positions(c);
			continue;
		}
		if (rc == -ITRACE_E_NOFOOTER) {
			snprintf(err, errlen, "%s", itrace_reader_error(r));
			damage = damage ? damage : rc;
			break;
		}
		if (rc < 0) {
			int rc2 = report_damage(c, err, errlen, r);

			return rc2 < 0 ? rc2 : rc;
		}
		rc = fill_record(c, &rec);
		if (rc < 0) {
			if (!err[0])
				snprintf(err, errlen, "%s", itrace_errstr(rc));
			return rc;
		}
		progress(o, c->st->records_in);
	}
	{
		int rc = fill_finish(c);

		if (rc < 0)
			return rc;
	}
	return damage;
}

