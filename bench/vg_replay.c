/*
 * vg_replay.c - the valgrind backend's collector side, without Valgrind:
 * converts a dump of the tool's words (ITRACE_VG_BENCH=dump:FILE, see
 * collectors/valgrind/vg_backend.c) into a trace again, with the writer
 * set up as itrace-collect sets it up for that backend
 * (collect_writer_open), and prints the CPU seconds that took.  The same
 * words every time, and no tool sharing the cores: a change to the
 * converter or the writer is measured without Valgrind's noise
 * (bench/vg_replay.sh, bench/README.md).
 *
 * usage: vg_replay [--branch] [--no-compress] DUMP OUT ("-": stdout)
 *   --branch       the dump is of a branch-level run (--level branch)
 *   --no-compress  write the chunks uncompressed (--no-compress)
 * Prints on stderr: "words N slots N cpu_s S", the CPU seconds of the whole process
 * (the writer's compression thread included).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "backend.h"
#include "cli.h"
#include "collect_writer.h"
#include "itrace.h"
#include "vg_convert.h"
#include "vg_wire.h"

static double cpu_seconds(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
	       ru.ru_stime.tv_usec / 1e6;
}

/* replay - every slot of the dump through the converter. */
static int replay(FILE *in, const char *name, struct vg_convert *conv, uint64_t *words,
		  unsigned long long *slots)
{
	uint64_t bytes;
	size_t used;
	int rc;

	while (fread(&bytes, sizeof(bytes), 1, in) == 1) {
		if (bytes > VGW_SLOT_WORDS * 8 || bytes % 8) {
			cli_error("'%s': bad slot length %llu", name, (unsigned long long)bytes);
			return -1;
		}
		if (fread(words, 1, (size_t)bytes, in) != (size_t)bytes) {
			cli_error("'%s': cut in a slot", name);
			return -1;
		}
		rc = vg_convert_words(conv, words, bytes / 8, &used);
		if (rc < 0 || used != bytes / 8) {
			cli_error("'%s': slot %llu: %s", name, *slots,
				  rc < 0 ? conv->error : "record cut at the end of a slot");
			return -1;
		}
		++*slots;
	}
	if (ferror(in)) {
		cli_error("cannot read '%s': %s", name, strerror(errno));
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static char *const prog[] = { "vg_replay", NULL };
	struct collect_options o;
	struct itrace_writer *w;
	struct vg_convert conv;
	unsigned long long slots = 0;
	uint64_t *words;
	int a = 1, rc;
	double t0;
	FILE *in;

	cli_init("vg_replay");
	memset(&o, 0, sizeof(o));
	o.level = ITRACE_LEVEL_INSN;
	o.compression = ITRACE_COMPRESS_ZSTD;
	o.argv = prog;
	o.quiet = 1;
	for (; a < argc && argv[a][0] == '-'; a++) {
		if (strcmp(argv[a], "--branch") == 0)
			o.level = ITRACE_LEVEL_BRANCH;
		else if (strcmp(argv[a], "--no-compress") == 0)
			o.compression = ITRACE_COMPRESS_NONE;
		else
			break;
	}
	if (argc - a != 2) {
		fprintf(stderr, "usage: vg_replay [--branch] [--no-compress] DUMP OUT\n");
		return 2;
	}
	o.output = argv[a + 1];
	if (!(in = fopen(argv[a], "re"))) {
		cli_error("cannot open '%s': %s", argv[a], strerror(errno));
		return 1;
	}
	words = malloc(VGW_SLOT_WORDS * 8);
	if (!words) {
		cli_error("out of memory");
		return 1;
	}
	t0 = cpu_seconds();
	if (collect_writer_open(&o, "valgrind", 0, vg_trace_flags(o.level), NULL, 0, &w) != 0)
		return 1;
	vg_convert_init(&conv, w, 0);
	rc = replay(in, argv[a], &conv, words, &slots);
	if (rc == 0 && vg_convert_finish(&conv, 0) < 0) {
		cli_error("%s", conv.error);
		rc = -1;
	}
	vg_convert_free(&conv);
	if (itrace_writer_close(w, rc == 0 ? ITRACE_END_COMPLETE : ITRACE_END_ERROR, 0) < 0 && rc == 0) {
		cli_error("cannot write '%s': %s", o.output, strerror(errno));
		rc = -1;
	}
	fprintf(stderr, "words %llu slots %llu cpu_s %.3f\n", (unsigned long long)conv.words, slots,
	       cpu_seconds() - t0);
	fclose(in);
	free(words);
	return rc == 0 ? 0 : 1;
}
