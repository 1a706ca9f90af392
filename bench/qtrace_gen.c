/*
 * qtrace_gen - write a synthetic instruction-level itrace of a ppc64le
 * loop through libitrace's writer, for qtrace-conv's benchmark and tests.
 *
 *   qtrace_gen [--machine ppc64le|ppc64|x86-64] [--threads T] [--no-bytes]
 *              [--patch] ITERATIONS OUT.itr
 *
 * The loop (at 0x10000000, as a static ppc64le program would have it):
 *     addi r3,r3,1 ; ld r4,8(r1) ; std r4,16(r1) ; bdnz loop ; nop
 * With T threads, iterations alternate between threads 1000, 1001, ...
 * through THREAD switch records.  x86-64 writes a trace qtrace-conv must
 * refuse.  --patch makes the code self-modifying: from the second half of
 * the iterations on, bdnz at 0x1000000c becomes "b 0x10000000" (same
 * target, another branch kind); with --no-bytes the code is then given by
 * CODE records, the loop's at the start and the patched word when it
 * changes, so that a converter which caches decoded instructions must see
 * the change either way.
 */
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "itrace.h"
#include "itrace_format.h"

#define LOOP 0x10000000ull
#define STACK 0x7fffe000ull
#define PATCHED_BRANCH 0x4bfffff4u /* b 0x10000000, at 0x1000000c */

struct loop_insn {
	uint32_t word;
	int mem;   /* 0 none, 1 load, 2 store */
	uint64_t mem_off;
};

static const struct loop_insn loop[] = {
	{0x38630001, 0, 0},  /* addi r3,r3,1 */
	{0xe8810008, 1, 8},  /* ld r4,8(r1) */
	{0xf8810010, 2, 16}, /* std r4,16(r1) */
	{0x4200fff4, 0, 0},  /* bdnz 0x10000000 */
};

static void put_word(uint8_t *b, uint32_t w, int little)
{
	for (int i = 0; i < 4; i++)
		b[i] = (uint8_t)(w >> (little ? 8 * i : 24 - 8 * i));
}

static int check(int rc, const char *what)
{
	if (rc < 0) {
		fprintf(stderr, "qtrace_gen: %s: %s\n", what, itrace_errstr(rc));
		exit(1);
	}
	return rc;
}

static void switch_thread(struct itrace_writer *w, uint32_t tid)
{
	struct itrace_record rec;

	memset(&rec, 0, sizeof(rec));
	rec.type = ITRACE_REC_THREAD;
	rec.u.thread.event = ITRACE_THREAD_SWITCH;
	rec.u.thread.tid = tid;
	rec.u.thread.pid = 1000;
	check(itrace_writer_write(w, &rec), "thread record");
}

/* write_code - a CODE record: `n` words of code at `addr`. */
static void write_code(struct itrace_writer *w, uint64_t addr, const uint32_t *words, size_t n,
		       int little)
{
	struct itrace_record rec;
	uint8_t b[4 * 8];

	for (size_t i = 0; i < n; i++)
		put_word(b + 4 * i, words[i], little);
	memset(&rec, 0, sizeof(rec));
	rec.type = ITRACE_REC_CODE;
	rec.u.code.addr = addr;
	rec.u.code.bytes = b;
	rec.u.code.len = 4 * n;
	check(itrace_writer_write(w, &rec), "code record");
}

static void write_insn(struct itrace_writer *w, uint64_t addr, uint32_t word, int little,
		       int bytes)
{
	uint8_t b[4];

	put_word(b, word, little);
	check(itrace_writer_insn(w, addr, 4, bytes ? b : NULL), "insn record");
}

static void write_iteration(struct itrace_writer *w, int little, int bytes, int last,
			    int patched)
{
	for (size_t i = 0; i < sizeof(loop) / sizeof(loop[0]); i++) {
		uint32_t word = patched && i == 3 ? PATCHED_BRANCH : loop[i].word;

		write_insn(w, LOOP + 4 * i, word, little, bytes);
		if (loop[i].mem)
			check(itrace_writer_mem(w, STACK + loop[i].mem_off, 8,
					       loop[i].mem == 2 ? ITRACE_MEM_STORE : 0),
			      "mem record");
	}
	if (last)
		write_insn(w, LOOP + 16, 0x60000000, little, bytes); /* nop after the loop */
}

int main(int argc, char **argv)
{
	struct itrace_writer_options o;
	struct itrace_writer *w;
	const char *machine = "ppc64le";
	unsigned threads = 1;
	int bytes = 1, patch = 0, argi = 1;
	unsigned long long n;

	while (argi < argc && strncmp(argv[argi], "--", 2) == 0) {
		if (strcmp(argv[argi], "--machine") == 0 && argi + 1 < argc)
			machine = argv[argi + 1], argi += 2;
		else if (strcmp(argv[argi], "--threads") == 0 && argi + 1 < argc)
			threads = (unsigned)atoi(argv[argi + 1]), argi += 2;
		else if (strcmp(argv[argi], "--no-bytes") == 0)
			bytes = 0, argi++;
		else if (strcmp(argv[argi], "--patch") == 0)
			patch = 1, argi++;
		else
			break;
	}
	if (argc - argi != 2 || threads == 0) {
		fprintf(stderr, "usage: qtrace_gen [--machine M] [--threads T] [--no-bytes] "
			"[--patch] ITERATIONS OUT.itr\n");
		return 2;
	}
	n = strtoull(argv[argi], NULL, 0);
	itrace_writer_options_init(&o);
	o.level = ITRACE_LEVEL_INSN;
	o.flags = ITRACE_FF_MEM | (bytes ? ITRACE_FF_INSN_BYTES : 0);
	o.machine = strcmp(machine, "x86-64") == 0 ? EM_X86_64 : EM_PPC64;
	o.target_endian = strcmp(machine, "ppc64") == 0 ? 2 : 1;
	check(itrace_writer_open(argv[argi + 1], &o, &w), "open");
	if (patch && !bytes) {
		const uint32_t code[] = {loop[0].word, loop[1].word, loop[2].word, loop[3].word,
					 0x60000000};

		write_code(w, LOOP, code, sizeof(code) / sizeof(code[0]), o.target_endian == 1);
	}
	for (unsigned long long i = 0; i < n; i++) {
		int patched = patch && 2 * i >= n;

		if (patch && !bytes && 2 * i == n) {
			const uint32_t b = PATCHED_BRANCH;

			write_code(w, LOOP + 12, &b, 1, o.target_endian == 1);
		}
		if (threads > 1)
			switch_thread(w, 1000 + (uint32_t)(i % threads));
		write_iteration(w, o.target_endian == 1, bytes, i + threads >= n, patched);
	}
	return check(itrace_writer_close(w, ITRACE_END_COMPLETE, 0), "close") ? 1 : 0;
}
