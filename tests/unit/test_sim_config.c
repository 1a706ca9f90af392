/* test_sim_config.c - core descriptions: presets, errors, overrides. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
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

/* A description written before the micro-op classes and keys existed. */
static const char old_core[] =
	"name = old\nmodel = ooo\nfetch_width = 4\ndispatch_width = 4\nretire_width = 4\n"
	"frontend_depth = 4\nfetch_queue = 16\nrob = 64\niq = 32\nlq = 16\nsq = 16\n"
	"mispredict_penalty = 10\nports = a b l s f\n"
	"class.int_alu = ports=a,b latency=1\nclass.int_mul = ports=a latency=3\n"
	"class.int_div = ports=a latency=20 occupancy=10\nclass.branch = ports=b latency=1\n"
	"class.load = ports=l latency=0\nclass.store = ports=s latency=1\n"
	"class.fp_add = ports=f latency=3\nclass.fp_mul = ports=f latency=5\n"
	"class.fp_div = ports=f latency=20 occupancy=10\nclass.vec = ports=f latency=1\n"
	"class.nop = ports=a latency=0\nclass.sys = ports=a latency=20 occupancy=20\n"
	"bpred = gshare\nbpred_bits = 10\nghist_bits = 10\nbtb_entries = 256\nras_entries = 8\n"
	"l1i = size=32K assoc=4 line=64 latency=1\nl1d = size=32K assoc=4 line=64 latency=3\n"
	"l2 = none\nllc = none\nmem_latency = 100\n";

static void test_new_classes_default_to_parents(void **state)
{
	struct sim_core_cfg c;
	char err[256] = "";

	(void)state;
	sim_config_init(&c);
	assert_int_equal(sim_config_parse(&c, old_core, "old.core", err, sizeof(err)), 0);
	assert_int_equal(sim_config_validate(&c, err, sizeof(err)), 0);
	assert_int_equal(c.cls[SIM_CLS_FP_FMA].latency, 5); /* fp_mul's */
	assert_int_equal(c.cls[SIM_CLS_VEC_SHUFFLE].port_mask, c.cls[SIM_CLS_VEC].port_mask);
	assert_int_equal(c.cls[SIM_CLS_VEC_LOAD].port_mask, c.cls[SIM_CLS_LOAD].port_mask);
	assert_int_equal(c.cls[SIM_CLS_VEC_STORE].port_mask, c.cls[SIM_CLS_STORE].port_mask);
	/* the micro-op features are off for it, as before they existed */
	assert_int_equal(c.macro_fusion + c.move_elimination + c.zero_idioms + c.immediate_folding, 0);
	assert_int_equal(c.memory_renaming + c.rep_bytes_per_cycle + c.store_port_bytes, 0);
}

static void test_micro_op_keys(void **state)
{
	struct sim_core_cfg c;
	char err[256] = "";

	(void)state;
	sim_config_init(&c);
	assert_int_equal(sim_config_parse(&c, old_core, "old.core", err, sizeof(err)), 0);
	assert_int_equal(sim_config_set(&c, "class.int_div = ports=a latency=14 latency32=11 occupancy32=6",
					err, sizeof(err)), 0);
	assert_int_equal(c.cls[SIM_CLS_INT_DIV].latency32, 11);
	assert_int_equal(c.cls[SIM_CLS_INT_DIV].occupancy32, 6);
	assert_int_equal(sim_config_set(&c, "macro_fusion = 1", err, sizeof(err)), 0);
	assert_int_equal(sim_config_set(&c, "immediate_folding = 2", err, sizeof(err)), 0);
	assert_int_equal(sim_config_validate(&c, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "are 0 or 1"));
	expect_error("ports = a\nclass.int_div = ports=a latency32=x\n", "bad latency32 'x'");
	assert_int_equal(sim_config_set(&c, "l2 = size=256K assoc=8 line=64 latency=12 fill=2", err, sizeof(err)), 0);
	assert_int_equal(c.l2_fill, 2);
	expect_error("l2 = size=256K assoc=8 line=64 latency=12 fill=x\n", "l2: bad fill 'x'");
}

static void test_print_reads_back(void **state)
{
	/* sim_config_print writes what --calibrate and --print-core give:
	 * it must parse back to the same description */
	for (size_t i = 0; i < sim_preset_count; i++) {
		struct sim_core_cfg a, b;
		char err[256] = "", *text = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&text, &len);

		(void)state;
		sim_config_init(&a);
		assert_int_equal(sim_config_load(&a, sim_presets[i].name, err, sizeof(err)), 0);
		assert_int_equal(sim_config_validate(&a, err, sizeof(err)), 0);
		sim_config_print(f, &a);
		fclose(f);
		sim_config_init(&b);
		if (sim_config_parse(&b, text, "printed", err, sizeof(err)) || sim_config_validate(&b, err, sizeof(err)))
			fail_msg("%s: %s", sim_presets[i].name, err);
		assert_memory_equal(&a, &b, sizeof(a));
		free(text);
	}
}

/* ports_of - the names of class cls's ports, comma-separated. */
static const char *ports_of(const struct sim_core_cfg *c, int cls)
{
	static char buf[256];
	size_t n = 0;

	buf[0] = '\0';
	for (int p = 0; p < c->nports; p++)
		if (c->cls[cls].port_mask & (1u << p))
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%s", n ? "," : "", c->port_names[p]);
	return buf;
}

static void test_set_port_count(void **state)
{
	/* what --calibrate does with a measured throughput: issue 37's Zen 5
	 * host, on zen4's description, ran 2.65 imuls, 4.82 adds, 3.87 loads
	 * and 3.97 shuffles a cycle */
	struct sim_core_cfg c;
	char err[256] = "", *text = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	sim_config_init(&c);
	assert_int_equal(sim_config_load(&c, "zen4", err, sizeof(err)), 0);
	assert_int_equal(sim_config_validate(&c, err, sizeof(err)), 0);
	/* more of the ALUs for imul: its own first */
	assert_int_equal(sim_config_set_port_count(&c, SIM_CLS_INT_MUL, 3), 3);
	assert_string_equal(ports_of(&c, SIM_CLS_INT_MUL), "alu0,alu1,alu2");
	/* beyond the four ALUs: a new one */
	assert_int_equal(sim_config_set_port_count(&c, SIM_CLS_INT_ALU, 5), 5);
	assert_string_equal(ports_of(&c, SIM_CLS_INT_ALU), "alu0,alu1,alu2,alu3,alu4");
	/* a fourth load port; shuffles on all four FP pipes */
	assert_int_equal(sim_config_set_port_count(&c, SIM_CLS_LOAD, 4), 4);
	assert_string_equal(ports_of(&c, SIM_CLS_LOAD), "ld0,ld1,ld2,ld3");
	assert_int_equal(sim_config_set_port_count(&c, SIM_CLS_VEC_SHUFFLE, 4), 4);
	assert_string_equal(ports_of(&c, SIM_CLS_VEC_SHUFFLE), "fp0,fp1,fp2,fp3");
	/* fewer: the first of its own */
	assert_int_equal(sim_config_set_port_count(&c, SIM_CLS_STORE, 1), 1);
	assert_string_equal(ports_of(&c, SIM_CLS_STORE), "st0");
	assert_int_equal(c.nports, 15);
	/* and the description still validates and prints back to itself */
	assert_int_equal(sim_config_validate(&c, err, sizeof(err)), 0);
	f = open_memstream(&text, &len);
	sim_config_print(f, &c);
	fclose(f);
	{
		struct sim_core_cfg b;

		sim_config_init(&b);
		if (sim_config_parse(&b, text, "printed", err, sizeof(err)) || sim_config_validate(&b, err, sizeof(err)))
			fail_msg("%s", err);
		assert_string_equal(ports_of(&b, SIM_CLS_INT_ALU), "alu0,alu1,alu2,alu3,alu4");
		assert_int_equal(b.cls[SIM_CLS_INT_MUL].port_mask, c.cls[SIM_CLS_INT_MUL].port_mask);
	}
	free(text);
	/* no room past SIM_MAX_PORTS: as many as there can be */
	assert_int_equal(sim_config_set_port_count(&c, SIM_CLS_VEC, SIM_MAX_PORTS + 4),
			 4 + SIM_MAX_PORTS - 15);
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
		cmocka_unit_test(test_new_classes_default_to_parents),
		cmocka_unit_test(test_micro_op_keys),
		cmocka_unit_test(test_print_reads_back),
		cmocka_unit_test(test_set_port_count),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
