/* test_sim_bpred.c - direction predictors, BTB and return stack. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "bpred.h"
#include "config.h"

static struct sim_bpred make(int kind, unsigned ras)
{
	struct sim_core_cfg cfg;
	struct sim_bpred b;

	memset(&cfg, 0, sizeof(cfg));
	cfg.bpred = kind;
	cfg.bpred_bits = 12;
	cfg.ghist_bits = 16;
	cfg.btb_entries = 1024;
	cfg.ras_entries = ras;
	assert_int_equal(sim_bpred_init(&b, &cfg), 0);
	return b;
}

/* misses over the last half of n outcomes of pattern(i) */
static uint64_t run(struct sim_bpred *b, int (*pattern)(uint64_t), uint64_t n)
{
	uint64_t miss = 0;

	for (uint64_t i = 0; i < n; i++) {
		int m = sim_bpred_cond(b, 0x401000, pattern(i));

		if (i >= n / 2)
			miss += (uint64_t)m;
	}
	return miss;
}

static int always(uint64_t i) { (void)i; return 1; }
static int loop8(uint64_t i) { return i % 8 != 7; }  /* taken 7, then falls out */
static int alternate(uint64_t i) { return (int)(i & 1); }
static uint64_t state = 0x9e3779b97f4a7c15ull;
static int random_bit(uint64_t i)
{
	(void)i;
	state ^= state << 13;
	state ^= state >> 7;
	state ^= state << 17;
	return (int)(state >> 63);
}

static void test_direction_predictors(void **state_)
{
	const int kinds[] = { SIM_BP_BIMODAL, SIM_BP_GSHARE, SIM_BP_TAGE };

	(void)state_;
	for (int k = 0; k < 3; k++) {
		struct sim_bpred b = make(kinds[k], 16);
		uint64_t m;

		assert_int_equal(run(&b, always, 10000), 0);
		m = run(&b, random_bit, 20000);
		assert_true(m > 4000 && m < 6000); /* about half of 10000 */
		sim_bpred_free(&b);
	}
	/* history-based predictors learn short patterns, a counter cannot */
	{
		struct sim_bpred bi = make(SIM_BP_BIMODAL, 16), gs = make(SIM_BP_GSHARE, 16),
				 tg = make(SIM_BP_TAGE, 16);

		assert_true(run(&bi, alternate, 10000) >= 2500);
		assert_true(run(&gs, alternate, 10000) < 50);
		assert_true(run(&tg, alternate, 10000) < 50);
		assert_true(run(&bi, loop8, 16000) >= 1000 - 10); /* every exit */
		assert_true(run(&tg, loop8, 16000) < 50);
		sim_bpred_free(&bi);
		sim_bpred_free(&gs);
		sim_bpred_free(&tg);
	}
}

static void test_return_stack(void **state_)
{
	struct sim_bpred b = make(SIM_BP_TAGE, 8);

	(void)state_;
	/* nested calls 6 deep, returned in order: all predicted */
	for (int rep = 0; rep < 100; rep++) {
		for (uint64_t d = 0; d < 6; d++)
			sim_bpred_call(&b, 0x1000 + d * 16);
		for (uint64_t d = 6; d-- > 0;)
			assert_int_equal(sim_bpred_return(&b, 0x1000 + d * 16), 0);
	}
	assert_int_equal(b.ret_miss, 0);
	/* 12 deep overflows an 8-entry stack: the 4 oldest are lost */
	for (uint64_t d = 0; d < 12; d++)
		sim_bpred_call(&b, 0x2000 + d * 16);
	for (uint64_t d = 12; d-- > 0;)
		sim_bpred_return(&b, 0x2000 + d * 16);
	assert_int_equal(b.ret_miss, 4);
	sim_bpred_free(&b);
}

static void test_btb(void **state_)
{
	struct sim_bpred b = make(SIM_BP_TAGE, 8);

	(void)state_;
	assert_int_equal(sim_bpred_target(&b, 0x400, 0x9000), 1); /* cold */
	assert_int_equal(sim_bpred_target(&b, 0x400, 0x9000), 0);
	assert_int_equal(sim_bpred_target(&b, 0x400, 0xa000), 1); /* new target */
	assert_int_equal(sim_bpred_target(&b, 0x400, 0xa000), 0);
	assert_int_equal(b.indirect, 4);
	assert_int_equal(b.indirect_miss, 2);
	sim_bpred_free(&b);
}

/* sim_bpred_reset: a trained predictor, reset, predicts as a fresh one. */
static void test_reset_is_a_fresh_predictor(void **state_)
{
	static const int kinds[] = { SIM_BP_BIMODAL, SIM_BP_GSHARE, SIM_BP_TAGE };

	(void)state_;
	for (int k = 0; k < 3; k++) {
		struct sim_bpred used = make(kinds[k], 8), fresh = make(kinds[k], 8);
		uint64_t a, b;

		run(&used, loop8, 5000);
		sim_bpred_call(&used, 0x2000);
		sim_bpred_target(&used, 0x400, 0x9000);
		sim_bpred_reset(&used);
		assert_int_equal(used.cond + used.ret + used.indirect + used.ras_count, 0);
		state = 0x9e3779b97f4a7c15ull;
		a = run(&used, random_bit, 4000) + run(&used, alternate, 4000);
		state = 0x9e3779b97f4a7c15ull;
		b = run(&fresh, random_bit, 4000) + run(&fresh, alternate, 4000);
		assert_int_equal(a, b);
		assert_int_equal(sim_bpred_return(&used, 0x2000), 1); /* the stack is empty */
		assert_int_equal(sim_bpred_target(&used, 0x400, 0x9000), 1); /* so is the BTB */
		sim_bpred_free(&used);
		sim_bpred_free(&fresh);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_direction_predictors),
		cmocka_unit_test(test_return_stack),
		cmocka_unit_test(test_btb),
		cmocka_unit_test(test_reset_is_a_fresh_predictor),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
