/* test_sim_host.c - --core host: which preset a CPUID family/model gets,
 * and the calibrated clock on this machine. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_presets_by_cpuid),
		cmocka_unit_test(test_this_host),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
