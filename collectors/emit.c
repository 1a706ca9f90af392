/* emit.c - events to records for every backend (see emit.h). */
#include "emit.h"

#include <string.h>

void emit_thread(struct itrace_record *rec, int event, uint32_t tid, uint32_t pid, uint64_t other)
{
	memset(rec, 0, sizeof(*rec));
	rec->type = ITRACE_REC_THREAD;
	rec->u.thread.event = (uint8_t)event;
	rec->u.thread.tid = tid;
	rec->u.thread.pid = pid;
	rec->u.thread.other = other;
}

void emit_process(struct itrace_record *rec, int event, uint32_t pid, uint64_t other,
		  int64_t status, const char *name)
{
	memset(rec, 0, sizeof(*rec));
	rec->type = ITRACE_REC_PROCESS;
	rec->u.process.event = (uint8_t)event;
	rec->u.process.pid = pid;
	rec->u.process.other = other;
	rec->u.process.status = status;
	rec->u.process.name = name;
	rec->u.process.name_len = name ? strlen(name) : 0;
}

void emit_syscall_enter(struct itrace_record *rec, uint64_t nr, const uint64_t args[6])
{
	memset(rec, 0, sizeof(*rec));
	rec->type = ITRACE_REC_SYSCALL;
	rec->u.syscall.dir = ITRACE_SYSCALL_ENTER;
	rec->u.syscall.nr = nr;
	rec->u.syscall.nargs = 6;
	memcpy(rec->u.syscall.args, args, sizeof(rec->u.syscall.args));
}

void emit_syscall_exit(struct itrace_record *rec, uint64_t nr, int64_t ret)
{
	memset(rec, 0, sizeof(*rec));
	rec->type = ITRACE_REC_SYSCALL;
	rec->u.syscall.dir = ITRACE_SYSCALL_EXIT;
	rec->u.syscall.nr = nr;
	rec->u.syscall.ret = ret;
}

void emit_signal(struct itrace_record *rec, const struct itrace_signal *sig)
{
	memset(rec, 0, sizeof(*rec));
	rec->type = ITRACE_REC_SIGNAL;
	rec->u.signal = *sig;
}

void emit_ctl(struct itrace_record *rec, int on, int reason, uint64_t addr)
{
	memset(rec, 0, sizeof(*rec));
	rec->type = ITRACE_REC_TRACE_CTL;
	rec->u.ctl.on = (uint8_t)on;
	rec->u.ctl.reason = (uint8_t)reason;
	rec->u.ctl.addr = addr;
}

void emit_lost(struct itrace_record *rec, int reason, int unit, uint64_t count)
{
	memset(rec, 0, sizeof(*rec));
	rec->type = ITRACE_REC_LOST;
	rec->u.lost.reason = (uint8_t)reason;
	rec->u.lost.unit = (uint8_t)unit;
	rec->u.lost.count = count;
}
