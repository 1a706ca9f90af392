/* host.c - host identification and the calibrated cycle clock (see host.h). */
#include "host.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

uint64_t sim_host_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* imul_clock - one timing of `iters` iterations of the imul clock (8
 * dependent imuls of 3 cycles each), in nanoseconds per cycle; 0 off
 * x86-64. */
static double imul_clock(uint64_t iters);

/* one timing of the imul clock between two runs: 24576 cycles, about 6 us */
#define CLOCK_BETWEEN_ITERS 1024

/* the faster of two timings (best 0: none yet; timing 0: none) */
static double faster(double best, double t)
{
	return !best || (t > 0 && t < best) ? t : best;
}

double sim_host_best_cycles(void (*fn)(uint64_t iters, void *arg), void *arg, uint64_t iters, int runs,
			    unsigned gap_ms)
{
	double best = 0, clock;

	fn(iters, arg); /* warm caches, predictors, the clock frequency */
	clock = imul_clock(CLOCK_BETWEEN_ITERS);
	for (int i = 0; i < runs; i++) {
		uint64_t t0 = sim_host_now_ns();
		double ns;

		fn(iters, arg);
		ns = (double)(sim_host_now_ns() - t0);
		best = faster(best, ns);
		/* the clock between the runs: its best and theirs come from
		 * the same stretch of time (the best ratio of one run to the
		 * clock beside it would pick out an outlier) */
		clock = faster(clock, imul_clock(CLOCK_BETWEEN_ITERS));
		if (gap_ms) {
			struct timespec gap = { (time_t)(gap_ms / 1000), (long)(gap_ms % 1000) * 1000000L };

			nanosleep(&gap, NULL);
		}
	}
	return clock > 0 ? best / clock / (double)(iters ? iters : 1) : 0;
}

int sim_host_chase_ring(char *buf, size_t size, uint64_t seed)
{
	size_t n = size / 64, *order = malloc((n ? n : 1) * sizeof(*order));
	uint64_t s = seed | 1;

	if (!order)
		return -1;
	for (size_t i = 0; i < n; i++)
		order[i] = i;
	for (size_t i = n - 1; n && i > 0; i--) { /* Fisher-Yates, xorshift64 */
		size_t j, t;

		s ^= s << 13;
		s ^= s >> 7;
		s ^= s << 17;
		j = (size_t)(s % (i + 1));
		t = order[i];
		order[i] = order[j];
		order[j] = t;
	}
	for (size_t i = 0; i < n; i++)
		*(void **)(buf + order[i] * 64) = buf + order[(i + 1) % n] * 64;
	free(order);
	return 0;
}

void sim_host_signature(unsigned eax, unsigned *family, unsigned *model)
{
	/* Intel SDM vol. 2, CPUID leaf 1: display family and model (AMD's
	 * APM vol. 3, CPUID Fn0000_0001_EAX, the same) */
	unsigned fam = (eax >> 8) & 0xf, mod = (eax >> 4) & 0xf;

	if (fam == 0xf)
		fam += (eax >> 20) & 0xff;
	if (fam == 0x6 || fam >= 0xf)
		mod |= ((eax >> 16) & 0xf) << 4;
	*family = fam;
	*model = mod;
}

#if defined(__x86_64__)

int sim_host_identify(struct sim_host *h)
{
	unsigned a, b, c, d;

	memset(h, 0, sizeof(*h));
	if (!__get_cpuid(0, &a, &b, &c, &d))
		return -1;
	memcpy(h->vendor, &b, 4);
	memcpy(h->vendor + 4, &d, 4);
	memcpy(h->vendor + 8, &c, 4);
	__get_cpuid(1, &a, &b, &c, &d);
	sim_host_signature(a, &h->family, &h->model);
	if (__get_cpuid(0x80000000, &a, &b, &c, &d) && a >= 0x80000004) {
		unsigned *w = (unsigned *)(void *)h->brand;

		for (unsigned leaf = 0; leaf < 3; leaf++)
			__get_cpuid(0x80000002 + leaf, &w[leaf * 4], &w[leaf * 4 + 1], &w[leaf * 4 + 2],
				    &w[leaf * 4 + 3]);
		h->brand[48] = '\0';
	}
	return 0;
}

/* imul_chain - n dependent imul r64 (8 per loop iteration). */
static void imul_chain(uint64_t iters)
{
	uint64_t x = 3;

	__asm__ volatile("1:\n\t"
			 "imul %0, %0\n\timul %0, %0\n\timul %0, %0\n\timul %0, %0\n\t"
			 "imul %0, %0\n\timul %0, %0\n\timul %0, %0\n\timul %0, %0\n\t"
			 "dec %1\n\tjnz 1b"
			 : "+r"(x), "+r"(iters)
			 :
			 : "cc");
}

static double imul_clock(uint64_t iters)
{
	uint64_t t0 = sim_host_now_ns();

	imul_chain(iters);
	return (double)(sim_host_now_ns() - t0) / (double)(iters * 8 * 3);
}

#else

int sim_host_identify(struct sim_host *h)
{
	memset(h, 0, sizeof(*h));
	return -1;
}

static double imul_clock(uint64_t iters)
{
	(void)iters;
	return 0;
}

#endif

double sim_host_ns_per_cycle(int runs)
{
	const uint64_t iters = 1 << 17; /* 1M imuls, ~1 ms */
	double best = 0;

	imul_clock(iters); /* wake the core up */
	for (int i = 0; i < runs; i++)
		best = faster(best, imul_clock(iters));
	return best;
}

/* Zen 4: family 19h models 10h-1Fh (Genoa), 60h-7Fh (Raphael, Phoenix),
 * A0h-AFh (Bergamo, Siena) (AMD, "Processor Programming Reference for
 * Family 19h" of each model range). */
static int is_zen4(unsigned fam, unsigned mod)
{
	return fam == 0x19 && ((mod >= 0x10 && mod <= 0x1f) || (mod >= 0x60 && mod <= 0x7f) ||
			       (mod >= 0xa0 && mod <= 0xaf));
}

/* Zen 5: family 1Ah, every model so far: 00h-1Fh (EPYC 9005 Turin, Turin
 * dense), 20h-2Fh (Strix Point), 40h-4Fh (Granite Ridge), 60h-7Fh
 * (Krackan Point, Strix Halo) (AMD, "Processor Programming Reference for
 * AMD Family 1Ah" of each model range; "Software Optimization Guide for
 * the AMD Zen5 Microarchitecture", pub. 58455, section 1). */
static int is_zen5(unsigned fam)
{
	return fam == 0x1a;
}

/* Golden Cove and its Raptor Cove refresh: family 6 models 8Fh (Sapphire
 * Rapids), CFh (Emerald Rapids), 97h/9Ah (Alder Lake), B7h/BAh/BFh
 * (Raptor Lake) (Intel SDM vol. 4, table 2-1). */
static int is_goldencove(unsigned fam, unsigned mod)
{
	return fam == 6 && (mod == 0x8f || mod == 0xcf || mod == 0x97 || mod == 0x9a || mod == 0xb7 ||
			    mod == 0xba || mod == 0xbf);
}

const char *sim_host_preset(const struct sim_host *h, int *exact, char *why, size_t len)
{
	int amd = !strcmp(h->vendor, "AuthenticAMD"), intel = !strcmp(h->vendor, "GenuineIntel");

	*exact = 1;
	why[0] = '\0';
	if (amd && is_zen4(h->family, h->model))
		return "zen4";
	if (amd && is_zen5(h->family))
		return "zen5";
	if (intel && is_goldencove(h->family, h->model))
		return "goldencove";
	if (!amd && !intel)
		return NULL;
	*exact = 0;
	snprintf(why, len, "%s family 0x%x model 0x%x has no preset of its own", h->vendor, h->family,
		 h->model);
	/* the nearest: Zen 5 for a later AMD family, Zen 4 for an earlier one
	 * (Zen 3 has Zen 4's widths and ports) */
	return amd ? (h->family > 0x1a ? "zen5" : "zen4") : "goldencove";
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

/* sysfs_cache - the data/unified cache of `level` as Linux reports it
 * (Documentation/ABI/testing/sysfs-devices-system-cpu, cache/index*). */
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
		return *size && *ways ? 0 : -1;
	}
	return -1;
}

#if defined(__x86_64__)
/*
 * sim_host_cpuid_cache - the same from CPUID's deterministic cache parameters:
 * leaf 4 (Intel SDM vol. 2A, CPUID) or 8000001Dh (AMD APM vol. 3, E.4.15),
 * the same layout: EAX[4:0] type (1 data, 2 instruction, 3 unified),
 * EAX[7:5] level, EBX ways-1 [31:22], partitions-1 [21:12], line-1
 * [11:0], ECX sets-1.
 */
int sim_host_cpuid_cache(int level, uint64_t *size, unsigned *ways)
{
	unsigned a, b, c, d, max, leaf;
	char vendor[13];

	if (!__get_cpuid(0, &max, &b, &c, &d))
		return -1;
	memcpy(vendor, &b, 4);
	memcpy(vendor + 4, &d, 4);
	memcpy(vendor + 8, &c, 4);
	vendor[12] = '\0';
	leaf = 4;
	if (!strcmp(vendor, "AuthenticAMD")) {
		if (!__get_cpuid(0x80000000, &max, &b, &c, &d) || max < 0x8000001d)
			return -1;
		leaf = 0x8000001d;
	} else if (max < 4) {
		return -1;
	}
	for (unsigned sub = 0; sub < 16; sub++) {
		unsigned type;

		__cpuid_count(leaf, sub, a, b, c, d);
		type = a & 0x1f;
		if (type == 0)
			break;
		if (type == 2 || (int)((a >> 5) & 7) != level)
			continue;
		*ways = (b >> 22) + 1;
		*size = (uint64_t)*ways * (((b >> 12) & 0x3ff) + 1) * ((b & 0xfff) + 1) * ((uint64_t)c + 1);
		return 0;
	}
	return -1;
}
#else
int sim_host_cpuid_cache(int level, uint64_t *size, unsigned *ways)
{
	(void)level;
	(void)size;
	(void)ways;
	return -1;
}
#endif

int sim_host_cache(int level, uint64_t *size, unsigned *ways, const char **from)
{
	if (!sysfs_cache(level, size, ways)) {
		*from = "sysfs";
		return 0;
	}
	if (!sim_host_cpuid_cache(level, size, ways)) {
		*from = "CPUID";
		return 0;
	}
	return -1;
}
