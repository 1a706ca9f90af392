/*
 * fuzz_reader.c - libFuzzer target: any bytes as an itrace file.  The
 * reader must never crash, hang or over-read; it reads the records, then
 * tries chunks through the index.  The work per input is bounded (256
 * records, then 16 from each of 8 chunks: a 4 KB input can hold a chunk
 * of millions of repeat records), so that the fuzzer runs many thousands
 * of inputs per second; the corpus keeps inputs short.
 */
#include <stdint.h>
#include <stddef.h>

#include "itrace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct itrace_reader *r;
	struct itrace_record rec;
	struct itrace_footer f;
	int64_t chunks;
	int rc, guard = 0;

	if (itrace_reader_open_mem(data, size, &r) < 0)
		return 0;
	itrace_reader_meta(r, "cmdline");
	while ((rc = itrace_reader_next(r, &rec, sizeof(rec))) != ITRACE_EOF && guard++ < 256)
		(void)itrace_reader_error(r);
	itrace_reader_footer(r, &f);
	chunks = itrace_reader_chunk_count(r);
	for (int64_t k = 0; k < chunks && k < 8; k++) {
		if (itrace_reader_seek_chunk(r, (uint64_t)k) < 0)
			continue;
		for (int i = 0; i < 16 && itrace_reader_next(r, &rec, sizeof(rec)) == 0; i++)
			;
	}
	itrace_reader_close(r);
	return 0;
}
