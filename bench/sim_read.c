/*
 * sim_read - the baseline of pipeline-sim's benchmark: read an itrace file
 * with libitrace and count its INSN and MEM records, nothing else.
 * usage: sim_read TRACE   (prints "INSNS MEMS")
 */
#include <stdio.h>

#include "itrace.h"

int main(int argc, char **argv)
{
	struct itrace_reader *r;
	struct itrace_record rec;
	unsigned long long insns = 0, mems = 0;
	int rc;

	if (argc != 2) {
		fprintf(stderr, "usage: sim_read TRACE\n");
		return 2;
	}
	rc = itrace_reader_open(argv[1], &r);
	if (rc < 0) {
		fprintf(stderr, "sim_read: cannot open '%s': %s\n", argv[1], itrace_errstr(rc));
		return 1;
	}
	while ((rc = itrace_reader_next(r, &rec, sizeof(rec))) == 0) {
		insns += rec.type == ITRACE_REC_INSN;
		mems += rec.type == ITRACE_REC_MEM;
	}
	itrace_reader_close(r);
	printf("%llu %llu\n", insns, mems);
	return rc < 0;
}
