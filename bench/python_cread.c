/*
 * python_cread.c - the C side of bench/python_speed.sh.
 *
 *   python-cread gen OUT N     write a synthetic instruction trace of N
 *                              records: INSN, with a MEM after every third
 *                              (addresses cycling through 1000 distinct
 *                              instructions, so that one address is 0.1%
 *                              of the INSN records)
 *   python-cread read FILE     the C reader's speed: every record through
 *                              itrace_reader_next, the addresses of INSN
 *                              and MEM records summed (the work the Python
 *                              batches do); prints "RECORDS SECONDS SUM"
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "itrace.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int gen(const char *out, unsigned long long n)
{
	struct itrace_writer_options o;
	struct itrace_writer *w;
	struct itrace_record rec;
	unsigned long long i, k = 0;

	itrace_writer_options_init(&o);
	if (itrace_writer_open(out, &o, &w) < 0)
		return 1;
	memset(&rec, 0, sizeof(rec));
	rec.tid = rec.pid = 4242;
	for (i = 0; i < n; i++) {
		if (i % 4 == 3) {
			rec.type = ITRACE_REC_MEM;
			rec.u.mem.addr = 0x7ff000000000ull + (k * 8) % (1u << 20);
			rec.u.mem.size = 8;
			rec.u.mem.flags = k & 1;
		} else {
			rec.type = ITRACE_REC_INSN;
			rec.u.insn.addr = 0x401000 + (k % 1000) * 4;
			rec.u.insn.len = 4;
			rec.u.insn.has_bytes = 0;
			k++;
		}
		if (itrace_writer_write(w, &rec) < 0)
			return 1;
	}
	return itrace_writer_close(w, ITRACE_END_COMPLETE, 0) < 0;
}

static int read_all(const char *path)
{
	struct itrace_reader *r;
	struct itrace_record rec;
	unsigned long long n = 0, sum = 0;
	int rc;

	if (itrace_reader_open(path, &r) < 0)
		return 1;
	double t0 = now();
	while ((rc = itrace_reader_next(r, &rec, sizeof(rec))) == 0) {
		n++;
		if (rec.type == ITRACE_REC_INSN)
			sum += rec.u.insn.addr;
		else if (rec.type == ITRACE_REC_MEM)
			sum += rec.u.mem.addr;
	}
	double t1 = now();
	itrace_reader_close(r);
	printf("%llu %.6f %llu\n", n, t1 - t0, sum);
	return rc != ITRACE_EOF;
}

int main(int argc, char **argv)
{
	if (argc == 4 && strcmp(argv[1], "gen") == 0)
		return gen(argv[2], strtoull(argv[3], NULL, 10));
	if (argc == 3 && strcmp(argv[1], "read") == 0)
		return read_all(argv[2]);
	fprintf(stderr, "usage: python-cread gen OUT N | read FILE\n");
	return 2;
}
