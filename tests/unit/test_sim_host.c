/* test_sim_host.c - --core host: which preset a CPUID family/model gets,
 * and the calibrated clock on this machine. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#else
#define RUNNING_ON_VALGRIND 0 /* no Valgrind here, so not under it */
#endif

#include "host.h"

static const char *preset_of(const char *vendor, unsigned family, unsigned model, int *exact)
{
	struct sim_host h;
	char why[200];

	memset(&h, 0, sizeof(h));
	snprintf(h.vendor, sizeof(h.vendor), "%s", vendor);
	h.family = family;
	h.model = model;
	return sim_host_preset(&h, exact, why, sizeof(why));
}

static void test_presets_by_cpuid(void **state)
{
	int exact;

	(void)state;
	/* Zen 4: Genoa, Raphael, Phoenix, Bergamo */
	assert_string_equal(preset_of("AuthenticAMD", 0x19, 0x11, &exact), "zen4");
	assert_true(exact);
	assert_string_equal(preset_of("AuthenticAMD", 0x19, 0x61, &exact), "zen4");
	assert_string_equal(preset_of("AuthenticAMD", 0x19, 0x74, &exact), "zen4");
	assert_string_equal(preset_of("AuthenticAMD", 0x19, 0xa0, &exact), "zen4");
	assert_true(exact);
	/* Zen 3 (family 19h model 01h): the nearest, flagged */
	assert_string_equal(preset_of("AuthenticAMD", 0x19, 0x01, &exact), "zen4");
	assert_false(exact);
	/* Zen 5, family 1Ah: Turin (02h), Turin dense (11h), Strix Point
	 * (24h), Granite Ridge (44h), Strix Halo (70h): its own preset */
	assert_string_equal(preset_of("AuthenticAMD", 0x1a, 0x02, &exact), "zen5");
	assert_true(exact);
	assert_string_equal(preset_of("AuthenticAMD", 0x1a, 0x11, &exact), "zen5");
	assert_string_equal(preset_of("AuthenticAMD", 0x1a, 0x24, &exact), "zen5");
	assert_string_equal(preset_of("AuthenticAMD", 0x1a, 0x44, &exact), "zen5");
	assert_string_equal(preset_of("AuthenticAMD", 0x1a, 0x70, &exact), "zen5");
	assert_true(exact);
	/* a later AMD family: the newest, flagged; an earlier one: zen4 */
	assert_string_equal(preset_of("AuthenticAMD", 0x1b, 0x00, &exact), "zen5");
	assert_false(exact);
	assert_string_equal(preset_of("AuthenticAMD", 0x17, 0x31, &exact), "zen4");
	assert_false(exact);
	/* family 1Ah is AMD's: another vendor's family 1Ah is not Zen 5 */
	assert_null(preset_of("HygonGenuine", 0x1a, 0x02, &exact));
	/* Golden Cove: Sapphire Rapids, Emerald Rapids, Alder/Raptor Lake */
	assert_string_equal(preset_of("GenuineIntel", 6, 0x8f, &exact), "goldencove");
	assert_true(exact);
	assert_string_equal(preset_of("GenuineIntel", 6, 0xcf, &exact), "goldencove");
	assert_string_equal(preset_of("GenuineIntel", 6, 0x97, &exact), "goldencove");
	assert_true(exact);
	/* Ice Lake server: nearest */
	assert_string_equal(preset_of("GenuineIntel", 6, 0x6a, &exact), "goldencove");
	assert_false(exact);
	assert_null(preset_of("", 0, 0, &exact));
}

/* from_signature - the preset of a CPUID leaf 1 EAX value and vendor. */
static const char *from_signature(const char *vendor, unsigned eax, int *exact)
{
	unsigned family, model;

	sim_host_signature(eax, &family, &model);
	return preset_of(vendor, family, model, exact);
}

static void test_presets_by_signature(void **state)
{
	int exact;
	unsigned family, model;

	(void)state;
	/* EPYC 9005 "Turin" B00F21h: family 0Fh + 0Bh = 1Ah, model 02h */
	sim_host_signature(0x00b00f21, &family, &model);
	assert_int_equal(family, 0x1a);
	assert_int_equal(model, 0x02);
	assert_string_equal(from_signature("AuthenticAMD", 0x00b00f21, &exact), "zen5");
	assert_true(exact);
	/* Ryzen 9000 "Granite Ridge" B40F40h: 1Ah model 44h */
	assert_string_equal(from_signature("AuthenticAMD", 0x00b40f40, &exact), "zen5");
	assert_true(exact);
	/* EPYC 9004 "Genoa" A10F11h: 19h model 11h */
	assert_string_equal(from_signature("AuthenticAMD", 0x00a10f11, &exact), "zen4");
	assert_true(exact);
	/* Sapphire Rapids 806F8h: family 6 model 8Fh */
	sim_host_signature(0x000806f8, &family, &model);
	assert_int_equal(family, 6);
	assert_int_equal(model, 0x8f);
	assert_string_equal(from_signature("GenuineIntel", 0x000806f8, &exact), "goldencove");
	assert_true(exact);
	/* this project's VM says A0671h, family 6 model A7h: the nearest */
	assert_string_equal(from_signature("GenuineIntel", 0x000a0671, &exact), "goldencove");
	assert_false(exact);
}

static void test_this_host(void **state)
{
	struct sim_host h;

	(void)state;
#if defined(__x86_64__)
	{
		int exact;
		char why[200];
		double ns = sim_host_ns_per_cycle(5);

		assert_int_equal(sim_host_identify(&h), 0);
		assert_true(!strcmp(h.vendor, "AuthenticAMD") || !strcmp(h.vendor, "GenuineIntel"));
		assert_non_null(sim_host_preset(&h, &exact, why, sizeof(why)));
		/* between 0.5 and 6 GHz */
		assert_true(ns > 1.0 / 6 && ns < 2.0);
	}
#else
	assert_int_equal(sim_host_identify(&h), -1);
#endif
}

/* sysfs_size - cpu0's data/unified cache of `level` as Linux reports it,
 * read here on its own (0: not there). */
static uint64_t sysfs_size(int level, unsigned *ways)
{
	for (int idx = 0; idx < 8; idx++) {
		char path[128], lvl[16] = "", type[32] = "", size[32] = "", w[16] = "";
		const char *field[4] = { "level", "type", "size", "ways_of_associativity" };
		char *buf[4] = { lvl, type, size, w };
		size_t len[4] = { sizeof(lvl), sizeof(type), sizeof(size), sizeof(w) };

		for (int f = 0; f < 4; f++) {
			FILE *fp;

			snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cache/index%d/%s", idx, field[f]);
			if (!(fp = fopen(path, "r")))
				return 0;
			if (!fgets(buf[f], (int)len[f], fp))
				buf[f][0] = '\0';
			fclose(fp);
		}
		if (atoi(lvl) == level && strncmp(type, "Instruction", 11)) {
			*ways = (unsigned)atoi(w);
			return strtoull(size, NULL, 10) * 1024;
		}
	}
	return 0;
}

/* The cache sizes calibration starts from: sysfs first, and CPUID's
 * deterministic cache parameters (leaf 4, AMD 8000001Dh) agree with it
 * (Linux reads them from there), an independent reading of each level. */
static void test_cache_sizes(void **state)
{
	(void)state;
	for (int level = 1; level <= 3; level++) {
		unsigned sys_ways = 0, ways = 0, cpuid_ways = 0;
		uint64_t sys = sysfs_size(level, &sys_ways), size = 0, cpuid = 0;
		const char *from = NULL;
		int rc = sim_host_cache(level, &size, &ways, &from);

		if (sys) {
			assert_int_equal(rc, 0);
			assert_string_equal(from, "sysfs");
			assert_true(size == sys && ways == sys_ways);
		}
#if defined(__x86_64__)
		/* Under Valgrind (make check's memcheck stage) CPUID is the
		 * emulated CPU's, whose caches are not the host's sysfs. */
		if (sys && !RUNNING_ON_VALGRIND && !sim_host_cpuid_cache(level, &cpuid, &cpuid_ways)) {
			assert_true(cpuid == sys);
			assert_int_equal(cpuid_ways, sys_ways);
		}
#endif
		if (!rc)
			assert_true(size >= 1024 && ways >= 1);
	}
#if defined(__x86_64__)
	{
		uint64_t l1;
		unsigned w;

		/* every x86-64 core of the last decade has an L1D of 32-64K */
		assert_int_equal(sim_host_cpuid_cache(1, &l1, &w), 0);
		assert_true(l1 >= 16384 && l1 <= 131072);
	}
#endif
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_presets_by_cpuid),
		cmocka_unit_test(test_cache_sizes),
		cmocka_unit_test(test_presets_by_signature),
		cmocka_unit_test(test_this_host),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
