/*
 * sim_gen - write an instruction-level itrace file (INSN records with
 * bytes, MEM records) of a known x86-64 loop, for pipeline-sim's tests and
 * benchmark.  The loops are the microbenchmarks whose answers are known:
 *
 *   depchain  add rax,rbx x8 ; dec rcx ; jnz      (one add per cycle)
 *   indep     add r8..r15,1 ; dec rcx ; jnz       (reaches the width)
 *   port      imul r8,r9,3 x8 ; dec rcx ; jnz     (one multiply port)
 *   chase     mov rax,[rax] ; dec rcx ; jnz       (random pointer chase
 *             over SIZE bytes, default 64 MiB)
 *   branchy   load ; test al,1 ; jz ; add ; dec ; jnz   (jz random)
 *   mix       loads, stores, ALU, a multiply, a 90%-biased branch
 *   undecodable  depchain's loop with a byte that is no 64-bit instruction
 *             (06, push %es), which pipeline-sim must report, not simulate
 *
 * usage: sim_gen KERNEL INSNS OUT [SIZE]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "itrace.h"
#include "itrace_format.h"

#define CODE_BASE 0x401000ull
#define DATA_BASE 0x10000000ull

struct op {
	uint8_t len;
	uint8_t bytes[15];
	int mem;     /* 0 none, 1 load, 2 store */
	int branch;  /* 1: the data-dependent jz, 2: the loop jnz */
};

struct gen {
	struct itrace_writer *w;
	uint64_t written, limit;
	uint64_t rng;
	int status;
};

static uint64_t rnd(struct gen *g)
{
	g->rng ^= g->rng << 13;
	g->rng ^= g->rng >> 7;
	g->rng ^= g->rng << 17;
	return g->rng;
}

static void insn(struct gen *g, uint64_t addr, const struct op *o)
{
	if (g->status == 0)
		g->status = itrace_writer_insn(g->w, addr, o->len, o->bytes);
	g->written++;
}

static void mem(struct gen *g, uint64_t addr, unsigned size, int store)
{
	if (g->status == 0)
		g->status = itrace_writer_mem(g->w, addr, size, store ? ITRACE_MEM_STORE : 0);
}

#define OP(...) { sizeof((uint8_t[]){ __VA_ARGS__ }), { __VA_ARGS__ }, 0, 0 }

/* body - a loop of `n` ops ending in dec rcx; jnz; run until the limit. */
static void loop(struct gen *g, struct op *ops, int n, const char *kernel, uint64_t size)
{
	uint64_t addrs[32], ptr = DATA_BASE, stream = 0;
	uint64_t lines = size / 64, *next = NULL;
	int skip = 0;

	addrs[0] = CODE_BASE;
	for (int i = 1; i < n; i++)
		addrs[i] = addrs[i - 1] + ops[i - 1].len;
	/* jnz rel8 back to the top */
	ops[n - 1].bytes[1] = (uint8_t)(int8_t)(CODE_BASE - (addrs[n - 1] + 2));
	if (!strcmp(kernel, "chase")) {
		/* a random cyclic permutation of the lines of the buffer */
		uint64_t *perm = malloc(lines * sizeof(*perm));

		next = malloc(lines * sizeof(*next));
		if (!perm || !next) {
			fprintf(stderr, "sim_gen: out of memory\n");
			exit(1);
		}
		for (uint64_t i = 0; i < lines; i++)
			perm[i] = i;
		for (uint64_t i = lines - 1; i > 0; i--) {
			uint64_t j = rnd(g) % (i + 1), t = perm[i];

			perm[i] = perm[j];
			perm[j] = t;
		}
		for (uint64_t i = 0; i < lines; i++)
			next[perm[i]] = perm[(i + 1) % lines];
		free(perm);
	}
	while (g->written < g->limit && g->status == 0) {
		for (int i = 0; i < n && g->written < g->limit; i++) {
			if (skip) {
				skip = 0;
				continue;
			}
			insn(g, addrs[i], &ops[i]);
			if (ops[i].mem == 1 && next) {
				mem(g, DATA_BASE + (ptr - DATA_BASE), 8, 0);
				ptr = DATA_BASE + next[(ptr - DATA_BASE) / 64] * 64;
			} else if (ops[i].mem) {
				mem(g, DATA_BASE + (stream % size), 8, ops[i].mem == 2);
				if (ops[i].mem == 2 || !strcmp(kernel, "branchy"))
					stream += 8;
			}
			if (ops[i].branch == 1) {
				/* branchy: taken at random; mix: taken 90% */
				uint64_t r = rnd(g) % 100;

				skip = !strcmp(kernel, "mix") ? r < 90 : r < 50;
			}
		}
	}
	free(next);
}

int main(int argc, char **argv)
{
	struct op depchain[] = {
		OP(0x48, 0x01, 0xd8), OP(0x48, 0x01, 0xd8), OP(0x48, 0x01, 0xd8), OP(0x48, 0x01, 0xd8),
		OP(0x48, 0x01, 0xd8), OP(0x48, 0x01, 0xd8), OP(0x48, 0x01, 0xd8), OP(0x48, 0x01, 0xd8),
		OP(0x48, 0xff, 0xc9), OP(0x75, 0x00),
	};
	struct op indep[] = {
		OP(0x49, 0x83, 0xc0, 0x01), OP(0x49, 0x83, 0xc1, 0x01), OP(0x49, 0x83, 0xc2, 0x01),
		OP(0x49, 0x83, 0xc3, 0x01), OP(0x49, 0x83, 0xc4, 0x01), OP(0x49, 0x83, 0xc5, 0x01),
		OP(0x49, 0x83, 0xc6, 0x01), OP(0x49, 0x83, 0xc7, 0x01), OP(0x48, 0xff, 0xc9),
		OP(0x75, 0x00),
	};
	struct op port[] = {
		OP(0x4d, 0x6b, 0xc1, 0x03), OP(0x4d, 0x6b, 0xd1, 0x03), OP(0x4d, 0x6b, 0xd9, 0x03),
		OP(0x4d, 0x6b, 0xe1, 0x03), OP(0x4d, 0x6b, 0xe9, 0x03), OP(0x4d, 0x6b, 0xf1, 0x03),
		OP(0x4d, 0x6b, 0xf9, 0x03), OP(0x49, 0x6b, 0xc1, 0x03), OP(0x48, 0xff, 0xc9),
		OP(0x75, 0x00),
	};
	struct op chase[] = { OP(0x48, 0x8b, 0x00), OP(0x48, 0xff, 0xc9), OP(0x75, 0x00) };
	struct op branchy[] = {
		OP(0x48, 0x8b, 0x06), OP(0x48, 0x83, 0xc6, 0x08), OP(0xa8, 0x01), OP(0x74, 0x04),
		OP(0x48, 0x83, 0xc2, 0x01), OP(0x48, 0xff, 0xc9), OP(0x75, 0x00),
	};
	struct op mix[] = {
		OP(0x48, 0x8b, 0x04, 0xce), OP(0x48, 0x01, 0xc2), OP(0x48, 0x6b, 0xd8, 0x07),
		OP(0x48, 0x89, 0x14, 0xcf), OP(0x49, 0x31, 0xd8), OP(0xa8, 0x01), OP(0x74, 0x03),
		OP(0x49, 0x01, 0xc1), OP(0x48, 0xff, 0xc9), OP(0x75, 0x00),
	};
	struct op undecodable[] = { OP(0x48, 0x01, 0xd8), OP(0x06), OP(0x48, 0xff, 0xc9), OP(0x75, 0x00) };
	struct itrace_writer_options wo;
	struct gen g = { 0 };
	uint64_t size = 64ull << 20;
	const char *k;
	int rc;

	if (argc < 4 || argc > 5) {
		fprintf(stderr, "usage: sim_gen depchain|indep|port|chase|branchy|mix|undecodable INSNS OUT [SIZE]\n");
		return 2;
	}
	k = argv[1];
	g.limit = strtoull(argv[2], NULL, 0);
	if (argc == 5)
		size = strtoull(argv[4], NULL, 0);
	if (size < 4096)
		size = 4096;
	g.rng = 0x853c49e6748fea9bull;
	chase[0].mem = 1;
	branchy[0].mem = 1;
	branchy[3].branch = 1;
	mix[0].mem = 1;
	mix[3].mem = 2;
	mix[6].branch = 1;
	itrace_writer_options_init(&wo);
	wo.flags = ITRACE_FF_INSN_BYTES | ITRACE_FF_MEM;
	rc = itrace_writer_open(argv[3], &wo, &g.w);
	if (rc < 0) {
		fprintf(stderr, "sim_gen: cannot create '%s': %s\n", argv[3], itrace_errstr(rc));
		return 1;
	}
#define RUN(name) else if (!strcmp(k, #name)) loop(&g, name, (int)(sizeof(name) / sizeof(name[0])), k, size)
	if (0)
		;
	RUN(depchain);
	RUN(indep);
	RUN(port);
	RUN(chase);
	RUN(branchy);
	RUN(mix);
	RUN(undecodable);
	else {
		fprintf(stderr, "sim_gen: unknown kernel '%s'\n", k);
		itrace_writer_abandon(g.w);
		return 2;
	}
	rc = itrace_writer_close(g.w, ITRACE_END_COMPLETE, 0);
	if (g.status < 0 || rc < 0) {
		fprintf(stderr, "sim_gen: cannot write '%s': %s\n", argv[3], itrace_errstr(g.status ? g.status : rc));
		return 1;
	}
	return 0;
}
