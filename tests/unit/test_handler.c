/* test_handler.c - handler chains (itrace_handler.h) with tables of the
 * program itself: the table checks, the chain's keep/drop order, MEM
 * records with their instruction, verdicts that are none, and streams
 * published only after a successful stop, the analysis's symbolizer
 * callback. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "fill_testutil.h"
#include "itrace_handler.h"

static int kept_insns, kept_mems, kept_other, seen_second, nmem_seen;
static int verdict_to_return;

static int collect(void *arg, const struct itrace_record *rec)
{
	(void)arg;
	if (rec->type == ITRACE_REC_INSN)
		kept_insns++;
	else if (rec->type == ITRACE_REC_MEM)
		kept_mems++;
	else
		kept_other++;
	return 0;
}

/* first handler: drops instructions at odd addresses */
static int drop_odd(void *data, const struct itrace_handler_insn *in, struct itrace_handler_ctx *ctx)
{
	(void)data, (void)ctx;
	nmem_seen += (int)in->nmem;
	return in->rec->u.insn.addr & 1 ? ITRACE_HANDLER_DROP : ITRACE_HANDLER_KEEP;
}

/* second handler: counts what reaches it, returns verdict_to_return */
static int second(void *data, const struct itrace_handler_insn *in, struct itrace_handler_ctx *ctx)
{
	(void)data, (void)in, (void)ctx;
	seen_second++;
	return verdict_to_return;
}

static const struct itrace_handler first_t = {
	.size = sizeof(struct itrace_handler), .abi = ITRACE_HANDLER_ABI, .name = "first",
	.flags = ITRACE_HANDLER_MEM, .insn = drop_odd,
};
static const struct itrace_handler second_t = {
	.size = sizeof(struct itrace_handler), .abi = ITRACE_HANDLER_ABI, .name = "second",
	.insn = second,
};

static struct itrace_handler_chain *new_chain(const char *dir, int with_output)
{
	struct itrace_handler_chain_options o;
	struct itrace_handler_chain *c;

	itrace_handler_chain_options_init(&o);
	o.stream_dir = dir;
	o.output = with_output ? collect : NULL;
	assert_int_equal(itrace_handler_chain_alloc(&o, &c), 0);
	return c;
}

static void start(struct itrace_handler_chain *c)
{
	struct itrace_header h = { .machine = 62, .target_endian = 1, .level = ITRACE_LEVEL_INSN };

	assert_int_equal(itrace_handler_chain_start(c, &h, NULL, 0), 0);
}

static void feed(struct itrace_handler_chain *c, int type, uint64_t addr)
{
	struct itrace_record r;

	memset(&r, 0, sizeof(r));
	r.type = (uint8_t)type;
	r.tid = r.pid = 7;
	if (type == ITRACE_REC_INSN) {
		r.u.insn.addr = addr;
		r.u.insn.len = 1;
	} else if (type == ITRACE_REC_MEM) {
		r.u.mem.addr = addr;
		r.u.mem.size = 8;
	}
	assert_int_equal(itrace_handler_chain_record(c, &r), 0);
}

/* A record one handler drops reaches no later one and is not written,
 * its MEM records with it; the MEM records reach the insn callback. */
static void test_chain_order(void **state)
{
	struct itrace_handler_chain *c = new_chain(NULL, 1);

	(void)state;
	kept_insns = kept_mems = kept_other = seen_second = nmem_seen = 0;
	verdict_to_return = ITRACE_HANDLER_KEEP;
	assert_int_equal(itrace_handler_chain_add(c, &first_t, NULL), 0);
	assert_int_equal(itrace_handler_chain_add(c, &second_t, NULL), 0);
	assert_int_equal(itrace_handler_chain_count(c), 2);
	assert_string_equal(itrace_handler_chain_name(c, 1), "second");
	start(c);
	feed(c, ITRACE_REC_INSN, 0x1000); /* kept, 2 MEM */
	feed(c, ITRACE_REC_MEM, 0x50);
	feed(c, ITRACE_REC_MEM, 0x58);
	feed(c, ITRACE_REC_INSN, 0x1001); /* dropped by first, 1 MEM */
	feed(c, ITRACE_REC_MEM, 0x60);
	feed(c, ITRACE_REC_SYSCALL, 0);	  /* no callback: kept */
	feed(c, ITRACE_REC_INSN, 0x1002); /* kept, held until stop */
	assert_int_equal(itrace_handler_chain_stop(c), 0);
	assert_int_equal(nmem_seen, 3);
	assert_int_equal(seen_second, 2);
	assert_int_equal(kept_insns, 2);
	assert_int_equal(kept_mems, 2);
	assert_int_equal(kept_other, 1);
	assert_int_equal(itrace_handler_chain_records(c), 7);
	itrace_handler_chain_free(c);
}

/* The fast path (no handler asks for MEM): the same records kept. */
static void test_fast_path_drops_mem(void **state)
{
	struct itrace_handler first_fast = first_t;
	struct itrace_handler_chain *c = new_chain(NULL, 1);

	(void)state;
	kept_insns = kept_mems = kept_other = nmem_seen = 0;
	first_fast.flags = 0;
	assert_int_equal(itrace_handler_chain_add(c, &first_fast, NULL), 0);
	start(c);
	feed(c, ITRACE_REC_INSN, 0x1000);
	feed(c, ITRACE_REC_MEM, 0x50);
	feed(c, ITRACE_REC_INSN, 0x1001);
	feed(c, ITRACE_REC_MEM, 0x60);
	feed(c, ITRACE_REC_MEM, 0x68);
	feed(c, ITRACE_REC_SYSCALL, 0);
	assert_int_equal(itrace_handler_chain_stop(c), 0);
	assert_int_equal(nmem_seen, 0);
	assert_int_equal(kept_insns, 1);
	assert_int_equal(kept_mems, 1);
	assert_int_equal(kept_other, 1);
	itrace_handler_chain_free(c);
}

/* A verdict that is neither KEEP, DROP nor negative stops the run, named. */
static void test_garbage_verdict(void **state)
{
	struct itrace_handler_chain *c = new_chain(NULL, 0);
	struct itrace_record r = { .type = ITRACE_REC_INSN };

	(void)state;
	verdict_to_return = 7;
	assert_int_equal(itrace_handler_chain_add(c, &second_t, NULL), 0);
	start(c);
	assert_int_equal(itrace_handler_chain_record(c, &r), -ITRACE_E_INVAL);
	assert_non_null(strstr(itrace_handler_chain_error(c), "handler 'second': insn callback returned 7 at record 0"));
	assert_int_equal(itrace_handler_chain_record(c, &r), -ITRACE_E_STATE);
	itrace_handler_chain_free(c);
}

static int other_keep(void *data, const struct itrace_record *rec, struct itrace_handler_ctx *ctx)
{
	(void)data, (void)rec, (void)ctx;
	return ITRACE_HANDLER_KEEP;
}

/* Tables: size 0, huge, newer with unknown bytes, newer zero-extended,
 * older (the callbacks past its size are not read), no callback, abi. */
static void test_table_checks(void **state)
{
	struct {
		struct itrace_handler t;
		uint64_t future;
	} newer = { .t = { .size = sizeof(newer), .abi = ITRACE_HANDLER_ABI, .other = other_keep },
		    .future = 1 };
	struct itrace_handler t = { .size = 0, .abi = ITRACE_HANDLER_ABI, .other = other_keep };
	struct itrace_handler_chain *c = new_chain(NULL, 0);

	(void)state;
	assert_int_equal(itrace_handler_chain_add(c, &t, NULL), -ITRACE_E_INVAL);
	assert_non_null(strstr(itrace_handler_chain_error(c), "table size 0"));
	t.size = (size_t)1 << 40;
	assert_int_equal(itrace_handler_chain_add(c, &t, NULL), -ITRACE_E_INVAL);
	assert_int_equal(itrace_handler_chain_add(c, &newer.t, NULL), -ITRACE_E_VERSION);
	assert_non_null(strstr(itrace_handler_chain_error(c), "built against a newer itrace_handler.h"));
	newer.future = 0;
	assert_int_equal(itrace_handler_chain_add(c, &newer.t, NULL), 0);
	t.size = offsetof(struct itrace_handler, insn); /* ends before every record callback */
	assert_int_equal(itrace_handler_chain_add(c, &t, NULL), -ITRACE_E_INVAL);
	assert_non_null(strstr(itrace_handler_chain_error(c), "defines no callback"));
	t.size = sizeof(t);
	t.abi = 2;
	assert_int_equal(itrace_handler_chain_add(c, &t, NULL), -ITRACE_E_VERSION);
	t.abi = ITRACE_HANDLER_ABI;
	t.other = NULL;
	assert_int_equal(itrace_handler_chain_add(c, &t, NULL), -ITRACE_E_INVAL);
	assert_int_equal(itrace_handler_chain_count(c), 1);
	itrace_handler_chain_free(c);
}

/* Streams: one name per chain, good names only, published after a
 * successful stop; a chain freed without stop leaves nothing. */
static FILE *opened;
static int stream_start(struct itrace_handler_ctx *ctx, const char *args, void **data)
{
	(void)data;
	opened = itrace_handler_stream_open(ctx, args);
	if (!opened)
		return -ITRACE_E_IO;
	fputs("hello\n", opened);
	assert_ptr_equal(itrace_handler_stream_open(ctx, args), opened);
	return 0;
}
static const struct itrace_handler stream_t = {
	.size = sizeof(struct itrace_handler), .abi = ITRACE_HANDLER_ABI, .name = "streamer",
	.start = stream_start, .other = other_keep,
};

static void test_streams(void **state)
{
	char dir[] = "/tmp/test_handler.XXXXXX", path[64];
	struct itrace_header h = { .level = ITRACE_LEVEL_INSN, .machine = 62, .target_endian = 1 };
	struct itrace_handler_chain *c;
	struct stat st;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/out", dir);
	/* two handlers, one name */
	c = new_chain(dir, 0);
	assert_int_equal(itrace_handler_chain_add(c, &stream_t, "out"), 0);
	assert_int_equal(itrace_handler_chain_add(c, &stream_t, "out"), 0);
	assert_true(itrace_handler_chain_start(c, &h, NULL, 0) < 0);
	assert_non_null(strstr(itrace_handler_chain_error(c), "stream 'out' is handler 'streamer''s already"));
	itrace_handler_chain_free(c);
	assert_int_equal(stat(path, &st), -1);
	/* a bad name */
	c = new_chain(dir, 0);
	assert_int_equal(itrace_handler_chain_add(c, &stream_t, "../x"), 0);
	assert_true(itrace_handler_chain_start(c, &h, NULL, 0) < 0);
	assert_non_null(strstr(itrace_handler_chain_error(c), "bad stream name '../x'"));
	itrace_handler_chain_free(c);
	/* freed without stop: nothing published */
	c = new_chain(dir, 0);
	assert_int_equal(itrace_handler_chain_add(c, &stream_t, "out"), 0);
	assert_int_equal(itrace_handler_chain_start(c, &h, NULL, 0), 0);
	assert_string_equal(itrace_handler_stream_path(c, 0), path);
	itrace_handler_chain_free(c);
	assert_int_equal(stat(path, &st), -1);
	/* stopped: published */
	c = new_chain(dir, 0);
	assert_int_equal(itrace_handler_chain_add(c, &stream_t, "out"), 0);
	assert_int_equal(itrace_handler_chain_start(c, &h, NULL, 0), 0);
	assert_int_equal(itrace_handler_chain_stop(c), 0);
	itrace_handler_chain_free(c);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_size, 6);
	unlink(path);
	assert_int_equal(rmdir(dir), 0); /* no temporary left either */
}

/* a handler asking the analysis's symbolizer callback about each insn */
static struct itrace_analysis_sym asked;
static int asked_rc;

static int ask(void *data, const struct itrace_handler_insn *in, struct itrace_handler_ctx *ctx)
{
	(void)data;
	asked_rc = itrace_handler_analysis_symbolize(ctx, in->rec->pid, in->rec->u.insn.addr, NULL, 0, &asked);
	return ITRACE_HANDLER_KEEP;
}

static const struct itrace_handler ask_t = {
	.size = sizeof(struct itrace_handler), .abi = ITRACE_HANDLER_ABI, .name = "ask", .insn = ask,
};

/*
 * itrace_handler_analysis_symbolize: code a stripped file names from its
 * unwind entries only (f1 of fill_unwind_stripped) comes with the unwind
 * flag and the entry's bounds, as itrace_analysis_run() gets it, so that
 * an analysis a handler runs counts its calls as the exporters do.
 */
static void test_analysis_symbolize(void **state)
{
	char unwind_prog[PATH_MAX], stripped_prog[PATH_MAX];
	struct itrace_handler_chain *c = new_chain(NULL, 0);
	struct itrace_elf_symbol f1;
	struct itrace_record r;

	(void)state;
	test_prog_path("fill_unwind", unwind_prog, sizeof(unwind_prog));
	test_prog_path("fill_unwind_stripped", stripped_prog, sizeof(stripped_prog));
	assert_int_equal(itrace_elf_find_symbol(unwind_prog, "f1", &f1), 0);
	assert_int_equal(itrace_handler_chain_add(c, &ask_t, NULL), 0);
	start(c);
	memset(&r, 0, sizeof(r));
	r.type = ITRACE_REC_MMAP;
	r.tid = r.pid = 100;
	assert_int_equal(test_text_mmap(unwind_prog, "f1", 0x1000, &r.u.mmap), 0);
	r.u.mmap.path = stripped_prog; /* the same layout, without symbols */
	r.u.mmap.path_len = strlen(stripped_prog);
	r.u.mmap.buildid_len = 0;
	assert_int_equal(itrace_handler_chain_record(c, &r), 0);
	memset(&r, 0, sizeof(r));
	r.type = ITRACE_REC_INSN;
	r.tid = r.pid = 100;
	r.u.insn.addr = f1.vaddr;
	r.u.insn.len = 1;
	assert_int_equal(itrace_handler_chain_record(c, &r), 0);
	assert_int_equal(asked_rc, 0);
	assert_int_equal(asked.unwind, 1);
	assert_int_equal(asked.plt, 0);
	assert_int_equal(asked.start, f1.vaddr);
	assert_int_equal(asked.size, f1.size);
	assert_non_null(asked.name);
	assert_non_null(strstr(asked.name, "fill_unwind_stripped+0x"));
	assert_int_equal(itrace_handler_chain_stop(c), 0);
	itrace_handler_chain_free(c);
	assert_int_equal(itrace_handler_analysis_symbolize(NULL, 100, f1.vaddr, NULL, 0, &asked), -ITRACE_E_INVAL);
	assert_int_equal(itrace_analysis_symbolize(NULL, 100, f1.vaddr, NULL, 0, &asked), -ITRACE_E_INVAL);
}

/* A missing file and a file that is no shared object. */
static void test_load_errors(void **state)
{
	struct itrace_handler_chain *c = new_chain(NULL, 0);

	(void)state;
	assert_int_equal(itrace_handler_chain_load(c, "./no-such-handler.so:x"), -ITRACE_E_NOENT);
	assert_non_null(strstr(itrace_handler_chain_error(c), "No such file or directory"));
	assert_int_equal(itrace_handler_chain_load(c, "/etc/passwd"), -ITRACE_E_ELF);
	assert_non_null(strstr(itrace_handler_chain_error(c), "not a shared object"));
	assert_int_equal(itrace_handler_chain_count(c), 0);
	itrace_handler_chain_free(c);
	itrace_handler_chain_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_chain_order),
		cmocka_unit_test(test_fast_path_drops_mem),
		cmocka_unit_test(test_garbage_verdict),
		cmocka_unit_test(test_table_checks),
		cmocka_unit_test(test_streams),
		cmocka_unit_test(test_load_errors),
		cmocka_unit_test(test_analysis_symbolize),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
