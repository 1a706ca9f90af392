/*
 * func_count.c - instructions and calls per function, as callgrind counts
 * them (--skip-plt=no): a handler (itrace_handler.h) that feeds every
 * record to libitrace-code's analysis (itrace_code.h section 9: calls are
 * reconstructed from the executed instructions, self instructions charged
 * to the activation that runs them) and prints its function table at stop.
 *
 *   cc -shared -fPIC -o func_count.so func_count.c $(pkg-config --cflags itrace-code)
 *   itrace-run ./func_count.so[:STREAM] trace.itr
 *
 * One line per function that ran, sorted by address, to the stream STREAM
 * (default "func_count"; "-" for standard output):
 *   START END INSNS CALLS NAME      (hexadecimal run-time addresses, END
 *                                    exclusive; END = START without a size)
 * NAME is the analysis's function name: the symbolizer's choice among the
 * aliases of an address, or FILE+0xOFFSET for code without a symbol.
 * Symbols come from the driver's symbolizer
 * (itrace_handler_analysis_symbolize), so the handler needs no image of
 * its own and no call rules of its own.  Not shard-safe: the counts of a
 * function are totals over the whole trace.
 */
#include <itrace_handler.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

struct fc {
	struct itrace_analysis *a;
	FILE *out;
};

static int fc_start(struct itrace_handler_ctx *ctx, const char *args, void **data)
{
	const struct itrace_header *h = itrace_handler_header(ctx);
	struct itrace_analysis_options ao;
	struct fc *f = calloc(1, sizeof(*f));
	int rc;

	if (!f)
		return -ITRACE_E_NOMEM;
	if (!(f->out = itrace_handler_stream_open(ctx, *args ? args : "func_count"))) {
		free(f);
		return -ITRACE_E_IO;
	}
	itrace_analysis_options_init(&ao);
	ao.machine = h->machine;
	ao.endian = h->target_endian;
	/* the driver's symbols, described as for every itrace tool (code
	 * without a symbol too), so that the analysis's call rules see what
	 * they see in itrace-sqlite's export */
	ao.symbolize = itrace_handler_analysis_symbolize;
	ao.symbolize_ctx = ctx;
	if ((rc = itrace_analysis_alloc(&ao, &f->a)) < 0) {
		free(f);
		return rc;
	}
	*data = f;
	return 0;
}

static int fc_record(void *data, const struct itrace_record *rec, struct itrace_handler_ctx *ctx)
{
	struct fc *f = data;
	int rc = itrace_analysis_add(f->a, rec);

	(void)ctx;
	return rc < 0 ? rc : ITRACE_HANDLER_KEEP;
}

static int fc_insn(void *data, const struct itrace_handler_insn *in, struct itrace_handler_ctx *ctx)
{
	return fc_record(data, in->rec, ctx);
}

static int by_start(const void *x, const void *y)
{
	const struct itrace_analysis_function *a = *(const struct itrace_analysis_function *const *)x;
	const struct itrace_analysis_function *b = *(const struct itrace_analysis_function *const *)y;

	return a->start < b->start ? -1 : a->start > b->start;
}

static int fc_stop(void *data, struct itrace_handler_ctx *ctx)
{
	struct fc *f = data;
	const struct itrace_analysis_function **v;
	size_t n, k = 0;
	int rc = itrace_analysis_finish(f->a);

	(void)ctx;
	n = itrace_analysis_function_count(f->a);
	v = calloc(n ? n : 1, sizeof(*v));
	if (!v)
		rc = -ITRACE_E_NOMEM;
	for (size_t i = 0; rc == 0 && i < n; i++) {
		const struct itrace_analysis_function *fn = itrace_analysis_function_at(f->a, i);

		if (fn->name && fn->start && (fn->insns || fn->calls))
			v[k++] = fn;
	}
	if (rc == 0) {
		qsort(v, k, sizeof(*v), by_start);
		for (size_t i = 0; i < k; i++)
			fprintf(f->out, "%" PRIx64 " %" PRIx64 " %" PRIu64 " %" PRIu64 " %s\n", v[i]->start,
				v[i]->start + v[i]->size, v[i]->insns, v[i]->calls, v[i]->name);
	}
	free(v);
	itrace_analysis_free(f->a);
	free(f);
	return rc;
}

const struct itrace_handler itrace_handler = {
	.size = sizeof(struct itrace_handler),
	.abi = ITRACE_HANDLER_ABI,
	.name = "func_count",
	.start = fc_start,
	.stop = fc_stop,
	.insn = fc_insn,
	.branch = fc_record,
	.mmap = fc_record,
	.thread = fc_record,
	.process = fc_record,
	.signal = fc_record,
	.gap = fc_record,
	.lost = fc_record,
	.other = fc_record,
};
