/*
 * gdb_target.h - one traced program behind a gdb stub: connection,
 * registers, code bytes, breakpoints and stepping (internal to the gdb
 * backend; gdb_backend.c drives it and writes the trace).
 */
#ifndef ITRACE_GDB_TARGET_H
#define ITRACE_GDB_TARGET_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "gdb_arch.h"
#include "rsp.h"
#include "tdesc.h"

#define GDB_MAX_REGS 40
#define GDB_CODE_LINE 64
#define GDB_CODE_LINES 1024

/* Why the target stopped. */
struct gdb_stop {
	char kind;    /* 'T'/'S' stopped by signal, 'W' exited, 'X' killed */
	int sig;      /* gdb signal number ('T', 'S', 'X') */
	int code;     /* exit code ('W') */
	uint32_t pid, tid; /* from "thread:pP.T" when the stub says */
};

struct gdb_code_line {
	uint64_t tag; /* line address + 1; 0 = empty */
	uint8_t len;  /* readable bytes */
	uint8_t bytes[GDB_CODE_LINE];
};

struct gdb_target {
	struct rsp *rsp;
	struct tdesc td;
	const struct gdb_arch *arch;
	uint8_t endian;			    /* 1 little, 2 big */
	const struct tdesc_reg *reg[GDB_MAX_REGS]; /* arch->regs in the stub's layout */
	uint64_t vals[GDB_MAX_REGS];	    /* values after the last gdb_target_read_regs */
	struct gdb_code_line *cache;
	char thread[48];		    /* thread of the last stop ("p1f.20"), or "" */
	int vcont;			    /* the stub takes vCont;s/c/S/C */
	char *gbuf;			    /* last 'g' reply */
	size_t gcap;
	char err[512];
};

/*
 * gdb_target_attach - talk to the stub on `rsp` (owned from now on):
 * qSupported, no-ack mode, the initial stop, the target description (or
 * the fallback for `elf_machine` when the stub has none; 0 = unknown).
 * `endian` is the byte order from the ELF file, or 0 to work it out from
 * the registers.  Returns 0 or -1 with t->err set.
 */
int gdb_target_attach(struct gdb_target *t, struct rsp *rsp, uint16_t elf_machine, uint8_t endian,
		      struct gdb_stop *first);

/* gdb_target_read_regs - refresh t->vals ('g', then 'p' for the rest). */
int gdb_target_read_regs(struct gdb_target *t);

/*
 * gdb_target_code - up to `want` code bytes at `addr` (cached by 64-byte
 * line: code is assumed not to change while traced).  Returns the bytes
 * available (0 if unreadable), or -1 when the connection fails.
 */
int gdb_target_code(struct gdb_target *t, uint64_t addr, uint8_t *buf, size_t want);

/*
 * gdb_target_resume - "s"/"c" (or "S sig"/"C sig" to deliver `sig`) and
 * wait for the stop.  Returns 0 or -1.  timeout_ms < 0 waits forever, 0
 * is the connection's default (rsp_set_timeout).
 */
int gdb_target_resume(struct gdb_target *t, int step, int sig, int timeout_ms,
		      struct gdb_stop *st);

/* gdb_target_breakpoint - insert (Z0) or remove (z0) a breakpoint. */
int gdb_target_breakpoint(struct gdb_target *t, uint64_t addr, int insert);

/* gdb_target_read_u64 - 8 bytes of data memory in target order. */
int gdb_target_read_u64(struct gdb_target *t, uint64_t addr, uint64_t *v);

/* gdb_target_auxv - AT_ENTRY of the program from qXfer:auxv, 0 if unknown. */
uint64_t gdb_target_auxv_entry(struct gdb_target *t);

/* gdb_target_kill - "k": end the program (best effort). */
void gdb_target_kill(struct gdb_target *t);

/* gdb_target_detach - "D": let the program run on (best effort). */
void gdb_target_detach(struct gdb_target *t);

void gdb_target_close(struct gdb_target *t);

/* gdb_signal_to_host - the Linux signal number for a gdb one. */
int gdb_signal_to_host(int gdb_sig);

#endif
