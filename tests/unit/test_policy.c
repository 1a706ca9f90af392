/*
 * test_policy.c - collectors/policy/: the trigger language's parser
 * (every form, every error with its message and column) and the window
 * state machine (function windows, #N, conditions, ret:, signals,
 * instruction-count windows and --every periodic windows at exact
 * instruction boundaries).
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "policy.h"

/* ---- parser ------------------------------------------------------------ */

static struct policy_event parse_ok(const char *text)
{
	struct policy_event ev;
	struct policy_error err;

	if (policy_parse_event(text, &ev, &err) != 0)
		fail_msg("'%s' rejected: %s at %zu", text, err.message, err.column);
	return ev;
}

static void parse_bad(const char *text, size_t column, const char *message)
{
	struct policy_event ev;
	struct policy_error err;

	assert_int_equal(policy_parse_event(text, &ev, &err), -1);
	assert_string_equal(err.message, message);
	assert_int_equal(err.column, column);
}

static void test_parse_func(void **state)
{
	struct policy_event ev = parse_ok("malloc");
	char buf[128];

	(void)state;
	assert_int_equal(ev.kind, POLICY_EV_FUNC);
	assert_string_equal(ev.name, "malloc");
	assert_int_equal(ev.nth, 0);
	assert_int_equal(ev.is_glob, 0);
	assert_int_equal(ev.cond_op, POLICY_OP_NONE);
	ev = parse_ok("parse#3");
	assert_string_equal(ev.name, "parse");
	assert_int_equal(ev.nth, 3);
	assert_string_equal(policy_event_text(&ev, buf, sizeof(buf)), "parse#3");
	ev = parse_ok("sqlite3_*");
	assert_int_equal(ev.is_glob, 1);
	ev = parse_ok("_ZN3foo3barEv");
	assert_string_equal(ev.name, "_ZN3foo3barEv");
	ev = parse_ok("ret:parse");
	assert_int_equal(ev.kind, POLICY_EV_RET);
	assert_string_equal(ev.name, "parse");
}

static void test_parse_cond(void **state)
{
	struct policy_event ev = parse_ok("malloc if arg0>1048576");
	char buf[128];

	(void)state;
	assert_int_equal(ev.cond_op, POLICY_OP_GT);
	assert_int_equal(ev.cond_arg, 0);
	assert_int_equal(ev.cond_value, 1048576);
	ev = parse_ok("f#2 if arg5 == 0x10");
	assert_int_equal(ev.nth, 2);
	assert_int_equal(ev.cond_op, POLICY_OP_EQ);
	assert_int_equal(ev.cond_arg, 5);
	assert_int_equal(ev.cond_value, 16);
	assert_string_equal(policy_event_text(&ev, buf, sizeof(buf)), "f#2 if arg5==16");
	assert_int_equal(parse_ok("f if arg1!=3").cond_op, POLICY_OP_NE);
	assert_int_equal(parse_ok("f if arg1<3").cond_op, POLICY_OP_LT);
	assert_int_equal(parse_ok("f if arg1<=3").cond_op, POLICY_OP_LE);
	assert_int_equal(parse_ok("f if arg1>=3").cond_op, POLICY_OP_GE);
	ev = parse_ok("addr:0x401000 if arg2<=7");
	assert_int_equal(ev.kind, POLICY_EV_ADDR);
	assert_int_equal(ev.addr, 0x401000);
	assert_int_equal(ev.cond_op, POLICY_OP_LE);
}

static void test_parse_other(void **state)
{
	struct policy_event ev = parse_ok("addr:0x1139@prog");

	(void)state;
	assert_int_equal(ev.addr, 0x1139);
	assert_string_equal(ev.name, "prog");
	ev = parse_ok("insns:1000000");
	assert_int_equal(ev.kind, POLICY_EV_INSNS);
	assert_int_equal(ev.insns, 1000000);
	assert_int_equal(parse_ok("insns:0x10").insns, 16);
	ev = parse_ok("signal:SIGUSR1");
	assert_int_equal(ev.kind, POLICY_EV_SIGNAL);
	assert_int_equal(ev.signo, SIGUSR1);
	assert_int_equal(parse_ok("signal:TERM").signo, SIGTERM);
}

static void test_parse_errors(void **state)
{
	(void)state;
	parse_bad("", 0, "empty event");
	parse_bad("malloc if arg9>1", 10, "argument index 9 out of range (0..5)");
	parse_bad("malloc if arg0~1", 14, "expected a comparison (== != < <= > >=)");
	parse_bad("malloc if arg0>", 15, "expected a value (a decimal or 0x hex number)");
	parse_bad("malloc if x>1", 10, "expected argK (K = 0..5)");
	parse_bad("malloc when arg0>1", 7, "expected 'if argK OP VALUE' after the event");
	parse_bad("malloc if arg0>1 junk", 17, "unexpected text after the condition");
	parse_bad("f#0", 2, "entries are counted from 1 (#1 is the first)");
	parse_bad("f#", 2, "expected an entry number after '#' (a decimal or 0x hex number)");
	parse_bad("f#2x", 3, "unexpected 'x'");
	parse_bad("f(x)", 1, "unexpected '(' in a function name");
	parse_bad("ret:", 4, "expected a function name");
	parse_bad("insns:", 6, "expected an instruction count (a decimal or 0x hex number)");
	parse_bad("insns:12k", 8, "unexpected text after the instruction count");
	parse_bad("insns:99999999999999999999", 6,
		  "an instruction count out of range (at most 64 bits)");
	parse_bad("addr:401000", 5, "expected a 0x hex address");
	parse_bad("addr:0x40g", 9, "unexpected 'g' after the address");
	parse_bad("addr:0x40@", 10, "expected a module after '@'");
	parse_bad("signal:NOPE", 7, "unknown signal 'NOPE' (a name like SIGUSR1 or USR1)");
}

static void test_options(void **state)
{
	struct policy_spec spec = {0};
	struct policy_error err;
	int opt;
	char buf[512];

	(void)state;
	assert_int_equal(policy_add_option(&spec, POLICY_OPT_START, "f", &err), 0);
	assert_int_equal(policy_is_legacy(&spec), 1);
	assert_int_equal(policy_add_option(&spec, POLICY_OPT_STOP, "g", &err), 0);
	assert_int_equal(policy_is_legacy(&spec), 1);
	assert_int_equal(policy_add_option(&spec, POLICY_OPT_STOP, "h#2", &err), 0);
	assert_int_equal(policy_is_legacy(&spec), 0);
	assert_int_equal(spec.nstart, 1);
	assert_int_equal(spec.nstop, 2);
	assert_int_equal(policy_add_option(&spec, POLICY_OPT_FOR, "insns:0", &err), -1);
	assert_string_equal(err.message, "the count must be at least 1");
	assert_int_equal(policy_add_option(&spec, POLICY_OPT_FOR, "100", &err), -1);
	assert_string_equal(err.message, "expected insns:N");
	assert_int_equal(policy_add_option(&spec, POLICY_OPT_STOP, "insns:0", &err), -1);

	memset(&spec, 0, sizeof(spec));
	assert_int_equal(policy_add_option(&spec, POLICY_OPT_EVERY, "insns:100", &err), 0);
	assert_int_equal(policy_check(&spec, &opt, &err), -1);
	assert_int_equal(opt, POLICY_OPT_EVERY);
	assert_string_equal(err.message, "needs --for insns:L, the length of each window");
	assert_int_equal(policy_add_option(&spec, POLICY_OPT_FOR, "insns:100", &err), 0);
	assert_int_equal(policy_check(&spec, &opt, &err), -1);
	assert_string_equal(err.message,
			    "the window (--for insns:100) must be shorter than the period");
	spec.for_insns = 10;
	assert_int_equal(policy_check(&spec, &opt, &err), 0);
	assert_int_equal(policy_add_option(&spec, POLICY_OPT_START, "main", &err), 0);
	assert_int_equal(policy_check(&spec, &opt, &err), -1);
	assert_string_equal(err.message, "starts from --start insns:N only");

	memset(&spec, 0, sizeof(spec));
	for (int i = 0; i < POLICY_MAX_EVENTS; i++)
		assert_int_equal(policy_add_option(&spec, POLICY_OPT_START, "f", &err), 0);
	assert_int_equal(policy_add_option(&spec, POLICY_OPT_START, "f", &err), -1);
	assert_string_equal(err.message, "more than 16 --start options");

	assert_int_equal(policy_parse_event("malloc if arg9>1", &spec.start[0], &err), -1);
	assert_string_equal(policy_format_error(POLICY_OPT_START, "malloc if arg9>1", &err, buf,
						sizeof(buf)),
			    "--start 'malloc if arg9>1': argument index 9 out of range (0..5) at "
			    "column 11\n"
			    "  --start 'malloc if arg9>1'\n"
			    "                     ^");
}

/* ---- state machine ----------------------------------------------------- */

static struct policy_spec spec_of(const char *start, const char *stop, const char *for_,
				  const char *every)
{
	struct policy_spec spec = {0};
	struct policy_error err;
	int opt;

	if ((start && policy_add_option(&spec, POLICY_OPT_START, start, &err)) ||
	    (stop && policy_add_option(&spec, POLICY_OPT_STOP, stop, &err)) ||
	    (for_ && policy_add_option(&spec, POLICY_OPT_FOR, for_, &err)) ||
	    (every && policy_add_option(&spec, POLICY_OPT_EVERY, every, &err)) ||
	    policy_check(&spec, &opt, &err))
		fail_msg("bad spec: %s", err.message);
	return spec;
}

static const uint64_t no_args[POLICY_NARGS];

static void test_window_everything(void **state)
{
	struct policy_spec spec = {0};
	struct policy_proc p;
	struct policy_thread t;
	struct policy_fire f;

	(void)state;
	policy_proc_init(&p, &spec);
	f = policy_thread_init(&p, &t);
	assert_int_equal(f.action, 1);
	assert_int_equal(f.by, POLICY_BY_BEGIN);
	assert_true(t.open);
	assert_int_equal(policy_insns_left(&p, &t), POLICY_NONE);
	assert_int_equal(policy_on_insns(&p, &t, 1000).action, 0);
	assert_int_equal(policy_counts_insns(&spec), 0);
}

static void test_window_activation(void **state)
{
	struct policy_spec spec = spec_of("f", NULL, NULL, NULL);
	struct policy_proc p;
	struct policy_thread t;
	struct policy_fire f;

	(void)state;
	policy_proc_init(&p, &spec);
	assert_int_equal(policy_thread_init(&p, &t).action, 0);
	assert_false(policy_ever_opened(&p));
	f = policy_on_entry(&p, &t, 0, 0, no_args, 0x1000);
	assert_int_equal(f.action, 1);
	assert_int_equal(f.by, POLICY_BY_START);
	/* a recursive entry inside: nothing; the callee returning: nothing */
	assert_int_equal(policy_on_entry(&p, &t, 0, 0, no_args, 0xf00).action, 0);
	assert_int_equal(policy_on_sp(&p, &t, 0xf08).action, 0);
	assert_int_equal(policy_on_sp(&p, &t, 0x1000).action, 0);
	f = policy_on_sp(&p, &t, 0x1008); /* f returned (or longjmp/unwound past it) */
	assert_int_equal(f.action, -1);
	assert_int_equal(f.by, POLICY_BY_RETURN);
	/* the next call of f is another window */
	assert_int_equal(policy_on_entry(&p, &t, 0, 0, no_args, 0x1000).action, 1);
	assert_true(policy_ever_opened(&p));
	assert_int_equal(p.fired, 2);
}

static void test_window_start_stop(void **state)
{
	struct policy_spec spec = spec_of("f", "g", NULL, NULL);
	struct policy_proc p;
	struct policy_thread t;
	struct policy_fire f;

	(void)state;
	policy_proc_init(&p, &spec);
	policy_thread_init(&p, &t);
	assert_int_equal(policy_on_entry(&p, &t, 1, 0, no_args, 0x1000).action, 0); /* closed */
	assert_int_equal(policy_on_entry(&p, &t, 0, 0, no_args, 0x1000).action, 1);
	assert_int_equal(policy_on_sp(&p, &t, 0x2000).action, 0); /* not an activation */
	f = policy_on_entry(&p, &t, 1, 0, no_args, 0x1000);
	assert_int_equal(f.action, -1);
	assert_int_equal(f.by, POLICY_BY_STOP);
	assert_int_equal(f.index, 0);
	assert_int_equal(policy_on_entry(&p, &t, 0, 0, no_args, 0x1000).action, 1); /* again */
}

static void test_window_nth(void **state)
{
	struct policy_spec spec = spec_of("f#3", NULL, NULL, NULL);
	struct policy_proc p;
	struct policy_thread t;

	(void)state;
	policy_proc_init(&p, &spec);
	policy_thread_init(&p, &t);
	assert_int_equal(policy_on_entry(&p, &t, 0, 0, no_args, 0x1000).action, 0);
	assert_int_equal(policy_on_entry(&p, &t, 0, 0, no_args, 0x1000).action, 0);
	assert_int_equal(policy_on_entry(&p, &t, 0, 0, no_args, 0x1000).action, 1);
	/* entries inside the window count too: the 4th is not a window */
	assert_int_equal(policy_on_entry(&p, &t, 0, 0, no_args, 0xf00).action, 0);
	assert_int_equal(policy_on_sp(&p, &t, 0x1008).action, -1);
	assert_int_equal(policy_on_entry(&p, &t, 0, 0, no_args, 0x1000).action, 0);
	assert_int_equal(p.entries[0], 5);
}

static void test_window_cond(void **state)
{
	struct policy_spec spec = spec_of("malloc#2 if arg0>1048576", NULL, NULL, NULL);
	struct policy_proc p;
	struct policy_thread t;
	uint64_t small[POLICY_NARGS] = {1048576}, big[POLICY_NARGS] = {1048577};

	(void)state;
	policy_proc_init(&p, &spec);
	policy_thread_init(&p, &t);
	assert_int_equal(policy_on_entry(&p, &t, 0, 0, big, 0x1000).action, 0);   /* 1st big */
	assert_int_equal(policy_on_entry(&p, &t, 0, 0, small, 0x1000).action, 0); /* not counted */
	assert_int_equal(policy_on_entry(&p, &t, 0, 0, big, 0x1000).action, 1);   /* 2nd big */
	assert_int_equal(p.entries[0], 2);

	spec = spec_of("f if arg3<=0x10", NULL, NULL, NULL);
	policy_proc_init(&p, &spec);
	policy_thread_init(&p, &t);
	big[3] = 0x11;
	small[3] = 0x10;
	assert_int_equal(policy_on_entry(&p, &t, 0, 0, big, 0x1000).action, 0);
	assert_int_equal(policy_on_entry(&p, &t, 0, 0, small, 0x1000).action, 1);
}

static void test_window_ret(void **state)
{
	struct policy_spec spec = spec_of("ret:f", "ret:g", NULL, NULL);
	struct policy_proc p;
	struct policy_thread t;
	struct policy_fire f;

	(void)state;
	policy_proc_init(&p, &spec);
	policy_thread_init(&p, &t);
	assert_int_equal(policy_on_entry(&p, &t, 0, 0, no_args, 0x1000).action, 0); /* f entered */
	assert_int_equal(policy_on_sp(&p, &t, 0x1000).action, 0);
	f = policy_on_sp(&p, &t, 0x1008); /* f returned: open */
	assert_int_equal(f.action, 1);
	assert_int_equal(f.by, POLICY_BY_START);
	assert_int_equal(policy_on_entry(&p, &t, 1, 0, no_args, 0x2000).action, 0); /* g */
	f = policy_on_sp(&p, &t, 0x3000); /* g unwound */
	assert_int_equal(f.action, -1);
	assert_int_equal(f.by, POLICY_BY_STOP);
}

static void test_window_signal(void **state)
{
	struct policy_spec spec = spec_of("signal:USR1", "signal:USR2", NULL, NULL);
	struct policy_proc p;
	struct policy_thread t;

	(void)state;
	policy_proc_init(&p, &spec);
	policy_thread_init(&p, &t);
	assert_int_equal(policy_on_signal(&p, &t, SIGUSR2).action, 0);
	assert_int_equal(policy_on_signal(&p, &t, SIGUSR1).action, 1);
	assert_int_equal(policy_on_signal(&p, &t, SIGUSR1).action, 0);
	assert_int_equal(policy_on_signal(&p, &t, SIGUSR2).action, -1);
}

/* Run the thread n instructions one at a time, counting those inside a
 * window, as a single-stepping backend does. */
static uint64_t step(struct policy_proc *p, struct policy_thread *t, uint64_t n,
		     uint64_t *opened, uint64_t *closed)
{
	uint64_t inside = 0;

	for (uint64_t i = 0; i < n; i++) {
		struct policy_fire f;

		inside += t->open;
		f = policy_on_insns(p, t, 1);
		if (f.action == 1 && opened)
			(*opened)++;
		if (f.action == -1 && closed)
			(*closed)++;
	}
	return inside;
}

static void test_window_insns(void **state)
{
	struct policy_spec spec = spec_of("insns:1000", NULL, "insns:50", NULL);
	struct policy_proc p;
	struct policy_thread t;
	struct policy_fire f;

	(void)state;
	assert_int_equal(policy_counts_insns(&spec), 1);
	policy_proc_init(&p, &spec);
	assert_int_equal(policy_thread_init(&p, &t).action, 0);
	assert_int_equal(policy_insns_left(&p, &t), 1000);
	assert_int_equal(policy_on_insns(&p, &t, 999).action, 0);
	assert_int_equal(policy_insns_left(&p, &t), 1);
	f = policy_on_insns(&p, &t, 1);
	assert_int_equal(f.action, 1);
	assert_int_equal(f.by, POLICY_BY_START);
	assert_int_equal(policy_insns_left(&p, &t), 50);
	assert_int_equal(policy_on_insns(&p, &t, 49).action, 0);
	f = policy_on_insns(&p, &t, 1);
	assert_int_equal(f.action, -1);
	assert_int_equal(f.by, POLICY_BY_FOR);
	assert_int_equal(policy_insns_left(&p, &t), POLICY_NONE); /* once */

	/* the same one step at a time: exactly 50 inside */
	policy_proc_init(&p, &spec);
	policy_thread_init(&p, &t);
	assert_int_equal(step(&p, &t, 5000, NULL, NULL), 50);

	/* insns:0: open from the first instruction */
	spec = spec_of("insns:0", "insns:7", NULL, NULL);
	policy_proc_init(&p, &spec);
	f = policy_thread_init(&p, &t);
	assert_int_equal(f.action, 1);
	assert_int_equal(step(&p, &t, 100, NULL, NULL), 7);

	/* FUNC then --for: closes N instructions after the entry */
	spec = spec_of("f", NULL, "insns:3", NULL);
	policy_proc_init(&p, &spec);
	policy_thread_init(&p, &t);
	assert_int_equal(step(&p, &t, 10, NULL, NULL), 0);
	assert_int_equal(policy_on_entry(&p, &t, 0, 0, no_args, 0x1000).action, 1);
	assert_int_equal(policy_on_sp(&p, &t, 0x2000).action, 0); /* --for, not the activation */
	assert_int_equal(step(&p, &t, 10, NULL, NULL), 3);
}

static void test_window_every(void **state)
{
	struct policy_spec spec = spec_of(NULL, NULL, "insns:10", "insns:100");
	struct policy_proc p;
	struct policy_thread t;
	struct policy_fire f;
	uint64_t opened = 0, closed = 0;

	(void)state;
	policy_proc_init(&p, &spec);
	f = policy_thread_init(&p, &t);
	assert_int_equal(f.action, 1); /* [0,10) */
	assert_int_equal(f.by, POLICY_BY_EVERY);
	assert_int_equal(step(&p, &t, 1000, &opened, &closed), 100); /* 10 windows of 10 */
	/* opened at 100..900, and at 1000 after the last step: the next
	 * instruction would be the first of the 11th window */
	assert_int_equal(opened, 10);
	assert_int_equal(closed, 10);
	assert_true(t.open);

	/* with --start insns:N: windows at [N + kP, N + kP + L), in blocks
	 * cut where policy_insns_left says */
	spec = spec_of("insns:5", NULL, "insns:3", "insns:20");
	policy_proc_init(&p, &spec);
	assert_int_equal(policy_thread_init(&p, &t).action, 0);
	{
		uint64_t at = 0, starts[4], ends[4];
		int ns = 0, ne = 0;

		while (at < 70) {
			uint64_t left = policy_insns_left(&p, &t), n = left < 16 ? left : 16;

			f = policy_on_insns(&p, &t, n);
			at += n;
			if (f.action == 1 && ns < 4)
				starts[ns++] = at;
			if (f.action == -1 && ne < 4)
				ends[ne++] = at;
		}
		assert_int_equal(ns, 4);
		assert_int_equal(ne, 4);
		assert_int_equal(ends[3], 68);
		assert_int_equal(starts[0], 5);
		assert_int_equal(ends[0], 8);
		assert_int_equal(starts[1], 25);
		assert_int_equal(ends[1], 28);
		assert_int_equal(starts[2], 45);
		assert_int_equal(starts[3], 65);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_func),	  cmocka_unit_test(test_parse_cond),
		cmocka_unit_test(test_parse_other),	  cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_options),		  cmocka_unit_test(test_window_everything),
		cmocka_unit_test(test_window_activation), cmocka_unit_test(test_window_start_stop),
		cmocka_unit_test(test_window_nth),	  cmocka_unit_test(test_window_cond),
		cmocka_unit_test(test_window_ret),	  cmocka_unit_test(test_window_signal),
		cmocka_unit_test(test_window_insns),	  cmocka_unit_test(test_window_every),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
