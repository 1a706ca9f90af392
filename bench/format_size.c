/*
 * format_size - bytes per branch and per instruction of the itrace format,
 * before compression, measured on a real trace.
 *
 * Re-encodes the records of FILE with compression off (so the figure is the
 * record encoding itself) and prints one bench line per level:
 *   branch level: bytes per BRANCH record (baseline: the 24-byte BTS record)
 *   insn level:   bytes per INSN record, MEM records dropped (the spec's
 *                 goal is stated without memory operands; baseline: 16 B,
 *                 drmemtrace's estimated final-format cost per instruction)
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "itrace.h"

static int reencode(const char *path, int drop_mem, struct itrace_writer_stats *st,
		    int *level)
{
	struct itrace_reader *r;
	struct itrace_writer *w;
	struct itrace_writer_options o;
	struct itrace_record rec;
	int rc;

	if (itrace_reader_open(path, &r) < 0) {
		fprintf(stderr, "format_size: cannot open '%s'\n", path);
		return -1;
	}
	itrace_writer_options_init(&o);
	o.compression = ITRACE_COMPRESS_NONE;
	o.level = itrace_reader_header(r)->level;
	o.machine = itrace_reader_header(r)->machine;
	*level = o.level;
	if (itrace_writer_open("/dev/null", &o, &w) < 0)
		return -1;
	while ((rc = itrace_reader_next(r, &rec, sizeof(rec))) != ITRACE_EOF) {
		if (rc < 0 || (drop_mem && rec.type == ITRACE_REC_MEM))
			continue;
		itrace_writer_write(w, &rec);
	}
	itrace_writer_flush(w);
	itrace_writer_stats(w, st);
	itrace_writer_close(w, ITRACE_END_COMPLETE, 0);
	itrace_reader_close(r);
	return 0;
}

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		struct itrace_writer_stats st;
		int level;

		if (reencode(argv[i], 1, &st, &level) < 0)
			return 1;
		if (level == ITRACE_LEVEL_BRANCH && st.branches) {
			double b = (double)st.raw_bytes / st.branches;

			printf("format-bytes-per-branch  %.3f B/branch  24.000 B/branch(BTS)  ratio %.3f  (target <= 3 B/branch)  [%llu branches]\n",
			       b, b / 24.0, (unsigned long long)st.branches);
		} else if (st.insns) {
			double b = (double)st.raw_bytes / st.insns;

			printf("format-bytes-per-insn    %.3f B/insn  16.000 B/insn(drmemtrace)  ratio %.3f  (target <= 2 B/insn, no MEM)  [%llu insns]\n",
			       b, b / 16.0, (unsigned long long)st.insns);
		}
	}
	return 0;
}
