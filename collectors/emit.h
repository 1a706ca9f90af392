/*
 * emit.h - the one place backends turn events into records.  Each
 * function fills *rec (cleared first) for one event, as format/ITRACE.md
 * section 6.5 lays the record out; the backend then writes it (or keeps
 * it in its ring).  Branches and instructions go straight to the writer
 * (itrace_writer_branch, itrace_writer_insn): they have no record step.
 */
#ifndef ITRACE_COLLECT_EMIT_H
#define ITRACE_COLLECT_EMIT_H

#include <stdint.h>

#include "itrace.h"

/* Return a negative (writer) error from the enclosing function: the
 * converters' way through a sequence of writes. */
#define EMIT_TRY(call)                    \
	do {                              \
		int try_rc_ = (call);     \
		if (try_rc_ < 0)          \
			return try_rc_;   \
	} while (0)

/* THREAD (6.5.7): event of thread tid of pid; other: new tid or status. */
void emit_thread(struct itrace_record *rec, int event, uint32_t tid, uint32_t pid, uint64_t other);

/* PROCESS (6.5.8): event of pid; other: parent or former pid; status of
 * an exit; name (NULL: none) of a start or exec. */
void emit_process(struct itrace_record *rec, int event, uint32_t pid, uint64_t other,
		  int64_t status, const char *name);

/* SYSCALL (6.5.9) entered: number and its six arguments. */
void emit_syscall_enter(struct itrace_record *rec, uint64_t nr, const uint64_t args[6]);

/* SYSCALL (6.5.9) returned: number and return value. */
void emit_syscall_exit(struct itrace_record *rec, uint64_t nr, int64_t ret);

/* SIGNAL (6.5.10). */
void emit_signal(struct itrace_record *rec, const struct itrace_signal *sig);

/* TRACE_CTL (6.5.12): tracing on or off, why, where. */
void emit_ctl(struct itrace_record *rec, int on, int reason, uint64_t addr);

/* LOST (6.5.13): count units lost, and why. */
void emit_lost(struct itrace_record *rec, int reason, int unit, uint64_t count);

#endif
