/*
 * driver.c - runs one kernel of kernels.S for the accuracy suite.
 *
 *   accuracy_driver list              the kernels, one per line: name,
 *                                     llvm-mca region, warm and traced
 *                                     iterations, "calibrated" (a loop
 *                                     --calibrate times too) or "hidden"
 *   accuracy_driver time NAME         cycles per iteration on this host:
 *                                     wall time calibrated by a dependent
 *                                     imul chain (3 cycles per imul), best
 *                                     of many short runs
 *   accuracy_driver run NAME N        set up, then N iterations once (what
 *                                     itrace-collect --start k_* traces)
 *
 * A kernel is a loop in kernels.S (or C, for the library call) plus the
 * data it runs on: the same set-up serves the timing and the trace.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host.h"

void k_add_chain(uint64_t, void *);
void k_imul_chain(uint64_t, void *);
void k_div_chain(uint64_t, void *);
void k_fadd_chain(uint64_t, void *);
void k_fma_chain(uint64_t, void *);
void k_shuffle_chain(uint64_t, void *);
void k_alu_tput(uint64_t, void *);
void k_fma_tput(uint64_t, void *);
void k_mul_tput(uint64_t, void *);
void k_loadop(uint64_t, void *);
void k_chase(uint64_t, void *);
void k_gather(uint64_t, void *);
void k_store_fwd(uint64_t, void *);
void k_store_fwd_idx(uint64_t, void *);
void k_branch(uint64_t, void *);
void k_stream(uint64_t, void *);
void k_copy256(uint64_t, void *);
void k_fnv1a(uint64_t, void *);
void k_isort(uint64_t, void *);
void k_memcpy(uint64_t, void *);
void k_mul_mix(uint64_t, void *);
void k_branch2(uint64_t, void *);
void k_shuf_tput(uint64_t, void *);
void k_load_tput(uint64_t, void *);
void k_alu_mix(uint64_t, void *);
void k_dot(uint64_t, void *);
void k_wide_mix(uint64_t, void *);

/* the C library's memcpy of 256 bytes, as programs call it */
__attribute__((noinline)) void k_memcpy(uint64_t n, void *arg)
{
	char *b = arg;

	for (uint64_t i = 0; i < n; i++) {
		memcpy(b + 4096 + (i & 7) * 256, b + (i & 7) * 256, 256);
		__asm__ volatile("" : : "r"(b) : "memory");
	}
}

enum data { D_NONE, D_BUF, D_RING, D_GATHER, D_ZERO_BITS, D_RANDOM_BITS, D_STREAM, D_KEYS };

struct kernel {
	const char *name;
	void (*fn)(uint64_t, void *);
	const char *mca; /* the llvm-mca region, NULL: none (library code) */
	enum data data;
	size_t size;	 /* bytes of data */
	uint64_t iters;	 /* per timing (~1 ms) */
	uint64_t warm;	 /* iterations before the traced ones are steady (the
			  * data it walks is cached, as when timed) */
	uint64_t traced; /* steady iterations to simulate */
	int calibrated;	 /* 1: pipeline-sim --calibrate times a loop of the
			  * same instructions (calibrate.c), so its error
			  * says little of the model; 0: hidden from it */
};

static const struct kernel kernels[] = {
	{ "add_chain", k_add_chain, "add_chain", D_NONE, 0, 100000, 1000, 4000, 1 },
	{ "imul_chain", k_imul_chain, "imul_chain", D_NONE, 0, 100000, 1000, 4000, 1 },
	{ "div_chain", k_div_chain, "div_chain", D_NONE, 0, 20000, 500, 2000, 1 },
	{ "fadd_chain", k_fadd_chain, "fadd_chain", D_NONE, 0, 100000, 1000, 4000, 1 },
	{ "fma_chain", k_fma_chain, "fma_chain", D_NONE, 0, 100000, 1000, 4000, 1 },
	{ "shuffle_chain", k_shuffle_chain, "shuffle_chain", D_NONE, 0, 100000, 1000, 4000, 1 },
	{ "alu_tput", k_alu_tput, "alu_tput", D_NONE, 0, 100000, 1000, 4000, 1 },
	{ "fma_tput", k_fma_tput, "fma_tput", D_NONE, 0, 100000, 1000, 4000, 1 },
	{ "mul_tput", k_mul_tput, "mul_tput", D_NONE, 0, 100000, 1000, 4000, 1 },
	{ "loadop", k_loadop, "loadop", D_BUF, 4096, 100000, 1000, 4000, 0 },
	{ "chase_l1", k_chase, "chase", D_RING, 16 << 10, 50000, 1000, 4000, 1 },
	{ "chase_l2", k_chase, "chase", D_RING, 256 << 10, 20000, 2048, 4000, 1 },
	{ "chase_l3", k_chase, "chase", D_RING, 2 << 20, 5000, 16384, 4000, 1 },
	/* long timings: on a VM short ones are served by something nearer
	 * than DRAM after a while (not understood; see README) */
	{ "chase_mem", k_chase, "chase", D_RING, 256 << 20, 16000, 1000, 2000, 1 },
	/* independent loads from random lines of each level (the index array
	 * itself is 256 KiB more) */
	{ "load_l2", k_gather, "gather", D_GATHER, 262144 + (256 << 10), 20000, 40000, 8000, 1 },
	{ "load_l3", k_gather, "gather", D_GATHER, 262144 + (2 << 20), 20000, 40000, 8000, 1 },
	{ "load_mem", k_gather, "gather", D_GATHER, 262144 + (256 << 20), 20000, 1000, 4000, 1 },
	{ "store_fwd", k_store_fwd, "store_fwd", D_BUF, 4096, 100000, 1000, 4000, 1 },
	{ "store_fwd_idx", k_store_fwd_idx, "store_fwd_idx", D_BUF, 4096, 100000, 1000, 4000, 1 },
	{ "branch_pred", k_branch, "branch", D_ZERO_BITS, 65536, 100000, 65536, 8000, 1 },
	{ "branch_rand", k_branch, "branch", D_RANDOM_BITS, 65536, 65536, 65536, 16000, 1 },
	{ "stream", k_stream, "stream", D_STREAM, 512 << 10, 65536, 65536, 16000, 0 },
	{ "copy256", k_copy256, "copy256", D_BUF, 8192, 50000, 500, 2000, 0 },
	{ "memcpy", k_memcpy, NULL, D_BUF, 8192, 50000, 500, 2000, 0 },
	{ "fnv1a", k_fnv1a, "fnv1a", D_BUF, 4096, 100000, 1000, 4000, 0 },
	{ "isort", k_isort, NULL, D_KEYS, 262144 + 4096, 20000, 20000, 4000, 0 },
	/* hidden from calibration (see kernels.S) */
	{ "mul_mix", k_mul_mix, "mul_mix", D_NONE, 0, 100000, 1000, 4000, 0 },
	{ "branch2", k_branch2, "branch2", D_NONE, 0, 100000, 1000, 4000, 0 },
	{ "shuf_tput", k_shuf_tput, "shuf_tput", D_NONE, 0, 100000, 1000, 4000, 0 },
	{ "load_tput", k_load_tput, "load_tput", D_BUF, 4096, 100000, 1000, 4000, 0 },
	{ "alu_mix", k_alu_mix, "alu_mix", D_NONE, 0, 100000, 1000, 4000, 0 },
	{ "dot", k_dot, "dot", D_BUF, 4096, 100000, 1000, 4000, 0 },
	{ "wide_mix", k_wide_mix, "wide_mix", D_BUF, 4096, 100000, 1000, 4000, 0 },
	/* a chase through 6 MiB: past L2, within the LLC, and none of the
	 * footprints calibration's LLC sweep chases through on the hosts
	 * seen (twice L2 and doubling: 2, 4, 8 MiB from a 1 MiB L2, 4, 8
	 * from 2 MiB); one pass warms it: 98304 lines, 4 an iteration */
	{ "chase_6m", k_chase, "chase", D_RING, 6 << 20, 8000, 24576, 4000, 0 },
};

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void *setup(const struct kernel *k)
{
	char *buf;

	if (k->data == D_NONE)
		return NULL;
	buf = aligned_alloc(4096, (k->size + 64 + 4095) / 4096 * 4096);
	if (!buf) {
		fprintf(stderr, "accuracy_driver: out of memory\n");
		exit(1);
	}
	memset(buf, 0, k->size);
	switch (k->data) {
	case D_RING:
		/* the cursor lives in the line after the ring */
		if (sim_host_chase_ring(buf, k->size, rnd()))
			exit(1);
		*(void **)(buf + k->size) = buf;
		return buf + k->size;
	case D_GATHER: {
		uint32_t *idx = (uint32_t *)(void *)buf;
		uint64_t lines = (k->size - 262144) / 64;

		for (size_t i = 0; i < 65536; i++)
			idx[i] = (uint32_t)(rnd() % lines * 64);
		break;
	}
	case D_RANDOM_BITS:
		for (size_t i = 0; i < k->size; i++)
			buf[i] = (char)(rnd() & 1);
		break;
	case D_STREAM:
		for (size_t i = 0; i < k->size / 8; i++)
			((uint64_t *)(void *)buf)[i] = i;
		break;
	case D_KEYS:
		for (size_t i = 0; i < 65536; i++)
			((int32_t *)(void *)buf)[i] = (int32_t)(rnd() % 100000);
		break;
	default:
		break;
	}
	return buf;
}

static const struct kernel *find(const char *name)
{
	for (size_t i = 0; i < sizeof(kernels) / sizeof(kernels[0]); i++)
		if (!strcmp(kernels[i].name, name))
			return &kernels[i];
	fprintf(stderr, "accuracy_driver: no kernel '%s'\n", name);
	exit(2);
}

/* cycles_per_iter - best of `runs` timings of k->iters iterations;
 * through memory, spread over a few seconds (a VM's memory latency moves
 * with its neighbours' traffic). */
static double cycles_per_iter(const struct kernel *k, void *arg, int runs)
{
	int dram = (k->data == D_RING || k->data == D_GATHER) && k->size > (64u << 20);

	return sim_host_best_cycles(k->fn, arg, k->iters, runs, dram ? 200 : 0);
}

int main(int argc, char **argv)
{
	const struct kernel *k;

	if (argc == 2 && !strcmp(argv[1], "list")) {
		for (size_t i = 0; i < sizeof(kernels) / sizeof(kernels[0]); i++)
			printf("%s %s %llu %llu %s\n", kernels[i].name, kernels[i].mca ? kernels[i].mca : "-",
			       (unsigned long long)kernels[i].warm, (unsigned long long)kernels[i].traced,
			       kernels[i].calibrated ? "calibrated" : "hidden");
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "time")) {
		k = find(argv[2]);
		printf("%.3f\n", cycles_per_iter(k, setup(k), k->iters >= 16000 && k->data == D_RING ? 15 : 41));
		return 0;
	}
	if (argc == 4 && !strcmp(argv[1], "run")) {
		k = find(argv[2]);
		k->fn(strtoull(argv[3], NULL, 0), setup(k));
		return 0;
	}
	fprintf(stderr, "usage: accuracy_driver list | time NAME | run NAME ITERS\n");
	return 2;
}
