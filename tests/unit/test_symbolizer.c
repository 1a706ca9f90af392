/* test_symbolizer.c - symbols by address and name, source lines (libdw). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "fill_testutil.h"

static char loop_prog[PATH_MAX], lines_prog[PATH_MAX], unwind_prog[PATH_MAX], stripped_prog[PATH_MAX];

struct fixture {
	struct itrace_image *img;
	struct itrace_symbolizer *sym;
};

static int setup(void **state)
{
	static struct fixture f;
	struct itrace_image_options o;

	itrace_image_options_init(&o);
	if (itrace_image_alloc(&o, &f.img) < 0 || itrace_symbolizer_alloc(f.img, &f.sym) < 0)
		return -1;
	*state = &f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	itrace_symbolizer_free(f->sym);
	itrace_image_free(f->img);
	return 0;
}

/* Place PIE `path` at `base` as one mapping of the whole file. */
static void map_whole(struct itrace_image *img, const char *path, uint64_t base, uint32_t pid)
{
	struct stat st;
	struct itrace_mmap m = { .start = base, .pgoff = 0, .pid = pid, .path = path };

	assert_int_equal(stat(path, &st), 0);
	m.len = ((uint64_t)st.st_size + 0xfff) & ~0xfffull;
	m.path_len = strlen(path);
	assert_int_equal(itrace_image_add_mmap(img, &m), 0);
}

static void test_name_by_address(void **state)
{
	struct fixture *f = *state;
	struct itrace_elf_symbol es;
	struct itrace_symbol s;
	struct itrace_mmap m;

	assert_int_equal(test_text_mmap(loop_prog, "func", 0x1000, &m), 0);
	assert_int_equal(itrace_image_add_mmap(f->img, &m), 0);
	assert_int_equal(itrace_elf_find_symbol(loop_prog, "func", &es), 0);
	assert_int_equal(itrace_symbolizer_lookup(f->sym, 100, es.vaddr + 2, ITRACE_SYM_NAME, &s), 0);
	assert_string_equal(s.name, "func");
	assert_int_equal(s.offset, 2);
	assert_int_equal(s.addr, es.vaddr);
	assert_string_equal(s.module, loop_prog);
	assert_null(s.file); /* assembly without -g: no lines */
	assert_int_equal(itrace_symbolizer_lookup(f->sym, 100, 0x10, ITRACE_SYM_NAME, &s), -ITRACE_E_NOENT);
	assert_null(s.module);
}

static void test_address_by_name(void **state)
{
	struct fixture *f = *state;
	struct itrace_elf_symbol es;
	struct itrace_symbol s;

	/* PIE at a runtime base: the runtime address includes the bias. */
	map_whole(f->img, lines_prog, 0x555555554000ull, 300);
	assert_int_equal(itrace_elf_find_symbol(lines_prog, "fill_square", &es), 0);
	assert_true(es.is_func);
	assert_int_equal(itrace_symbolizer_find(f->sym, 300, "fill_square", &s), 0);
	assert_int_equal(s.addr, 0x555555554000ull + es.vaddr);
	assert_int_equal(itrace_symbolizer_find(f->sym, 300, "no_such_function", &s), -ITRACE_E_NOENT);
	assert_int_equal(itrace_elf_find_symbol(lines_prog, "no_such_function", &es), -ITRACE_E_NOENT);
	assert_int_equal(itrace_elf_find_symbol("/nonexistent", "main", &es), -ITRACE_E_IO);
	assert_int_equal(itrace_elf_find_symbol("/etc/hostname", "main", &es), -ITRACE_E_ELF);
}

/* Line of "int fill_square(int x)" followed by "{" in the source. */
static int definition_line(const char *src, const char *needle)
{
	FILE *fp = fopen(src, "r");
	char line[256];
	int n = 0, found = 0;

	assert_non_null(fp);
	while (fgets(line, sizeof(line), fp)) {
		n++;
		if (strncmp(line, needle, strlen(needle)) == 0 && !strchr(line, ';'))
			found = n;
	}
	fclose(fp);
	return found;
}

static void test_source_line(void **state)
{
	struct fixture *f = *state;
	struct itrace_symbol s, fs;
	int want = definition_line("tests/data/fill_lines.c", "int fill_square(int x)");

	assert_true(want > 0);
	map_whole(f->img, lines_prog, 0x7f0000000000ull, 400);
	assert_int_equal(itrace_symbolizer_find(f->sym, 400, "fill_square", &fs), 0);
	assert_int_equal(itrace_symbolizer_lookup(f->sym, 400, fs.addr, ITRACE_SYM_NAME | ITRACE_SYM_LINE, &s), 0);
	assert_string_equal(s.name, "fill_square");
	assert_non_null(s.file);
	assert_non_null(strstr(s.file, "fill_lines.c"));
	/* The entry is attributed to the definition or the line after it. */
	assert_true(s.line == want || s.line == want + 1 || s.line == want + 2);
}

/*
 * A stripped file's functions: named FILE+0xOFFSET and bounded by their
 * FDEs (f1, f2: the unstripped build's symbols say where they are), and
 * code no FDE covers (_start) by the stretch of .text before the first.
 */
static void test_unwind_names(void **state)
{
	struct fixture *f = *state;
	struct itrace_mmap m = { .start = 0x401000, .len = 0x1000, .pgoff = 0x1000, .prot = 5,
				 .pid = 300, .path = stripped_prog };
	const char *base = strrchr(stripped_prog, '/') + 1;
	static const char *const funcs[] = {"f1", "f2"};
	struct itrace_elf_symbol es, start;
	struct itrace_symbol s;
	char want[PATH_MAX + 32];

	m.path_len = strlen(stripped_prog);
	assert_int_equal(itrace_image_add_mmap(f->img, &m), 0);
	for (size_t i = 0; i < 2; i++) {
		assert_int_equal(itrace_elf_find_symbol(unwind_prog, funcs[i], &es), 0);
		assert_int_equal(itrace_symbolizer_lookup(f->sym, 300, es.vaddr + es.size - 1, ITRACE_SYM_NAME, &s), 0);
		snprintf(want, sizeof(want), "%s+%#llx", base, (unsigned long long)es.offset);
		assert_string_equal(s.name, want);
		assert_int_equal(s.addr, es.vaddr);
		assert_int_equal(s.size, es.size);
		assert_int_equal(s.offset, es.size - 1);
		assert_int_equal(s.unwind, 1);
		assert_int_equal(s.plt, 0);
	}
	assert_int_equal(itrace_elf_find_symbol(unwind_prog, "_start", &start), 0);
	assert_int_equal(itrace_elf_find_symbol(unwind_prog, "f1", &es), 0);
	assert_int_equal(itrace_symbolizer_lookup(f->sym, 300, start.vaddr + 5, ITRACE_SYM_NAME, &s), 0);
	snprintf(want, sizeof(want), "%s+%#llx", base, (unsigned long long)start.offset);
	assert_string_equal(s.name, want);
	assert_int_equal(s.addr, start.vaddr);
	assert_int_equal(s.size, es.vaddr - start.vaddr); /* up to f1's FDE */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_name_by_address, setup, teardown),
		cmocka_unit_test_setup_teardown(test_address_by_name, setup, teardown),
		cmocka_unit_test_setup_teardown(test_source_line, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unwind_names, setup, teardown),
	};

	test_prog_path("fill_loop", loop_prog, sizeof(loop_prog));
	test_prog_path("fill_lines", lines_prog, sizeof(lines_prog));
	test_prog_path("fill_unwind", unwind_prog, sizeof(unwind_prog));
	test_prog_path("fill_unwind_stripped", stripped_prog, sizeof(stripped_prog));
	return cmocka_run_group_tests(tests, NULL, NULL);
}
