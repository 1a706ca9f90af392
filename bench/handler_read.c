/*
 * handler_read - the baseline of bench/handler_speed.sh: a bare libitrace
 * read of every record of a trace (itrace_reader_next), counting them, as
 * a program without handlers reads a trace.
 */
#include <stdio.h>

#include "itrace.h"

int main(int argc, char **argv)
{
	struct itrace_reader *r;
	struct itrace_record rec;
	unsigned long long n = 0, insns = 0;
	int rc;

	if (argc != 2 || itrace_reader_open(argv[1], &r) < 0)
		return 1;
	while ((rc = itrace_reader_next(r, &rec, sizeof(rec))) == 0) {
		n++;
		insns += rec.type == ITRACE_REC_INSN;
	}
	itrace_reader_close(r);
	printf("%llu records, %llu instructions\n", n, insns);
	return rc == ITRACE_EOF ? 0 : 1;
}
