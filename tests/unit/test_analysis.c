/*
 * test_analysis.c - call/return reconstruction and the profile tables of
 * code/analysis/analysis.c, fed with hand-built instruction streams whose bytes
 * are real x86-64 encodings (so the classes come from the decoder).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "itrace.h"
#include "itrace_code.h"

/* x86-64 encodings used below */
static const uint8_t NOP[] = {0x90};
static const uint8_t CALL[] = {0xe8, 0, 0, 0, 0};  /* call rel32 */
static const uint8_t RET[] = {0xc3};
static const uint8_t JE[] = {0x74, 0x10};	    /* je rel8 */
static const uint8_t JMP_RAX[] = {0xff, 0xe0};	    /* jmp *%rax */
static const uint8_t SYSCALL[] = {0x0f, 0x05};
static const uint8_t REP_MOVSB[] = {0xf3, 0xa4};

/* A fake symbol table: functions of 0x100 bytes (a size-less label at
 * 0x8000), and PLT stubs without symbols at 0x5000. */
struct fn {
	uint64_t start;
	const char *name;
};
static const struct fn fns[] = {
	{0x1000, "main"}, {0x2000, "f"}, {0x2100, "h"}, {0x3000, "g"}, {0x4000, "handler"},
	{0x6000, "_dl_runtime_resolve_xsavec"}, {0x7000, "f.cold"}, {0x8000, "label"},
};
#define PLT_START 0x5000

static int fake_symbolize(void *ctx, uint32_t pid, uint64_t addr, const char *path,
			  uint64_t off, struct itrace_analysis_sym *out)
{
	size_t i;

	(void)ctx, (void)pid, (void)path, (void)off;
	for (i = 0; i < sizeof(fns) / sizeof(fns[0]); i++) {
		if (addr - fns[i].start < 0x100) {
			out->start = fns[i].start;
			out->size = fns[i].start == 0x8000 ? 0 : 0x100;
			out->name = fns[i].name;
			out->file = "t.c";
			out->line = (uint32_t)(addr >> 4); /* 16 bytes per line */
			return 0;
		}
	}
	if (addr - PLT_START < 0x100) {
		out->plt = 1; /* no symbol, in .plt */
		return 0;
	}
	return -ITRACE_E_NOENT;
}

#define MAX_CALLS 64
struct fixture {
	struct itrace_analysis *a;
	struct itrace_analysis_call calls[MAX_CALLS];
	size_t ncalls;
	uint64_t branch_events, taken_events;
};

static int collect_call(void *ctx, const struct itrace_analysis_call *c)
{
	struct fixture *fx = ctx;

	assert_true(fx->ncalls < MAX_CALLS);
	fx->calls[fx->ncalls++] = *c;
	return 0;
}

static int count_branch(void *ctx, const struct itrace_analysis_branch_event *ev)
{
	struct fixture *fx = ctx;

	fx->branch_events++;
	fx->taken_events += ev->taken;
	return 0;
}

static int setup(void **state)
{
	static struct fixture fx;
	struct itrace_analysis_options o;

	memset(&fx, 0, sizeof(fx));
	itrace_analysis_options_init(&o);
	o.symbolize = fake_symbolize;
	o.on_call = collect_call;
	o.on_branch = count_branch;
	o.cb_ctx = &fx;
	assert_int_equal(itrace_analysis_alloc(&o, &fx.a), 0);
	*state = &fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;

	itrace_analysis_free(fx->a);
	return 0;
}

static void insn_tid(struct fixture *fx, uint32_t tid, uint64_t addr, const uint8_t *bytes,
		     size_t len)
{
	struct itrace_record r;

	memset(&r, 0, sizeof(r));
	r.type = ITRACE_REC_INSN;
	r.tid = tid;
	r.pid = 100;
	r.u.insn.addr = addr;
	r.u.insn.len = (uint8_t)len;
	r.u.insn.has_bytes = 1;
	memcpy(r.u.insn.bytes, bytes, len);
	assert_int_equal(itrace_analysis_add(fx->a, &r), 0);
}

#define INSN(fx, addr, b) insn_tid(fx, 100, addr, b, sizeof(b))

static const struct itrace_analysis_function *fn_named(struct fixture *fx, const char *name)
{
	size_t i;

	for (i = 0; i < itrace_analysis_function_count(fx->a); i++) {
		const struct itrace_analysis_function *f = itrace_analysis_function_at(fx->a, i);

		if (strcmp(f->name, name) == 0)
			return f;
	}
	fail_msg("no function %s", name);
	return NULL;
}

static const struct itrace_analysis_call *call_of(struct fixture *fx, const char *name, size_t nth)
{
	const struct itrace_analysis_function *f = fn_named(fx, name);
	size_t i;

	for (i = 0; i < fx->ncalls; i++)
		if (fx->calls[i].function_id == f->id && nth-- == 0)
			return &fx->calls[i];
	fail_msg("no call %zu of %s", nth, name);
	return NULL;
}

static const struct itrace_analysis_branch_stat *branch_at(struct fixture *fx, uint64_t from)
{
	size_t i;

	for (i = 0; i < itrace_analysis_branch_stat_count(fx->a); i++)
		if (itrace_analysis_branch_stat_at(fx->a, i)->from == from)
			return itrace_analysis_branch_stat_at(fx->a, i);
	fail_msg("no branch at %#lx", (unsigned long)from);
	return NULL;
}

/* main: nop; call f; nop   f: nop; nop; ret */
static void test_call_return(void **state)
{
	struct fixture *fx = *state;
	const struct itrace_analysis_call *c;

	INSN(fx, 0x1000, NOP);
	INSN(fx, 0x1001, CALL);
	INSN(fx, 0x2000, NOP);
	INSN(fx, 0x2001, NOP);
	INSN(fx, 0x2002, RET);
	INSN(fx, 0x1006, NOP);
	assert_int_equal(itrace_analysis_finish(fx->a), 0);

	assert_int_equal(fx->ncalls, 2);
	c = call_of(fx, "f", 0);
	assert_int_equal(c->insn_count, 3);
	assert_int_equal(c->branch_count, 1); /* its ret */
	assert_int_equal(c->flags, 0);
	assert_int_equal(c->call_ip, 0x1001);
	assert_int_equal(c->depth, 1);
	c = call_of(fx, "main", 0);
	assert_int_equal(c->flags, ITRACE_CALL_NO_CALL | ITRACE_CALL_NO_RETURN);
	assert_int_equal(c->insn_count, 6);
	assert_int_equal(fx->calls[0].parent_id, c->id);

	assert_int_equal(fn_named(fx, "main")->insns, 3);
	assert_int_equal(fn_named(fx, "main")->total_insns, 6);
	assert_int_equal(fn_named(fx, "main")->calls, 0);
	assert_int_equal(fn_named(fx, "f")->insns, 3);
	assert_int_equal(fn_named(fx, "f")->total_insns, 3);
	assert_int_equal(fn_named(fx, "f")->calls, 1);

	assert_int_equal(branch_at(fx, 0x1001)->executions, 1);
	assert_int_equal(branch_at(fx, 0x1001)->taken, 1);
	assert_int_equal(branch_at(fx, 0x1001)->to, 0x2000);
	assert_int_equal(branch_at(fx, 0x1001)->kind, ITRACE_BRANCH_CALL);
	assert_int_equal(branch_at(fx, 0x2002)->kind, ITRACE_BRANCH_RETURN);
	assert_int_equal(fx->branch_events, 2);
	/* blocks: [0x1000,0x1006) [0x1006,0x1007) [0x2000,0x2003) */
	assert_int_equal(itrace_analysis_block_count(fx->a), 3);
	assert_int_equal(itrace_analysis_block_at(fx->a, 0)->end, 0x1006);
	assert_int_equal(itrace_analysis_block_at(fx->a, 0)->insn_count, 2);
	assert_int_equal(itrace_analysis_block_at(fx->a, 2)->insn_count, 3);
	/* one edge root->main, one main->f */
	assert_int_equal(itrace_analysis_edge_count(fx->a), 2);
	assert_int_equal(itrace_analysis_edge_at(fx->a, 1)->calls, 1);
	assert_int_equal(itrace_analysis_edge_at(fx->a, 1)->insns, 3);
}

/* f recurses depth times: f: call f (at 0x2000) ... ret (0x2005) */
static void test_recursion(void **state)
{
	struct fixture *fx = *state;
	const int depth = 5;
	int i;

	INSN(fx, 0x1000, CALL); /* main calls f */
	for (i = 0; i < depth; i++) {
		INSN(fx, 0x2000, JE);	/* not taken until the bottom */
		INSN(fx, 0x2002, CALL); /* f calls f */
	}
	INSN(fx, 0x2000, JE); /* taken: to the ret */
	INSN(fx, 0x2012, RET);
	for (i = 0; i < depth; i++)
		INSN(fx, 0x2007, RET); /* each caller returns after its call */
	INSN(fx, 0x1005, NOP);
	assert_int_equal(itrace_analysis_finish(fx->a), 0);

	assert_int_equal(fn_named(fx, "f")->calls, depth + 1);
	assert_int_equal(fn_named(fx, "f")->insns, 2 * depth + 2 + depth);
	/* inclusive of the outermost activation only */
	assert_int_equal(fn_named(fx, "f")->total_insns, 2 * depth + 2 + depth);
	assert_int_equal(call_of(fx, "f", 0)->insn_count, 2); /* deepest ends first */
	assert_int_equal(call_of(fx, "f", depth)->insn_count, 3 * depth + 2);
	assert_int_equal(call_of(fx, "f", depth)->depth, 1);
	assert_int_equal(call_of(fx, "f", 0)->depth, depth + 1);
	assert_int_equal(branch_at(fx, 0x2000)->executions, depth + 1);
	assert_int_equal(branch_at(fx, 0x2000)->taken, 1);
	/* each recursion level is its own call path */
	assert_int_equal(itrace_analysis_call_path_count(fx->a), depth + 2);
}

/* main -> f -> g; g jumps indirectly back into main (longjmp) */
static void test_longjmp(void **state)
{
	struct fixture *fx = *state;
	const struct itrace_analysis_call *c;

	INSN(fx, 0x1000, CALL); /* setjmp-like point is 0x1005 */
	INSN(fx, 0x2000, CALL);
	INSN(fx, 0x3000, NOP);
	INSN(fx, 0x3001, JMP_RAX);
	INSN(fx, 0x1005, NOP); /* back in main */
	INSN(fx, 0x1006, RET); /* main returns to an unseen caller */
	INSN(fx, 0x1234567, NOP);
	assert_int_equal(itrace_analysis_finish(fx->a), 0);

	c = call_of(fx, "g", 0);
	assert_int_equal(c->flags, ITRACE_CALL_NO_RETURN | ITRACE_CALL_UNWOUND);
	assert_int_equal(c->insn_count, 2);
	c = call_of(fx, "f", 0);
	assert_int_equal(c->flags, ITRACE_CALL_NO_RETURN | ITRACE_CALL_UNWOUND);
	assert_int_equal(c->insn_count, 3);
	c = call_of(fx, "main", 0);
	assert_int_equal(c->flags, ITRACE_CALL_NO_CALL); /* ended by its ret */
	assert_int_equal(c->insn_count, 6);
	c = call_of(fx, "[unknown]", 0); /* the new root after main's return */
	assert_int_equal(c->flags, ITRACE_CALL_NO_CALL | ITRACE_CALL_NO_RETURN);
	assert_int_equal(c->insn_count, 1);
	assert_int_equal(branch_at(fx, 0x3001)->kind, ITRACE_BRANCH_INDIRECT);
}

static const struct itrace_analysis_edge *edge_to(struct fixture *fx, const char *caller,
						  const char *callee)
{
	size_t i;

	for (i = 0; i < itrace_analysis_edge_count(fx->a); i++) {
		const struct itrace_analysis_edge *e = itrace_analysis_edge_at(fx->a, i);

		if (e->caller_id == fn_named(fx, caller)->id && e->callee_id == fn_named(fx, callee)->id)
			return e;
	}
	fail_msg("no edge %s -> %s", caller, callee);
	return NULL;
}

/*
 * main calls g through a PLT stub (0x5000) twice: the stub is an
 * activation of its own (callgrind --skip-plt=no counts it), and g takes
 * its place when it jumps there, called by main, returning to main.  The
 * second time the stub is lazily bound: it jumps to the PLT's first entry,
 * which jumps into the dynamic linker's resolver (another module), which
 * calls f and then jumps to g; the resolver counts one call, g two.
 */
static void test_plt_stub(void **state)
{
	struct fixture *fx = *state;

	INSN(fx, 0x1000, CALL);
	INSN(fx, 0x5010, JMP_RAX); /* stub: jmp *GOT */
	INSN(fx, 0x3000, RET);
	INSN(fx, 0x1005, CALL);
	INSN(fx, 0x5010, JMP_RAX); /* not bound yet: to the PLT's head */
	INSN(fx, 0x5000, JMP_RAX);
	INSN(fx, 0x6000, CALL);	   /* the resolver calls f (_dl_fixup) */
	INSN(fx, 0x2000, RET);
	INSN(fx, 0x6005, JMP_RAX); /* and jumps to what it resolved */
	INSN(fx, 0x3000, RET);
	INSN(fx, 0x100a, NOP);
	assert_int_equal(itrace_analysis_finish(fx->a), 0);
	assert_int_equal(fn_named(fx, "g")->calls, 2);
	assert_int_equal(fn_named(fx, "_dl_runtime_resolve_xsavec")->calls, 1);
	assert_int_equal(fn_named(fx, "f")->calls, 1);
	assert_int_equal(fn_named(fx, "[unknown]")->calls, 2); /* the stub */
	assert_int_equal(fn_named(fx, "[unknown]")->insns, 3);
	assert_int_equal(fn_named(fx, "g")->insns, 2);
	assert_int_equal(edge_to(fx, "main", "g")->calls, 2);
	assert_int_equal(edge_to(fx, "_dl_runtime_resolve_xsavec", "f")->calls, 1);
	/* g returned normally to main, entered by the stub's call */
	assert_int_equal(call_of(fx, "g", 1)->flags, 0);
	assert_int_equal(call_of(fx, "g", 1)->call_ip, 0x1005);
	assert_int_equal(call_of(fx, "g", 1)->depth, 1);
	assert_int_equal(call_of(fx, "main", 0)->flags, ITRACE_CALL_NO_CALL | ITRACE_CALL_NO_RETURN);
}

/*
 * f tail-calls g (a jump to its start): a call, nested in f's activation
 * and returning with it; f's cold part, entered by a jump to its start,
 * jumps back into f's body without unwinding (it shares f's stack frame,
 * as callgrind, which unwinds by the stack pointer, sees it) and runs f's
 * code as its own; a fall-through to a function's start after a not-taken
 * branch enters it; a size-less label is no function start.
 */
static void test_jumps_into_functions(void **state)
{
	struct fixture *fx = *state;

	INSN(fx, 0x1000, CALL);	   /* main calls f */
	INSN(fx, 0x2000, JE);	   /* taken: to f.cold */
	INSN(fx, 0x7000, JMP_RAX); /* f.cold back into f's body */
	INSN(fx, 0x2010, JMP_RAX); /* f tail-calls g */
	INSN(fx, 0x3000, RET);	   /* g returns to main for both */
	INSN(fx, 0x1005, JMP_RAX); /* to the label */
	INSN(fx, 0x8000, NOP);
	INSN(fx, 0x8001, JE);	   /* not taken: falls into f.cold's... */
	INSN(fx, 0x8003, RET);
	assert_int_equal(itrace_analysis_finish(fx->a), 0);
	assert_int_equal(fn_named(fx, "f")->calls, 1);
	assert_int_equal(fn_named(fx, "f.cold")->calls, 1);
	assert_int_equal(fn_named(fx, "g")->calls, 1);
	assert_int_equal(fn_named(fx, "label")->calls, 0);
	/* f.cold ran f's jump: 2 instructions of its own */
	assert_int_equal(fn_named(fx, "f")->insns, 1);
	assert_int_equal(fn_named(fx, "f.cold")->insns, 2);
	/* the label's code ran in main's activation */
	assert_int_equal(fn_named(fx, "label")->insns, 0);
	assert_int_equal(call_of(fx, "g", 0)->flags, ITRACE_CALL_JUMP);
	assert_int_equal(call_of(fx, "f.cold", 0)->flags, ITRACE_CALL_JUMP);
	assert_int_equal(call_of(fx, "f", 0)->flags, 0);
	assert_int_equal(call_of(fx, "f", 0)->insn_count, 4);
	assert_int_equal(edge_to(fx, "f.cold", "g")->calls, 1);
}

/* A jump to the start of the next function, taken or not, enters it. */
static void test_fall_into_function(void **state)
{
	static const uint8_t JMP_NEXT[] = {0xeb, 0x00}; /* jmp +0 */
	struct fixture *fx = *state;

	INSN(fx, 0x20fe, JMP_NEXT);
	INSN(fx, 0x2100, NOP);
	assert_int_equal(itrace_analysis_finish(fx->a), 0);
	assert_int_equal(fn_named(fx, "h")->calls, 1);
	assert_int_equal(fn_named(fx, "h")->insns, 1);
	assert_int_equal(fn_named(fx, "f")->insns, 1);
}

static void add_signal(struct fixture *fx, uint64_t pc, uint64_t handler)
{
	struct itrace_record r;

	memset(&r, 0, sizeof(r));
	r.type = ITRACE_REC_SIGNAL;
	r.tid = r.pid = 100;
	r.u.signal.signo = 10;
	r.u.signal.pc = pc;
	r.u.signal.handler = handler;
	assert_int_equal(itrace_analysis_add(fx->a, &r), 0);
}

/* A signal interrupts f; the handler calls g, returns into a trampoline
 * (at 0x5000, outside every symbol) that calls rt_sigreturn. */
static void test_signal_handler(void **state)
{
	struct fixture *fx = *state;
	const struct itrace_analysis_call *c;

	INSN(fx, 0x1000, CALL);
	INSN(fx, 0x2000, NOP);
	add_signal(fx, 0x2001, 0x4000);
	INSN(fx, 0x4000, CALL);
	INSN(fx, 0x3000, RET);
	INSN(fx, 0x4005, RET);	   /* to the trampoline */
	INSN(fx, 0x5000, SYSCALL); /* rt_sigreturn */
	INSN(fx, 0x2001, RET);	   /* f resumes and returns */
	INSN(fx, 0x1005, NOP);
	assert_int_equal(itrace_analysis_finish(fx->a), 0);

	c = call_of(fx, "handler", 0);
	assert_int_equal(c->flags, ITRACE_CALL_SIGNAL);
	assert_int_equal(c->insn_count, 4); /* call, g's ret, ret, syscall */
	assert_int_equal(c->depth, 2);	    /* on top of main, f */
	c = call_of(fx, "f", 0);
	assert_int_equal(c->flags, 0);
	assert_int_equal(c->insn_count, 6);
	assert_int_equal(fn_named(fx, "handler")->calls, 0); /* not called */
	assert_int_equal(fn_named(fx, "g")->calls, 1);
	/* the delivery did not make f's nop a taken branch */
	assert_int_equal(branch_at(fx, 0x5000)->taken, 1);
}

/* Without a SIGNAL record, a jump away from a plain instruction is an
 * asynchronous interruption; coming back to its successor ends it. */
static void test_async_discontinuity(void **state)
{
	struct fixture *fx = *state;
	const struct itrace_analysis_call *c;

	INSN(fx, 0x1000, NOP);
	INSN(fx, 0x4000, NOP);
	INSN(fx, 0x4001, SYSCALL);
	INSN(fx, 0x1001, NOP);
	assert_int_equal(itrace_analysis_finish(fx->a), 0);
	c = call_of(fx, "handler", 0);
	assert_int_equal(c->flags, ITRACE_CALL_SIGNAL);
	assert_int_equal(c->insn_count, 2);
	assert_int_equal(call_of(fx, "main", 0)->insn_count, 4);
}

/* A loop: je at 0x1000 not taken 3 times then taken; rep movsb repeats. */
static void test_branches_and_rep(void **state)
{
	struct fixture *fx = *state;
	const struct itrace_analysis_block *b;
	int i;

	for (i = 0; i < 3; i++) {
		INSN(fx, 0x1000, JE);
		INSN(fx, 0x1002, REP_MOVSB);
		INSN(fx, 0x1002, REP_MOVSB);
		INSN(fx, 0x1004, JMP_RAX);
	}
	INSN(fx, 0x1000, JE);
	INSN(fx, 0x1012, NOP);
	assert_int_equal(itrace_analysis_finish(fx->a), 0);

	assert_int_equal(branch_at(fx, 0x1000)->executions, 4);
	assert_int_equal(branch_at(fx, 0x1000)->taken, 1);
	assert_int_equal(branch_at(fx, 0x1000)->to, 0x1012);
	assert_int_equal(branch_at(fx, 0x1000)->kind, ITRACE_BRANCH_COND);
	assert_int_equal(branch_at(fx, 0x1004)->taken, 3);
	assert_int_equal(fx->branch_events, 7);
	assert_int_equal(fx->taken_events, 4);
	assert_int_equal(fn_named(fx, "main")->insns, 3 * 4 + 2);
	/* blocks: je | rep movsb, jmp | nop */
	assert_int_equal(itrace_analysis_block_count(fx->a), 3);
	b = itrace_analysis_block_at(fx->a, 1);
	assert_int_equal(b->start, 0x1002);
	assert_int_equal(b->insn_count, 2);
	assert_int_equal(b->executions, 3); /* rep iterations stay inside */
	/* lines: 0x100 (je, movsb, jmp) and 0x101 (nop) */
	assert_int_equal(itrace_analysis_line_count(fx->a), 2);
	assert_int_equal(itrace_analysis_line_at(fx->a, 0)->line, 0x100);
	assert_int_equal(itrace_analysis_line_at(fx->a, 0)->executions, 6);
	assert_int_equal(itrace_analysis_line_at(fx->a, 0)->insns, 13);
	assert_string_equal(itrace_analysis_line_at(fx->a, 1)->file, "t.c");
}

/* Two threads interleaved keep separate stacks. */
static void test_threads(void **state)
{
	struct fixture *fx = *state;

	insn_tid(fx, 100, 0x1000, CALL, sizeof(CALL));
	insn_tid(fx, 101, 0x3000, CALL, sizeof(CALL));
	insn_tid(fx, 100, 0x2000, RET, sizeof(RET));
	insn_tid(fx, 101, 0x2010, NOP, sizeof(NOP));
	insn_tid(fx, 100, 0x1005, NOP, sizeof(NOP));
	insn_tid(fx, 101, 0x2011, RET, sizeof(RET));
	insn_tid(fx, 101, 0x3005, NOP, sizeof(NOP));
	assert_int_equal(itrace_analysis_finish(fx->a), 0);
	assert_int_equal(itrace_analysis_thread_count(fx->a), 2);
	assert_int_equal(itrace_analysis_thread_at(fx->a, 1)->insns, 4);
	assert_int_equal(call_of(fx, "f", 0)->insn_count, 1);
	assert_int_equal(call_of(fx, "f", 1)->insn_count, 2);
	assert_int_equal(call_of(fx, "f", 1)->thread_id, 2);
	assert_int_equal(fn_named(fx, "f")->total_insns, 3);
	assert_int_equal(fn_named(fx, "f")->calls, 2);
}

/* No bytes anywhere: counted, not classified, reported in the totals. */
static void test_undecodable(void **state)
{
	struct fixture *fx = *state;
	struct itrace_analysis_totals t;
	struct itrace_record r;

	memset(&r, 0, sizeof(r));
	r.type = ITRACE_REC_INSN;
	r.tid = r.pid = 7;
	r.u.insn.addr = 0x1000;
	r.u.insn.len = 3;
	assert_int_equal(itrace_analysis_add(fx->a, &r), 0);
	assert_int_equal(itrace_analysis_add(fx->a, &r), 0);
	assert_int_equal(itrace_analysis_finish(fx->a), 0);
	assert_int_equal(itrace_analysis_finish(fx->a), -ITRACE_E_STATE);
	assert_int_equal(itrace_analysis_add(fx->a, &r), -ITRACE_E_STATE);
	itrace_analysis_totals(fx->a, &t);
	assert_int_equal(t.insns, 2);
	assert_int_equal(t.decode_failures, 1);
	assert_int_equal(t.branches, 0);
}

/* feed - one record into the analysis, which must take it. */
static void feed(struct fixture *fx, const struct itrace_record *r)
{
	assert_int_equal(itrace_analysis_add(fx->a, r), 0);
}

/* insn_no_bytes - an INSN record of pid 100 whose bytes the analysis
 * must find itself (CODE records, mapped files). */
static void insn_no_bytes(struct fixture *fx, uint64_t addr)
{
	struct itrace_record r = {.type = ITRACE_REC_INSN, .tid = 100, .pid = 100};

	r.u.insn.addr = addr;
	feed(fx, &r);
}

/*
 * Code bytes and modules from the records, through the analysis' image:
 * a mapping without a file named by its build-id, CODE records with the
 * code; after an exec the old space's code and mappings are gone.
 */
static void test_code_from_records(void **state)
{
	static const uint8_t id[] = {0xab, 0xcd};
	static const uint8_t main_code[] = {0xe8, 0xfb, 0x0f, 0x00, 0x00, 0x90}; /* call 0x2000; nop */
	struct fixture *fx = *state;
	struct itrace_record r = {.type = ITRACE_REC_MMAP, .pid = 100};
	struct itrace_analysis_totals t;
	const struct itrace_analysis_dso *d;

	r.u.mmap = (struct itrace_mmap){.start = 0x1000, .len = 0x2000, .pid = 100,
					.path = "[anon:jit]", .path_len = 10, .buildid_len = 2};
	memcpy(r.u.mmap.buildid, id, 2);
	feed(fx, &r);
	r.type = ITRACE_REC_CODE;
	r.u.code = (struct itrace_code){0x1000, main_code, sizeof(main_code)};
	feed(fx, &r);
	r.u.code = (struct itrace_code){0x2000, RET, sizeof(RET)};
	feed(fx, &r);
	insn_no_bytes(fx, 0x1000);
	insn_no_bytes(fx, 0x2000);
	insn_no_bytes(fx, 0x1005);
	r.type = ITRACE_REC_PROCESS;
	r.u.process = (struct itrace_process){.event = ITRACE_PROCESS_EXEC, .pid = 100};
	feed(fx, &r);
	insn_no_bytes(fx, 0x1000); /* nothing mapped there now */
	assert_int_equal(itrace_analysis_finish(fx->a), 0);
	itrace_analysis_totals(fx->a, &t);
	assert_int_equal(t.insns, 4);
	assert_int_equal(t.calls, 1);
	assert_int_equal(t.decode_failures, 1);
	assert_int_equal(t.first_decode_failure, 0x1000);
	assert_int_equal(itrace_analysis_dso_count(fx->a), 2);
	d = itrace_analysis_dso_at(fx->a, 1);
	assert_string_equal(d->path, "[anon:jit]");
	assert_int_equal(d->buildid_len, 2);
	assert_memory_equal(d->buildid, id, 2);
	assert_int_equal(fn_named(fx, "main")->dso_id, 2);
	assert_int_equal(fn_named(fx, "f")->dso_id, 2);
	assert_int_equal(fn_named(fx, "f")->calls, 1);
}

/* ppc64le through the same decoder: bl / blr pair like call / ret. */
static void test_ppc64le(void **state)
{
	static const uint8_t BL[] = {0x01, 0x10, 0x00, 0x48};  /* bl +0x1000 */
	static const uint8_t BLR[] = {0x20, 0x00, 0x80, 0x4e}; /* blr */
	static const uint8_t PNOP[] = {0x00, 0x00, 0x00, 0x60}; /* nop */
	struct fixture *fx = *state;
	struct itrace_analysis_options o;

	itrace_analysis_free(fx->a);
	itrace_analysis_options_init(&o);
	o.machine = 21; /* EM_PPC64 */
	o.endian = 1;
	o.symbolize = fake_symbolize;
	o.on_call = collect_call;
	o.cb_ctx = fx;
	assert_int_equal(itrace_analysis_alloc(&o, &fx->a), 0);
	INSN(fx, 0x1000, BL);
	INSN(fx, 0x2000, PNOP);
	INSN(fx, 0x2004, BLR);
	INSN(fx, 0x1004, PNOP);
	assert_int_equal(itrace_analysis_finish(fx->a), 0);
	assert_int_equal(call_of(fx, "f", 0)->insn_count, 2);
	assert_int_equal(call_of(fx, "f", 0)->flags, 0);
	assert_int_equal(branch_at(fx, 0x1000)->kind, ITRACE_BRANCH_CALL);
	assert_int_equal(branch_at(fx, 0x2004)->kind, ITRACE_BRANCH_RETURN);
	assert_int_equal(fn_named(fx, "main")->total_insns, 4);
}

static void test_bad_options(void **state)
{
	struct itrace_analysis_options o;
	struct itrace_analysis *a = (void *)1;

	(void)state;
	itrace_analysis_options_init(&o);
	o.machine = 40; /* ARM: no decoder */
	assert_int_equal(itrace_analysis_alloc(&o, &a), -ITRACE_E_NOTSUP);
	assert_null(a);
	o.machine = 62;
	o.size = 4;
	assert_int_equal(itrace_analysis_alloc(&o, &a), -ITRACE_E_INVAL);
	itrace_analysis_free(NULL);
}

/* perf's branch types: each itrace kind's id names perf's type, the
 * table holds each id once with that name, 0 is "no branch". */
static void test_perf_branch_types(void **state)
{
	const char *name;
	int id, ids[32];
	size_t i, n;

	(void)state;
	for (n = 0; (name = itrace_analysis_perf_branch_type_at(n, &id)); n++) {
		assert_true(n < 32);
		for (i = 0; i < n; i++)
			assert_int_not_equal(ids[i], id);
		ids[n] = id;
		assert_string_equal(itrace_analysis_perf_branch_type_name(id), name);
	}
	assert_int_equal(n, 14);
	assert_string_equal(itrace_analysis_perf_branch_type_name(0), "no branch");
	assert_null(itrace_analysis_perf_branch_type_name(2));
	for (int k = 0; k <= ITRACE_BRANCH_UNKNOWN + 1; k++)
		assert_non_null(itrace_analysis_perf_branch_type_name(itrace_analysis_perf_branch_type(k)));
	assert_string_equal(itrace_analysis_perf_branch_type_name(
				    itrace_analysis_perf_branch_type(ITRACE_BRANCH_INDIRECT_CALL)), "call");
	assert_string_equal(itrace_analysis_perf_branch_type_name(
				    itrace_analysis_perf_branch_type(ITRACE_BRANCH_SIGRETURN)),
			    "return from system call");
	assert_int_equal(itrace_analysis_perf_branch_type(ITRACE_BRANCH_UNKNOWN), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_call_return, setup, teardown),
		cmocka_unit_test_setup_teardown(test_recursion, setup, teardown),
		cmocka_unit_test_setup_teardown(test_longjmp, setup, teardown),
		cmocka_unit_test_setup_teardown(test_plt_stub, setup, teardown),
		cmocka_unit_test_setup_teardown(test_jumps_into_functions, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fall_into_function, setup, teardown),
		cmocka_unit_test_setup_teardown(test_signal_handler, setup, teardown),
		cmocka_unit_test_setup_teardown(test_async_discontinuity, setup, teardown),
		cmocka_unit_test_setup_teardown(test_branches_and_rep, setup, teardown),
		cmocka_unit_test_setup_teardown(test_threads, setup, teardown),
		cmocka_unit_test_setup_teardown(test_undecodable, setup, teardown),
		cmocka_unit_test_setup_teardown(test_code_from_records, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ppc64le, setup, teardown),
		cmocka_unit_test(test_bad_options),
		cmocka_unit_test(test_perf_branch_types),
	};
	return cmocka_run_group_tests_name("analysis", tests, NULL, NULL);
}
