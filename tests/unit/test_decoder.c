/* test_decoder.c - capstone wrapper: lengths, branch classes, targets. */
#include <elf.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "itrace.h"

struct x86_case {
	const char *what;
	uint8_t bytes[8];
	size_t n;
	uint8_t len, kind;
	int has_target;
	uint64_t target;
	int rep;
};

static void test_x86_classes(void **state)
{
	static const struct x86_case cases[] = {
		{ "call rel32", { 0xe8, 0x10, 0, 0, 0 }, 5, 5, ITRACE_BRANCH_CALL, 1, 0x1000 + 5 + 0x10, 0 },
		{ "ret", { 0xc3 }, 1, 1, ITRACE_BRANCH_RETURN, 0, 0, 0 },
		{ "je rel8", { 0x74, 0x02 }, 2, 2, ITRACE_BRANCH_COND, 1, 0x1004, 0 },
		{ "jmp rel8", { 0xeb, 0xfe }, 2, 2, ITRACE_BRANCH_UNCOND, 1, 0x1000, 0 },
		{ "loop", { 0xe2, 0xfe }, 2, 2, ITRACE_BRANCH_COND, 1, 0x1000, 0 },
		{ "call *rax", { 0xff, 0xd0 }, 2, 2, ITRACE_BRANCH_INDIRECT_CALL, 0, 0, 0 },
		{ "jmp *rax", { 0xff, 0xe0 }, 2, 2, ITRACE_BRANCH_INDIRECT, 0, 0, 0 },
		{ "jmp *(%rbx)", { 0xff, 0x23 }, 2, 2, ITRACE_BRANCH_INDIRECT, 0, 0, 0 },
		{ "syscall", { 0x0f, 0x05 }, 2, 2, ITRACE_BRANCH_SYSCALL, 0, 0, 0 },
		{ "rep movsb", { 0xf3, 0xa4 }, 2, 2, ITRACE_INSN_NOT_BRANCH, 0, 0, 1 },
		{ "nop", { 0x90 }, 1, 1, ITRACE_INSN_NOT_BRANCH, 0, 0, 0 },
		{ "mov $1,%eax", { 0xb8, 1, 0, 0, 0 }, 5, 5, ITRACE_INSN_NOT_BRANCH, 0, 0, 0 },
	};
	struct itrace_decoder *d;
	struct itrace_decoded di;

	(void)state;
	assert_int_equal(itrace_decoder_alloc(EM_X86_64, ELFDATA2LSB, &d), 0);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct x86_case *c = &cases[i];

		assert_int_equal(itrace_decoder_decode(d, c->bytes, c->n, 0x1000, &di), 0);
		assert_int_equal(di.len, c->len);
		assert_int_equal(di.kind, c->kind);
		assert_int_equal(!!(di.flags & ITRACE_DECODED_HAS_TARGET), c->has_target);
		if (c->has_target)
			assert_int_equal(di.target, c->target);
		assert_int_equal(!!(di.flags & ITRACE_DECODED_REP), c->rep);
	}
	itrace_decoder_free(d);
}

static void test_x86_bad_bytes(void **state)
{
	static const uint8_t invalid[] = { 0x06 }; /* push %es: not in 64-bit mode */
	static const uint8_t cut[] = { 0xe8, 0x00 };
	struct itrace_decoder *d;
	struct itrace_decoded di;

	(void)state;
	assert_int_equal(itrace_decoder_alloc(EM_X86_64, ELFDATA2LSB, &d), 0);
	assert_int_equal(itrace_decoder_decode(d, invalid, 1, 0, &di), -ITRACE_E_DECODE);
	assert_int_equal(itrace_decoder_decode(d, cut, 2, 0, &di), -ITRACE_E_DECODE);
	assert_int_equal(itrace_decoder_decode(d, NULL, 2, 0, &di), -ITRACE_E_INVAL);
	itrace_decoder_free(d);
}

/* Lengths from objdump for instructions capstone 4 does not know. */
static void test_x86_vex_evex_fallback(void **state)
{
	/* Some of them capstone 4 does know (AVX-512F): same lengths either way. */
	static const struct {
		uint8_t bytes[12];
		size_t n, len;
		int unknown; /* capstone 4 cannot decode it */
	} cases[] = {
		{ { 0x62, 0xb2, 0x75, 0x20, 0x26, 0xd1 }, 6, 6, 1 },		  /* vptestmb */
		{ { 0x62, 0xf3, 0x75, 0x22, 0x3f, 0x0e, 0x00 }, 7, 7, 1 },	  /* vpcmpeqb imm8 */
		{ { 0x62, 0xf2, 0x7d, 0x48, 0x78, 0x14, 0x0f }, 7, 7, 0 },	  /* SIB */
		{ { 0x62, 0xe1, 0xfe, 0x28, 0x6f, 0xa6, 0, 0x10, 0, 0 }, 10, 10, 0 }, /* disp32 */
		{ { 0x62, 0x51, 0x7c, 0x48, 0x11, 0x41, 0xf8 }, 7, 7, 0 },	  /* disp8 */
		{ { 0xc4, 0xc1, 0xfb, 0x92, 0xd3 }, 5, 5, 1 },			  /* kmovq (VEX) */
		{ { 0x62, 0xb2, 0x75, 0x20, 0x26 }, 5, 0, 1 },			  /* cut short */
	};
	struct itrace_decoder *d;
	struct itrace_decoded di;
	char text[80];

	(void)state;
	assert_int_equal(itrace_decoder_alloc(EM_X86_64, ELFDATA2LSB, &d), 0);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int rc = itrace_decoder_decode(d, cases[i].bytes, cases[i].n, 0x1000, &di);

		if (!cases[i].len) {
			assert_int_equal(rc, -ITRACE_E_DECODE);
			continue;
		}
		assert_int_equal(rc, 0);
		assert_int_equal(di.len, cases[i].len);
		assert_int_equal(di.kind, ITRACE_INSN_NOT_BRANCH);
		if (cases[i].unknown)
			assert_true(di.flags & ITRACE_DECODED_NO_TEXT);
	}
	assert_int_equal(itrace_decoder_text(d, cases[0].bytes, 6, 0, text, sizeof(text)), 6);
	assert_non_null(strstr(text, "unknown to capstone"));
	itrace_decoder_free(d);
}

/* POWER8 mtvsrd: 4 bytes, not a branch. */
static void test_ppc_fallback(void **state)
{
	static const uint8_t mtvsrd[] = { 0x66, 0x01, 0x08, 0x7c };
	struct itrace_decoder *d;
	struct itrace_decoded di;

	(void)state;
	assert_int_equal(itrace_decoder_alloc(EM_PPC64, ELFDATA2LSB, &d), 0);
	assert_int_equal(itrace_decoder_decode(d, mtvsrd, 4, 0x2000, &di), 0);
	assert_int_equal(di.len, 4);
	assert_int_equal(di.kind, ITRACE_INSN_NOT_BRANCH);
	assert_true(di.flags & ITRACE_DECODED_NO_TEXT);
	assert_int_equal(itrace_decoder_decode(d, mtvsrd, 3, 0x2000, &di), -ITRACE_E_DECODE);
	itrace_decoder_free(d);
}

static void test_text(void **state)
{
	static const uint8_t mov[] = { 0xb8, 1, 0, 0, 0 };
	struct itrace_decoder *d;
	char buf[64];

	(void)state;
	assert_int_equal(itrace_decoder_alloc(EM_X86_64, ELFDATA2LSB, &d), 0);
	assert_int_equal(itrace_decoder_text(d, mov, sizeof(mov), 0, buf, sizeof(buf)), 5);
	assert_string_equal(buf, "mov eax, 1");
	assert_int_equal(itrace_decoder_text(d, mov, 2, 0, buf, sizeof(buf)), -ITRACE_E_DECODE);
	itrace_decoder_free(d);
}

struct ppc_case {
	const char *what;
	uint32_t word;
	uint8_t kind;
	int has_target;
	uint64_t target;
};

static void put_word(uint8_t *p, uint32_t w, int big)
{
	for (int i = 0; i < 4; i++)
		p[big ? i : 3 - i] = (uint8_t)(w >> (24 - 8 * i));
}

static void check_ppc(int big)
{
	static const struct ppc_case cases[] = {
		{ "blr", 0x4e800020, ITRACE_BRANCH_RETURN, 0, 0 },
		{ "bl +8", 0x48000009, ITRACE_BRANCH_CALL, 1, 0x2008 },
		{ "b -4", 0x4bfffffc, ITRACE_BRANCH_UNCOND, 1, 0x1ffc },
		{ "beq +8", 0x41820008, ITRACE_BRANCH_COND, 1, 0x2008 },
		{ "bdnz -8", 0x4200fff8, ITRACE_BRANCH_COND, 1, 0x1ff8 },
		{ "bctr", 0x4e800420, ITRACE_BRANCH_INDIRECT, 0, 0 },
		{ "bctrl", 0x4e800421, ITRACE_BRANCH_INDIRECT_CALL, 0, 0 },
		{ "beqlr", 0x4d820020, ITRACE_BRANCH_COND, 0, 0 },
		{ "sc", 0x44000002, ITRACE_BRANCH_SYSCALL, 0, 0 },
		{ "addi r3,r3,1", 0x38630001, ITRACE_INSN_NOT_BRANCH, 0, 0 },
	};
	struct itrace_decoder *d;
	struct itrace_decoded di;
	uint8_t buf[4];

	assert_int_equal(itrace_decoder_alloc(EM_PPC64, big ? ELFDATA2MSB : ELFDATA2LSB, &d), 0);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		put_word(buf, cases[i].word, big);
		assert_int_equal(itrace_decoder_decode(d, buf, 4, 0x2000, &di), 0);
		assert_int_equal(di.len, 4);
		assert_int_equal(di.kind, cases[i].kind);
		assert_int_equal(!!(di.flags & ITRACE_DECODED_HAS_TARGET), cases[i].has_target);
		if (cases[i].has_target)
			assert_int_equal(di.target, cases[i].target);
	}
	itrace_decoder_free(d);
}

static void test_ppc64le(void **state)
{
	(void)state;
	check_ppc(0);
}

static void test_ppc64_big(void **state)
{
	(void)state;
	check_ppc(1);
}

static void test_unsupported(void **state)
{
	struct itrace_decoder *d = (void *)1;

	(void)state;
	assert_int_equal(itrace_decoder_alloc(EM_AARCH64, ELFDATA2LSB, &d), -ITRACE_E_NOTSUP);
	assert_null(d);
	assert_int_equal(itrace_decoder_alloc(EM_X86_64, ELFDATA2MSB, &d), -ITRACE_E_NOTSUP);
	itrace_decoder_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_x86_classes),  cmocka_unit_test(test_x86_bad_bytes),
		cmocka_unit_test(test_text),	     cmocka_unit_test(test_ppc64le),
		cmocka_unit_test(test_ppc64_big),    cmocka_unit_test(test_unsupported),
		cmocka_unit_test(test_x86_vex_evex_fallback), cmocka_unit_test(test_ppc_fallback),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
