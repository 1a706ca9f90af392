/*
 * count_records.c - count the records of an itrace file by type.
 *
 * An example of a program outside the itrace tree: it includes only the
 * installed <itrace.h> and links with `pkg-config --libs itrace` (the core
 * library, zstd only).  Build it with
 *
 *   cc -o count_records count_records.c $(pkg-config --cflags --libs itrace)
 *
 * Usage: count_records TRACE.itr   ('-' reads standard input)
 *
 * It prints the header, one line per record type that occurs, and how the
 * trace ended.  Damage is reported after the counts of every record
 * delivered before it, and makes the exit status 1.
 */
#include <itrace.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* Record types are 1..127 (ITRACE.md, record framing). */
#define TYPES 128

static void print_header(const struct itrace_header *h)
{
	printf("format %u.%u, %s level, machine %u\n", h->major, h->minor,
	       h->level == ITRACE_LEVEL_INSN ? "instruction" : "branch", h->machine);
	printf("flags:%s%s%s%s\n", h->flags & ITRACE_FF_MEM ? " mem" : "",
	       h->flags & ITRACE_FF_INSN_BYTES ? " insn-bytes" : "",
	       h->flags & ITRACE_FF_TAKEN_ONLY ? " taken-only" : "",
	       h->flags & ITRACE_FF_FILLED ? " filled" : "");
}

int main(int argc, char **argv)
{
	uint64_t count[TYPES] = { 0 };
	struct itrace_reader *r;
	struct itrace_record rec;
	struct itrace_footer f;
	char why[256];
	int rc;

	if (argc != 2) {
		fprintf(stderr, "usage: count_records TRACE.itr\n");
		return 2;
	}
	rc = itrace_reader_open(argv[1], &r);
	if (rc < 0) {
		/* -ITRACE_E_IO leaves errno saying why. */
		fprintf(stderr, "count_records: cannot open '%s': %s\n", argv[1],
			rc == -ITRACE_E_IO ? strerror(errno) : itrace_errstr(rc));
		return 1;
	}
	print_header(itrace_reader_header(r));

	/* After damage the reader may resynchronise (a GAP record follows). */
	int damaged = 0;
	while ((rc = itrace_reader_next(r, &rec, sizeof(rec))) != ITRACE_EOF) {
		if (rc < 0) {
			fprintf(stderr, "count_records: '%s': %s: %s\n", argv[1],
				itrace_errstr(rc), itrace_reader_error(r));
			damaged = 1;
			continue;
		}
		count[rec.type < TYPES ? rec.type : ITRACE_REC_UNKNOWN]++;
	}
	for (int t = 1; t < TYPES; t++)
		if (count[t])
			printf("%-10s %12" PRIu64 "\n", itrace_rec_type_name(t), count[t]);

	if (itrace_reader_footer(r, &f) == 0)
		printf("ended: %s\n", itrace_footer_describe(&f, why, sizeof(why)));
	else
		printf("ended: no footer\n");
	printf("library %s, built with %s\n", itrace_version(), ITRACE_VERSION_STRING);
	itrace_reader_close(r);
	return damaged;
}
