/* emit.c - events to records for every collector (see emit.h). */
#include "emit.h"

#include <string.h>

/* A record of `type`, cleared, of the sink's current thread. */
static void start(struct itrace_record *rec, const struct emit_sink *s, int type)
{
	memset(rec, 0, sizeof(*rec));
	rec->type = (uint8_t)type;
	rec->tid = s->tid;
	rec->pid = s->pid;
}

int emit_record(struct emit_sink *s, const struct itrace_record *rec)
{
	if (s->put)
		return s->put(s, rec);
	return itrace_writer_write(s->w, rec);
}

int emit_mmap(struct emit_sink *s, const struct itrace_mmap *m)
{
	struct itrace_record rec;

	start(&rec, s, ITRACE_REC_MMAP);
	rec.u.mmap = *m;
	if (rec.u.mmap.buildid_len > sizeof(rec.u.mmap.buildid))
		return -ITRACE_E_INVAL;
	return emit_record(s, &rec);
}

int emit_code(struct emit_sink *s, uint64_t addr, const uint8_t *bytes, size_t len)
{
	struct itrace_record rec;

	start(&rec, s, ITRACE_REC_CODE);
	rec.u.code.addr = addr;
	rec.u.code.bytes = bytes;
	rec.u.code.len = len;
	return emit_record(s, &rec);
}

static int thread_rec(struct emit_sink *s, int event, uint32_t tid, uint32_t pid, uint64_t other,
		      const char *name, size_t len)
{
	struct itrace_record rec;

	start(&rec, s, ITRACE_REC_THREAD);
	rec.u.thread.event = (uint8_t)event;
	rec.u.thread.tid = tid;
	rec.u.thread.pid = pid;
	rec.u.thread.other = other;
	rec.u.thread.name = name;
	rec.u.thread.name_len = name ? len : 0;
	return emit_record(s, &rec);
}

int emit_thread(struct emit_sink *s, int event, uint32_t tid, uint32_t pid, uint64_t other)
{
	return thread_rec(s, event, tid, pid, other, NULL, 0);
}

int emit_thread_name(struct emit_sink *s, uint32_t tid, uint32_t pid, const char *name, size_t len)
{
	return thread_rec(s, ITRACE_THREAD_NAME, tid, pid, 0, name, len);
}

int emit_process_n(struct emit_sink *s, int event, uint32_t pid, uint64_t other, int64_t status,
		   const char *name, size_t len)
{
	struct itrace_record rec;

	start(&rec, s, ITRACE_REC_PROCESS);
	rec.u.process.event = (uint8_t)event;
	rec.u.process.pid = pid;
	rec.u.process.other = other;
	rec.u.process.status = status;
	rec.u.process.name = name;
	rec.u.process.name_len = name ? len : 0;
	return emit_record(s, &rec);
}

int emit_process(struct emit_sink *s, int event, uint32_t pid, uint64_t other, int64_t status,
		 const char *name)
{
	return emit_process_n(s, event, pid, other, status, name, name ? strlen(name) : 0);
}

int emit_syscall_enter(struct emit_sink *s, uint64_t nr, size_t nargs, const uint64_t *args)
{
	struct itrace_record rec;

	if (nargs > ITRACE_SYSCALL_MAX_ARGS)
		return -ITRACE_E_INVAL;
	start(&rec, s, ITRACE_REC_SYSCALL);
	rec.u.syscall.dir = ITRACE_SYSCALL_ENTER;
	rec.u.syscall.nr = nr;
	rec.u.syscall.nargs = (uint8_t)nargs;
	if (nargs)
		memcpy(rec.u.syscall.args, args, nargs * sizeof(args[0]));
	return emit_record(s, &rec);
}

int emit_syscall_exit(struct emit_sink *s, uint64_t nr, int64_t ret)
{
	struct itrace_record rec;

	start(&rec, s, ITRACE_REC_SYSCALL);
	rec.u.syscall.dir = ITRACE_SYSCALL_EXIT;
	rec.u.syscall.nr = nr;
	rec.u.syscall.ret = ret;
	return emit_record(s, &rec);
}

int emit_signal(struct emit_sink *s, const struct itrace_signal *sig)
{
	struct itrace_record rec;

	start(&rec, s, ITRACE_REC_SIGNAL);
	rec.u.signal = *sig;
	return emit_record(s, &rec);
}

/* TRACE_CTL with its 1.1 fields (trigger 0: not said, and not written). */
static int ctl(struct emit_sink *s, int on, int reason, uint64_t addr, int by, uint32_t index)
{
	struct itrace_record rec;

	start(&rec, s, ITRACE_REC_TRACE_CTL);
	rec.u.ctl.on = (uint8_t)on;
	rec.u.ctl.reason = (uint8_t)reason;
	rec.u.ctl.addr = addr;
	rec.u.ctl.trigger = (uint8_t)by;
	rec.u.ctl.index = index;
	return emit_record(s, &rec);
}

int emit_ctl(struct emit_sink *s, int on, int reason, uint64_t addr)
{
	return ctl(s, on, reason, addr, ITRACE_CTL_BY_NONE, 0);
}

int emit_ctl_trigger(struct emit_sink *s, int on, uint64_t addr, int by, uint32_t index)
{
	return ctl(s, on, ITRACE_CTL_TRIGGER, addr, by, index);
}

int emit_lost(struct emit_sink *s, int reason, int unit, uint64_t count)
{
	struct itrace_record rec;

	start(&rec, s, ITRACE_REC_LOST);
	rec.u.lost.reason = (uint8_t)reason;
	rec.u.lost.unit = (uint8_t)unit;
	rec.u.lost.count = count;
	return emit_record(s, &rec);
}

int emit_gap(struct emit_sink *s, int reason, uint64_t addr, uint64_t resume, uint64_t count)
{
	struct itrace_record rec;

	start(&rec, s, ITRACE_REC_GAP);
	rec.u.gap.reason = (uint8_t)reason;
	rec.u.gap.addr = addr;
	rec.u.gap.resume = resume;
	rec.u.gap.count = count;
	return emit_record(s, &rec);
}

/* ---- Execution records into a sink that is not the writer ------------- */

int emit_put_branch(struct emit_sink *s, uint64_t from, uint64_t to, unsigned kind, unsigned flags)
{
	struct itrace_record rec;

	start(&rec, s, ITRACE_REC_BRANCH);
	rec.u.branch = (struct itrace_branch){from, to, (uint8_t)kind, (uint8_t)flags};
	return s->put(s, &rec);
}

int emit_put_insn(struct emit_sink *s, uint64_t addr, unsigned len, const uint8_t *bytes)
{
	struct itrace_record rec;

	if (len > sizeof(rec.u.insn.bytes))
		return -ITRACE_E_INVAL;
	start(&rec, s, ITRACE_REC_INSN);
	rec.u.insn.addr = addr;
	rec.u.insn.len = (uint8_t)len;
	if (bytes) {
		rec.u.insn.has_bytes = 1;
		memcpy(rec.u.insn.bytes, bytes, len);
	}
	return s->put(s, &rec);
}

int emit_put_insns(struct emit_sink *s, uint64_t addr, size_t n, const uint8_t *lens)
{
	for (size_t i = 0; i < n; addr += lens[i++])
		EMIT_TRY(emit_put_insn(s, addr, lens[i], NULL));
	return 0;
}

int emit_put_mem(struct emit_sink *s, uint64_t addr, uint64_t size, unsigned flags)
{
	struct itrace_record rec;

	start(&rec, s, ITRACE_REC_MEM);
	rec.u.mem.addr = addr;
	rec.u.mem.size = size;
	rec.u.mem.flags = (uint8_t)flags;
	return s->put(s, &rec);
}
