/*
 * qtrace_read - the baseline of bench/qtrace_conv.sh: read every record of
 * an itrace file with libitrace's reader and do nothing with it, the way
 * qtrace-conv reads its input.  Prints the number of instructions.
 */
#include <stdio.h>

#include "itrace.h"

int main(int argc, char **argv)
{
	struct itrace_reader *r;
	struct itrace_record rec;
	unsigned long long insns = 0;
	int rc;

	if (argc != 2) {
		fprintf(stderr, "usage: qtrace_read TRACE.itr\n");
		return 2;
	}
	rc = itrace_reader_open(argv[1], &r);
	if (rc < 0) {
		fprintf(stderr, "qtrace_read: cannot read '%s': %s\n", argv[1], itrace_errstr(rc));
		return 1;
	}
	while ((rc = itrace_reader_next(r, &rec, sizeof(rec))) == 0)
		insns += rec.type == ITRACE_REC_INSN;
	itrace_reader_close(r);
	printf("%llu\n", insns);
	return rc < 0;
}
