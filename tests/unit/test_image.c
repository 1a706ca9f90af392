/* test_image.c - mappings -> files, build-id checks, CODE records. */
#include <errno.h>
#include <fcntl.h>
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
#include "image_int.h"
#include "itrace_elf.h"

static char prog[PATH_MAX];

static struct itrace_image *new_image(const char *sysroot, const char *debug_dir)
{
	struct itrace_image_options o;
	struct itrace_image *img;

	itrace_image_options_init(&o);
	o.sysroot = sysroot;
	o.debug_dir = debug_dir;
	assert_int_equal(itrace_image_alloc(&o, &img), 0);
	return img;
}

static void read_file_at(const char *path, uint64_t off, uint8_t *buf, size_t n)
{
	int fd = open(path, O_RDONLY);

	assert_true(fd >= 0);
	assert_int_equal(pread(fd, buf, n, (off_t)off), (ssize_t)n);
	close(fd);
}

/* The bytes at a symbol are the file's bytes at the symbol's offset. */
static void test_lookup_reads_file(void **state)
{
	struct itrace_image *img = new_image(NULL, NULL);
	struct itrace_elf_symbol s;
	struct itrace_image_loc loc;
	struct itrace_mmap m;
	uint8_t want[8];

	(void)state;
	assert_int_equal(test_text_mmap(prog, "func", 0x1000, &m), 0);
	assert_int_equal(itrace_image_add_mmap(img, &m), 0);
	assert_int_equal(itrace_elf_find_symbol(prog, "func", &s), 0);
	assert_int_equal(itrace_image_lookup(img, 100, s.vaddr, &loc), 0);
	read_file_at(prog, s.offset, want, sizeof(want));
	assert_memory_equal(loc.bytes, want, sizeof(want));
	assert_int_equal(loc.offset, s.offset);
	assert_int_equal(loc.bias, 0); /* -no-pie: runtime = link-time */
	assert_int_equal(loc.avail, m.start + m.len - s.vaddr);
	assert_string_equal(loc.path, prog);
	assert_string_equal(loc.file, prog);
	assert_true(loc.module > 0);
	/* Other processes and addresses outside the mapping have nothing. */
	assert_int_equal(itrace_image_lookup(img, 101, s.vaddr, &loc), -ITRACE_E_NOENT);
	assert_int_equal(itrace_image_lookup(img, 100, m.start + m.len, &loc), -ITRACE_E_NOENT);
	itrace_image_free(img);
}

static void test_buildid_mismatch_refused(void **state)
{
	struct itrace_image *img = new_image(NULL, NULL);
	struct itrace_image_loc loc;
	struct itrace_mmap m;

	(void)state;
	assert_int_equal(test_text_mmap(prog, "func", 0x1000, &m), 0);
	m.buildid[0] ^= 0xff;
	assert_int_equal(itrace_image_add_mmap(img, &m), 0);
	assert_int_equal(itrace_image_lookup(img, 100, m.start, &loc), -ITRACE_E_BUILDID);
	assert_null(loc.bytes);
	assert_string_equal(loc.path, prog);
	itrace_image_free(img);
}

/* "PATH (deleted)": the file now at PATH, if its build-id matches. */
static void test_deleted_suffix(void **state)
{
	struct itrace_image *img = new_image(NULL, NULL);
	struct itrace_image_loc loc;
	struct itrace_mmap m;
	char path[PATH_MAX + 16];

	(void)state;
	assert_int_equal(test_text_mmap(prog, "func", 0x1000, &m), 0);
	snprintf(path, sizeof(path), "%s (deleted)", prog);
	m.path = path;
	m.path_len = strlen(path);
	assert_int_equal(itrace_image_add_mmap(img, &m), 0);
	assert_int_equal(itrace_image_lookup(img, 100, m.start, &loc), 0);
	assert_string_equal(loc.file, prog);
	itrace_image_free(img);
}

static void test_missing_file(void **state)
{
	struct itrace_image *img = new_image(NULL, NULL);
	struct itrace_image_loc loc;
	struct itrace_mmap m;

	(void)state;
	assert_int_equal(test_text_mmap(prog, "func", 0x1000, &m), 0);
	m.path = "/nonexistent/fill_loop";
	m.path_len = strlen(m.path);
	assert_int_equal(itrace_image_add_mmap(img, &m), 0);
	assert_int_equal(itrace_image_lookup(img, 100, m.start, &loc), -ITRACE_E_IO);
	itrace_image_free(img);
}

/* A FIFO at a mapping's path (a hostile or stale trace): refused at once,
 * not waited on for a writer that never comes (alarm: a hang fails). */
static void test_fifo_not_waited_on(void **state)
{
	char dir[] = "/tmp/itrace-image-XXXXXX", path[PATH_MAX];
	struct itrace_image *img = new_image(NULL, NULL);
	struct itrace_image_loc loc;
	struct itrace_mmap m;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/fifo", dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	assert_int_equal(test_text_mmap(prog, "func", 0x1000, &m), 0);
	m.path = path;
	m.path_len = strlen(m.path);
	assert_int_equal(itrace_image_add_mmap(img, &m), 0);
	alarm(10);
	assert_true(itrace_image_lookup(img, 100, m.start, &loc) < 0);
	assert_int_equal(itrace_elf_open_fd(path), -1);
	assert_int_equal(errno, ENOEXEC);
	/* a device too (in some containers /dev/null is a regular file) */
	for (const char *const *d = (const char *const[]){ "/dev/zero", "/dev/null", NULL }; *d; d++) {
		struct stat st;

		if (stat(*d, &st) == 0 && S_ISCHR(st.st_mode)) {
			assert_int_equal(itrace_elf_open_fd(*d), -1);
			break;
		}
	}
	alarm(0);
	itrace_image_free(img);
	unlink(path);
	rmdir(dir);
}

/* A copy under a sysroot, and a build-id link under a debug directory. */
static void test_sysroot_and_debug_dir(void **state)
{
	char dir[] = "/tmp/itrace-image-XXXXXX", path[PATH_MAX + 64], cmd[3 * PATH_MAX];
	struct itrace_image *img;
	struct itrace_image_loc loc;
	struct itrace_mmap m;
	int n;

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_int_equal(test_text_mmap(prog, "func", 0x1000, &m), 0);
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s/opt' && cp '%s' '%s/opt/prog'", dir, prog, dir);
	assert_int_equal(system(cmd), 0);
	m.path = "/opt/prog";
	m.path_len = strlen(m.path);
	img = new_image(dir, NULL);
	assert_int_equal(itrace_image_add_mmap(img, &m), 0);
	assert_int_equal(itrace_image_lookup(img, 100, m.start, &loc), 0);
	snprintf(path, sizeof(path), "%s/opt/prog", dir);
	assert_string_equal(loc.file, path);
	itrace_image_free(img);

	/* Not under the path, but found by build-id. */
	n = snprintf(path, sizeof(path), "%s/.build-id/%02x", dir, m.buildid[0]);
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s'", path);
	assert_int_equal(system(cmd), 0);
	n += snprintf(path + n, sizeof(path) - n, "/");
	for (unsigned i = 1; i < m.buildid_len; i++)
		n += snprintf(path + n, sizeof(path) - n, "%02x", m.buildid[i]);
	assert_int_equal(symlink(prog, path), 0);
	m.path = "/gone/prog";
	m.path_len = strlen(m.path);
	img = new_image(NULL, dir);
	assert_int_equal(itrace_image_add_mmap(img, &m), 0);
	assert_int_equal(itrace_image_lookup(img, 100, m.start, &loc), 0);
	assert_string_equal(loc.file, path);
	itrace_image_free(img);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

/* [vdso] has no file: only CODE records give its bytes. */
static void test_code_records(void **state)
{
	static const uint8_t v1[] = { 0x90, 0x90, 0xc3 }, v2[] = { 0xcc };
	struct itrace_image *img = new_image(NULL, NULL);
	struct itrace_mmap m = { .start = 0x7fff0000, .len = 0x2000, .pid = 7,
				 .path = "[vdso]", .path_len = 6 };
	struct itrace_code c1 = { 0x7fff0100, v1, sizeof(v1) }, c2 = { 0x7fff0101, v2, 1 };
	struct itrace_image_loc loc, loc1;

	(void)state;
	assert_int_equal(itrace_image_add_mmap(img, &m), 0);
	assert_int_equal(itrace_image_lookup(img, 7, 0x7fff0100, &loc), -ITRACE_E_IO);
	assert_string_equal(loc.path, "[vdso]");
	assert_int_equal(itrace_image_add_code(img, 7, &c1), 0);
	assert_int_equal(itrace_image_lookup(img, 7, 0x7fff0101, &loc1), 0);
	assert_int_equal(loc1.avail, 2);
	assert_int_equal(loc1.bytes[0], 0x90);
	/* A later CODE record over the same bytes wins (JIT rewrite). */
	assert_int_equal(itrace_image_add_code(img, 7, &c2), 0);
	assert_int_equal(itrace_image_lookup(img, 7, 0x7fff0101, &loc), 0);
	assert_int_equal(loc.bytes[0], 0xcc);
	assert_int_not_equal(loc.module, loc1.module);
	assert_int_equal(itrace_image_lookup(img, 7, 0x7fff0102, &loc), 0);
	assert_int_equal(loc.bytes[0], 0xc3);
	itrace_image_free(img);
}

/* Records drive the image: fork copies, exec forgets, MAP_FIXED replaces. */
static void test_apply_records(void **state)
{
	struct itrace_image *img = new_image(NULL, NULL);
	struct itrace_record rec = { .type = ITRACE_REC_MMAP };
	struct itrace_image_loc loc;

	(void)state;
	assert_int_equal(test_text_mmap(prog, "func", 0x1000, &rec.u.mmap), 0);
	assert_int_equal(itrace_image_apply(img, &rec), 1);
	rec.type = ITRACE_REC_PROCESS;
	rec.u.process = (struct itrace_process){ .event = ITRACE_PROCESS_FORK, .pid = 100, .other = 200 };
	assert_int_equal(itrace_image_apply(img, &rec), 1);
	assert_int_equal(itrace_image_lookup(img, 200, rec.u.process.pid ? 0x401000 : 0, &loc), 0);
	rec.u.process = (struct itrace_process){ .event = ITRACE_PROCESS_EXEC, .pid = 100 };
	assert_int_equal(itrace_image_apply(img, &rec), 1);
	assert_int_equal(itrace_image_lookup(img, 100, 0x401000, &loc), -ITRACE_E_NOENT);
	assert_int_equal(itrace_image_lookup(img, 200, 0x401000, &loc), 0);
	/* An anonymous mapping over the middle of the text splits it. */
	rec.type = ITRACE_REC_MMAP;
	rec.u.mmap = (struct itrace_mmap){ .start = 0x401400, .len = 0x100, .pid = 200, .path = "", .path_len = 0 };
	assert_int_equal(itrace_image_apply(img, &rec), 1);
	assert_int_equal(itrace_image_lookup(img, 200, 0x401450, &loc), -ITRACE_E_IO);
	assert_int_equal(itrace_image_lookup(img, 200, 0x401500, &loc), 0);
	assert_int_equal(loc.offset, 0x1500);
	assert_int_equal(itrace_image_lookup(img, 200, 0x4013ff, &loc), 0);
	rec.type = ITRACE_REC_SYSCALL;
	assert_int_equal(itrace_image_apply(img, &rec), 0);
	itrace_image_free(img);
}

/*
 * Address spaces by number (the analysis): fork and exec end spaces,
 * image_keep_spaces() keeps them for lookups, and a mapping is found as
 * its MMAP record named it, one without a file too.
 */
static void test_spaces_by_number(void **state)
{
	static const uint8_t id1[] = { 1, 2, 3 }, id2[] = { 4, 5, 6 };
	struct itrace_record rec = { .type = ITRACE_REC_MMAP };
	struct image_mapping_view v, v2;
	struct itrace_image_loc loc;
	uint32_t text_id;

	(void)state;
	for (int keep = 0; keep < 2; keep++) {
		struct itrace_image *img = new_image(NULL, NULL);

		if (keep)
			image_keep_spaces(img);
		rec.type = ITRACE_REC_MMAP;
		assert_int_equal(test_text_mmap(prog, "func", 0x1000, &rec.u.mmap), 0);
		assert_int_equal(image_space(img, 100), 0);
		assert_int_equal(itrace_image_apply(img, &rec), 1);
		assert_int_equal(image_space(img, 100), 1);
		assert_int_equal(image_mapping_find(img, 1, 0x401000, &v), 0);
		assert_string_equal(v.path, prog);
		assert_int_equal(v.pgoff + (0x401000 - v.start), 0x1000);
		assert_null(v.file); /* not opened */
		text_id = v.name_id;
		assert_int_not_equal(text_id, 0);
		rec.type = ITRACE_REC_PROCESS;
		rec.u.process = (struct itrace_process){ .event = ITRACE_PROCESS_FORK, .pid = 100, .other = 200 };
		assert_int_equal(itrace_image_apply(img, &rec), 1);
		assert_int_equal(image_space(img, 200), 2);
		rec.u.process = (struct itrace_process){ .event = ITRACE_PROCESS_EXEC, .pid = 100 };
		assert_int_equal(itrace_image_apply(img, &rec), 1);
		assert_int_equal(image_space(img, 100), 0);
		assert_int_equal(image_space_lookup(img, 1, 0x401000, &loc), keep ? 0 : -ITRACE_E_NOENT);
		assert_int_equal(image_mapping_find(img, 1, 0x401000, &v), keep ? 0 : -ITRACE_E_NOENT);
		assert_int_equal(image_space_lookup(img, 2, 0x401000, &loc), 0);
		assert_int_equal(image_space_lookup(img, 0, 0x401000, &loc), -ITRACE_E_NOENT);
		assert_int_equal(image_space_lookup(img, 9, 0x401000, &loc), -ITRACE_E_NOENT);
		/* after the exec: a new space; [vdso]s named by build-id */
		rec.type = ITRACE_REC_MMAP;
		rec.u.mmap = (struct itrace_mmap){ .start = 0x7fff0000, .len = 0x2000, .pid = 100,
						   .path = "[vdso]", .path_len = 6, .buildid_len = 3 };
		memcpy(rec.u.mmap.buildid, id1, 3);
		assert_int_equal(itrace_image_apply(img, &rec), 1);
		rec.u.mmap.start = 0x7ffe0000;
		memcpy(rec.u.mmap.buildid, id2, 3);
		assert_int_equal(itrace_image_apply(img, &rec), 1);
		assert_int_equal(image_space(img, 100), 3);
		assert_int_equal(image_mapping_find(img, 3, 0x7fff0010, &v), 0);
		assert_int_equal(image_mapping_find(img, 3, 0x7ffe0010, &v2), 0);
		assert_string_equal(v.path, "[vdso]");
		assert_int_equal(v.buildid_len, 3);
		assert_memory_equal(v.buildid, id1, 3);
		assert_memory_equal(v2.buildid, id2, 3);
		assert_int_equal(v.module, 0);
		assert_int_not_equal(v.name_id, v2.name_id);
		assert_int_not_equal(v.name_id, text_id);
		assert_int_equal(itrace_image_lookup(img, 100, 0x7fff0010, &loc), -ITRACE_E_IO);
		assert_string_equal(loc.path, "[vdso]");
		assert_int_equal(image_mapping_find(img, 3, 0x401000, &v), -ITRACE_E_NOENT);
		itrace_image_free(img);
	}
}

/*
 * CODE records that overlap by all but one byte, as a JIT rewriting code
 * or a hostile trace may write them: each address shows the bytes of the
 * last record over it, whatever the order of the earlier ones.
 */
static void test_code_records_shadowing(void **state)
{
	struct itrace_image *img = new_image(NULL, NULL);
	struct itrace_image_loc loc;
	static uint8_t bytes[4096];
	enum { N = 2000 };

	(void)state;
	for (unsigned i = 0; i < N; i++) {
		struct itrace_code c = { 0x100000 + i, bytes, sizeof(bytes) };

		memset(bytes, (int)(i & 0xff), sizeof(bytes));
		assert_int_equal(itrace_image_add_code(img, 9, &c), 0);
	}
	for (unsigned i = 0; i < N; i++) {
		assert_int_equal(itrace_image_lookup(img, 9, 0x100000 + i, &loc), 0);
		assert_int_equal(loc.bytes[0], i & 0xff);
		assert_int_equal(loc.avail, i == N - 1 ? sizeof(bytes) : 1);
	}
	assert_int_equal(itrace_image_lookup(img, 9, 0x100000 + N - 1 + sizeof(bytes), &loc),
			 -ITRACE_E_NOENT);
	/* One record over all of them replaces them all. */
	{
		static uint8_t big[N + 4096];
		struct itrace_code c = { 0x100000, big, sizeof(big) };

		memset(big, 0xee, sizeof(big));
		assert_int_equal(itrace_image_add_code(img, 9, &c), 0);
		assert_int_equal(itrace_image_lookup(img, 9, 0x100000 + 77, &loc), 0);
		assert_int_equal(loc.bytes[0], 0xee);
		assert_int_equal(loc.avail, sizeof(big) - 77);
	}
	itrace_image_free(img);
}

/* A mapping punched by many others keeps the right offsets in each piece. */
static void test_mappings_replace(void **state)
{
	struct itrace_image *img = new_image(NULL, NULL);
	struct itrace_image_loc loc;
	struct itrace_mmap m;

	(void)state;
	assert_int_equal(test_text_mmap(prog, "func", 0x1000, &m), 0);
	assert_int_equal(itrace_image_add_mmap(img, &m), 0);
	/* 16-byte anonymous holes every 64 bytes of the text mapping */
	for (uint64_t a = m.start; a + 16 <= m.start + m.len; a += 64) {
		struct itrace_mmap h = { .start = a, .len = 16, .pid = m.pid, .path = "[anon]", .path_len = 6 };

		assert_int_equal(itrace_image_add_mmap(img, &h), 0);
	}
	for (uint64_t a = m.start; a < m.start + m.len; a += 8) {
		int rc = itrace_image_lookup(img, m.pid, a, &loc);

		if ((a - m.start) % 64 < 16) {
			assert_int_equal(rc, -ITRACE_E_IO);
			assert_string_equal(loc.path, "[anon]");
		} else {
			assert_int_equal(rc, 0);
			assert_int_equal(loc.offset, m.pgoff + (a - m.start));
			assert_true(loc.avail <= 48);
		}
	}
	itrace_image_free(img);
}

static void test_build_id(void **state)
{
	uint8_t id[64], small[2];
	int n;

	(void)state;
	n = itrace_elf_build_id(prog, id, sizeof(id));
	assert_true(n >= 8);
	assert_int_equal(itrace_elf_build_id(prog, small, sizeof(small)), -ITRACE_E_INVAL);
	assert_int_equal(itrace_elf_build_id("/nonexistent", id, sizeof(id)), -ITRACE_E_IO);
	assert_int_equal(itrace_elf_build_id("/etc/hostname", id, sizeof(id)), -ITRACE_E_ELF);
	itrace_image_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lookup_reads_file),
		cmocka_unit_test(test_buildid_mismatch_refused),
		cmocka_unit_test(test_missing_file),
		cmocka_unit_test(test_fifo_not_waited_on),
		cmocka_unit_test(test_deleted_suffix),
		cmocka_unit_test(test_sysroot_and_debug_dir),
		cmocka_unit_test(test_code_records),
		cmocka_unit_test(test_code_records_shadowing),
		cmocka_unit_test(test_mappings_replace),
		cmocka_unit_test(test_apply_records),
		cmocka_unit_test(test_spaces_by_number),
		cmocka_unit_test(test_build_id),
	};

	test_prog_path("fill_loop", prog, sizeof(prog));
	return cmocka_run_group_tests(tests, NULL, NULL);
}
