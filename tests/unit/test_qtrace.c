/*
 * test_qtrace.c - unit tests of the qtrace writer and reader.
 *
 * Byte sequences follow qtrace-tools (qtlib/qtrace.h, qtlib/qtreader.c):
 * the smallest file its reader accepts and records as qtlib/qtwriter.c
 * emits them, checked against qtrace-tools' reader.
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

#include "qtrace.h"

/* ---- helpers ----------------------------------------------------------- */

struct memfile {
	int fd;
	uint8_t *bytes;
	size_t len;
};

static struct qtrace_writer *open_mem_writer(struct memfile *m, const char *comment)
{
	struct qtrace_writer *w = NULL;

	m->fd = memfd_create("qt", 0);
	assert_true(m->fd >= 0);
	assert_int_equal(qtrace_writer_open_fd(m->fd, comment, &w), 0);
	return w;
}

/* finish - close the writer and read back what it wrote. */
static void finish(struct memfile *m, struct qtrace_writer *w)
{
	off_t end;

	assert_int_equal(qtrace_writer_close(w), 0);
	end = lseek(m->fd, 0, SEEK_END);
	assert_true(end >= 0);
	m->len = (size_t)end;
	m->bytes = malloc(m->len + 1);
	assert_non_null(m->bytes);
	assert_int_equal(pread(m->fd, m->bytes, m->len, 0), (ssize_t)m->len);
	close(m->fd);
}

static void add(struct qtrace_writer *w, uint64_t addr, uint32_t word, unsigned term,
		int has_data, uint64_t data)
{
	struct qtrace_insn in = {.addr = addr, .insn = word, .len = 4, .term_code = term,
				 .has_data_addr = has_data, .data_addr = data};

	assert_int_equal(qtrace_writer_add(w, &in), 0);
}

static void assert_bytes(const uint8_t *got, size_t got_len, const uint8_t *want,
			 size_t want_len)
{
	assert_int_equal(got_len, want_len);
	assert_memory_equal(got, want, want_len);
}

/* A complete file as qtwriter writes it (records carry flags2 0000). */
static const uint8_t doc_file[] = {
	/* header: VERSION|IAR, version 0x07010000, IAR 0x10000000 */
	0, 0, 0, 0, 0x00, 0x01, 0x00, 0x02, 0x60, 0x00, 0x07, 0x01, 0x00, 0x00,
	0, 0, 0, 0, 0x10, 0x00, 0x00, 0x00,
	/* b 0x10000100 */
	0x48, 0x00, 0x01, 0x00, 0xe0, 0x41, 0x00, 0x00, 0x00, 0x00, 0x08,
	0, 0, 0, 0, 0x10, 0x00, 0x01, 0x00,
	/* nop */
	0x60, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00,
	/* bne, not taken */
	0x40, 0x82, 0x00, 0x10, 0x60, 0x01, 0x00, 0x00, 0x00, 0x00, 0x80,
	/* ld r3,8(r1) with its data address */
	0xe8, 0x61, 0x00, 0x08, 0x08, 0x01, 0x00, 0x00,
	0, 0, 0, 0, 0x7f, 0xff, 0x00, 0x10,
};

/* ---- writer ------------------------------------------------------------ */

/* The same program as doc_file, in this writer's shorter form (no flags2). */
static void test_writer_golden_bytes(void **state)
{
	static const uint8_t want[] = {
		0, 0, 0, 0, 0x00, 0x01, 0x00, 0x02, 0x60, 0x00, 0x07, 0x01, 0x00, 0x00,
		0, 0, 0, 0, 0x10, 0x00, 0x00, 0x00,
		0x48, 0x00, 0x01, 0x00, 0xe0, 0x40, 0x00, 0x00, 0x08,
		0, 0, 0, 0, 0x10, 0x00, 0x01, 0x00,
		0x60, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x40, 0x82, 0x00, 0x10, 0x60, 0x00, 0x00, 0x00, 0x80,
		0xe8, 0x61, 0x00, 0x08, 0x08, 0x00, 0, 0, 0, 0, 0x7f, 0xff, 0x00, 0x10,
	};
	struct memfile m;
	struct qtrace_writer *w = open_mem_writer(&m, NULL);

	(void)state;
	add(w, 0x10000000, 0x48000100, QTRACE_TERM_UNCOND, 0, 0);
	add(w, 0x10000100, 0x60000000, 0, 0, 0);
	add(w, 0x10000104, 0x40820010, QTRACE_TERM_COND, 0, 0);
	add(w, 0x10000108, 0xe8610008, 0, 1, 0x7fff0010);
	assert_int_equal(qtrace_writer_count(w), 4);
	finish(&m, w);
	assert_bytes(m.bytes, m.len, want, sizeof(want));
	free(m.bytes);
}

/* Section 8: header with IAR only is 18 bytes in qtwriter; ours has VERSION. */
static void test_writer_comment_header(void **state)
{
	static const uint8_t want[] = {
		0, 0, 0, 0, 0x00, 0x01, 0x00, 0x02, 0x60, 0x02, 0x07, 0x01, 0x00, 0x00,
		0, 0, 0, 0, 0x10, 0x00, 0x00, 0x00, 0x00, 0x03, 'a', '.', 'b',
		0x60, 0x00, 0x00, 0x00, 0x00, 0x00,
	};
	struct memfile m;
	struct qtrace_writer *w = open_mem_writer(&m, "a.b");

	(void)state;
	add(w, 0x10000000, 0x60000000, 0, 0, 0);
	finish(&m, w);
	assert_bytes(m.bytes, m.len, want, sizeof(want));
	free(m.bytes);
}

/* A jump from a non-branch (signal, fault) gets IAR and term code 0x10. */
static void test_writer_discontinuity_is_exception(void **state)
{
	struct memfile m;
	struct qtrace_writer *w = open_mem_writer(&m, NULL);
	static const uint8_t rec[] = {0x7c, 0x00, 0x00, 0x08, 0xe0, 0x40, 0x00, 0x00, 0x10,
				      0, 0, 0, 0, 0x00, 0x00, 0x07, 0x00};

	(void)state;
	add(w, 0x10000000, 0x7c000008, 0, 0, 0); /* tw, trapping */
	add(w, 0x700, 0x60000000, 0, 0, 0);
	finish(&m, w);
	assert_true(m.len >= 22 + sizeof(rec));
	assert_memory_equal(m.bytes + 22, rec, sizeof(rec));
	free(m.bytes);
}

/* Word 0 and a lone prefix word cannot be carried; the trace stays consistent. */
static void test_writer_refuses_unrepresentable(void **state)
{
	struct qtrace_insn zero = {.addr = 0x10000004, .insn = 0, .len = 4};
	struct qtrace_insn lone_prefix = {.addr = 0x10000004, .insn = 0x04000000, .len = 4};
	struct qtrace_insn bad_len = {.addr = 0x10000004, .insn = 0x60000000, .len = 2};
	struct qtrace_reader *r;
	struct qtrace_record rec;
	struct memfile m;
	struct qtrace_writer *w = open_mem_writer(&m, NULL);

	(void)state;
	add(w, 0x10000000, 0x60000000, 0, 0, 0);
	assert_int_equal(qtrace_writer_add(w, &zero), -QTRACE_E_UNREPRESENTABLE);
	assert_int_equal(qtrace_writer_add(w, &lone_prefix), -QTRACE_E_UNREPRESENTABLE);
	assert_int_equal(qtrace_writer_add(w, &bad_len), -QTRACE_E_INVAL);
	add(w, 0x10000008, 0x60000000, 0, 0, 0);
	finish(&m, w);

	assert_int_equal(qtrace_reader_open_mem(m.bytes, m.len, &r), 0);
	assert_int_equal(qtrace_reader_next(r, &rec), 0);
	assert_int_equal(rec.iar, 0x10000000);
	assert_int_equal(rec.next_iar, 0x10000008);
	assert_true(rec.iar_change);
	assert_int_equal(qtrace_reader_next(r, &rec), 0);
	assert_int_equal(rec.iar, 0x10000008);
	assert_int_equal(qtrace_reader_next(r, &rec), QTRACE_EOF);
	qtrace_reader_close(r);
	free(m.bytes);
}

/* Prefixed: the prefix record with the data address, then the bare suffix
 * record (word 0 allowed), as qtrace-tools' converter writes them. */
static void test_writer_prefixed_roundtrip(void **state)
{
	struct qtrace_insn plwz = {.addr = 0x10000000, .insn = 0x06000000, .suffix = 0,
				   .len = 8, .has_data_addr = 1, .data_addr = 0x20000000};
	struct qtrace_reader *r;
	struct qtrace_record rec;
	struct memfile m;
	struct qtrace_writer *w = open_mem_writer(&m, NULL);

	(void)state;
	assert_int_equal(qtrace_writer_add(w, &plwz), 0);
	add(w, 0x10000008, 0x48000000, QTRACE_TERM_UNCOND, 0, 0); /* b . */
	add(w, 0x10000008, 0x60000000, 0, 0, 0);
	finish(&m, w);
	/* prefix record: word, DATA_ADDRESS, the address; suffix record: the 0
	 * word, sequential (no flags) */
	assert_memory_equal(m.bytes + 22, "\x06\x00\x00\x00\x08\x00", 6);
	assert_memory_equal(m.bytes + 28, "\x00\x00\x00\x00\x20\x00\x00\x00", 8);
	assert_memory_equal(m.bytes + 36, "\x00\x00\x00\x00\x00\x00", 6);

	assert_int_equal(qtrace_reader_open_mem(m.bytes, m.len, &r), 0);
	assert_int_equal(qtrace_reader_next(r, &rec), 0);
	assert_int_equal(rec.len, 8);
	assert_int_equal(rec.insn, 0x06000000);
	assert_int_equal(rec.suffix, 0);
	assert_true(rec.has_data_addr);
	assert_int_equal(rec.data_addr, 0x20000000);
	assert_int_equal(rec.next_iar, 0x10000008);
	assert_int_equal(qtrace_reader_next(r, &rec), 0);
	assert_int_equal(rec.iar, 0x10000008);
	assert_true(rec.is_branch);
	assert_false(rec.conditional);
	assert_true(rec.taken);
	assert_int_equal(rec.next_iar, 0x10000008);
	assert_int_equal(qtrace_reader_next(r, &rec), 0);
	assert_int_equal(qtrace_reader_next(r, &rec), QTRACE_EOF);
	qtrace_reader_close(r);
	free(m.bytes);
}

static void test_writer_empty_trace(void **state)
{
	struct memfile m;
	struct qtrace_writer *w = open_mem_writer(&m, NULL);

	(void)state;
	finish(&m, w);
	assert_int_equal(m.len, 22);
	free(m.bytes);
	assert_int_equal(qtrace_writer_close(NULL), 0);
}

/* ---- reader ------------------------------------------------------------ */

static void test_reader_doc_file(void **state)
{
	struct qtrace_reader *r;
	struct qtrace_record rec;
	const struct qtrace_header *h;

	(void)state;
	assert_int_equal(qtrace_reader_open_mem(doc_file, sizeof(doc_file), &r), 0);
	h = qtrace_reader_header(r);
	assert_true(h->has_iar && h->has_version && !h->has_magic);
	assert_int_equal(h->first_iar, 0x10000000);
	assert_int_equal(h->version, 0x07010000);
	assert_null(h->comment);

	assert_int_equal(qtrace_reader_next(r, &rec), 0);
	assert_int_equal(rec.insn, 0x48000100);
	assert_int_equal(rec.iar, 0x10000000);
	assert_int_equal(rec.next_iar, 0x10000100);
	assert_true(rec.iar_change && rec.has_term && rec.is_branch && rec.taken);
	assert_int_equal(rec.term_code, QTRACE_TERM_UNCOND);
	assert_false(rec.conditional);

	assert_int_equal(qtrace_reader_next(r, &rec), 0);
	assert_int_equal(rec.insn, 0x60000000);
	assert_int_equal(rec.iar, 0x10000100);
	assert_false(rec.is_branch || rec.has_term || rec.iar_change);

	assert_int_equal(qtrace_reader_next(r, &rec), 0);
	assert_int_equal(rec.iar, 0x10000104);
	assert_true(rec.is_branch && rec.conditional);
	assert_false(rec.taken);
	assert_int_equal(rec.next_iar, 0x10000108);

	assert_int_equal(qtrace_reader_next(r, &rec), 0);
	assert_int_equal(rec.iar, 0x10000108);
	assert_true(rec.has_data_addr);
	assert_int_equal(rec.data_addr, 0x7fff0010);
	assert_int_equal(rec.offset, sizeof(doc_file) - 16);
	assert_int_equal(qtrace_reader_next(r, &rec), QTRACE_EOF);
	assert_int_equal(qtrace_reader_next(r, &rec), QTRACE_EOF);
	qtrace_reader_close(r);
}

/* Section 8: the smallest file, an 18-byte header carrying only the IAR. */
static void test_reader_smallest_file(void **state)
{
	static const uint8_t file[] = {
		0, 0, 0, 0, 0x00, 0x01, 0x00, 0x02, 0x20, 0x00,
		0, 0, 0, 0, 0x10, 0x00, 0x00, 0x00,
		0x60, 0x00, 0x00, 0x00, 0x00, 0x00,
	};
	struct qtrace_reader *r;
	struct qtrace_record rec;

	(void)state;
	assert_int_equal(qtrace_reader_open_mem(file, sizeof(file), &r), 0);
	assert_false(qtrace_reader_header(r)->has_version);
	assert_int_equal(qtrace_reader_next(r, &rec), 0);
	assert_int_equal(rec.iar, 0x10000000);
	assert_int_equal(rec.next_iar, 0x10000004);
	assert_int_equal(qtrace_reader_next(r, &rec), QTRACE_EOF);
	qtrace_reader_close(r);
}

/* Truncation mid-record: the complete records come first, then the error. */
static void test_reader_truncated(void **state)
{
	struct qtrace_reader *r;
	struct qtrace_record rec;

	(void)state;
	assert_int_equal(qtrace_reader_open_mem(doc_file, sizeof(doc_file) - 3, &r), 0);
	for (int i = 0; i < 3; i++)
		assert_int_equal(qtrace_reader_next(r, &rec), 0);
	assert_int_equal(qtrace_reader_next(r, &rec), -QTRACE_E_TRUNCATED);
	assert_non_null(strstr(qtrace_reader_error(r), "data address"));
	assert_int_equal(qtrace_reader_next(r, &rec), QTRACE_EOF);
	qtrace_reader_close(r);
	assert_int_equal(qtrace_reader_open_mem(doc_file, 10, &r), -QTRACE_E_TRUNCATED);
	assert_null(r);
}

static void test_reader_rejects_bad_flags(void **state)
{
	uint8_t file[sizeof(doc_file)];
	struct qtrace_reader *r;
	struct qtrace_record rec;

	(void)state;
	memcpy(file, doc_file, sizeof(file));
	file[22 + 19 + 5] = 0x03; /* nop record: flags 0x0003, bit 0x0002 unknown */
	assert_int_equal(qtrace_reader_open_mem(file, sizeof(file), &r), 0);
	assert_int_equal(qtrace_reader_next(r, &rec), 0);
	assert_int_equal(qtrace_reader_next(r, &rec), -QTRACE_E_FORMAT);
	assert_non_null(strstr(qtrace_reader_error(r), "unhandled flags"));
	qtrace_reader_close(r);

	memcpy(file, doc_file, sizeof(file));
	file[22 + 10] = 0x20; /* b record: termination code 0x20 */
	assert_int_equal(qtrace_reader_open_mem(file, sizeof(file), &r), 0);
	assert_int_equal(qtrace_reader_next(r, &rec), -QTRACE_E_FORMAT);
	qtrace_reader_close(r);

	memcpy(file, doc_file, sizeof(file));
	file[9] = 0x01; /* header: unknown hdr_flags bit 0x0001 */
	assert_int_equal(qtrace_reader_open_mem(file, sizeof(file), &r), -QTRACE_E_FORMAT);
	memcpy(file, doc_file, sizeof(file));
	file[3] = 1; /* header insn is not 0 */
	assert_int_equal(qtrace_reader_open_mem(file, sizeof(file), &r), -QTRACE_E_FORMAT);
}

/* A header in the middle resets the address; LENGTH/DATA bytes are skipped. */
static void test_reader_mid_header_and_length_data(void **state)
{
	static const uint8_t file[] = {
		0, 0, 0, 0, 0x00, 0x01, 0x00, 0x02, 0x20, 0x02,
		0, 0, 0, 0, 0x10, 0x00, 0x00, 0x00, 0x00, 0x01, 'x',
		/* stw with LENGTH|DATA: 2 data bytes old traces carry */
		0x90, 0x61, 0x00, 0x08, 0x01, 0x80, 0x02, 0xaa, 0xbb,
		/* header again: IAR 0x20000000, comment "yy" */
		0, 0, 0, 0, 0x00, 0x01, 0x00, 0x02, 0x20, 0x02,
		0, 0, 0, 0, 0x20, 0x00, 0x00, 0x00, 0x00, 0x02, 'y', 'y',
		0x60, 0x00, 0x00, 0x00, 0x00, 0x00,
	};
	struct qtrace_reader *r;
	struct qtrace_record rec;

	(void)state;
	assert_int_equal(qtrace_reader_open_mem(file, sizeof(file), &r), 0);
	assert_string_equal(qtrace_reader_header(r)->comment, "x");
	assert_int_equal(qtrace_reader_next(r, &rec), 0);
	assert_int_equal(rec.insn, 0x90610008);
	assert_int_equal(qtrace_reader_next(r, &rec), 0);
	assert_int_equal(rec.insn, 0x60000000);
	assert_int_equal(rec.iar, 0x20000000);
	assert_int_equal(qtrace_reader_next(r, &rec), QTRACE_EOF);
	assert_string_equal(qtrace_reader_header(r)->comment, "x");
	qtrace_reader_close(r);
	qtrace_reader_close(NULL);
}

/* flags2 page sizes and a register block are stepped over. */
static void test_reader_optional_fields(void **state)
{
	static const uint8_t file[] = {
		0, 0, 0, 0, 0x00, 0x01, 0x00, 0x02, 0x60, 0x00, 0x07, 0x01, 0x00, 0x00,
		0, 0, 0, 0, 0x10, 0x00, 0x00, 0x00,
		/* addi with flags REGISTER|EXT, flags2 IAR_PAGE_SIZE|DATA_PAGE_SIZE */
		0x38, 0x60, 0x00, 0x01, 0x00, 0x09, 0x03, 0x00,
		/* counts in: 1 GPR, out: 1 GPR (VSX counts: version 7.1) */
		0x01, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00,
		0x03, 0, 0, 0, 0, 0, 0, 0, 0x05, 0x03, 0, 0, 0, 0, 0, 0, 0, 0x01,
		0x10, 0x0c,
		0x60, 0x00, 0x00, 0x00, 0x00, 0x00,
	};
	struct qtrace_reader *r;
	struct qtrace_record rec;

	(void)state;
	assert_int_equal(qtrace_reader_open_mem(file, sizeof(file), &r), 0);
	assert_int_equal(qtrace_reader_next(r, &rec), 0);
	assert_int_equal(rec.insn, 0x38600001);
	assert_int_equal(qtrace_reader_next(r, &rec), 0);
	assert_int_equal(rec.insn, 0x60000000);
	assert_int_equal(rec.iar, 0x10000004);
	assert_int_equal(qtrace_reader_next(r, &rec), QTRACE_EOF);
	qtrace_reader_close(r);
}

static void test_power_branch_kind(void **state)
{
	(void)state;
	assert_int_equal(qtrace_power_branch_kind(0x48000100), QTRACE_POWER_UNCOND); /* b */
	assert_int_equal(qtrace_power_branch_kind(0x4bfffff1), QTRACE_POWER_UNCOND); /* bl */
	assert_int_equal(qtrace_power_branch_kind(0x40820010), QTRACE_POWER_COND);  /* bne */
	assert_int_equal(qtrace_power_branch_kind(0x4200fff8), QTRACE_POWER_COND);  /* bdnz */
	assert_int_equal(qtrace_power_branch_kind(0x4e800020), QTRACE_POWER_UNCOND); /* blr */
	assert_int_equal(qtrace_power_branch_kind(0x4e800420), QTRACE_POWER_UNCOND); /* bctr */
	assert_int_equal(qtrace_power_branch_kind(0x4d820020), QTRACE_POWER_COND);  /* beqlr */
	assert_int_equal(qtrace_power_branch_kind(0x60000000), QTRACE_POWER_NOT_BRANCH);
	assert_int_equal(qtrace_power_branch_kind(0x44000002), QTRACE_POWER_NOT_BRANCH); /* sc */
	assert_int_equal(qtrace_power_branch_kind(0x4c00012c), QTRACE_POWER_NOT_BRANCH); /* isync */
	assert_true(qtrace_power_is_prefix(0x06000000));
	assert_false(qtrace_power_is_prefix(0x08000000));
	assert_string_equal(qtrace_errstr(-QTRACE_E_FORMAT), "not a valid qtrace file");
	assert_string_equal(qtrace_errstr(99), "unknown error");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_writer_golden_bytes),
		cmocka_unit_test(test_writer_comment_header),
		cmocka_unit_test(test_writer_discontinuity_is_exception),
		cmocka_unit_test(test_writer_refuses_unrepresentable),
		cmocka_unit_test(test_writer_prefixed_roundtrip),
		cmocka_unit_test(test_writer_empty_trace),
		cmocka_unit_test(test_reader_doc_file),
		cmocka_unit_test(test_reader_smallest_file),
		cmocka_unit_test(test_reader_truncated),
		cmocka_unit_test(test_reader_rejects_bad_flags),
		cmocka_unit_test(test_reader_mid_header_and_length_data),
		cmocka_unit_test(test_reader_optional_fields),
		cmocka_unit_test(test_power_branch_kind),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
