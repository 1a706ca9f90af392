/*
 * gdb_target.c - the traced program as seen through a gdb stub
 * (gdb_target.h).
 */
#include "gdb_target.h"

#include <elf.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define AT_ENTRY_TYPE 9

static int fail(struct gdb_target *t, const char *what)
{
	snprintf(t->err, sizeof(t->err), "%s: %s", what, rsp_error(t->rsp));
	return -1;
}

/* ---- Stop replies ---------------------------------------------------------- */

/* parse_thread - "p1f.20" or "20": process and thread ids in hex. */
static void parse_thread(const char *p, struct gdb_stop *st)
{
	char *end;

	if (*p == 'p') {
		st->pid = (uint32_t)strtoul(p + 1, &end, 16);
		st->tid = *end == '.' ? (uint32_t)strtoul(end + 1, NULL, 16) : st->pid;
	} else {
		st->tid = (uint32_t)strtoul(p, NULL, 16);
	}
}

/* hex2 - the 1 or 2 hex digits at p (a signal or exit code: "T0506:..." is
 * signal 05 followed by register 06). */
static int hex2(const char *p)
{
	int hi = rsp_hex_value((unsigned char)p[0]), lo;

	if (hi < 0)
		return 0;
	lo = rsp_hex_value((unsigned char)p[1]);
	return lo < 0 ? hi : hi * 16 + lo;
}

static int parse_stop(struct gdb_target *t, const char *reply, struct gdb_stop *st)
{
	const char *p;

	memset(st, 0, sizeof(*st));
	st->kind = reply[0];
	switch (reply[0]) {
	case 'T':
	case 'S':
		st->sig = hex2(reply + 1);
		p = strstr(reply, "thread:");
		if (p) {
			parse_thread(p + 7, st);
			snprintf(t->thread, sizeof(t->thread), "%.*s", (int)strcspn(p + 7, ";"),
				 p + 7);
		}
		return 0;
	case 'W':
		st->code = hex2(reply + 1);
		return 0;
	case 'X':
		st->sig = hex2(reply + 1);
		return 0;
	default:
		snprintf(t->err, sizeof(t->err), "unexpected stop reply '%.40s' from the gdb stub",
			 reply);
		return -1;
	}
}

/* ---- Setup ----------------------------------------------------------------- */

struct fetch_ctx {
	struct rsp *rsp;
};

static char *fetch_feature(void *ctx, const char *annex)
{
	return rsp_xfer_read(((struct fetch_ctx *)ctx)->rsp, "features", annex, NULL);
}

static int load_tdesc(struct gdb_target *t, uint16_t elf_machine)
{
	const struct gdb_arch *a;
	struct fetch_ctx ctx = {t->rsp};
	char *xml = NULL;
	size_t len = 0;

	if (rsp_supports(t->rsp, "qXfer:features:read")) {
		xml = rsp_xfer_read(t->rsp, "features", "target.xml", &len);
		if (!xml && *rsp_error(t->rsp)) { /* not "no such object": a failure */
			snprintf(t->err, sizeof(t->err), "cannot read the target description: %s",
				 rsp_error(t->rsp));
			return -1;
		}
	}
	if (xml) {
		int rc = tdesc_parse(xml, len, fetch_feature, &ctx, &t->td, t->err,
				     sizeof(t->err));

		free(xml);
		if (rc < 0)
			return -1;
		t->arch = gdb_arch_for_tdesc(t->td.arch);
		if (!t->arch) {
			snprintf(t->err, sizeof(t->err), "the gdb stub's target is '%s'; the gdb "
				 "backend knows ppc64 and x86-64", t->td.arch);
			return -1;
		}
		return 0;
	}
	/* No description: gdb's own default layout for the program's machine. */
	a = elf_machine ? gdb_arch_for_machine(elf_machine) : NULL;
	if (!a || tdesc_fallback(a->name, &t->td) < 0) {
		snprintf(t->err, sizeof(t->err), "the gdb stub sends no target description; "
			 "name the program after -- so its ELF machine selects the register layout");
		return -1;
	}
	t->arch = a;
	return 0;
}

static int map_registers(struct gdb_target *t)
{
	const struct gdb_arch *a = t->arch;

	for (size_t i = 0; i < a->n_regs && i < GDB_MAX_REGS; i++) {
		t->reg[i] = tdesc_find(&t->td, a->regs[i]);
		if (!t->reg[i] && i < a->n_required) {
			snprintf(t->err, sizeof(t->err), "the gdb stub's %s target has no register "
				 "'%s'", a->name, a->regs[i]);
			return -1;
		}
	}
	return 0;
}

/* value - a register value from hex digits in target byte order. */
static uint64_t value(const char *hex, unsigned bytes, int little)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < bytes && i < 8; i++) {
		unsigned idx = little ? i : bytes - 1 - i;
		int hi = rsp_hex_value((unsigned char)hex[2 * idx]);
		int lo = rsp_hex_value((unsigned char)hex[2 * idx + 1]);
		uint64_t byte = hi < 0 || lo < 0 ? 0 : (uint64_t)(hi << 4 | lo); /* "xx": unavailable */

		v |= byte << (8 * i);
	}
	return v;
}

/*
 * guess_endian - a stub for ppc64 does not say whether the target runs
 * little- or big-endian: take the order in which the pc is a plausible
 * user address (below 2^56 and word-aligned).
 */
static uint8_t guess_endian(struct gdb_target *t, const char *g, size_t n)
{
	const struct tdesc_reg *pc = t->reg[t->arch->pc];
	uint64_t le;

	if (!pc || pc->offset * 2 + pc->bitsize / 4 > n)
		return 1;
	le = value(g + pc->offset * 2, pc->bitsize / 8, 1);
	return (le >> 56) == 0 && (le & 3) == 0 ? 1 : 2;
}

int gdb_target_attach(struct gdb_target *t, struct rsp *rsp, uint16_t elf_machine, uint8_t endian,
		      struct gdb_stop *first)
{
	const char *reply;
	size_t n;

	memset(t, 0, sizeof(*t));
	t->rsp = rsp;
	if (rsp_start_noack(rsp) < 0)
		return fail(t, "gdb stub handshake failed");
	reply = rsp_command(rsp, "?", NULL);
	if (!reply)
		return fail(t, "gdb stub did not report the program's state");
	if (parse_stop(t, reply, first) < 0 || load_tdesc(t, elf_machine) < 0 ||
	    map_registers(t) < 0)
		return -1;
	/* vCont where offered: gdbserver in no-ack mode runs a plain 's' to the end. */
	reply = rsp_command(rsp, "vCont?", NULL);
	if (!reply)
		return fail(t, "gdb stub handshake failed");
	t->vcont = strncmp(reply, "vCont", 5) == 0 && strstr(reply, ";s") && strstr(reply, ";c") &&
		   strstr(reply, ";S") && strstr(reply, ";C");
	t->endian = endian;
	if (!t->endian) {
		reply = rsp_command(rsp, "g", &n);
		if (!reply)
			return fail(t, "cannot read registers");
		t->endian = t->arch->machine == EM_PPC64 ? guess_endian(t, reply, n) : 1;
	}
	return 0;
}

/* ---- Registers and memory -------------------------------------------------- */

static int read_one_reg(struct gdb_target *t, size_t i)
{
	const struct tdesc_reg *r = t->reg[i];
	char cmd[32];
	const char *reply;
	size_t n;

	snprintf(cmd, sizeof(cmd), "p%x", r->regnum);
	reply = rsp_command(t->rsp, cmd, &n);
	if (!reply)
		return fail(t, "cannot read registers");
	if (n < r->bitsize / 4 || reply[0] == 'E') {
		t->vals[i] = 0;
		return 0;
	}
	t->vals[i] = value(reply, r->bitsize / 8, t->endian == 1);
	return 0;
}

int gdb_target_read_regs(struct gdb_target *t)
{
	const char *reply = rsp_command(t->rsp, "g", NULL);
	size_t n;

	if (!reply)
		return fail(t, "cannot read registers");
	n = strlen(reply);
	if (reply[0] == 'E' && n == 3) {
		snprintf(t->err, sizeof(t->err), "the gdb stub refused to send registers (%s)",
			 reply);
		return -1;
	}
	/* Keep the 'g' reply: a 'p' request below reuses the reply buffer. */
	if (n + 1 > t->gcap) {
		char *p = realloc(t->gbuf, n + 1);

		if (!p) {
			snprintf(t->err, sizeof(t->err), "out of memory");
			return -1;
		}
		t->gbuf = p;
		t->gcap = n + 1;
	}
	memcpy(t->gbuf, reply, n + 1);
	for (size_t i = 0; i < t->arch->n_regs; i++) {
		const struct tdesc_reg *r = t->reg[i];

		if (!r)
			t->vals[i] = 0;
		else if ((r->offset + r->bitsize / 8) * 2 <= n)
			t->vals[i] = value(t->gbuf + r->offset * 2, r->bitsize / 8, t->endian == 1);
		else if (read_one_reg(t, i) < 0) /* beyond what 'g' sends */
			return -1;
	}
	return 0;
}

int gdb_target_code(struct gdb_target *t, uint64_t addr, uint8_t *buf, size_t want)
{
	size_t got = 0;

	/* made at the first use: 80 KB that a failed handshake never needs */
	if (!t->cache && !(t->cache = calloc(GDB_CODE_LINES, sizeof(*t->cache))))
		return fail(t, "out of memory");
	while (got < want) {
		uint64_t a = addr + got, base = a & ~(uint64_t)(GDB_CODE_LINE - 1);
		struct gdb_code_line *line = &t->cache[(base / GDB_CODE_LINE) % GDB_CODE_LINES];
		size_t off = (size_t)(a - base), take;

		if (line->tag != base + 1) {
			long k = rsp_read_memory(t->rsp, base, line->bytes, GDB_CODE_LINE);

			if (k < 0)
				return fail(t, "cannot read code");
			line->tag = base + 1;
			line->len = (uint8_t)k;
		}
		if (off >= line->len)
			break;
		take = line->len - off < want - got ? line->len - off : want - got;
		memcpy(buf + got, line->bytes + off, take);
		got += take;
		if (line->len < GDB_CODE_LINE)
			break;
	}
	return (int)got;
}

int gdb_target_read_u64(struct gdb_target *t, uint64_t addr, uint64_t *v)
{
	uint8_t b[8];
	long k = rsp_read_memory(t->rsp, addr, b, 8);

	if (k != 8)
		return k < 0 ? fail(t, "cannot read memory") : -1;
	*v = 0;
	for (int i = 0; i < 8; i++)
		*v |= (uint64_t)b[t->endian == 1 ? i : 7 - i] << (8 * i);
	return 0;
}

uint64_t gdb_target_auxv_entry(struct gdb_target *t)
{
	size_t len = 0;
	char *auxv;
	uint64_t entry = 0;

	if (!rsp_supports(t->rsp, "qXfer:auxv:read"))
		return 0;
	auxv = rsp_xfer_read(t->rsp, "auxv", "", &len);
	for (size_t off = 0; auxv && off + 16 <= len; off += 16) {
		uint64_t type = 0, val = 0;

		for (int i = 0; i < 8; i++) {
			int k = t->endian == 1 ? i : 7 - i;

			type |= (uint64_t)(uint8_t)auxv[off + k] << (8 * i);
			val |= (uint64_t)(uint8_t)auxv[off + 8 + k] << (8 * i);
		}
		if (type == AT_ENTRY_TYPE) {
			entry = val;
			break;
		}
	}
	free(auxv);
	return entry;
}

/* ---- Execution ------------------------------------------------------------- */

int gdb_target_resume(struct gdb_target *t, int step, int sig, int timeout_ms,
		      struct gdb_stop *st)
{
	char cmd[96], action[8];
	const char *reply;

	if (sig)
		snprintf(action, sizeof(action), "%c%02x", step ? 'S' : 'C', sig & 0xff);
	else
		snprintf(action, sizeof(action), "%c", step ? 's' : 'c');
	if (!t->vcont)
		snprintf(cmd, sizeof(cmd), "%s", action);
	else if (step && t->thread[0]) /* step this thread only */
		snprintf(cmd, sizeof(cmd), "vCont;%s:%s", action, t->thread);
	else
		snprintf(cmd, sizeof(cmd), "vCont;%s", action);
	rsp_set_timeout(t->rsp, timeout_ms);
	reply = rsp_command(t->rsp, cmd, NULL);
	rsp_set_timeout(t->rsp, 0);
	if (!reply)
		return fail(t, step ? "single-step failed" : "continue failed");
	return parse_stop(t, reply, st);
}

int gdb_target_breakpoint(struct gdb_target *t, uint64_t addr, int insert)
{
	char cmd[48];
	const char *reply;

	snprintf(cmd, sizeof(cmd), "%c0,%llx,%x", insert ? 'Z' : 'z', (unsigned long long)addr,
		 t->arch->bp_kind);
	reply = rsp_command(t->rsp, cmd, NULL);
	if (!reply)
		return fail(t, "breakpoint request failed");
	if (strcmp(reply, "OK") != 0) {
		snprintf(t->err, sizeof(t->err), "the gdb stub cannot %s a breakpoint at 0x%llx "
			 "(reply '%.20s')", insert ? "set" : "remove", (unsigned long long)addr,
			 reply);
		return -1;
	}
	return 0;
}

void gdb_target_kill(struct gdb_target *t)
{
	rsp_send(t->rsp, "k");
}

void gdb_target_detach(struct gdb_target *t)
{
	rsp_command(t->rsp, "D", NULL);
}

void gdb_target_close(struct gdb_target *t)
{
	rsp_close(t->rsp);
	t->rsp = NULL;
	tdesc_free(&t->td);
	free(t->gbuf);
	t->gbuf = NULL;
	free(t->cache);
	t->cache = NULL;
}

/* gdb's signal numbers (gdb/signals.def) that differ from Linux's. */
int gdb_signal_to_host(int gdb_sig)
{
	switch (gdb_sig) {
	case 10:
		return SIGBUS;
	case 12:
		return SIGSYS;
	case 16:
		return SIGURG;
	case 17:
		return SIGSTOP;
	case 18:
		return SIGTSTP;
	case 19:
		return SIGCONT;
	case 20:
		return SIGCHLD;
	case 30:
		return SIGUSR1;
	case 31:
		return SIGUSR2;
	default:
		return gdb_sig; /* 1-9, 11, 13-15 agree */
	}
}
