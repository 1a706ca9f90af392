/*
 * test_gdb.c - unit tests of the gdb backend's parts that do not
 * need a stub: POWER atomic sequences (arch_ppc), target descriptions
 * (tdesc) and the remote protocol framing (rsp) against a scripted fake
 * stub in a child process.
 */
#include <elf.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "arch_ppc.h"
#include "rsp.h"
#include "tdesc.h"

/* ---- arch_ppc ------------------------------------------------------------ */

/* le_words - little-endian ppc64 code from instruction words. */
static size_t le_words(const uint32_t *w, size_t n, uint8_t *out)
{
	for (size_t i = 0; i < n; i++)
		for (int k = 0; k < 4; k++)
			out[4 * i + k] = (uint8_t)(w[i] >> (8 * k));
	return 4 * n;
}

static void test_ppc_atomic_sequences(void **state)
{
	/* lwarx; addi; stwcx.; bne- (the loop-back comes after the stcx.) */
	static const uint32_t simple[] = {0x7c804828 /* lwarx r4,0,r9 */, 0x38840001,
					  0x7c80492d, 0x40c2fff4};
	/* lwarx; cmpw; bne 1f (leaves); stwcx.; bne- 1b; 1: */
	static const uint32_t exits[] = {0x7d20f828, 0x7c095000, 0x4082000c, 0x7d60f92d,
					 0x40c2fff0, 0x60000000};
	static const uint32_t no_stcx[] = {0x7c804828, 0x38840001, 0x60000000};
	/* lwarx r29,0,r31,1: the EH hint capstone 4 cannot decode */
	static const uint32_t hint[] = {0x7fa0f829, 0x7fa0f92d};
	struct arch_ppc_atomic seq;
	struct itrace_decoder *d;
	uint8_t code[4 * 8];
	size_t n;

	(void)state;
	assert_int_equal(itrace_decoder_alloc(EM_PPC64, ELFDATA2LSB, &d), 0);
	n = le_words(simple, 4, code);
	assert_true(arch_ppc_is_larx(d, code, n));
	assert_int_equal(arch_ppc_atomic_sequence(d, code, n, 0x1000, &seq), 1);
	assert_int_equal(seq.n, 3);
	assert_int_equal(seq.n_exits, 0);
	assert_int_equal(arch_ppc_atomic_sequence(d, code + 4, n - 4, 0x1004, &seq), 0);
	n = le_words(exits, 6, code);
	assert_int_equal(arch_ppc_atomic_sequence(d, code, n, 0x2000, &seq), 1);
	assert_int_equal(seq.n, 4);
	assert_int_equal(seq.n_exits, 1);
	assert_int_equal(seq.exit_index[0], 2);
	assert_int_equal(seq.exit_target[0], 0x2008 + 0xc);
	n = le_words(no_stcx, 3, code);
	assert_int_equal(arch_ppc_atomic_sequence(d, code, n, 0x1000, &seq), 0);
	n = le_words(hint, 2, code);
	assert_true(arch_ppc_is_larx(d, code, n));
	assert_int_equal(arch_ppc_atomic_sequence(d, code, n, 0x1000, &seq), 1);
	assert_int_equal(seq.n, 2);
	itrace_decoder_free(d);
}

/* ---- tdesc --------------------------------------------------------------- */

static char *fake_fetch(void *ctx, const char *annex)
{
	(void)ctx;
	if (strcmp(annex, "core.xml") == 0)
		return strdup("<?xml version=\"1.0\"?><!DOCTYPE feature SYSTEM \"gdb-target.dtd\">"
			      "<feature name=\"org.gnu.gdb.power.core\">"
			      "<reg name=\"r0\" bitsize=\"64\"/><reg name=\"r1\" bitsize=\"64\"/>"
			      "<reg name=\"pc\" bitsize=\"64\" regnum=\"64\"/>"
			      "<reg name=\"cr\" bitsize=\"32\"/></feature>");
	if (strcmp(annex, "fpu.xml") == 0)
		return strdup("<feature name=\"fpu\"><reg name=\"f0\" bitsize=\"64\" regnum=\"2\"/>"
			      "</feature>");
	return NULL;
}

static void test_tdesc_includes_and_layout(void **state)
{
	static const char xml[] =
		"<?xml version=\"1.0\"?><!DOCTYPE target SYSTEM \"gdb-target.dtd\">"
		"<target><architecture>powerpc:common64</architecture>"
		"<xi:include href=\"core.xml\"/><xi:include href=\"fpu.xml\"/></target>";
	struct tdesc td;
	char err[200];

	(void)state;
	assert_int_equal(tdesc_parse(xml, strlen(xml), fake_fetch, NULL, &td, err, sizeof(err)), 0);
	assert_string_equal(td.arch, "powerpc:common64");
	assert_int_equal(td.n, 5);
	/* 'g' order is regnum order: r0 r1 f0 pc cr */
	assert_int_equal(tdesc_find(&td, "r1")->offset, 8);
	assert_int_equal(tdesc_find(&td, "f0")->offset, 16);
	assert_int_equal(tdesc_find(&td, "pc")->offset, 24);
	assert_int_equal(tdesc_find(&td, "pc")->regnum, 64);
	assert_int_equal(tdesc_find(&td, "cr")->regnum, 65);
	assert_int_equal(tdesc_find(&td, "cr")->offset, 32);
	assert_null(tdesc_find(&td, "lr"));
	tdesc_free(&td);
}

static void test_tdesc_errors_and_fallback(void **state)
{
	static const char missing[] = "<target><xi:include href=\"nope.xml\"/></target>";
	struct tdesc td;
	char err[200];

	(void)state;
	assert_int_equal(tdesc_parse("<target", 7, fake_fetch, NULL, &td, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "not valid XML"));
	assert_int_equal(tdesc_parse(missing, strlen(missing), fake_fetch, NULL, &td, err,
				     sizeof(err)), -1);
	assert_non_null(strstr(err, "nope.xml"));
	assert_int_equal(tdesc_parse("<target/>", 9, fake_fetch, NULL, &td, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "no registers"));

	assert_int_equal(tdesc_fallback("ppc64", &td), 0);
	assert_int_equal(tdesc_find(&td, "pc")->offset, 64 * 8);
	assert_int_equal(tdesc_find(&td, "lr")->offset, 64 * 8 + 8 + 8 + 4);
	tdesc_free(&td);
	assert_int_equal(tdesc_fallback("x86-64", &td), 0);
	assert_int_equal(tdesc_find(&td, "r15")->offset, 15 * 8);
	assert_int_equal(tdesc_find(&td, "rip")->offset, 16 * 8);
	tdesc_free(&td);
	assert_int_equal(tdesc_fallback("mips", &td), -1);
}

/* ---- rsp against a scripted stub --------------------------------------- */

/* A stub that answers each expected packet with a canned reply. */
struct exchange {
	const char *expect; /* packet data the client must send */
	const char *reply;  /* raw bytes to send back ("" = nothing) */
};

static int read_packet(int fd, char *buf, size_t cap)
{
	size_t n = 0;
	char c;

	do {
		if (read(fd, &c, 1) != 1)
			return -1;
	} while (c != '$');
	while (read(fd, &c, 1) == 1 && c != '#' && n + 1 < cap)
		buf[n++] = c;
	buf[n] = '\0';
	return read(fd, &c, 1) == 1 && read(fd, &c, 1) == 1 ? 0 : -1;
}

static void run_stub(int lfd, const struct exchange *ex, size_t n, int noack_after)
{
	int fd = accept(lfd, NULL, NULL);
	char buf[512];

	for (size_t i = 0; i < n; i++) {
		if (read_packet(fd, buf, sizeof(buf)) < 0 || strcmp(buf, ex[i].expect) != 0)
			_exit(10 + (int)i);
		if ((int)i < noack_after && write(fd, "+", 1) != 1)
			_exit(2);
		if (*ex[i].reply && write(fd, ex[i].reply, strlen(ex[i].reply)) < 0)
			_exit(3);
	}
	_exit(0);
}

static pid_t start_stub(const struct exchange *ex, size_t n, int noack_after, char *hostport)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof(a);
	int lfd = socket(AF_INET, SOCK_STREAM, 0);
	pid_t pid;

	assert_true(lfd >= 0);
	assert_int_equal(bind(lfd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(listen(lfd, 1), 0);
	assert_int_equal(getsockname(lfd, (struct sockaddr *)&a, &len), 0);
	sprintf(hostport, "127.0.0.1:%d", ntohs(a.sin_port));
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		run_stub(lfd, ex, n, noack_after);
	close(lfd);
	return pid;
}

static int stub_status(pid_t pid)
{
	int status;

	assert_int_equal(waitpid(pid, &status, 0), pid);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void test_rsp_framing(void **state)
{
	/* qSupported with PacketSize; no-ack; run-length and escaped replies;
	 * a reply with a bad checksum is asked for again. */
	static const struct exchange ex[] = {
		{"qSupported:multiprocess+;swbreak+;hwbreak+;xmlRegisters=i386,powerpc",
		 "$PacketSize=100;QStartNoAckMode+;qXfer:features:read+#b2"},
		{"QStartNoAckMode", "$OK#9a"},
		{"g", "$0* 1#ab"},		/* "0" + 3 more (' ' = 29 + 3), then "1" */
		{"m10,4", "$ab}\x03""cd#0a"},	/* escaped '#'  (0x23 = 0x03 ^ 0x20) */
		{"qXfer:features:read:target.xml:0,e0", "$mhello#00"}, /* bad checksum */
	};
	char hostport[64], err[200];
	struct rsp *r;
	const char *reply;
	size_t n;
	pid_t pid = start_stub(ex, 5, 2, hostport);

	(void)state;
	assert_int_equal(rsp_connect(hostport, 1000, &r, err, sizeof(err)), 0);
	assert_int_equal(rsp_start_noack(r), 0);
	assert_true(rsp_supports(r, "qXfer:features:read"));
	assert_false(rsp_supports(r, "qXfer:auxv:read"));
	reply = rsp_command(r, "g", &n);
	assert_non_null(reply);
	assert_string_equal(reply, "00001");
	reply = rsp_command(r, "m10,4", &n);
	assert_non_null(reply);
	assert_int_equal(n, 5);
	assert_memory_equal(reply, "ab#cd", 5);
	/* no-ack mode: a bad checksum cannot be retried, the stub closes */
	rsp_set_timeout(r, 2000);
	assert_null(rsp_xfer_read(r, "features", "target.xml", NULL));
	rsp_close(r);
	assert_int_equal(stub_status(pid), 0);
}

static void test_rsp_connect_errors(void **state)
{
	char err[200];
	struct rsp *r;

	(void)state;
	assert_int_equal(rsp_connect("nocolon", 0, &r, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "HOST:PORT"));
	assert_int_equal(rsp_connect("127.0.0.1:1", 0, &r, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "cannot connect"));
	assert_null(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ppc_atomic_sequences),
		cmocka_unit_test(test_tdesc_includes_and_layout),
		cmocka_unit_test(test_tdesc_errors_and_fallback),
		cmocka_unit_test(test_rsp_framing),
		cmocka_unit_test(test_rsp_connect_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
