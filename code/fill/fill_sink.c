/*
 * fill_sink.c - the filler's two serial outputs: a writer (the fast path:
 * instructions go straight into the encoder, blocks as one run) and any
 * other itrace_fill_output_fn (every instruction as an INSN record).
 */
#include <string.h>

#include "fill_int.h"
#include "fill_sink.h"

int itrace_fill_output_writer(void *arg, const struct itrace_record *rec)
{
	struct itrace_writer *w = arg;

	if (rec->type == ITRACE_REC_INSN)
		return itrace_writer_insn(w, rec->u.insn.addr, rec->u.insn.len,
					 rec->u.insn.has_bytes ? rec->u.insn.bytes : NULL);
	return itrace_writer_write(w, rec);
}

/* ---- Writer ---------------------------------------------------------- */

static int writer_record(struct fill_sink *s, const struct itrace_record *rec)
{
	return itrace_fill_output_writer(s->writer, rec);
}

static int writer_insn(struct fill_sink *s, uint64_t addr, unsigned len, const uint8_t *bytes)
{
	return itrace_writer_insn(s->writer, addr, len, bytes);
}

/* The hot loop of a fill into a file: a block is one run of lengths the
 * decoder has already checked. */
static int writer_block(struct fill_sink *s, uint64_t addr, const struct fill_block *b, uint32_t n,
			int with_bytes, int stable)
{
	const uint8_t *p = b->bytes;
	int rc;

	(void)stable;
	if (!with_bytes)
		return writer_insns_valid(s->writer, addr, n, b->lens,
					  n == b->ninsn ? b->nbytes : itrace_lens_total(b->lens, n));
	for (uint32_t i = 0; i < n; i++) {
		unsigned len = b->lens[i];

		if ((rc = itrace_writer_insn(s->writer, addr, len, p)) < 0)
			return rc;
		addr += len;
		p += len;
	}
	return 0;
}

/*
 * An input chunk's output starts a chunk of its own when the output is a
 * writer: a parallel worker encodes each input chunk's output separately
 * (fill_par.c), and -j 1 must give the same bytes.
 */
static int writer_chunk_end(struct fill_sink *s)
{
	return writer_end_chunk(s->writer);
}

static const struct fill_sink_ops writer_ops = {
	writer_record, writer_insn, writer_block, writer_chunk_end,
};

void fill_sink_writer(struct fill_sink *s, struct itrace_writer *w)
{
	memset(s, 0, sizeof(*s));
	s->ops = &writer_ops;
	s->writer = w;
}

/* ---- Caller's function ----------------------------------------------- */

static int fn_record(struct fill_sink *s, const struct itrace_record *rec)
{
	return s->fn(s->fn_arg, rec);
}

static int fn_insn(struct fill_sink *s, uint64_t addr, unsigned len, const uint8_t *bytes)
{
	struct itrace_insn *in = &s->insn.u.insn;

	in->addr = addr;
	in->len = (uint8_t)len;
	if (bytes)
		memcpy(in->bytes, bytes, len);
	return s->fn(s->fn_arg, &s->insn);
}

static int fn_block(struct fill_sink *s, uint64_t addr, const struct fill_block *b, uint32_t n,
		    int with_bytes, int stable)
{
	const uint8_t *p = b->bytes;
	int rc;

	(void)stable;
	for (uint32_t i = 0; i < n; i++) {
		unsigned len = b->lens[i];

		if ((rc = fn_insn(s, addr, len, with_bytes ? p : NULL)) < 0)
			return rc;
		addr += len;
		p += len;
	}
	return 0;
}

static const struct fill_sink_ops fn_ops = { fn_record, fn_insn, fn_block, NULL };

void fill_sink_output(struct fill_sink *s, itrace_fill_output_fn out, void *out_arg, int with_bytes)
{
	if (out == itrace_fill_output_writer) {
		fill_sink_writer(s, out_arg);
		return;
	}
	memset(s, 0, sizeof(*s));
	s->ops = &fn_ops;
	s->fn = out;
	s->fn_arg = out_arg;
	s->insn.type = ITRACE_REC_INSN;
	s->insn.u.insn.has_bytes = (uint8_t)with_bytes;
}
