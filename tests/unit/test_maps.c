/*
 * test_maps.c - collectors/maps.c: /proc/PID/maps lines parsed (a file,
 * a deleted file, spaces in a name, [vdso], [stack], an anonymous
 * mapping, malformed lines); the MMAP and CODE records of this very
 * process (/proc/self/maps as the oracle: every named mapping once, the
 * test's own file with the build-id its ELF note holds, [vdso] followed by
 * a CODE record with the bytes in memory), read back through libitrace;
 * maps_write_new writing only what is new (a file mapped since); the
 * module matching of --only.
 */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "emit.h"
#include "itrace.h"
#include "itrace_code.h"
#include "maps.h"
#include "readback_testutil.h"

#define MAXREC 4096

static void test_parse_lines(void **state)
{
	struct maps_entry e;

	(void)state;
	assert_int_equal(maps_parse_line("55d0c8a00000-55d0c8a2a000 r-xp 00004000 08:01 1835010    "
					 "                /usr/bin/cat\n", &e), 0);
	assert_true(e.start == 0x55d0c8a00000ULL && e.end == 0x55d0c8a2a000ULL);
	assert_int_equal(e.pgoff, 0x4000);
	assert_int_equal(e.prot, PROT_READ | PROT_EXEC);
	assert_string_equal(e.path, "/usr/bin/cat");

	assert_int_equal(maps_parse_line("7f0000000000-7f0000001000 rw-s 00000000 00:05 42 "
					 "/tmp/x (deleted)\n", &e), 0);
	assert_int_equal(e.prot, PROT_READ | PROT_WRITE);
	assert_string_equal(e.path, "/tmp/x (deleted)");

	assert_int_equal(maps_parse_line("7f0000000000-7f0000002000 r--p 00001000 fd:00 7 "
					 "/home/a user/my lib.so\n", &e), 0);
	assert_string_equal(e.path, "/home/a user/my lib.so");
	assert_int_equal(e.pgoff, 0x1000);
	assert_int_equal(e.prot, PROT_READ);

	assert_int_equal(maps_parse_line("7ffd1a1f0000-7ffd1a1f2000 r-xp 00000000 00:00 0"
					 "                          [vdso]\n", &e), 0);
	assert_string_equal(e.path, "[vdso]");
	assert_int_equal(maps_parse_line("7ffd1a000000-7ffd1a021000 rw-p 00000000 00:00 0 [stack]", &e), 0);
	assert_string_equal(e.path, "[stack]");
	assert_int_equal(e.prot, PROT_READ | PROT_WRITE);

	/* anonymous: no name at all (the kernel ends the line with a space) */
	assert_int_equal(maps_parse_line("7f1234000000-7f1234021000 ---p 00000000 00:00 0 \n", &e), 0);
	assert_string_equal(e.path, "");
	assert_int_equal(e.prot, 0);
	assert_int_equal(maps_parse_line("7f1234000000-7f1234021000 rw-p 00000000 00:00 0\n", &e), 0);
	assert_string_equal(e.path, "");

	assert_int_equal(maps_parse_line("", &e), -1);
	assert_int_equal(maps_parse_line("not a mapping\n", &e), -1);
	assert_int_equal(maps_parse_line("1000-2000 r\n", &e), -1);
	assert_int_equal(maps_parse_line("1000-2000 r-xp 00000000 08:01\n", &e), -1); /* no inode */
}

static size_t named_mappings(struct maps_entry *v, size_t max);

/*
 * The trace of maps_write_process(getpid()), read back into recs; the
 * named mappings just before it in before[*nbefore], just after it in
 * after[*nafter] (the heap may grow meanwhile).
 */
static size_t write_self(struct itrace_record *recs, int *written, struct maps_entry *before,
			 size_t *nbefore, struct maps_entry *after, size_t *nafter)
{
	struct itrace_writer_options opts;
	struct itrace_writer *w;
	struct emit_sink out;
	char path[] = "/tmp/test_maps.XXXXXX";
	size_t n;
	int fd;

	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	itrace_writer_options_init(&opts);
	assert_int_equal(itrace_writer_open(path, &opts, &w), 0);
	out = emit_writer_sink(w);
	*nbefore = named_mappings(before, 256);
	*written = maps_write_process(&out, getpid(), NULL, NULL);
	*nafter = named_mappings(after, 256);
	assert_int_equal(itrace_writer_close(w, ITRACE_END_COMPLETE, 0), 0);
	n = readback_all(path, recs, MAXREC);
	unlink(path);
	return n;
}

/* The named mappings of /proc/self/maps, [vsyscall] aside: the oracle. */
static size_t named_mappings(struct maps_entry *v, size_t max)
{
	FILE *f = fopen("/proc/self/maps", "re");
	char line[4200];
	size_t n = 0;

	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		if (n < max && maps_parse_line(line, &v[n]) == 0 && v[n].path[0] &&
		    strcmp(v[n].path, "[vsyscall]") != 0)
			n++;
	fclose(f);
	return n;
}

static const struct itrace_record *find_mmap(const struct itrace_record *r, size_t n, uint64_t start)
{
	for (size_t i = 0; i < n; i++)
		if (r[i].type == ITRACE_REC_MMAP && r[i].u.mmap.start == start)
			return &r[i];
	return NULL;
}

static void test_self(void **state)
{
	struct itrace_record *r = calloc(MAXREC, sizeof(*r));
	struct maps_entry *v = calloc(256, sizeof(*v)), *after = calloc(256, sizeof(*after));
	uint64_t vdso = getauxval(AT_SYSINFO_EHDR), here = (uint64_t)(uintptr_t)&test_self;
	char exe[4096];
	uint8_t id[ITRACE_BUILDID_MAX];
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	int id_len, written, seen_exe = 0, seen_vdso = 0;
	size_t n, nv, nafter, nmmap = 0;

	(void)state;
	assert_non_null(r);
	assert_non_null(v);
	assert_non_null(after);
	assert_true(len > 0);
	exe[len] = '\0';
	id_len = itrace_elf_build_id(exe, id, sizeof(id));
	assert_true(id_len > 0); /* the build links with --build-id */
	n = write_self(r, &written, v, &nv, after, &nafter);
	for (size_t i = 0; i < n; i++)
		nmmap += r[i].type == ITRACE_REC_MMAP;
	/* nothing is mapped or unmapped meanwhile; the heap may grow */
	assert_int_equal(nv, nafter);
	assert_int_equal(written, (int)nmmap);
	assert_int_equal(nmmap, nv);
	for (size_t k = 0; k < nv; k++) {
		const struct itrace_record *m = find_mmap(r, n, v[k].start);

		assert_non_null(m);
		assert_int_equal(after[k].start, v[k].start);
		if (m->u.mmap.len != v[k].end - v[k].start) {
			assert_string_equal(v[k].path, "[heap]");
			assert_int_equal(m->u.mmap.len, after[k].end - after[k].start);
		}
		assert_int_equal(m->u.mmap.pgoff, v[k].pgoff);
		assert_int_equal(m->u.mmap.prot, v[k].prot);
		assert_int_equal(m->u.mmap.pid, (uint32_t)getpid());
		assert_int_equal(m->u.mmap.path_len, strlen(v[k].path));
		assert_memory_equal(m->u.mmap.path, v[k].path, m->u.mmap.path_len);
		if (strcmp(v[k].path, exe) == 0) {
			seen_exe = 1;
			assert_int_equal(m->u.mmap.buildid_len, id_len);
			assert_memory_equal(m->u.mmap.buildid, id, (size_t)id_len);
			if (here >= v[k].start && here < v[k].end)
				assert_true(m->u.mmap.prot & PROT_EXEC);
		}
		if (v[k].path[0] != '/')
			assert_int_equal(m->u.mmap.buildid_len, 0);
		if (strcmp(v[k].path, "[vdso]") == 0) {
			/* its bytes follow it, as they are in memory */
			const struct itrace_record *code = m + 1;

			seen_vdso = 1;
			assert_int_equal(v[k].start, vdso);
			assert_true(code < r + n);
			assert_int_equal(code->type, ITRACE_REC_CODE);
			assert_int_equal(code->u.code.addr, vdso);
			assert_int_equal(code->u.code.len, v[k].end - v[k].start);
			assert_memory_equal(code->u.code.bytes, (const void *)(uintptr_t)vdso,
					    code->u.code.len);
		}
	}
	assert_true(seen_exe);
	/* a vDSO exactly when the kernel gave one (none under Valgrind) */
	assert_int_equal(seen_vdso, vdso != 0);
	free(r);
	free(v);
	free(after);
}

/* A sink of its own: counts MMAP records, keeps the last. */
struct capture {
	struct emit_sink sink; /* first: put's sink is the capture */
	struct itrace_mmap last;
	char path[4096];
	int n;
};

static int capture_put(struct emit_sink *s, const struct itrace_record *rec)
{
	struct capture *c = (struct capture *)s;

	if (rec->type != ITRACE_REC_MMAP)
		return 0;
	c->n++;
	c->last = rec->u.mmap;
	assert_true(rec->u.mmap.path_len < sizeof(c->path));
	memcpy(c->path, rec->u.mmap.path, rec->u.mmap.path_len);
	c->path[rec->u.mmap.path_len] = '\0';
	c->last.path = c->path;
	return 0;
}

/* maps_write_new: the second time nothing; a file mapped since, alone
 * (a space in its name). */
static void test_write_new(void **state)
{
	struct capture c = {.sink = {.put = capture_put}};
	struct maps_seen seen = {0};
	char path[] = "/tmp/test_maps new.XXXXXX";
	void *p;
	int fd;

	(void)state;
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "0123456789abcdef", 16), 16);
	assert_true(maps_write_new(&c.sink, getpid(), &seen, NULL, NULL) > 0);
	c.n = 0;
	assert_int_equal(maps_write_new(&c.sink, getpid(), &seen, NULL, NULL), 0);
	assert_int_equal(c.n, 0);
	p = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
	assert_true(p != MAP_FAILED);
	assert_int_equal(maps_write_new(&c.sink, getpid(), &seen, NULL, NULL), 1);
	assert_int_equal(c.n, 1);
	assert_int_equal(c.last.start, (uint64_t)(uintptr_t)p);
	assert_int_equal(c.last.len, 4096);
	assert_int_equal(c.last.prot, PROT_READ);
	assert_string_equal(c.path, path);
	assert_int_equal(c.last.buildid_len, 0); /* no ELF file, no build-id */
	/* deleted while mapped: a new mapping by name, kept with the name the
	 * kernel gives it */
	unlink(path);
	c.n = 0;
	assert_int_equal(maps_write_new(&c.sink, getpid(), &seen, NULL, NULL), 1);
	assert_int_equal(c.n, 1);
	assert_int_equal(c.last.start, (uint64_t)(uintptr_t)p);
	assert_true(strstr(c.path, " (deleted)") != NULL);
	munmap(p, 4096);
	close(fd);
	maps_seen_free(&seen);
	assert_int_equal(seen.n, 0);
}

static void test_module(void **state)
{
	uint64_t lo = 0, hi = 0, here = (uint64_t)(uintptr_t)&test_module;

	(void)state;
	assert_int_equal(maps_find_module(getpid(), "main", &lo, &hi), 0);
	assert_true(lo <= here && here < hi);
	assert_int_equal(maps_find_module(getpid(), "no-such-module.so", &lo, &hi), -ITRACE_E_NOENT);
	assert_true(maps_module_matches("/usr/lib/x86_64-linux-gnu/libc.so.6", "libc.so.6", "/bin/x"));
	assert_true(maps_module_matches("/usr/lib/libc.so.6", "/usr/lib/libc.so.6", "/bin/x"));
	assert_false(maps_module_matches("/usr/lib/libc.so.6", "/lib/libc.so.6", "/bin/x"));
	assert_true(maps_module_matches("/bin/x", "main", "/bin/x"));
	assert_false(maps_module_matches("/bin/y", "main", "/bin/x"));
	assert_false(maps_module_matches("/usr/lib/libcx.so.6", "libc.so.6", "/bin/x"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_lines),
		cmocka_unit_test(test_self),
		cmocka_unit_test(test_write_new),
		cmocka_unit_test(test_module),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
