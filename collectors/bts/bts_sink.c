/*
 * bts_sink.c - write BTS events as itrace records.
 *
 * BTS cannot classify branches (it records only from/to), so BRANCH
 * records have kind "unknown" and the taken flag; the file carries
 * ITRACE_FF_TAKEN_ONLY so that itrace-fill knows that every conditional
 * branch between two records fell through.  perf's EXIT records carry no
 * exit status, so THREAD exit records from sideband say 0.
 */
#include <string.h>
#include <sys/mman.h>

#include "bts.h"

void bts_writer_options(struct itrace_writer_options *o)
{
	itrace_writer_options_init(o);
	o->level = ITRACE_LEVEL_BRANCH;
	o->flags = ITRACE_FF_TAKEN_ONLY;
}

void bts_sink_init(struct bts_sink *s, struct itrace_writer *w, unsigned spaces)
{
	memset(s, 0, sizeof *s);
	s->w = w;
	s->include_kernel_maps = !!(spaces & BTS_SPACE_KERNEL);
}

static int sink_thread(struct bts_sink *s, uint8_t event, uint32_t tid, uint32_t pid, uint64_t other,
		       const char *name, size_t name_len)
{
	struct itrace_record r;

	memset(&r, 0, sizeof r);
	r.type = ITRACE_REC_THREAD;
	r.u.thread.event = event;
	r.u.thread.tid = tid;
	r.u.thread.pid = pid;
	r.u.thread.other = other;
	r.u.thread.name = name;
	r.u.thread.name_len = name_len;
	return itrace_writer_write(s->w, &r);
}

static int sink_process(struct bts_sink *s, uint8_t event, uint32_t pid, uint64_t other,
			const char *name, size_t name_len)
{
	struct itrace_record r;

	memset(&r, 0, sizeof r);
	r.type = ITRACE_REC_PROCESS;
	r.u.process.event = event;
	r.u.process.pid = pid;
	r.u.process.other = other;
	r.u.process.name = name;
	r.u.process.name_len = name_len;
	return itrace_writer_write(s->w, &r);
}

/* Make `tid` the current thread before writing its branches. */
static int sink_switch(struct bts_sink *s, uint32_t tid, uint32_t pid)
{
	int rc;

	if (s->have_tid && s->cur_tid == tid)
		return 0;
	rc = sink_thread(s, ITRACE_THREAD_SWITCH, tid, pid, 0, NULL, 0);
	if (rc)
		return rc;
	s->cur_tid = tid;
	s->have_tid = 1;
	return 0;
}

static int sink_mmap(struct bts_sink *s, const struct bts_event *ev)
{
	struct itrace_record r;

	if (!(ev->u.mmap.prot & PROT_EXEC))
		return 0; /* only code matters for filling */
	if (ev->u.mmap.kernel && !s->include_kernel_maps)
		return 0;
	memset(&r, 0, sizeof r);
	r.type = ITRACE_REC_MMAP;
	r.u.mmap.start = ev->u.mmap.start;
	r.u.mmap.len = ev->u.mmap.len;
	r.u.mmap.pgoff = ev->u.mmap.pgoff;
	r.u.mmap.pid = ev->pid;
	r.u.mmap.prot = ev->u.mmap.prot;
	r.u.mmap.buildid_len = ev->u.mmap.buildid_len;
	memcpy(r.u.mmap.buildid, ev->u.mmap.buildid, ev->u.mmap.buildid_len);
	r.u.mmap.path = ev->u.mmap.path;
	r.u.mmap.path_len = ev->u.mmap.path_len;
	s->mmaps++;
	return itrace_writer_write(s->w, &r);
}

static int sink_comm(struct bts_sink *s, const struct bts_event *ev)
{
	int rc = 0;

	if (ev->u.comm.exec)
		rc = sink_process(s, ITRACE_PROCESS_EXEC, ev->pid, 0, ev->u.comm.name, ev->u.comm.name_len);
	if (!rc)
		rc = sink_thread(s, ITRACE_THREAD_NAME, ev->tid, ev->pid, 0, ev->u.comm.name,
				 ev->u.comm.name_len);
	return rc;
}

static int sink_fork(struct bts_sink *s, const struct bts_event *ev)
{
	if (ev->pid != ev->u.task.ppid)
		return sink_process(s, ITRACE_PROCESS_FORK, ev->u.task.ppid, ev->pid, NULL, 0);
	return sink_thread(s, ITRACE_THREAD_CREATE, ev->tid, ev->pid, ev->u.task.ptid, NULL, 0);
}

static int sink_lost(struct bts_sink *s, const struct bts_event *ev)
{
	struct itrace_record r;

	memset(&r, 0, sizeof r);
	r.type = ITRACE_REC_LOST;
	r.u.lost.reason = ev->u.lost.reason;
	r.u.lost.unit = ev->u.lost.unit;
	r.u.lost.count = ev->u.lost.count;
	s->lost_events++;
	s->lost_count += ev->u.lost.count;
	return itrace_writer_write(s->w, &r);
}

int bts_sink_event(void *ctx, const struct bts_event *ev)
{
	struct bts_sink *s = ctx;
	int rc;

	switch (ev->type) {
	case BTS_EV_BRANCH:
		rc = sink_switch(s, ev->tid, ev->pid);
		if (rc)
			return rc;
		s->branches++;
		return itrace_write_branch(s->w, ev->u.branch.from, ev->u.branch.to, ITRACE_BRANCH_UNKNOWN,
					   ITRACE_BRANCH_TAKEN);
	case BTS_EV_MMAP:
		return sink_mmap(s, ev);
	case BTS_EV_COMM:
		return sink_comm(s, ev);
	case BTS_EV_FORK:
		return sink_fork(s, ev);
	case BTS_EV_EXIT:
		return sink_thread(s, ITRACE_THREAD_EXIT, ev->tid, ev->pid, 0, NULL, 0);
	case BTS_EV_LOST:
		return sink_lost(s, ev);
	default:
		return -ITRACE_E_INVAL;
	}
}
