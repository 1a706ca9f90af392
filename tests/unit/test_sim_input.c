/*
 * test_sim_input.c - pipeline-sim's input on traces in memory: what
 * sim_input_reopen_mem delivers from a reused input is what a fresh
 * sim_input_open_mem delivers (instructions, successors, accesses,
 * threads), after a trace read to its end or stopped early; a trace it
 * cannot open frees the input.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "input.h"

struct trace {
	uint8_t *data;
	size_t len;
};

/* make_trace - an instruction-level x86-64 trace of `n` instructions from
 * `base`, every third one with `accesses` MEM records, a thread switch
 * half way. */
static struct trace make_trace(uint64_t base, unsigned n, unsigned accesses, unsigned level)
{
	static const uint8_t mov[] = { 0x48, 0x8b, 0x06 }; /* mov rax,[rsi] */
	struct itrace_writer_options o;
	struct itrace_writer *w;
	struct itrace_record rec;
	struct trace t;
	int fd = memfd_create("test-sim-input", 0);

	assert_true(fd >= 0);
	itrace_writer_options_init(&o);
	o.flags = ITRACE_FF_MEM;
	o.level = (uint8_t)level;
	o.chunk_bytes = 512;
	assert_int_equal(itrace_writer_open_fd(fd, &o, &w), 0);
	for (unsigned i = 0; i < n; i++) {
		if (i == n / 2) {
			memset(&rec, 0, sizeof(rec));
			rec.type = ITRACE_REC_THREAD;
			rec.u.thread.event = ITRACE_THREAD_SWITCH;
			rec.u.thread.tid = 77;
			rec.u.thread.pid = 70;
			assert_int_equal(itrace_writer_write(w, &rec), 0);
		}
		assert_int_equal(itrace_writer_insn(w, base + 3 * i, 3, mov), 0);
		for (unsigned k = 0; i % 3 == 0 && k < accesses; k++)
			assert_int_equal(itrace_writer_mem(w, 0x7f0000 + 64 * i + 8 * k, 8, k & 1), 0);
	}
	assert_int_equal(itrace_writer_close(w, ITRACE_END_COMPLETE, 0), 0);
	t.len = (size_t)lseek(fd, 0, SEEK_END);
	t.data = malloc(t.len);
	assert_non_null(t.data);
	assert_int_equal(pread(fd, t.data, t.len, 0), (ssize_t)t.len);
	close(fd);
	return t;
}

/* One delivered instruction, copied (the input reuses its buffers). */
struct got {
	uint64_t addr, next;
	uint32_t tid, nmem;
	struct sim_memref mem[4];
};

/* read_all - up to `max` instructions of in; the count. */
static size_t read_all(struct sim_input *in, struct got *g, size_t max)
{
	const struct sim_dyn *d;
	size_t n = 0;

	while (n < max && sim_input_next(in, &d) == 0) {
		g[n].addr = d->addr;
		g[n].next = d->next_addr;
		g[n].tid = d->tid;
		g[n].nmem = d->nmem;
		assert_true(d->nmem <= 4);
		memset(g[n].mem, 0, sizeof(g[n].mem));
		for (uint32_t k = 0; k < d->nmem; k++)
			g[n].mem[k] = d->mem[k];
		n++;
	}
	return n;
}

static void same(const struct got *a, size_t na, const struct got *b, size_t nb)
{
	assert_int_equal(na, nb);
	for (size_t i = 0; i < na; i++) {
		assert_int_equal(a[i].addr, b[i].addr);
		assert_int_equal(a[i].next, b[i].next);
		assert_int_equal(a[i].tid, b[i].tid);
		assert_int_equal(a[i].nmem, b[i].nmem);
		for (uint32_t k = 0; k < a[i].nmem; k++) {
			assert_int_equal(a[i].mem[k].addr, b[i].mem[k].addr);
			assert_int_equal(a[i].mem[k].size, b[i].mem[k].size);
			assert_int_equal(a[i].mem[k].store, b[i].mem[k].store);
		}
	}
}

static void test_reopen_reads_like_open(void **state)
{
	struct trace t[3] = { make_trace(0x401000, 300, 4, ITRACE_LEVEL_INSN),
			      make_trace(0x500000, 120, 1, ITRACE_LEVEL_INSN),
			      make_trace(0x600000, 50, 0, ITRACE_LEVEL_INSN) };
	struct got *fresh = calloc(300, sizeof(*fresh)), *reused = calloc(300, sizeof(*reused));
	struct sim_input *in, *f;
	char err[256];

	(void)state;
	assert_int_equal(sim_input_open_mem(t[0].data, t[0].len, &in, err, sizeof(err)), 0);
	assert_int_equal(read_all(in, reused, 300), 300);
	for (int k = 1; k < 6; k++) {
		const struct trace *x = &t[k % 3];
		size_t nf, nr;

		assert_int_equal(sim_input_open_mem(x->data, x->len, &f, err, sizeof(err)), 0);
		nf = read_all(f, fresh, 300);
		sim_input_close(f);
		assert_int_equal(sim_input_reopen_mem(&in, x->data, x->len, err, sizeof(err)), 0);
		nr = read_all(in, reused, 300);
		same(fresh, nf, reused, nr);
		assert_true(nr > 0 && reused[nr - 1].tid == 77);
		/* stopped early: the next trace starts afresh */
		assert_int_equal(sim_input_reopen_mem(&in, t[0].data, t[0].len, err, sizeof(err)), 0);
		assert_int_equal(read_all(in, reused, 7), 7);
		assert_int_equal(reused[0].addr, 0x401000);
		assert_int_equal(reused[0].nmem, 4);
	}
	/* a branch-level trace is refused and the input freed */
	{
		struct trace b = make_trace(0x401000, 10, 0, ITRACE_LEVEL_BRANCH);

		assert_int_equal(sim_input_reopen_mem(&in, b.data, b.len, err, sizeof(err)), -1);
		assert_null(in);
		assert_non_null(strstr(err, "branch-level"));
		free(b.data);
	}
	assert_int_equal(sim_input_open_mem(t[1].data, t[1].len, &in, err, sizeof(err)), 0);
	assert_int_equal(sim_input_reopen_mem(&in, "junk", 4, err, sizeof(err)), -1);
	assert_null(in);
	for (int k = 0; k < 3; k++)
		free(t[k].data);
	free(fresh);
	free(reused);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reopen_reads_like_open),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
