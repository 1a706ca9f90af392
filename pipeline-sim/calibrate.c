/* calibrate.c - host microbenchmarks -> core description (see calibrate.h). */
#include "calibrate.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "host.h"

#if defined(__x86_64__)

#define ITERS 4096 /* loop iterations per timing: short, so that one
		    * run rarely sees another process */

/* cycles_per_op - the best of `runs` timings, in cycles per operation. */
static double cycles_per_op(void (*fn)(uint64_t, void *), void *arg, uint64_t iters, unsigned ops,
			    int runs)
{
	return sim_host_best_cycles(fn, arg, iters, runs, 0) / (double)ops;
}

/* ---- the kernels: 8 operations per loop iteration ------------------------ */

#define X8(s) s s s s s s s s

/* Dependency chains: each operation reads the previous one's result. */
static void lat_add(uint64_t n, void *a)
{
	uint64_t x = 1;

	(void)a;
	__asm__ volatile("1:\n\t" X8("add %0, %0\n\t") "dec %1\n\tjnz 1b" : "+r"(x), "+r"(n) : : "cc");
}

static void lat_div64(uint64_t n, void *a)
{
	uint64_t q = 0x123456789ull, d = 1, r;

	(void)a;
	__asm__ volatile("1:\n\t" X8("xor %%edx, %%edx\n\tdiv %3\n\t") "dec %1\n\tjnz 1b"
			 : "+a"(q), "+r"(n), "=&d"(r)
			 : "r"(d)
			 : "cc");
}

static void lat_div32(uint64_t n, void *a)
{
	uint32_t q = 0x1234567, d = 1, r;

	(void)a;
	__asm__ volatile("1:\n\t" X8("xor %%edx, %%edx\n\tdivl %3\n\t") "dec %1\n\tjnz 1b"
			 : "+a"(q), "+r"(n), "=&d"(r)
			 : "r"(d)
			 : "cc");
}

/* FP and vector chains on xmm0, with xmm1 = 1.0 (or 1) and xmm2 = 0 */
#define FP_CHAIN(name, insn)                                                                   \
	static void name(uint64_t n, void *a)                                                   \
	{                                                                                       \
		(void)a;                                                                        \
		__asm__ volatile("mov $1, %%eax\n\tvcvtsi2sd %%eax, %%xmm1, %%xmm1\n\t"         \
				 "vmovapd %%xmm1, %%xmm0\n\tvxorpd %%xmm2, %%xmm2, %%xmm2\n\t"  \
				 "1:\n\t" X8(insn "\n\t") "dec %0\n\tjnz 1b"                    \
				 : "+r"(n)                                                      \
				 :                                                              \
				 : "rax", "xmm0", "xmm1", "xmm2", "cc");                        \
	}
FP_CHAIN(lat_fadd, "vaddsd %%xmm2, %%xmm0, %%xmm0")
FP_CHAIN(lat_fmul, "vmulsd %%xmm1, %%xmm0, %%xmm0")
FP_CHAIN(lat_fma, "vfmadd213sd %%xmm2, %%xmm1, %%xmm0")
FP_CHAIN(lat_fdiv, "vdivsd %%xmm1, %%xmm0, %%xmm0")
FP_CHAIN(lat_vec, "vpaddq %%xmm2, %%xmm0, %%xmm0")
FP_CHAIN(lat_vmul, "vpmuludq %%xmm1, %%xmm0, %%xmm0")
FP_CHAIN(lat_shuf, "vpshufd $0x4e, %%xmm0, %%xmm0")

/* Throughput blocks: eight independent operations (registers 8..15). */
#define TP_INT(name, insn)                                                                     \
	static void name(uint64_t n, void *a)                                                   \
	{                                                                                       \
		(void)a;                                                                        \
		__asm__ volatile("mov $3, %%eax\n\t"                                            \
				 "1:\n\t" insn(r8) insn(r9) insn(r10) insn(r11) insn(r12)       \
					 insn(r13) insn(r14) insn(r15) "dec %0\n\tjnz 1b"       \
				 : "+r"(n)                                                      \
				 :                                                              \
				 : "rax", "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", \
				   "cc");                                                       \
	}
#define ADD_R(r) "add %%rax, %%" #r "\n\t"
#define IMUL_R(r) "imul %%rax, %%" #r "\n\t"
#define LOAD_R(r) "mov (%%rsp), %%" #r "\n\t"
TP_INT(tp_add, ADD_R)
TP_INT(tp_mul, IMUL_R)
TP_INT(tp_load, LOAD_R)

static void tp_store(uint64_t n, void *a)
{
	__asm__ volatile("1:\n\t"
			 "mov %0, (%1)\n\tmov %0, 8(%1)\n\tmov %0, 16(%1)\n\tmov %0, 24(%1)\n\t"
			 "mov %0, 32(%1)\n\tmov %0, 40(%1)\n\tmov %0, 48(%1)\n\tmov %0, 56(%1)\n\t"
			 "dec %0\n\tjnz 1b"
			 : "+r"(n)
			 : "r"(a)
			 : "memory", "cc");
}

static void tp_vstore(uint64_t n, void *a)
{
	__asm__ volatile("vxorpd %%xmm0, %%xmm0, %%xmm0\n\t"
			 "1:\n\t"
			 "vmovdqu %%xmm0, (%1)\n\tvmovdqu %%xmm0, 16(%1)\n\tvmovdqu %%xmm0, 32(%1)\n\t"
			 "vmovdqu %%xmm0, 48(%1)\n\tvmovdqu %%xmm0, 64(%1)\n\tvmovdqu %%xmm0, 80(%1)\n\t"
			 "vmovdqu %%xmm0, 96(%1)\n\tvmovdqu %%xmm0, 112(%1)\n\t"
			 "dec %0\n\tjnz 1b"
			 : "+r"(n)
			 : "r"(a)
			 : "xmm0", "memory", "cc");
}

#define TP_VEC(name, insn)                                                                     \
	static void name(uint64_t n, void *a)                                                   \
	{                                                                                       \
		(void)a;                                                                        \
		__asm__ volatile("vxorpd %%xmm15, %%xmm15, %%xmm15\n\t"                         \
				 "1:\n\t" insn(0) insn(1) insn(2) insn(3) insn(4) insn(5)       \
					 insn(6) insn(7) "dec %0\n\tjnz 1b"                     \
				 : "+r"(n)                                                      \
				 :                                                              \
				 : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6",      \
				   "xmm7", "xmm15", "cc");                                      \
	}
#define FADD_X(i) "vaddsd %%xmm15, %%xmm" #i ", %%xmm" #i "\n\t"
#define FMUL_X(i) "vmulsd %%xmm15, %%xmm" #i ", %%xmm" #i "\n\t"
#define FMA_X(i) "vfmadd213sd %%xmm15, %%xmm15, %%xmm" #i "\n\t"
#define VEC_X(i) "vpaddq %%xmm15, %%xmm" #i ", %%xmm" #i "\n\t"
#define VMUL_X(i) "vpmuludq %%xmm15, %%xmm" #i ", %%xmm" #i "\n\t"
#define SHUF_X(i) "vpshufd $0x4e, %%xmm" #i ", %%xmm" #i "\n\t"
#define FDIV_X(i) "vdivsd %%xmm15, %%xmm" #i ", %%xmm" #i "\n\t"
TP_VEC(tp_fadd, FADD_X)
TP_VEC(tp_fmul, FMUL_X)
TP_VEC(tp_fma, FMA_X)
TP_VEC(tp_vec, VEC_X)
TP_VEC(tp_vmul, VMUL_X)
TP_VEC(tp_shuf, SHUF_X)
TP_VEC(tp_fdiv, FDIV_X)

/* Pointer chase: every load's address is the previous load's data. */
static void chase(uint64_t n, void *a)
{
	void *p = *(void **)a;

	__asm__ volatile("1:\n\t" X8("mov (%0), %0\n\t") "dec %1\n\tjnz 1b" : "+r"(p), "+r"(n) : : "cc");
	*(void **)a = p;
}

/* Independent loads from random lines: a = { uint32_t off[GATHER_N];
 * then the buffer }, two loads an iteration. */
#define GATHER_N 65536
static void gather(uint64_t n, void *a)
{
	const uint32_t *off = a;
	const char *buf = (const char *)a + GATHER_N * 4;
	uint64_t i = 0, s0 = 0, s1 = 0;
	uint64_t o0, o1; /* movl into their low halves zero-extends */

	__asm__ volatile(".p2align 5\n1:\n\t"
			 "movl (%5,%0,4), %k3\n\t"
			 "add (%6,%3), %1\n\t"
			 "movl 4(%5,%0,4), %k4\n\t"
			 "add (%6,%4), %2\n\t"
			 "add $2, %0\n\t"
			 "and $65535, %0\n\t"
			 "dec %7\n\tjnz 1b"
			 : "+r"(i), "+r"(s0), "+r"(s1), "=&r"(o0), "=&r"(o1)
			 : "r"(off), "r"(buf), "r"(n)
			 : "cc", "memory");
}

/* Store forwarding chain: store a value, load it back through another
 * register, add one, store that (the add keeps it a latency chain on a
 * core that renames memory). */
static void store_forward_other(uint64_t n, void *a)
{
	uint64_t x = 1;
	void *b = a;

	/* two named registers: the compiler would merge two "r" copies */
	__asm__ volatile("1:\n\t" X8("mov %0, (%2)\n\tmov (%3), %0\n\tadd $1, %0\n\t") "dec %1\n\tjnz 1b"
			 : "+r"(x), "+r"(n)
			 : "S"(a), "D"(b)
			 : "memory", "cc");
}

/* A branch on bit i of a table: random bits mispredict half the time. */
static void branchy(uint64_t n, void *a)
{
	const uint8_t *bits = a;
	uint64_t i = 0, acc = 0;

	__asm__ volatile(".p2align 5\n1:\n\t"
			 "movzbl (%3,%0), %%eax\n\t"
			 "test %%eax, %%eax\n\t"
			 "jz 2f\n\t"
			 "add $1, %1\n\t"
			 "2:\n\t"
			 "add $1, %0\n\t"
			 "and $65535, %0\n\t"
			 "dec %2\n\tjnz 1b"
			 : "+r"(i), "+r"(acc), "+r"(n)
			 : "r"(bits)
			 : "rax", "cc");
}

/* ---- building the description -------------------------------------------- */

/* load_to_use - cycles per load of a chase through `size` bytes, timed
 * over `steps` loop iterations (8 loads each; 0: one pass). */
static double load_to_use(size_t size, uint64_t steps, int runs)
{
	char *buf = aligned_alloc(4096, size);
	void *p;
	double c;

	if (!steps)
		steps = size / 64 > ITERS ? size / 64 / 8 : ITERS;

	if (!buf)
		return 0;
	/* fault the pages in address order first, as a program that fills
	 * its data does (in a VM, pages first touched in random order came
	 * out slower to chase through) */
	memset(buf, 0, size);
	if (sim_host_chase_ring(buf, size, 0x9e3779b97f4a7c15ull)) {
		free(buf);
		return 0;
	}
	p = buf;
	/* a pass through everything first, then timings of a pass each;
	 * through memory, a second apart (a VM's memory latency moves
	 * within seconds with its neighbours' traffic) */
	c = sim_host_best_cycles(chase, &p, steps, runs, size > (64u << 20) ? 200 : 0) / 8;
	free(buf);
	return c;
}

static unsigned rounded(double v)
{
	return v < 0.5 ? 0 : (unsigned)(v + 0.5);
}

/* set_ports - keep the first n ports of a class (a measured throughput
 * of n per cycle); more than the base preset has are noted, not made up. */
static void set_ports(struct sim_core_cfg *c, int cls, double per_cycle, FILE *log)
{
	unsigned n = rounded(per_cycle), have = (unsigned)__builtin_popcount(c->cls[cls].port_mask);
	uint32_t m = c->cls[cls].port_mask, keep = 0;

	if (n == 0)
		n = 1;
	if (n > have) {
		if (log)
			fprintf(log, "  %s: %.2f per cycle, more than the %u ports of the base preset: kept %u\n",
				sim_class_name(cls), per_cycle, have, have);
		return;
	}
	for (unsigned k = 0; k < n; k++) {
		uint32_t low = m & -m;

		keep |= low;
		m &= ~low;
	}
	c->cls[cls].port_mask = keep;
}

/* fill_of - cycles per line of independent random loads through a
 * buffer of `size` bytes: what the level that holds it delivers. */
static double fill_of(size_t size, int runs)
{
	uint64_t s = 0x2545f4914f6cdd1dull, lines = size / 64;
	char *a = aligned_alloc(4096, GATHER_N * 4 + size);
	uint32_t *off = (uint32_t *)(void *)a;
	double c;

	if (!a)
		return 0;
	memset(a, 0, GATHER_N * 4 + size);
	for (size_t i = 0; i < GATHER_N; i++) {
		s ^= s << 13;
		s ^= s >> 7;
		s ^= s << 17;
		off[i] = (uint32_t)(s % lines * 64);
	}
	c = sim_host_best_cycles(gather, a, GATHER_N / 2, runs, size > (64u << 20) ? 200 : 0) / 2;
	free(a);
	return c;
}

/* sysfs_field - the first line of cpu0's cache index<idx>/<field> in
 * buf; -1 when the file is not there. */
static int sysfs_field(int idx, const char *field, char *buf, size_t len)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cache/index%d/%s", idx, field);
	if (!(f = fopen(path, "r")))
		return -1;
	if (!fgets(buf, (int)len, f))
		buf[0] = '\0';
	fclose(f);
	return 0;
}

/* sysfs_cache - size (bytes) and ways of the data/unified cache of `level`. */
static int sysfs_cache(int level, uint64_t *size, unsigned *ways)
{
	for (int idx = 0; idx < 8; idx++) {
		char lvl[16], type[32], kb[32], w[16];

		if (sysfs_field(idx, "level", lvl, sizeof(lvl)))
			return -1;
		if (sysfs_field(idx, "type", type, sizeof(type)) || atoi(lvl) != level ||
		    !strncmp(type, "Instruction", 11))
			continue;
		if (sysfs_field(idx, "size", kb, sizeof(kb)) ||
		    sysfs_field(idx, "ways_of_associativity", w, sizeof(w)))
			continue;
		*size = strtoull(kb, NULL, 10) << 10; /* "32K" */
		*ways = (unsigned)atoi(w);
		return *size ? 0 : -1;
	}
	return -1;
}

/* set_cache - geometry from sysfs when it is one the model takes. */
static void set_cache(struct sim_cache_cfg *cc, int level)
{
	uint64_t size;
	unsigned ways;
	uint64_t sets;

	if (sysfs_cache(level, &size, &ways) || !ways || ways > 64)
		return;
	sets = size / ((uint64_t)ways * cc->line);
	if (sets && !(sets & (sets - 1)) && sets * ways * cc->line == size) {
		cc->size = size;
		cc->assoc = ways;
	}
}

/* The class microbenchmarks: latency chains and throughput blocks. */
enum bench_kind { LATENCY, LATENCY32, PER_CYCLE };

struct class_bench {
	int cls;
	enum bench_kind what;
	const char *label;
	void (*fn)(uint64_t, void *);
	uint64_t iters;
	unsigned ops; /* measured operations per iteration */
	int arg;      /* needs the scratch buffer */
};

static const struct class_bench class_benches[] = {
	{ SIM_CLS_INT_ALU, LATENCY, "int_alu latency", lat_add, ITERS, 8, 0 },
	{ SIM_CLS_INT_DIV, LATENCY, "int_div latency (64-bit)", lat_div64, ITERS / 8, 8, 0 },
	{ SIM_CLS_INT_DIV, LATENCY32, "int_div latency (32-bit)", lat_div32, ITERS / 8, 8, 0 },
	{ SIM_CLS_FP_ADD, LATENCY, "fp_add latency", lat_fadd, ITERS, 8, 0 },
	{ SIM_CLS_FP_MUL, LATENCY, "fp_mul latency", lat_fmul, ITERS, 8, 0 },
	{ SIM_CLS_FP_FMA, LATENCY, "fp_fma latency", lat_fma, ITERS, 8, 0 },
	{ SIM_CLS_FP_DIV, LATENCY, "fp_div latency", lat_fdiv, ITERS / 4, 8, 0 },
	{ SIM_CLS_VEC, LATENCY, "vec latency", lat_vec, ITERS, 8, 0 },
	{ SIM_CLS_VEC_MUL, LATENCY, "vec_mul latency", lat_vmul, ITERS, 8, 0 },
	{ SIM_CLS_VEC_SHUFFLE, LATENCY, "vec_shuffle latency", lat_shuf, ITERS, 8, 0 },
	/* eight adds and the loop's fused dec/jnz, an ALU op too */
	{ SIM_CLS_INT_ALU, PER_CYCLE, "int_alu per cycle", tp_add, ITERS, 9, 0 },
	{ SIM_CLS_INT_MUL, PER_CYCLE, "int_mul per cycle", tp_mul, ITERS, 8, 0 },
	{ SIM_CLS_LOAD, PER_CYCLE, "load per cycle", tp_load, ITERS, 8, 0 },
	{ SIM_CLS_STORE, PER_CYCLE, "store per cycle", tp_store, ITERS, 8, 1 },
	{ SIM_CLS_VEC_STORE, PER_CYCLE, "vec_store per cycle (16 B)", tp_vstore, ITERS, 8, 1 },
	{ SIM_CLS_FP_ADD, PER_CYCLE, "fp_add per cycle", tp_fadd, ITERS, 8, 0 },
	{ SIM_CLS_FP_MUL, PER_CYCLE, "fp_mul per cycle", tp_fmul, ITERS, 8, 0 },
	{ SIM_CLS_FP_FMA, PER_CYCLE, "fp_fma per cycle", tp_fma, ITERS, 8, 0 },
	{ SIM_CLS_VEC, PER_CYCLE, "vec per cycle", tp_vec, ITERS, 8, 0 },
	{ SIM_CLS_VEC_MUL, PER_CYCLE, "vec_mul per cycle", tp_vmul, ITERS, 8, 0 },
	{ SIM_CLS_VEC_SHUFFLE, PER_CYCLE, "vec_shuffle per cycle", tp_shuf, ITERS, 8, 0 },
};

struct measure {
	const char *what;
	double v;
};

/*
 * measure_llc - the last level as this process sees it: sysfs gives the
 * silicon's size, but a VM or busy neighbours may leave less.  Chase
 * through doubling sizes from twice L2 to the sysfs size: the latency of
 * the first is the LLC's; the largest served nearer the LLC's latency
 * than memory's is the effective size (mem_latency measured before), at
 * least twice L2.
 */
static void measure_llc(struct sim_core_cfg *c, int runs, FILE *log)
{
	uint64_t best = 0;
	double first = 0;

	for (uint64_t size = c->l2.size * 2; size <= c->llc.size; size *= 2) {
		double l = load_to_use(size, 0, runs > 3 ? 3 : runs);

		if (log)
			fprintf(log, "  chase through %6lluK          %7.2f\n", (unsigned long long)(size >> 10), l);
		if (!first)
			first = l;
		if (l > (first + c->mem_latency) / 2)
			break;
		best = size;
	}
	if (!best)
		best = c->l2.size * 2; /* the neighbours had it all just then */
	c->llc.size = best;
	c->llc.latency = rounded(first);
}

int sim_calibrate(FILE *out, FILE *log, int runs, char *err, size_t errlen)
{
	struct sim_host h;
	struct sim_core_cfg c;
	const char *base;
	int exact;
	char why[200];
	static uint64_t scratch[64] __attribute__((aligned(64)));
	uint8_t *bits;
	uint64_t s = 88172645463325252ull;
	double pred, rand, lat, ns_per_cycle;
	struct measure m[40];
	int nm = 0;

	if (sim_host_identify(&h) || !(base = sim_host_preset(&h, &exact, why, sizeof(why)))) {
		snprintf(err, errlen, "--calibrate needs an x86-64 host");
		return -1;
	}
	sim_config_init(&c);
	if (sim_config_load(&c, base, err, errlen) || sim_config_validate(&c, err, errlen))
		return -1;
	ns_per_cycle = sim_host_ns_per_cycle(runs * 4);
	if (log)
		fprintf(log, "calibrate: %s (%s family 0x%x model 0x%x), base preset %s; %.3f GHz by the imul clock\n",
			h.brand, h.vendor, h.family, h.model, base, 1.0 / ns_per_cycle);
#define MEASURE(label, expr) (m[nm].what = (label), m[nm].v = (expr), \
			      log ? fprintf(log, "  %-28s %7.2f\n", label, m[nm].v) : 0, m[nm++].v)
	/* latency chains and throughput blocks, class by class */
	for (size_t i = 0; i < sizeof(class_benches) / sizeof(class_benches[0]); i++) {
		const struct class_bench *b = &class_benches[i];
		double v = cycles_per_op(b->fn, b->arg ? scratch : NULL, b->iters, b->ops, runs);

		if (b->what == LATENCY)
			c.cls[b->cls].latency = rounded(MEASURE(b->label, v));
		else if (b->what == LATENCY32)
			c.cls[b->cls].latency32 = rounded(MEASURE(b->label, v));
		else
			set_ports(&c, b->cls, MEASURE(b->label, 1.0 / v), log);
	}
	c.cls[SIM_CLS_FP_DIV].occupancy =
		rounded(MEASURE("fp_div cycles per op", cycles_per_op(tp_fdiv, NULL, ITERS / 4, 8, runs)));
	if (!c.cls[SIM_CLS_FP_DIV].occupancy)
		c.cls[SIM_CLS_FP_DIV].occupancy = 1;
	/* the memory hierarchy: sizes from sysfs, load-to-use by chasing
	 * through half of each level (and 4x the last for memory) */
	set_cache(&c.l1d, 1);
	set_cache(&c.l2, 2);
	set_cache(&c.llc, 3);
	lat = MEASURE("L1D load-to-use", load_to_use(c.l1d.size / 2, 0, runs));
	c.l1d.latency = rounded(lat);
	/* a quarter of L2 stays within the first-level TLB's reach */
	c.l2.latency = rounded(MEASURE("L2 load-to-use", load_to_use(c.l2.size / 4, 0, runs)));
	{
		/* a core that renames memory shows the add alone; then the
		 * forwarding latency of unpredicted pairs is the base's */
		double fwd = MEASURE("store, load, add", cycles_per_op(store_forward_other, scratch, ITERS, 8, runs));
		unsigned alu = c.cls[SIM_CLS_INT_ALU].latency;

		c.memory_renaming = fwd < alu + 1;
		if (!c.memory_renaming)
			c.store_forward_latency = rounded(fwd - alu);
	}
	/* mispredict: a random branch against an all-taken one, half missed */
	/* 64K random outcomes: more than a predictor learns by heart */
	bits = malloc(65536);
	if (!bits) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	memset(bits, 0, 65536);
	pred = cycles_per_op(branchy, bits, 65536, 1, runs);
	for (int i = 0; i < 65536; i++) {
		s ^= s << 13;
		s ^= s >> 7;
		s ^= s << 17;
		bits[i] = (uint8_t)(s & 1);
	}
	rand = cycles_per_op(branchy, bits, 65536, 1, runs);
	free(bits);
	lat = MEASURE("branch mispredict penalty", 2.0 * (rand - pred));
	/* what a miss costs here is the branch's resolution (its byte load
	 * and the test, hidden when predicted) plus, in the model, the
	 * refetch `mispredict_penalty` after resolution, the front end's
	 * depth and the cycle to issue */
	{
		unsigned fixed = c.frontend_depth + 1 + c.l1d.latency + 1;

		c.mispredict_penalty = rounded(lat) > fixed ? rounded(lat) - fixed : 1;
	}
	/* memory, then the LLC the process gets, last: a VM's neighbours move
	 * them within seconds, so they are measured nearest to what follows.
	 * 64K loads at a time through 256 MiB, best of 15 (short timings
	 * through a VM's memory came out far too fast) */
	c.mem_latency = rounded(MEASURE("memory load-to-use", load_to_use(256u << 20, 8192, 15)));
	if (c.llc.enabled)
		measure_llc(&c, runs, log);
	MEASURE("LLC load-to-use (0: none)", c.llc.enabled ? (double)c.llc.latency : 0.0);
	MEASURE("LLC size seen (KiB)", c.llc.enabled ? (double)(c.llc.size >> 10) : 0.0);
	/* bandwidth: independent loads from random lines of each level */
	c.l2_fill = rounded(MEASURE("L2 cycles per line", fill_of(c.l2.size / 4, runs)));
	if (c.llc.enabled)
		c.llc_fill = rounded(MEASURE("LLC cycles per line", fill_of(c.llc.size / 2, runs > 5 ? 5 : runs)));
	c.mem_fill = rounded(MEASURE("memory cycles per line", fill_of(256u << 20, 5)));
	fprintf(out, "# %s: measured by pipeline-sim --calibrate\n", h.brand[0] ? h.brand : h.vendor);
	fprintf(out, "# %s family 0x%x model 0x%x, %.3f GHz by a dependent imul chain (3 cycles each);\n",
		h.vendor, h.family, h.model, 1.0 / ns_per_cycle);
	fprintf(out, "# latencies, throughputs, cache latencies, store forwarding and the mispredict\n"
		     "# penalty are measured (best of %d runs); widths, queues, the predictor and\n"
		     "# the rest come from the %s preset%s.\n", runs, base, exact ? "" : " (the nearest)");
	fprintf(out, "# measured (cycles; 'per cycle' = operations per cycle):\n");
	for (int i = 0; i < nm; i++)
		fprintf(out, "#   %-28s %7.2f\n", m[i].what, m[i].v);
	snprintf(c.name, sizeof(c.name), "host");
	sim_config_print(out, &c);
	return 0;
}

#else

int sim_calibrate(FILE *out, FILE *log, int runs, char *err, size_t errlen)
{
	(void)out;
	(void)log;
	(void)runs;
	snprintf(err, errlen, "--calibrate needs an x86-64 host");
	return -1;
}

#endif
