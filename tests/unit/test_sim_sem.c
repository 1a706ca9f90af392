/* test_sim_sem.c - instruction semantics from libitrace's decoder (x86-64,
 * ppc64le). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "sem.h"

static struct sim_sem decode(struct sim_semtab *t, const uint8_t *b, unsigned len)
{
	struct sim_sem s;

	memset(&s, 0, sizeof(s));
	assert_int_equal(sim_sem_decode(t, &s, 0x1000, b, len), 0);
	return s;
}

static int has(const uint8_t *list, int n, int id)
{
	for (int i = 0; i < n; i++)
		if (list[i] == id)
			return 1;
	return 0;
}

static void test_x86_classes_and_registers(void **state)
{
	struct sim_semtab *t = sim_semtab_open(SIM_ARCH_X86_64);
	struct sim_sem add, add32, load, store, jnz, call, ret, zero, imul, div, addsd, nop;

	(void)state;
	assert_non_null(t);
	add = decode(t, (const uint8_t[]){ 0x48, 0x01, 0xd8 }, 3); /* add rax, rbx */
	assert_int_equal(add.cls, SIM_CLS_INT_ALU);
	assert_int_equal(add.flags, 0);
	assert_int_equal(add.nsrc, 2);
	assert_int_equal(add.ndst, 2); /* rax and flags */
	add32 = decode(t, (const uint8_t[]){ 0x01, 0xd8 }, 2); /* add eax, ebx: same registers */
	assert_true(has(add32.dst, add32.ndst, add.dst[0]) || has(add32.dst, add32.ndst, add.dst[1]));
	assert_true(has(add32.src, add32.nsrc, add.src[0]));
	assert_string_equal(add.text, "add rax, rbx");

	load = decode(t, (const uint8_t[]){ 0x48, 0x8b, 0x00 }, 3); /* mov rax, [rax] */
	assert_int_equal(load.cls, SIM_CLS_LOAD);
	assert_int_equal(load.flags, SIM_SEM_LOAD);
	assert_int_equal(load.nsrc, 1);
	assert_int_equal(load.ndst, 1);
	assert_int_equal(load.src[0], load.dst[0]);

	store = decode(t, (const uint8_t[]){ 0x48, 0x89, 0x14, 0xcf }, 4); /* mov [rdi+rcx*8], rdx */
	assert_int_equal(store.cls, SIM_CLS_STORE);
	assert_int_equal(store.flags, SIM_SEM_STORE);
	assert_int_equal(store.ndst, 0);
	assert_int_equal(store.nsrc, 3);

	jnz = decode(t, (const uint8_t[]){ 0x75, 0xf0 }, 2);
	assert_int_equal(jnz.cls, SIM_CLS_BRANCH);
	assert_int_equal(jnz.flags, SIM_SEM_BRANCH | SIM_SEM_COND);
	assert_int_equal(jnz.nsrc, 1); /* flags */

	call = decode(t, (const uint8_t[]){ 0xe8, 0, 0, 0, 0 }, 5);
	assert_true(call.flags & SIM_SEM_CALL);
	assert_false(call.flags & SIM_SEM_INDIRECT);
	assert_int_equal(call.ndst, 0); /* rsp is renamed by the stack engine */
	ret = decode(t, (const uint8_t[]){ 0xc3 }, 1);
	assert_true(ret.flags & SIM_SEM_RET);
	assert_true(ret.flags & SIM_SEM_LOAD);
	assert_true(decode(t, (const uint8_t[]){ 0xff, 0xd0 }, 2).flags & SIM_SEM_INDIRECT); /* call rax */

	zero = decode(t, (const uint8_t[]){ 0x31, 0xc0 }, 2); /* xor eax, eax */
	assert_int_equal(zero.nsrc, 0);
	imul = decode(t, (const uint8_t[]){ 0x4d, 0x6b, 0xc1, 0x03 }, 4); /* imul r8, r9, 3 */
	assert_int_equal(imul.cls, SIM_CLS_INT_MUL);
	assert_int_equal(imul.nsrc, 1);
	div = decode(t, (const uint8_t[]){ 0x48, 0xf7, 0xf1 }, 3); /* div rcx */
	assert_int_equal(div.cls, SIM_CLS_INT_DIV);
	addsd = decode(t, (const uint8_t[]){ 0xf2, 0x0f, 0x58, 0xc1 }, 4); /* addsd xmm0, xmm1 */
	assert_int_equal(addsd.cls, SIM_CLS_FP_ADD);
	nop = decode(t, (const uint8_t[]){ 0x90 }, 1);
	assert_int_equal(nop.cls, SIM_CLS_NOP);
	assert_int_equal(decode(t, (const uint8_t[]){ 0x0f, 0x05 }, 2).cls, SIM_CLS_SYS);
	/* add rax, [rsi]: an ALU operation with a load */
	assert_int_equal(decode(t, (const uint8_t[]){ 0x48, 0x03, 0x06 }, 3).flags, SIM_SEM_LOAD);
	assert_int_equal(decode(t, (const uint8_t[]){ 0x48, 0x03, 0x06 }, 3).cls, SIM_CLS_INT_ALU);
	sim_semtab_close(t);
}

static void test_ppc_classes(void **state)
{
	struct sim_semtab *t = sim_semtab_open(SIM_ARCH_PPC64LE);
	struct sim_sem add, lwz, stw, blr, bne, bl, mul;

	(void)state;
	assert_non_null(t);
	add = decode(t, (const uint8_t[]){ 0x14, 0x2a, 0x64, 0x7c }, 4); /* add r3, r4, r5 */
	assert_int_equal(add.cls, SIM_CLS_INT_ALU);
	assert_int_equal(add.ndst, 1);
	assert_int_equal(add.nsrc, 2);
	lwz = decode(t, (const uint8_t[]){ 0x08, 0x00, 0x64, 0x80 }, 4); /* lwz r3, 8(r4) */
	assert_int_equal(lwz.cls, SIM_CLS_LOAD);
	assert_int_equal(lwz.flags, SIM_SEM_LOAD);
	stw = decode(t, (const uint8_t[]){ 0x08, 0x00, 0x64, 0x90 }, 4); /* stw r3, 8(r4) */
	assert_int_equal(stw.cls, SIM_CLS_STORE);
	assert_int_equal(stw.ndst, 0);
	assert_int_equal(stw.nsrc, 2);
	blr = decode(t, (const uint8_t[]){ 0x20, 0x00, 0x80, 0x4e }, 4);
	assert_true(blr.flags & SIM_SEM_RET);
	assert_false(blr.flags & SIM_SEM_COND);
	bne = decode(t, (const uint8_t[]){ 0xf8, 0xff, 0x82, 0x40 }, 4); /* bne -8 */
	assert_true(bne.flags & SIM_SEM_COND);
	bl = decode(t, (const uint8_t[]){ 0x01, 0x00, 0x00, 0x48 }, 4);
	assert_true(bl.flags & SIM_SEM_CALL);
	mul = decode(t, (const uint8_t[]){ 0xd2, 0x29, 0x64, 0x7c }, 4); /* mulld r3, r4, r5 */
	assert_int_equal(mul.cls, SIM_CLS_INT_MUL);
	{
		/* mtctr r3 reads r3 and writes ctr; bdnz reads and writes ctr */
		struct sim_sem mt = decode(t, (const uint8_t[]){ 0xa6, 0x03, 0x69, 0x7c }, 4);
		struct sim_sem bdnz = decode(t, (const uint8_t[]){ 0xf4, 0xff, 0x00, 0x42 }, 4);

		assert_int_equal(mt.nsrc, 1);
		assert_int_equal(mt.ndst, 1);
		assert_int_equal(mt.src[0], add.dst[0]); /* r3 */
		assert_true(has(bdnz.src, bdnz.nsrc, mt.dst[0]));
		assert_true(has(bdnz.dst, bdnz.ndst, mt.dst[0]));
		assert_true(bdnz.flags & SIM_SEM_COND);
	}
	sim_semtab_close(t);
}

static void test_table_caches_by_address(void **state)
{
	struct sim_semtab *t = sim_semtab_open(SIM_ARCH_X86_64);
	const uint8_t add[] = { 0x48, 0x01, 0xd8 }, sub[] = { 0x48, 0x29, 0xd8 };
	struct sim_sem *a, *b;

	(void)state;
	a = sim_semtab_get(t, 0x400000, 3, add);
	assert_non_null(a);
	for (uint64_t i = 0; i < 10000; i++)
		assert_non_null(sim_semtab_get(t, 0x500000 + i * 3, 3, add));
	b = sim_semtab_get(t, 0x400000, 3, add);
	assert_ptr_equal(a, b); /* pointers stay valid while the table grows */
	assert_int_equal(sim_semtab_count(t), 10001);
	assert_ptr_equal(sim_semtab_find(t, 0x400000), a);
	assert_null(sim_semtab_find(t, 0x3fffff));
	/* new bytes at the same address (JIT, self-modifying code) */
	b = sim_semtab_get(t, 0x400000, 3, sub);
	assert_ptr_equal(a, b);
	assert_string_equal(b->text, "sub rax, rbx");
	/* no bytes: simulated, but marked */
	b = sim_semtab_get(t, 0x600000, 2, NULL);
	assert_true(b->flags & SIM_SEM_UNDECODED);
	assert_int_equal(sim_semtab_undecoded(t), 1);
	sim_semtab_close(t);
}

/* sim_semtab_reset: nothing cached, ids from 0 again, statistics at 0. */
static void test_table_reset(void **state)
{
	struct sim_semtab *t = sim_semtab_open(SIM_ARCH_X86_64);
	const uint8_t add[] = { 0x48, 0x01, 0xd8 };
	struct sim_sem *s;

	(void)state;
	for (uint64_t i = 0; i < 5000; i++) {
		s = sim_semtab_get(t, 0x500000 + i * 3, 3, add);
		s->count = 7;
		s->stall[1] = 1.5;
	}
	sim_semtab_get(t, 0x600000, 2, NULL);
	sim_semtab_reset(t);
	assert_int_equal(sim_semtab_count(t), 0);
	assert_int_equal(sim_semtab_undecoded(t), 0);
	assert_null(sim_semtab_find(t, 0x500000));
	assert_null(sim_semtab_find(t, 0x600000));
	for (uint64_t i = 0; i < 4500; i++) {
		s = sim_semtab_get(t, 0x700000 + i * 3, 3, add);
		assert_int_equal(s->id, i);
		assert_int_equal(s->count, 0);
		assert_true(s->stall[1] == 0);
	}
	assert_string_equal(sim_semtab_at(t, 4499)->text, "add rax, rbx");
	assert_ptr_equal(sim_semtab_find(t, 0x700000), sim_semtab_at(t, 0));
	sim_semtab_get(t, 0x800000, 2, NULL);
	assert_int_equal(sim_semtab_undecoded(t), 1);
	sim_semtab_close(t);
}

/* What capstone 4 could not decode now has its real class; bytes that do
 * not decode are marked, not simulated as something made up. */
static void test_new_instructions_and_undecodable(void **state)
{
	struct sim_semtab *x = sim_semtab_open(SIM_ARCH_X86_64);
	struct sim_semtab *p = sim_semtab_open(SIM_ARCH_PPC64LE);
	struct sim_sem s, *e;
	/* pld r3,16(r4): prefix then suffix, little-endian words */
	const uint8_t pld[] = {0x00, 0x00, 0x00, 0x04, 0x10, 0x00, 0x64, 0xe4};

	(void)state;
	assert_non_null(x);
	assert_non_null(p);
	s = decode(x, (const uint8_t[]){0x62, 0xe1, 0xfe, 0x48, 0x6f, 0x06}, 6); /* vmovdqu64 (%rsi),%zmm16 */
	assert_int_equal(s.cls, SIM_CLS_LOAD);
	assert_int_equal(s.flags, SIM_SEM_LOAD);
	assert_int_equal(s.info.vec_bits, 512);
	s = decode(x, (const uint8_t[]){0xe2, 0xfe}, 2); /* loop */
	assert_int_equal(s.flags, SIM_SEM_BRANCH | SIM_SEM_COND);
	s = decode(p, pld, 8);
	assert_int_equal(s.cls, SIM_CLS_LOAD);
	assert_int_equal(s.flags, SIM_SEM_LOAD);
	assert_string_equal(s.text, "pld r3, 16(r4)");
	s = decode(p, (const uint8_t[]){0x20, 0x00, 0x82, 0x4d}, 4); /* beqlr: a conditional return */
	assert_int_equal(s.flags, SIM_SEM_BRANCH | SIM_SEM_COND | SIM_SEM_RET);
	/* push %es is no 64-bit instruction; the prefix alone is no POWER one */
	e = sim_semtab_get(x, 0x1000, 1, (const uint8_t[]){0x06});
	assert_true(e->flags & SIM_SEM_UNDECODABLE);
	assert_false(e->flags & SIM_SEM_UNDECODED);
	assert_int_equal(sim_semtab_undecodable(x), 1);
	assert_int_equal(sim_semtab_undecoded(x), 0);
	e = sim_semtab_get(p, 0x2000, 4, pld);
	assert_true(e->flags & SIM_SEM_UNDECODABLE);
	sim_semtab_close(x);
	sim_semtab_close(p);
}

static void test_x86_micro_op_facts(void **state)
{
	struct sim_semtab *t = sim_semtab_open(SIM_ARCH_X86_64);
	struct sim_sem s;

	(void)state;
	/* add rax, [rsi+rcx*8]: the load waits for rsi and rcx only */
	s = decode(t, (const uint8_t[]){ 0x48, 0x03, 0x04, 0xce }, 4);
	assert_int_equal(s.naddr, 2);
	assert_true(has(s.addr_src, s.naddr, ITRACE_REG_GPR(6)) && has(s.addr_src, s.naddr, ITRACE_REG_GPR(1)));
	assert_false(has(s.addr_src, s.naddr, ITRACE_REG_GPR(0)));
	assert_true(has(s.src, s.nsrc, ITRACE_REG_GPR(0)));
	s = decode(t, (const uint8_t[]){ 0x48, 0x89, 0xd8 }, 3); /* mov rax, rbx */
	assert_true(s.uop & SIM_UOP_MOVE);
	s = decode(t, (const uint8_t[]){ 0x31, 0xc0 }, 2); /* xor eax, eax */
	assert_true(s.uop & SIM_UOP_ZERO);
	assert_int_equal(s.nsrc, 0);
	s = decode(t, (const uint8_t[]){ 0x48, 0x83, 0xc0, 0x01 }, 4); /* add rax, 1 */
	assert_true(s.uop & SIM_UOP_ADD_IMM);
	s = decode(t, (const uint8_t[]){ 0x48, 0x39, 0xd8 }, 3); /* cmp rax, rbx */
	assert_true(s.uop & SIM_UOP_FUSIBLE);
	s = decode(t, (const uint8_t[]){ 0xc5, 0xfe, 0x6f, 0x06 }, 4); /* vmovdqu ymm0, [rsi] */
	assert_true(s.uop & SIM_UOP_VEC_LOAD);
	s = decode(t, (const uint8_t[]){ 0xf3, 0x0f, 0x7f, 0x06 }, 4); /* movdqu [rsi], xmm0 */
	assert_true(s.uop & SIM_UOP_VEC_STORE);
	s = decode(t, (const uint8_t[]){ 0xf7, 0xf1 }, 2); /* div ecx */
	assert_true(s.uop & SIM_UOP_NARROW);
	s = decode(t, (const uint8_t[]){ 0x48, 0xf7, 0xf1 }, 3); /* div rcx */
	assert_false(s.uop & SIM_UOP_NARROW);
	s = decode(t, (const uint8_t[]){ 0xf3, 0xa4 }, 2); /* rep movsb */
	assert_true(s.uop & SIM_UOP_REP);
	s = decode(t, (const uint8_t[]){ 0xc4, 0xe2, 0xf1, 0xa9, 0xc2 }, 5); /* vfmadd213sd */
	assert_int_equal(s.cls, SIM_CLS_FP_FMA);
	s = decode(t, (const uint8_t[]){ 0x66, 0x0f, 0x70, 0xc0, 0x4e }, 5); /* pshufd */
	assert_int_equal(s.cls, SIM_CLS_VEC_SHUFFLE);
	sim_semtab_close(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_x86_micro_op_facts),
		cmocka_unit_test(test_x86_classes_and_registers),
		cmocka_unit_test(test_ppc_classes),
		cmocka_unit_test(test_table_caches_by_address),
		cmocka_unit_test(test_table_reset),
		cmocka_unit_test(test_new_instructions_and_undecodable),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
