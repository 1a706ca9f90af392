/* test_sim_config.c - core descriptions: presets, errors, overrides. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "config.h"

static void test_presets_validate(void **state)
{
	int seen_ooo = 0, seen_inorder = 0, seen_power = 0;

	(void)state;
	assert_true(sim_preset_count >= 3);
	for (size_t i = 0; i < sim_preset_count; i++) {
		struct sim_core_cfg c;
		char err[256] = "";

		sim_config_init(&c);
		assert_int_equal(sim_config_load(&c, sim_presets[i].name, err, sizeof(err)), 0);
		if (sim_config_validate(&c, err, sizeof(err)))
			fail_msg("preset %s: %s", sim_presets[i].name, err);
		assert_string_equal(c.name, sim_presets[i].name);
		seen_ooo |= !c.inorder;
		seen_inorder |= c.inorder;
		seen_power |= c.l1d.line == 128;
	}
	assert_true(seen_ooo && seen_inorder && seen_power);
}

static void test_default_preset_exists(void **state)
{
	struct sim_core_cfg c;
	char err[256];

	(void)state;
	sim_config_init(&c);
	assert_int_equal(sim_config_load(&c, SIM_DEFAULT_PRESET, err, sizeof(err)), 0);
	assert_int_equal(c.inorder, 0);
	assert_int_equal(c.dispatch_width, 6);
	assert_int_equal(c.l1d.size, 32 << 10);
	assert_int_equal(c.llc.size, 32u << 20);
	assert_int_equal(c.bpred, SIM_BP_TAGE);
	/* int_mul runs on exactly one port */
	assert_int_equal(__builtin_popcount(c.cls[SIM_CLS_INT_MUL].port_mask), 1);
}

static void expect_error(const char *text, const char *needle)
{
	struct sim_core_cfg c;
	char err[256] = "";

	sim_config_init(&c);
	assert_int_equal(sim_config_parse(&c, text, "t.core", err, sizeof(err)), -1);
	if (!strstr(err, needle))
		fail_msg("error '%s' does not contain '%s'", err, needle);
}

static void test_errors_name_line_and_problem(void **state)
{
	(void)state;
	expect_error("rob = 10\nbogus = 1\n", "t.core:2: unknown key 'bogus'");
	expect_error("rob = ten\n", "t.core:1: rob: bad number 'ten'");
	expect_error("ports = a b\nclass.int_alu = ports=c latency=1\n", "unknown port 'c'");
	expect_error("class.warp = ports=a\n", "unknown instruction class 'warp'");
	expect_error("l1d = size=32K assoc=x line=64\n", "l1d: bad assoc 'x'");
	expect_error("model = vliw\n", "model: expected ooo or inorder");
	expect_error("just words\n", "expected 'key = value'");
}

static void test_validate_catches_bad_geometry(void **state)
{
	struct sim_core_cfg c;
	char err[256] = "";

	(void)state;
	sim_config_init(&c);
	assert_int_equal(sim_config_load(&c, "zen4", err, sizeof(err)), 0);
	assert_int_equal(sim_config_set(&c, "l2 = size=96K assoc=8 line=64 latency=10", err, sizeof(err)), 0);
	assert_int_equal(sim_config_validate(&c, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "power of two"));
	assert_int_equal(sim_config_set(&c, "l2 = none", err, sizeof(err)), 0);
	assert_int_equal(sim_config_validate(&c, err, sizeof(err)), 0);
	assert_int_equal(c.l2.enabled, 0);
}

static void test_set_overrides(void **state)
{
	struct sim_core_cfg c;
	char err[256] = "";

	(void)state;
	sim_config_init(&c);
	assert_int_equal(sim_config_load(&c, "zen4", err, sizeof(err)), 0);
	assert_int_equal(sim_config_set(&c, "dispatch_width=4", err, sizeof(err)), 0);
	assert_int_equal(sim_config_set(&c, "class.int_mul = ports=alu0,alu1 latency=4", err, sizeof(err)), 0);
	assert_int_equal(c.dispatch_width, 4);
	assert_int_equal(c.cls[SIM_CLS_INT_MUL].latency, 4);
	assert_int_equal(__builtin_popcount(c.cls[SIM_CLS_INT_MUL].port_mask), 2);
	assert_int_equal(sim_config_set(&c, "nonsense", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "--set 'nonsense'"));
}

static void test_missing_file(void **state)
{
	struct sim_core_cfg c;
	char err[256] = "";

	(void)state;
	sim_config_init(&c);
	assert_int_equal(sim_config_load(&c, "/nonexistent/x.core", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "cannot open core file '/nonexistent/x.core'"));
	assert_non_null(strstr(err, "zen4"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_presets_validate),
		cmocka_unit_test(test_default_preset_exists),
		cmocka_unit_test(test_errors_name_line_and_problem),
		cmocka_unit_test(test_validate_catches_bad_geometry),
		cmocka_unit_test(test_set_overrides),
		cmocka_unit_test(test_missing_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
