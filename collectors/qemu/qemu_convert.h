/*
 * qemu_convert.h - turn the QEMU plugin's words (qemu_wire.h) into itrace
 * records through the writer.  Pure: no processes, no shared memory, so
 * every case is testable on hand-built slots (tests/unit/test_qemu_convert.c).
 *
 * What it rebuilds from the words:
 *   - instructions: a block's instructions up to each memory access, the
 *     rest when the thread's next block (or event) shows the block ran to
 *     its end, or up to the instruction a PARTIAL word names; runs of a
 *     block go to the writer in one call;
 *   - memory accesses: one MEM record per access, QEMU's pieces of one
 *     operand (a 16-byte vector load done as two 8-byte loads, lmw's
 *     words) joined when they are contiguous and of the same direction;
 *   - at instruction level, a block's accesses as its first complete
 *     execution made them (its shape): each later execution that makes
 *     the same goes to the writer as one itrace_writer_block() (a BLOCK
 *     record of format 3.0 when the writer was opened with blocks), a
 *     block without accesses together with the block it runs into;
 *   - branches (--level branch): each block's last instruction, classified
 *     by libitrace's decoder, with the next block of the thread as target;
 *   - the address space (qemu_space.h), threads, processes, system calls;
 *   - signal deliveries, inferred (QEMU 7.2 gives plugins no signal
 *     callback): a thread entering a handler the program registered,
 *     other than by a branch that leads there, received that signal.
 *     Where the interrupted pc is not known at that moment (the thread had
 *     just taken a conditional, indirect or return branch) the thread's
 *     records wait until the handler returns (rt_sigreturn shows where),
 *     up to a bound; past it the pc is recorded as 0;
 *   - --start/--stop windows, --only scope and --ring, with the ptrace
 *     backend's meaning, decided from the instructions executed.
 */
#ifndef ITRACE_QEMU_CONVERT_H
#define ITRACE_QEMU_CONVERT_H

#include <stddef.h>
#include <stdint.h>

#include "itrace.h"
#include "qemu_elf.h"
#include "qemu_wire.h"

struct qc_options {
	int level;		/* ITRACE_LEVEL_INSN or ITRACE_LEVEL_BRANCH */
	int insn_bytes;		/* INSN records carry their bytes */
	const char *exe;	/* host path of the program */
	const struct qemu_elf *exe_elf;
	const char *interp;	/* host path of its dynamic loader ("" if static) */
	const struct qemu_elf *interp_elf;
	const char *start_func, *stop_func; /* --start/--stop FUNC (NULL: none) */
	uint64_t start_addr, stop_addr;	    /* --start-addr/--stop-addr */
	int has_start_addr, has_stop_addr;
	const char *only_module;	    /* --only MODULE */
	uint64_t ring;			    /* --ring N: branches kept; 0 = off */
	size_t defer_max;		    /* records a thread may hold back (0: default) */
};

struct qemu_conv;

/*
 * qc_alloc - a converter writing to `w` (not owned) for a program of
 * ELF machine/endian `machine`/`endian`.  Returns 0, -ITRACE_E_NOTSUP for
 * a machine the decoder or the syscall table does not know, or
 * -ITRACE_E_NOMEM.
 */
int qc_alloc(const struct qc_options *o, uint16_t machine, uint8_t endian,
	     struct itrace_writer *w, struct qemu_conv **cp);
void qc_free(struct qemu_conv *c);

/*
 * qc_slot - convert the words of one slot (note->tid's, or block
 * descriptions when tid is 0).  Returns 0, or a negative -ITRACE_E_*
 * code: from the writer, -ITRACE_E_CORRUPT for words the plugin never
 * writes, -ITRACE_E_NOENT when --start/--stop/--only names nothing that
 * is loaded at the program's entry (qc_error() says which).
 */
int qc_slot(struct qemu_conv *c, const struct qw_note *note, const uint64_t *w, size_t n);

/*
 * qc_finish - the stream ended; `status` is how the process ended as the
 * trace records it (exit code, or -signo if a signal killed it).  Writes
 * what is still pending: held-back records, SIGNAL of a fatal signal,
 * THREAD exits, the ring, PROCESS exec + TRACE_CTL detach after a
 * successful execve.  Returns 0 or a writer error.
 */
int qc_finish(struct qemu_conv *c, int64_t status);

/*
 * qc_write_process - a PROCESS record (START, EXIT) of process `pid`
 * straight to the writer: the backend's, around the stream.
 */
int qc_write_process(struct qemu_conv *c, int event, uint32_t pid, int64_t status,
		     const char *name);

/*
 * qc_set_ender - thread `tid` ended the process (when the plugin could
 * not say it: a fatal signal), unless the stream named one already.
 */
void qc_set_ender(struct qemu_conv *c, uint32_t tid);

/* What the stream said. */
struct qc_state {
	int hello;	   /* the plugin started (HELLO seen) */
	int ended;	   /* EXIT seen: the process ended */
	int exec_pending;  /* an execve is under way: if the stream stops, it worked */
	uint32_t pid;
	uint64_t words;	   /* words converted */
};
void qc_state(const struct qemu_conv *c, struct qc_state *st);

/* The last error's text ("" if none). */
const char *qc_error(const struct qemu_conv *c);

#endif
