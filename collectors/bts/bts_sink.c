/*
 * bts_sink.c - write BTS events as itrace records.
 *
 * BTS cannot classify branches (it records only from/to), so BRANCH
 * records have kind "unknown" and the taken flag; the file carries
 * ITRACE_FF_TAKEN_ONLY so that itrace-fill knows that every conditional
 * branch between two records fell through.  perf's EXIT records carry no
 * exit status, so THREAD exit records from sideband say 0.
 *
 * When the recording saw a program exec, the sink also marks where it
 * started (TRACE_CTL on at the ELF entry of its interpreter or of the
 * executable, see bts_entry.c) before its first branch, so that the fill
 * recovers the code between the entry and the first taken branch.
 *
 * BTS records a user-to-kernel crossing even when the kernel is not
 * traced.  If the instruction there is a system call (read from the
 * mapped file, as perf classifies BTS branches), it is written as a
 * SYSCALL branch to the instruction after it, where the kernel returns;
 * this is what lets the fill walk to a program's final exit.  Interrupts
 * and faults resume at the interrupted instruction: they are dropped.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

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
	s->out = emit_writer_sink(w);
	s->include_kernel_maps = !!(spaces & BTS_SPACE_KERNEL);
}

void bts_sink_fini(struct bts_sink *s)
{
	for (size_t i = 0; i < s->nmaps; i++)
		free(s->maps[i].path);
	free(s->maps);
	s->maps = NULL;
	s->nmaps = s->capmaps = 0;
}

static int sink_switch(struct bts_sink *s, uint32_t tid, uint32_t pid);

static int remember_map(struct bts_sink *s, const struct bts_event *ev)
{
	struct bts_map *m;

	if (!ev->u.mmap.path_len || ev->u.mmap.path[0] != '/')
		return 0;
	if (s->nmaps == s->capmaps) {
		size_t ncap = s->capmaps ? s->capmaps * 2 : 16;
		m = realloc(s->maps, ncap * sizeof *m);
		if (!m)
			return -ITRACE_E_NOMEM;
		s->maps = m;
		s->capmaps = ncap;
	}
	m = &s->maps[s->nmaps];
	m->path = malloc(ev->u.mmap.path_len + 1);
	if (!m->path)
		return -ITRACE_E_NOMEM;
	memcpy(m->path, ev->u.mmap.path, ev->u.mmap.path_len);
	m->path[ev->u.mmap.path_len] = 0;
	m->pid = ev->pid;
	m->start = ev->u.mmap.start;
	m->len = ev->u.mmap.len;
	m->pgoff = ev->u.mmap.pgoff;
	s->nmaps++;
	return 0;
}

/* Is the instruction at `addr` of `pid` syscall, sysenter or int 0x80? */
static int is_syscall_insn(const struct bts_sink *s, uint32_t pid, uint64_t addr)
{
	for (size_t i = s->nmaps; i-- > 0;) {
		const struct bts_map *m = &s->maps[i];
		uint8_t b[2];
		int fd, ok;

		if (m->pid != pid || addr < m->start || addr - m->start >= m->len)
			continue;
		fd = open(m->path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return 0;
		ok = pread(fd, b, 2, (off_t)(m->pgoff + (addr - m->start))) == 2;
		close(fd);
		return ok && ((b[0] == 0x0f && (b[1] == 0x05 || b[1] == 0x34)) || (b[0] == 0xcd && b[1] == 0x80));
	}
	return 0;
}

static int sink_kentry(struct bts_sink *s, const struct bts_event *ev)
{
	int rc;

	if (!is_syscall_insn(s, ev->pid, ev->u.branch.from)) {
		s->kentries_dropped++;
		return 0;
	}
	rc = sink_switch(s, ev->tid, ev->pid);
	if (rc)
		return rc;
	s->syscalls++;
	/* All three system call instructions are two bytes long. */
	return emit_branch(&s->out, ev->u.branch.from, ev->u.branch.from + 2, ITRACE_BRANCH_SYSCALL,
			   ITRACE_BRANCH_TAKEN);
}

/* Make `tid` the current thread before writing its branches. */
static int sink_switch(struct bts_sink *s, uint32_t tid, uint32_t pid)
{
	int rc;

	if (s->have_tid && s->cur_tid == tid)
		return 0;
	rc = emit_thread(&s->out, ITRACE_THREAD_SWITCH, tid, pid, 0);
	if (rc)
		return rc;
	s->cur_tid = tid;
	s->have_tid = 1;
	return 0;
}

static const char *base_of(const char *p, size_t n, size_t *len)
{
	const char *b = p;
	for (size_t i = 0; i < n; i++)
		if (p[i] == '/')
			b = p + i + 1;
	*len = n - (size_t)(b - p);
	return b;
}

/* After an exec: the executable's code mapping, then its interpreter's. */
static void track_exec_mapping(struct bts_sink *s, const struct bts_event *ev)
{
	char path[ITRACE_PATH_MAX + 1], interp[256];
	uint64_t entry;
	size_t a, b;

	if (!s->exec.state || s->exec.state == 3 || ev->pid != s->exec.pid || !ev->u.mmap.path_len ||
	    ev->u.mmap.path[0] != '/' || ev->u.mmap.path_len > ITRACE_PATH_MAX)
		return;
	memcpy(path, ev->u.mmap.path, ev->u.mmap.path_len);
	path[ev->u.mmap.path_len] = 0;
	if (s->exec.state == 2) {
		const char *x = base_of(path, strlen(path), &a), *y = base_of(s->exec.interp, strlen(s->exec.interp), &b);
		if (a != b || memcmp(x, y, a))
			return;
	}
	if (bts_elf_entry(path, ev->u.mmap.start, ev->u.mmap.pgoff, &entry, interp, sizeof interp)) {
		s->exec.state = 0;
		return;
	}
	if (s->exec.state == 1 && interp[0]) {
		memcpy(s->exec.interp, interp, sizeof interp);
		s->exec.state = 2;
		return;
	}
	s->exec.entry = entry;
	s->exec.state = 3;
}

/* TRACE_CTL on at the program's entry, before its first branch. */
static int sink_start(struct bts_sink *s)
{
	s->exec.state = 0;
	return emit_ctl(&s->out, 1, ITRACE_CTL_START, s->exec.entry);
}

int bts_sink_code(struct bts_sink *s, uint64_t addr, const uint8_t *bytes, size_t len)
{
	s->vdso_code++;
	return emit_code(&s->out, addr, bytes, len);
}

/*
 * perf keeps the vDSO of a recording in its build-id cache as
 * <dir>/[vdso]/<build-id hex>/vdso; a CODE record with those bytes lets
 * the fill walk through vDSO calls.
 */
/* Returns the bytes read (malloc'd in *out), 0 if not cached, or < 0. */
static ssize_t vdso_from_cache(struct bts_sink *s, const struct bts_event *ev, uint8_t **out)
{
	char path[ITRACE_PATH_MAX], hex[2 * ITRACE_BUILDID_MAX + 1];
	size_t max = ev->u.mmap.len < ITRACE_CODE_MAX ? (size_t)ev->u.mmap.len : ITRACE_CODE_MAX;
	uint8_t *buf;
	ssize_t n;
	int fd;

	*out = NULL;
	if (!s->buildid_dir || !ev->u.mmap.buildid_len || ev->u.mmap.path_len != 6 ||
	    memcmp(ev->u.mmap.path, "[vdso]", 6) || !max)
		return 0;
	for (unsigned i = 0; i < ev->u.mmap.buildid_len; i++)
		sprintf(hex + 2 * i, "%02x", ev->u.mmap.buildid[i]);
	if (snprintf(path, sizeof path, "%s/[vdso]/%s/vdso", s->buildid_dir, hex) >= (int)sizeof path)
		return 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0; /* not cached: the fill reports the vDSO as code it cannot see */
	buf = malloc(max);
	if (!buf) {
		close(fd);
		return -ITRACE_E_NOMEM;
	}
	n = pread(fd, buf, max, 0);
	close(fd);
	if (n <= 0) {
		free(buf);
		return 0;
	}
	*out = buf;
	return n;
}

static int sink_mmap(struct bts_sink *s, const struct bts_event *ev)
{
	struct itrace_mmap m;

	if (!(ev->u.mmap.prot & PROT_EXEC))
		return 0; /* only code matters for filling */
	if (ev->u.mmap.kernel && !s->include_kernel_maps)
		return 0;
	track_exec_mapping(s, ev);
	if (remember_map(s, ev))
		return -ITRACE_E_NOMEM;
	memset(&m, 0, sizeof m);
	m.start = ev->u.mmap.start;
	m.len = ev->u.mmap.len;
	m.pgoff = ev->u.mmap.pgoff;
	m.pid = ev->pid;
	m.prot = ev->u.mmap.prot;
	m.buildid_len = ev->u.mmap.buildid_len;
	memcpy(m.buildid, ev->u.mmap.buildid, ev->u.mmap.buildid_len);
	m.path = ev->u.mmap.path;
	m.path_len = ev->u.mmap.path_len;
	s->mmaps++;
	uint8_t *code;
	ssize_t n = vdso_from_cache(s, ev, &code);
	if (n < 0)
		return (int)n;
	if (n > 0)
		m.buildid_len = 0; /* the CODE record says what is there, as collectors write it */
	int rc = emit_mmap(&s->out, &m);
	if (!rc && n > 0)
		rc = bts_sink_code(s, ev->u.mmap.start, code, (size_t)n);
	free(code);
	return rc;
}

static int sink_comm(struct bts_sink *s, const struct bts_event *ev)
{
	int rc = 0;

	if (ev->u.comm.exec) {
		s->exec.pid = ev->pid;
		s->exec.state = 1;
	}
	if (ev->u.comm.exec)
		rc = emit_process_n(&s->out, ITRACE_PROCESS_EXEC, ev->pid, 0, 0, ev->u.comm.name,
				    ev->u.comm.name_len);
	if (!rc)
		rc = emit_thread_name(&s->out, ev->tid, ev->pid, ev->u.comm.name, ev->u.comm.name_len);
	return rc;
}

static int sink_fork(struct bts_sink *s, const struct bts_event *ev)
{
	if (ev->pid != ev->u.task.ppid)
		return emit_process(&s->out, ITRACE_PROCESS_FORK, ev->u.task.ppid, ev->pid, 0, NULL);
	return emit_thread(&s->out, ITRACE_THREAD_CREATE, ev->tid, ev->pid, ev->u.task.ptid);
}

static int sink_lost(struct bts_sink *s, const struct bts_event *ev)
{
	s->lost_events++;
	s->lost_count += ev->u.lost.count;
	return emit_lost(&s->out, ev->u.lost.reason, ev->u.lost.unit, ev->u.lost.count);
}

int bts_sink_event(void *ctx, const struct bts_event *ev)
{
	struct bts_sink *s = ctx;
	int rc;

	switch (ev->type) {
	case BTS_EV_BRANCH:
		rc = sink_switch(s, ev->tid, ev->pid);
		if (!rc && s->exec.state && ev->tid == s->exec.pid)
			rc = s->exec.state == 3 ? sink_start(s) : (s->exec.state = 0);
		if (rc)
			return rc;
		s->branches++;
		return emit_branch(&s->out, ev->u.branch.from, ev->u.branch.to, ITRACE_BRANCH_UNKNOWN,
				   ITRACE_BRANCH_TAKEN);
	case BTS_EV_MMAP:
		return sink_mmap(s, ev);
	case BTS_EV_COMM:
		return sink_comm(s, ev);
	case BTS_EV_FORK:
		return sink_fork(s, ev);
	case BTS_EV_EXIT:
		return emit_thread(&s->out, ITRACE_THREAD_EXIT, ev->tid, ev->pid, 0);
	case BTS_EV_LOST:
		return sink_lost(s, ev);
	case BTS_EV_KENTRY:
		return sink_kentry(s, ev);
	default:
		return -ITRACE_E_INVAL;
	}
}
