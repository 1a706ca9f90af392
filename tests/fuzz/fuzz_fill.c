/*
 * fuzz_fill.c - libFuzzer target: any bytes as a branch-level trace through
 * the filler.  The corpus traces carry their code in CODE records, so the
 * walk runs without files; mutations exercise the reader's damage paths,
 * the thread state machine and the walk over arbitrary code bytes.
 */
#include <stddef.h>
#include <stdint.h>

#include "itrace.h"
#include "itrace_code.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int discard(void *arg, const struct itrace_record *rec)
{
	(void)arg;
	(void)rec;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct itrace_fill_options o;
	struct itrace_filler *f;
	struct itrace_reader *r;

	if (itrace_reader_open_mem(data, size, &r) < 0)
		return 0;
	itrace_fill_options_init(&o);
	o.max_walk = 4096; /* keep runaway walks short */
	o.flags = ITRACE_FILL_BYTES;
	if (itrace_filler_alloc(&o, &f) == 0) {
		itrace_filler_run(f, r, NULL, discard, NULL);
		itrace_filler_free(f);
	}
	itrace_reader_close(r);
	return 0;
}
