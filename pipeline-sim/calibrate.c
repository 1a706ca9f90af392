/* calibrate.c - host microbenchmarks -> core description (see calibrate.h). */
#include "calibrate.h"

#include <stdarg.h>
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

/* Dispatch: 32 operations of three kinds that no one kind of port limits
 * on any of the presets' cores (16 adds and the loop's fused dec/jnz on
 * the ALUs, 8 loads, 8 zero idioms that take no port at all), so that
 * the rename/dispatch width is what bounds them. */
#define MIX8                                                                    \
	"add %%rax, %%r8\n\tadd %%rax, %%r9\n\tmov (%%rsp), %%r10\n\t"          \
	"xor %%r11d, %%r11d\n\tadd %%rax, %%r12\n\tmov 8(%%rsp), %%r13\n\t"     \
	"xor %%r14d, %%r14d\n\tadd %%rax, %%r15\n\t"
static void tp_mix(uint64_t n, void *a)
{
	(void)a;
	__asm__ volatile("mov $3, %%eax\n\t.p2align 5\n1:\n\t" MIX8 MIX8 MIX8 MIX8 "dec %0\n\tjnz 1b"
			 : "+r"(n)
			 :
			 : "rax", "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "cc");
}

/* Taken branches: eight jnz over the padding to the next 16-byte block
 * (the flags of the loop's dec: taken but in the last iteration) and the
 * loop's jnz, nine taken branches an iteration and nothing else to do.
 * Branches packed closer than that are slower on Golden Cove (0.18 a
 * cycle, seen) for want of branch target entries, not of taken-branch
 * bandwidth. */
#define JMP_NEXT(l) "jnz " #l "f\n\t.p2align 4\n" #l ":\n\t"
static void tp_taken(uint64_t n, void *a)
{
	(void)a;
	__asm__ volatile(".p2align 6\n1:\n\t" JMP_NEXT(2) JMP_NEXT(3) JMP_NEXT(4) JMP_NEXT(5) JMP_NEXT(6)
				 JMP_NEXT(7) JMP_NEXT(8) JMP_NEXT(9) "dec %0\n\tjnz 1b"
			 : "+r"(n)
			 :
			 : "cc");
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

/* What a calibration has measured so far, and the description it sets. */
struct calib {
	struct sim_core_cfg c;
	FILE *log;
	int runs;
	struct {
		const char *what;
		double v;
	} m[48];
	int nm;
	char set[4096]; /* "what was set from what" lines for the core file */
	size_t setlen;
};

/* measured - note a measurement (and log it); returns it. */
static double measured(struct calib *k, const char *what, double v)
{
	if (k->nm < (int)(sizeof(k->m) / sizeof(k->m[0]))) {
		k->m[k->nm].what = what;
		k->m[k->nm++].v = v;
	}
	if (k->log)
		fprintf(k->log, "  %-28s %7.2f\n", what, v);
	return v;
}

/* was_set - note (and log) a figure of the description set from a
 * measurement. */
__attribute__((format(printf, 2, 3))) static void was_set(struct calib *k, const char *fmt, ...)
{
	char line[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (k->log)
		fprintf(k->log, "  -> %s\n", line);
	if (k->setlen < sizeof(k->set))
		k->setlen += (size_t)snprintf(k->set + k->setlen, sizeof(k->set) - k->setlen, "#   %s\n", line);
}

/* port_list - the names of the ports of mask m, comma-separated. */
static void port_list(const struct sim_core_cfg *c, uint32_t m, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (int p = 0; p < c->nports && n < len; p++)
		if (m & (1u << p))
			n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? "," : "", c->port_names[p]);
}

/* set_ports - a class that runs `per_cycle` independent operations a
 * cycle gets that many ports, rounded (sim_config_set_port_count). */
static void set_ports(struct calib *k, int cls, double per_cycle)
{
	struct sim_core_cfg *c = &k->c;
	unsigned have = (unsigned)__builtin_popcount(c->cls[cls].port_mask), n = rounded(per_cycle), got;
	char names[160];

	got = sim_config_set_port_count(c, cls, n ? n : 1);
	port_list(c, c->cls[cls].port_mask, names, sizeof(names));
	was_set(k, "%s: %.2f per cycle -> %u port%s %s (the base preset had %u)", sim_class_name(cls), per_cycle,
		got, got == 1 ? "" : "s", names, have);
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

/*
 * fit_cache - the geometry the model takes nearest to `size` bytes of
 * `ways` ways: a power-of-two number of sets (cache.c indexes sets by
 * address bits) and at most 64 ways, so a 105 MiB 15-way L3 becomes
 * 65536 sets of 26 ways (104 MiB).
 */
static void fit_cache(struct sim_cache_cfg *cc, uint64_t size, unsigned ways)
{
	uint64_t lines = size / cc->line, sets = 1, a;

	if (!ways)
		ways = cc->assoc;
	while (sets * 2 * ways <= lines)
		sets *= 2;
	while ((a = (lines + sets / 2) / sets) > 64)
		sets *= 2;
	if (!a)
		a = 1;
	cc->size = sets * a * cc->line;
	cc->assoc = (unsigned)a;
}

/* set_cache - the size and ways of a level as the hardware reports them
 * (sysfs, else CPUID), fitted to the model; the base preset's when
 * neither says.  Returns the reported size (0: none) and its ways. */
static uint64_t set_cache(struct calib *k, struct sim_cache_cfg *cc, int level, const char *name, unsigned *ways_out)
{
	uint64_t size;
	unsigned ways;
	const char *from;

	*ways_out = cc->assoc;

	if (sim_host_cache(level, &size, &ways, &from) || size < 1024) {
		was_set(k, "%s: no size reported: the base preset's %lluK %u-way", name,
			(unsigned long long)(cc->size >> 10), cc->assoc);
		return 0;
	}
	*ways_out = ways;
	fit_cache(cc, size, ways);
	was_set(k, "%s: %lluK %u-way (%s) -> size=%lluK assoc=%u", name, (unsigned long long)(size >> 10), ways,
		from, (unsigned long long)(cc->size >> 10), cc->assoc);
	return size;
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

/* (int_alu's throughput comes before the other integer classes': they
 * may take more of the ALUs; vec's before the other vector classes') */
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
	{ SIM_CLS_VEC, PER_CYCLE, "vec per cycle", tp_vec, ITERS, 8, 0 },
	{ SIM_CLS_FP_ADD, PER_CYCLE, "fp_add per cycle", tp_fadd, ITERS, 8, 0 },
	{ SIM_CLS_FP_MUL, PER_CYCLE, "fp_mul per cycle", tp_fmul, ITERS, 8, 0 },
	{ SIM_CLS_FP_FMA, PER_CYCLE, "fp_fma per cycle", tp_fma, ITERS, 8, 0 },
	{ SIM_CLS_VEC_MUL, PER_CYCLE, "vec_mul per cycle", tp_vmul, ITERS, 8, 0 },
	{ SIM_CLS_VEC_SHUFFLE, PER_CYCLE, "vec_shuffle per cycle", tp_shuf, ITERS, 8, 0 },
};

/* measure_classes - latency and ports of every class, fp_div's occupancy. */
static void measure_classes(struct calib *k)
{
	struct sim_core_cfg *c = &k->c;

	for (size_t i = 0; i < sizeof(class_benches) / sizeof(class_benches[0]); i++) {
		const struct class_bench *b = &class_benches[i];
		static uint64_t scratch[64] __attribute__((aligned(64)));
		double v = cycles_per_op(b->fn, b->arg ? scratch : NULL, b->iters, b->ops, k->runs);

		if (b->what == LATENCY)
			c->cls[b->cls].latency = rounded(measured(k, b->label, v));
		else if (b->what == LATENCY32)
			c->cls[b->cls].latency32 = rounded(measured(k, b->label, v));
		else
			set_ports(k, b->cls, measured(k, b->label, 1.0 / v));
	}
	c->cls[SIM_CLS_FP_DIV].occupancy =
		rounded(measured(k, "fp_div cycles per op", cycles_per_op(tp_fdiv, NULL, ITERS / 4, 8, k->runs)));
	if (!c->cls[SIM_CLS_FP_DIV].occupancy)
		c->cls[SIM_CLS_FP_DIV].occupancy = 1;
}

/* measure_widths - dispatch width from the mix, and taken branches a
 * cycle; fetch and retire are at least as wide as dispatch. */
static void measure_widths(struct calib *k)
{
	struct sim_core_cfg *c = &k->c;
	unsigned d = rounded(measured(k, "dispatch per cycle (mix)", 1.0 / cycles_per_op(tp_mix, NULL, ITERS, 33, k->runs)));
	double taken = measured(k, "taken branches per cycle", 1.0 / cycles_per_op(tp_taken, NULL, ITERS, 9, k->runs));
	unsigned t = rounded(taken);

	c->dispatch_width = d < 1 ? 1 : d > 16 ? 16 : d;
	if (c->fetch_width < c->dispatch_width)
		c->fetch_width = c->dispatch_width;
	if (c->retire_width < c->dispatch_width)
		c->retire_width = c->dispatch_width;
	c->taken_per_cycle = t < 1 ? 1 : t > 16 ? 16 : t;
	was_set(k, "dispatch_width = %u (fetch_width %u, retire_width %u: the base preset's or as wide)",
		c->dispatch_width, c->fetch_width, c->retire_width);
	was_set(k, "taken_per_cycle = %u", c->taken_per_cycle);
	set_ports(k, SIM_CLS_BRANCH, taken); /* each of them on a branch port */
}

/* measure_forwarding - a core that renames memory shows the add alone;
 * then the forwarding latency of unpredicted pairs is the base's. */
static void measure_forwarding(struct calib *k)
{
	static uint64_t scratch[64] __attribute__((aligned(64)));
	struct sim_core_cfg *c = &k->c;
	double fwd = measured(k, "store, load, add", cycles_per_op(store_forward_other, scratch, ITERS, 8, k->runs));
	unsigned alu = c->cls[SIM_CLS_INT_ALU].latency;

	c->memory_renaming = fwd < alu + 1;
	if (!c->memory_renaming)
		c->store_forward_latency = rounded(fwd - alu);
	was_set(k, "memory_renaming = %u, store_forward_latency = %u%s", c->memory_renaming,
		c->store_forward_latency, c->memory_renaming ? " (the base preset's)" : "");
}

/* measure_mispredict - a random branch against an all-taken one, half
 * missed.  What a miss costs here is the branch's resolution (its byte
 * load and the test, hidden when predicted) plus, in the model, the
 * refetch `mispredict_penalty` after resolution, the front end's depth
 * and the cycle to issue. */
static int measure_mispredict(struct calib *k)
{
	struct sim_core_cfg *c = &k->c;
	uint64_t s = 88172645463325252ull;
	uint8_t *bits = malloc(65536); /* more than a predictor learns by heart */
	double pred, rand, lat;
	unsigned fixed = c->frontend_depth + 1 + c->l1d.latency + 1;

	if (!bits)
		return -1;
	memset(bits, 0, 65536);
	pred = cycles_per_op(branchy, bits, 65536, 1, k->runs);
	for (int i = 0; i < 65536; i++) {
		s ^= s << 13;
		s ^= s >> 7;
		s ^= s << 17;
		bits[i] = (uint8_t)(s & 1);
	}
	rand = cycles_per_op(branchy, bits, 65536, 1, k->runs);
	free(bits);
	lat = measured(k, "branch mispredict penalty", 2.0 * (rand - pred));
	c->mispredict_penalty = rounded(lat) > fixed ? rounded(lat) - fixed : 1;
	was_set(k, "mispredict_penalty = %u (after resolution)", c->mispredict_penalty);
	return 0;
}

/*
 * measure_llc - the last level as this process sees it, its latency and
 * memory's.  The hardware's report is the most it can be, but a VM's
 * hypervisor may report the host's whole L3 (480 MiB was seen) and busy
 * neighbours leave less: chase through doubling sizes from twice L2 to
 * the reported size (at most 128 MiB, half the memory measurement's): the
 * largest served nearer the first's latency than memory's is the size the
 * process gets (a size past that mark is timed again before the sweep
 * stops: one slow timing is a neighbour).  The LLC's one latency is the
 * median of the sweep's below that mark: in a VM the latency climbs over
 * the level's range (TLB misses, which the model does not have), and the
 * median is the figure no footprint of the level is far from.
 */
static void measure_llc(struct calib *k, uint64_t reported, unsigned ways)
{
	struct sim_core_cfg *c = &k->c;
	uint64_t best = 0, top = reported ? reported : c->llc.size;
	double lat[16], low = 0;
	int n = 0;

	if (top > (128ull << 20))
		top = 128ull << 20;
	for (uint64_t size = c->l2.size * 2; size <= top && n < 16; size *= 2) {
		/* a pass a timing: every run up to 16 MiB (~30 ms a pass), a
		 * few beyond (a pass through 128 MiB takes ~0.3 s) */
		int sweep_runs = size <= (16u << 20) || k->runs < 3 ? k->runs : 3;
		double l = load_to_use(size, 0, sweep_runs);

		if (k->log)
			fprintf(k->log, "  chase through %6lluK          %7.2f\n", (unsigned long long)(size >> 10), l);
		if (!low || l < low) /* the LLC's fastest: one slow first timing is a neighbour */
			low = l;
		if (l > (low + c->mem_latency) / 2) {
			l = load_to_use(size, 0, k->runs);
			if (k->log)
				fprintf(k->log, "  chase through %6lluK again    %7.2f\n", (unsigned long long)(size >> 10), l);
			if (l > (low + c->mem_latency) / 2)
				break;
		}
		lat[n++] = l;
		best = size;
	}
	if (!best) { /* the neighbours had it all just then */
		best = c->l2.size * 2;
		lat[n++] = low;
	}
	for (int i = 0; i < n; i++) /* sort for the median */
		for (int j = i + 1; j < n; j++)
			if (lat[j] < lat[i]) {
				double t = lat[i];

				lat[i] = lat[j];
				lat[j] = t;
			}
	if (best * 2 > top && reported)
		best = reported < top ? reported : top; /* the sweep reached what the hardware
							 * says, or the 128 MiB under memory's */
	fit_cache(&c->llc, best, ways);
	c->llc.latency = rounded(n % 2 ? lat[n / 2] : (lat[n / 2 - 1] + lat[n / 2]) / 2);
	measured(k, "LLC load-to-use (median)", (double)c->llc.latency);
	measured(k, "LLC size seen (KiB)", (double)(best >> 10));
	was_set(k, "llc: size=%lluK assoc=%u latency=%u (%s)", (unsigned long long)(c->llc.size >> 10), c->llc.assoc,
		c->llc.latency, best == reported ? "the size reported"
		: best == top   ? "at most half the memory chase"
				 : "the size the sweep saw");
}

/* measure_memory - load-to-use per level by chasing through part of each,
 * memory's, the LLC the process gets, and the cycles per line
 * independent misses get from each level. */
static void measure_memory(struct calib *k)
{
	struct sim_core_cfg *c = &k->c;
	uint64_t llc_reported;
	unsigned ways;

	set_cache(k, &c->l1d, 1, "l1d", &ways);
	set_cache(k, &c->l2, 2, "l2", &ways);
	llc_reported = c->llc.enabled ? set_cache(k, &c->llc, 3, "llc", &ways) : 0;
	c->l1d.latency = rounded(measured(k, "L1D load-to-use", load_to_use(c->l1d.size / 2, 0, k->runs)));
	/* a quarter of L2 stays within the first-level TLB's reach */
	c->l2.latency = rounded(measured(k, "L2 load-to-use", load_to_use(c->l2.size / 4, 0, k->runs)));
	was_set(k, "l1d latency=%u, l2 latency=%u", c->l1d.latency, c->l2.latency);
	measure_forwarding(k);
	/* memory, then the LLC the process gets: a VM's neighbours move them
	 * within seconds, so they are measured nearest to what follows.
	 * 64K loads at a time through 256 MiB, best of 15 (short timings
	 * through a VM's memory came out far too fast) */
	c->mem_latency = rounded(measured(k, "memory load-to-use", load_to_use(256u << 20, 8192, 15)));
	was_set(k, "mem_latency = %u", c->mem_latency);
	if (c->llc.enabled)
		measure_llc(k, llc_reported, ways);
	/* bandwidth: independent loads from random lines of each level; the
	 * LLC's through twice L2, past L2 and as near as the LLC gets (further
	 * out, a VM's TLB misses, not the LLC's bandwidth, set the pace: 28
	 * cycles a line through 32 MiB against 6 through 4 MiB, seen) */
	c->l2_fill = rounded(measured(k, "L2 cycles per line", fill_of(c->l2.size / 4, k->runs)));
	if (c->llc.enabled)
		c->llc_fill = rounded(measured(k, "LLC cycles per line", fill_of(c->l2.size * 2, k->runs > 5 ? 5 : k->runs)));
	c->mem_fill = rounded(measured(k, "memory cycles per line", fill_of(256u << 20, 5)));
	was_set(k, "fill: l2 %u, llc %u, memory %u cycles per line", c->l2_fill, c->llc_fill, c->mem_fill);
}

int sim_calibrate(FILE *out, FILE *log, int runs, char *err, size_t errlen)
{
	struct sim_host h;
	const char *base;
	int exact;
	char why[200];
	double ns_per_cycle;
	struct calib *k;

	if (sim_host_identify(&h) || !(base = sim_host_preset(&h, &exact, why, sizeof(why)))) {
		snprintf(err, errlen, "--calibrate needs an x86-64 host");
		return -1;
	}
	if (!(k = calloc(1, sizeof(*k)))) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	k->log = log;
	k->runs = runs;
	sim_config_init(&k->c);
	if (sim_config_load(&k->c, base, err, errlen) || sim_config_validate(&k->c, err, errlen)) {
		free(k);
		return -1;
	}
	ns_per_cycle = sim_host_ns_per_cycle(runs * 4);
	if (log)
		fprintf(log, "calibrate: %s (%s family 0x%x model 0x%x), base preset %s; %.3f GHz by the imul clock\n",
			h.brand, h.vendor, h.family, h.model, base, 1.0 / ns_per_cycle);
	measure_classes(k);
	measure_widths(k);
	measure_memory(k);
	if (measure_mispredict(k)) {
		free(k);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	fprintf(out, "# %s: measured by pipeline-sim --calibrate\n", h.brand[0] ? h.brand : h.vendor);
	fprintf(out, "# %s family 0x%x model 0x%x, %.3f GHz by a dependent imul chain (3 cycles each);\n",
		h.vendor, h.family, h.model, 1.0 / ns_per_cycle);
	fprintf(out, "# measured (best of %d runs; cycles, 'per cycle' = operations per cycle):\n", runs);
	for (int i = 0; i < k->nm; i++)
		fprintf(out, "#   %-28s %7.2f\n", k->m[i].what, k->m[i].v);
	fprintf(out, "# set from the measurements (latencies of every class as measured):\n%s", k->set);
	fprintf(out, "# from the %s preset%s: queues and ROB, front-end depth, the predictor, fusion\n"
		     "# and elimination, rep strings, the L1I, vec_load's ports, the prefetcher.\n",
		base, exact ? "" : " (the nearest)");
	snprintf(k->c.name, sizeof(k->c.name), "host");
	sim_config_print(out, &k->c);
	free(k);
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
