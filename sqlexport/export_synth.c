/*
 * export_synth.c - write a synthetic instruction-level trace for the
 * exporters' tests and benchmark (test helper, not installed).
 *
 *   export-synth OUT ITERATIONS [FLUSH_EVERY]
 *
 * FLUSH_EVERY ends a chunk every that many iterations, so that damage
 * tests can cut the file inside a later chunk and keep the earlier ones.
 * With the environment variable EXPORT_SYNTH_LOST set, a LOST record of
 * 7 branches (a collector's buffer overflow) follows the first half.
 * The trace is one thread running ITERATIONS times a loop that calls a
 * function with an inner loop of three, using real x86-64 encodings
 * carried in the INSN records (so no binary is needed to decode it):
 *
 *   0x401000: call 0x402000        e8 fb 0f 00 00
 *   0x401005: jmp  0x401000        eb f9
 *   0x402000: mov  $3, %eax        b8 03 00 00 00
 *   0x402005: dec  %eax            ff c8
 *   0x402007: jne  0x402005        75 fc
 *   0x402009: ret                  c3
 *
 * Per iteration: 10 instructions, 6 branches (call, jne x3, ret, jmp),
 * 1 call; one final call instruction ends the trace (10n+1 instructions).
 * The counts the tests expect follow from ITERATIONS alone.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "itrace.h"
#include "itrace_format.h"

struct step {
	uint64_t addr;
	uint8_t len;
	uint8_t bytes[5];
};

static const struct step loop_body[] = {
	{0x401000, 5, {0xe8, 0xfb, 0x0f, 0x00, 0x00}},
	{0x402000, 5, {0xb8, 0x03, 0x00, 0x00, 0x00}},
	{0x402005, 2, {0xff, 0xc8}}, {0x402007, 2, {0x75, 0xfc}},
	{0x402005, 2, {0xff, 0xc8}}, {0x402007, 2, {0x75, 0xfc}},
	{0x402005, 2, {0xff, 0xc8}}, {0x402007, 2, {0x75, 0xfc}},
	{0x402009, 1, {0xc3}},
	{0x401005, 2, {0xeb, 0xf9}},
};

static int fail(const char *what, int rc)
{
	fprintf(stderr, "export-synth: %s: %s\n", what, itrace_errstr(rc));
	return 1;
}

int main(int argc, char **argv)
{
	struct itrace_writer_options o;
	struct itrace_writer *w;
	struct itrace_record rec;
	unsigned long long n, i, every = 0;
	size_t k;
	int rc;

	if (argc < 3 || argc > 4 || !(n = strtoull(argv[2], NULL, 0))) {
		fprintf(stderr, "usage: export-synth OUT ITERATIONS [FLUSH_EVERY]\n");
		return 2;
	}
	if (argc == 4)
		every = strtoull(argv[3], NULL, 0);
	itrace_writer_options_init(&o);
	o.flags = ITRACE_FF_INSN_BYTES;
	if ((rc = itrace_writer_open(argv[1], &o, &w)) < 0)
		return fail(argv[1], rc);
	memset(&rec, 0, sizeof(rec));
	rec.type = ITRACE_REC_THREAD;
	rec.u.thread.event = ITRACE_THREAD_SWITCH;
	rec.u.thread.tid = rec.u.thread.pid = 4242;
	if ((rc = itrace_writer_write(w, &rec)) < 0)
		return fail("thread", rc);
	for (i = 0; i < n; i++) {
		for (k = 0; k < sizeof(loop_body) / sizeof(*loop_body); k++)
			if ((rc = itrace_writer_insn(w, loop_body[k].addr, loop_body[k].len,
						    loop_body[k].bytes)) < 0)
				return fail("insn", rc);
		if (every && (i + 1) % every == 0 && (rc = itrace_writer_flush(w)) < 0)
			return fail("flush", rc);
		if (i == n / 2 && getenv("EXPORT_SYNTH_LOST")) {
			memset(&rec, 0, sizeof(rec));
			rec.type = ITRACE_REC_LOST;
			rec.u.lost.reason = ITRACE_LOST_OVERFLOW;
			rec.u.lost.unit = ITRACE_UNIT_BRANCHES;
			rec.u.lost.count = 7;
			if ((rc = itrace_writer_write(w, &rec)) < 0)
				return fail("lost", rc);
		}
	}
	/* end where the loop starts again, so the last jmp is judged taken */
	if ((rc = itrace_writer_insn(w, loop_body[0].addr, loop_body[0].len, loop_body[0].bytes)) < 0)
		return fail("insn", rc);
	if ((rc = itrace_writer_close(w, ITRACE_END_COMPLETE, 0)) < 0)
		return fail("close", rc);
	return 0;
}
