/*
 * bts_live.c - itrace-collect --backend bts: live branch tracing with
 * Intel's Branch Trace Store through perf_event_open.
 *
 * Two kernel paths (Linux arch/x86/events/intel/bts.c and ds.c; perf's
 * tools/perf/Documentation/intel-bts.txt):
 *   - the intel_bts AUX PMU: the CPU writes 24-byte records straight into
 *     the AUX area we map; PERF_RECORD_AUX records in the data ring say
 *     which stretch belongs to which thread.  Full-trace mode maps the AUX
 *     area writable and drains it; --ring maps it read-only (overwrite)
 *     and keeps the last N records when the program ends.
 *   - the legacy path: a branch-instructions counter with period 1, which
 *     the kernel serves from a per-CPU BTS buffer as ordinary samples
 *     (ip = from, addr = to).  User space only.
 * Sideband (MMAP2, COMM, FORK, EXIT) comes through the same data ring.
 *
 * Before a program is started, probe() names the first condition that
 * fails (CPU vendor, virtual machine, page-table isolation, missing PMU,
 * perf_event_paranoid, locked-memory limit) and how to fix it; the backend
 * never produces an empty "successful" trace.
 *
 * NOTE: nothing in this file has run on BTS hardware.  The conversion it
 * relies on (bts_convert.c, perf_record.c, bts_sink.c) is tested with
 * synthetic inputs; the probe's failure path is tested on an AMD VM.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "backend.h"
#include "bts.h"
#include "bts_live.h"
#include "cli.h"
#include "collect_handlers.h"
#include "collect_writer.h"
#include "maps.h"

#define BTS_DATA_PAGES 64     /* data ring: sideband and legacy samples */
#define BTS_LEGACY_PAGES 1024 /* 4 MiB: legacy samples are 48 bytes each */
#define BTS_AUX_PAGES 1024    /* 4 MiB AUX area */
#define BTS_POLL_MS 10
#define CAP_PERFMON_BIT 38
#define CAP_SYS_ADMIN_BIT 21
#define CAP_IPC_LOCK_BIT 14

/* ---- probing ---------------------------------------------------------- */

static long sys_perf_event_open(struct perf_event_attr *a, pid_t pid, int cpu, int group,
				unsigned long flags)
{
	return syscall(SYS_perf_event_open, a, pid, cpu, group, flags);
}

static int read_long(const char *path, long *v)
{
	FILE *f = fopen(path, "re");
	int ok;

	if (!f)
		return -1;
	ok = fscanf(f, "%ld", v) == 1;
	fclose(f);
	return ok ? 0 : -1;
}

int bts_pmu_type(void)
{
	long t;
	return read_long("/sys/bus/event_source/devices/intel_bts/type", &t) ? -1 : (int)t;
}

/* Effective capability `bit` of this process (from /proc/self/status). */
static int has_cap(int bit)
{
	FILE *f = fopen("/proc/self/status", "re");
	char line[256];
	unsigned long long eff = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof line, f))
		if (sscanf(line, "CapEff: %llx", &eff) == 1)
			break;
	fclose(f);
	return (int)((eff >> bit) & 1);
}

static int paranoid_level(void)
{
	long v;
	return read_long("/proc/sys/kernel/perf_event_paranoid", &v) ? 2 : (int)v;
}

static void legacy_attr(struct perf_event_attr *a)
{
	memset(a, 0, sizeof *a);
	a->size = sizeof *a;
	a->type = PERF_TYPE_HARDWARE;
	a->config = PERF_COUNT_HW_BRANCH_INSTRUCTIONS;
	a->sample_period = 1;
	a->sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_ADDR;
	a->exclude_kernel = 1; /* "BTS is currently only allowed for user-mode" */
	a->exclude_hv = 1;
	a->disabled = 1;
}

static void aux_attr(struct perf_event_attr *a, int type, unsigned spaces)
{
	memset(a, 0, sizeof *a);
	a->size = sizeof *a;
	a->type = (uint32_t)type;
	a->sample_period = 1;
	a->sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_IDENTIFIER;
	a->exclude_kernel = !(spaces & BTS_SPACE_KERNEL);
	a->exclude_user = !(spaces & BTS_SPACE_USER);
	a->exclude_hv = 1;
	a->disabled = 1;
}

/* Locked memory the buffers need versus what this process may lock. */
static int memlock_check(size_t bytes, char *err, size_t errlen)
{
	struct rlimit rl;
	long mlock_kb = 516;

	if (has_cap(CAP_IPC_LOCK_BIT) || paranoid_level() < 0)
		return 0;
	read_long("/proc/sys/kernel/perf_event_mlock_kb", &mlock_kb);
	if (getrlimit(RLIMIT_MEMLOCK, &rl) || rl.rlim_cur == RLIM_INFINITY)
		return 0;
	if (bytes <= (size_t)mlock_kb * 1024 + rl.rlim_cur)
		return 0;
	snprintf(err, errlen,
		 "the BTS buffers need %zu KiB of locked memory but perf_event_mlock_kb (%ld KiB) plus RLIMIT_MEMLOCK (%llu KiB) allow less; raise it with 'ulimit -l %zu' or 'sysctl kernel.perf_event_mlock_kb=%zu'",
		 bytes / 1024, mlock_kb, (unsigned long long)rl.rlim_cur / 1024, bytes / 1024,
		 bytes / 1024);
	return -1;
}

/* Open `a` on ourselves to see what the kernel says; returns errno or 0. */
static int trial_open(struct perf_event_attr *a)
{
	long fd = sys_perf_event_open(a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return errno;
	close((int)fd);
	return 0;
}

static void unsupported_option(const struct collect_options *o, char *err, size_t errlen, int *bad)
{
	const char *what = NULL;

	if (o->start_func || o->has_start_addr)
		what = "--start/--start-addr";
	else if (o->stop_func || o->has_stop_addr)
		what = "--stop/--stop-addr";
	else if (o->only_module)
		what = "--only";
	else if (o->remote)
		what = "--remote";
	if (what) {
		snprintf(err, errlen, "%s is not supported by the bts backend (the hardware traces the whole program); use --backend ptrace",
			 what);
		*bad = 1;
	}
}

/* bts_spaces_of - --user/--kernel as a filter; user space when neither. */
static unsigned bts_spaces_of(const struct collect_options *o)
{
	unsigned spaces = (o->user ? BTS_SPACE_USER : 0) | (o->kernel ? BTS_SPACE_KERNEL : 0);

	return spaces ? spaces : BTS_SPACE_USER;
}

/* Pick the kernel path for `spaces`, or say which condition fails. */
static int bts_choose_path(unsigned spaces, int paranoid, int privileged, struct bts_method *m,
			   char *err, size_t errlen)
{
	struct perf_event_attr a;
	struct bts_cpu_facts cpu;
	char why[512];
	int e;

#if !defined(__x86_64__)
	snprintf(err, errlen, "Intel BTS exists only on x86-64; use --backend ptrace");
	return -1;
#endif
	m->pmu_type = bts_pmu_type();
	if (m->pmu_type >= 0) {
		if (paranoid > 1 && !privileged) {
			snprintf(err, errlen,
				 "kernel.perf_event_paranoid is %d but intel_bts needs 1 or less (or CAP_PERFMON); run 'sysctl kernel.perf_event_paranoid=1'",
				 paranoid);
			return -1;
		}
		aux_attr(&a, m->pmu_type, spaces);
		e = trial_open(&a);
		if (e == EACCES || e == EPERM) {
			snprintf(err, errlen, "intel_bts refused access (%s); run 'sysctl kernel.perf_event_paranoid=1' or grant CAP_PERFMON",
				 strerror(e));
			return -1;
		}
		if (e == EBUSY) {
			snprintf(err, errlen, "intel_bts is busy: another perf session or LBR user holds the branch hardware; stop it and retry");
			return -1;
		}
		if (e) {
			snprintf(err, errlen, "cannot open the intel_bts PMU: %s", strerror(e));
			return -1;
		}
		m->aux = 1;
		return memlock_check(((size_t)1 + BTS_DATA_PAGES + BTS_AUX_PAGES) * (size_t)getpagesize(),
				     err, errlen);
	}

	/* No intel_bts: try the legacy path (user space only). */
	bts_cpu_facts(&cpu);
	bts_explain_missing_pmu(&cpu, why, sizeof why);
	if (spaces & BTS_SPACE_KERNEL) {
		snprintf(err, errlen, "no intel_bts PMU (%s), and the legacy BTS path cannot trace the kernel; use --backend ptrace", why);
		return -1;
	}
	if (paranoid > 2 && !privileged) {
		snprintf(err, errlen,
			 "no intel_bts PMU (%s), and kernel.perf_event_paranoid is %d, which blocks the legacy BTS path; run 'sysctl kernel.perf_event_paranoid=2'",
			 why, paranoid);
		return -1;
	}
	legacy_attr(&a);
	e = trial_open(&a);
	if (e) {
		snprintf(err, errlen,
			 "no Intel BTS on this machine: no intel_bts PMU (%s), and the legacy BTS path (branch-instructions, period 1) failed: %s; use --backend ptrace",
			 why, strerror(e));
		return -1;
	}
	m->legacy = 1;
	return memlock_check(((size_t)1 + BTS_LEGACY_PAGES) * (size_t)getpagesize(), err, errlen);
}


int bts_choose_method(const struct collect_options *o, unsigned spaces, struct bts_method *m,
		      char *err, size_t errlen)
{
	int bad = 0, paranoid = paranoid_level();
	int privileged = has_cap(CAP_PERFMON_BIT) || has_cap(CAP_SYS_ADMIN_BIT);

	memset(m, 0, sizeof *m);
	/* The hardware first, so --list-backends tells whether BTS works here. */
	if (bts_choose_path(spaces, paranoid, privileged, m, err, errlen))
		return -1;
	if (o->level != ITRACE_LEVEL_BRANCH) {
		snprintf(err, errlen, "the bts backend records branches only; use --level branch (and itrace-fill for the instructions)");
		return -1;
	}
	unsupported_option(o, err, errlen, &bad);
	return bad ? -1 : 0;
}
static int bts_probe(const struct collect_options *o, char *err, size_t errlen)
{
	struct bts_method m;
	return bts_choose_method(o, bts_spaces_of(o), &m, err, errlen);
}

/* ---- one traced stream: event fd, data ring, AUX area ----------------- */

struct stream {
	int fd;
	struct perf_event_mmap_page *pg;
	uint8_t *data;	/* data ring */
	size_t data_size;
	uint8_t *aux;	/* AUX area (NULL on the legacy path) */
	size_t aux_size;
	size_t map_size;
};

/*
 * One stream per traced thread at start: the program we start has one;
 * with -p, every thread the process has when we attach.  Threads created
 * later are followed by the kernel (inherit) into their creator's stream.
 */
#define BTS_MAX_STREAMS 256

struct live {
	const struct collect_options *o;
	struct bts_method m;
	unsigned spaces;
	struct stream s[BTS_MAX_STREAMS];
	struct bts_ring ring[BTS_MAX_STREAMS]; /* ring[i] reads s[i]'s mappings */
	pid_t tid[BTS_MAX_STREAMS];
	size_t n;
	struct bts_sink sink;
	struct itrace_writer *w;
	pid_t pid;
	int reaped; /* the program we started has been waited for */
};

static int live_event(void *ctx, const struct bts_event *ev);

static int stream_open(struct live *L, size_t i, pid_t pid)
{
	struct stream *S = &L->s[i];
	struct bts_ring *R = &L->ring[i];
	struct perf_event_attr a;
	size_t page = (size_t)getpagesize();
	size_t data_pages = L->m.legacy ? BTS_LEGACY_PAGES : BTS_DATA_PAGES;

	if (L->m.legacy)
		legacy_attr(&a);
	else
		aux_attr(&a, L->m.pmu_type, L->spaces);
	a.mmap = a.mmap2 = a.comm = a.comm_exec = a.task = 1;
	a.sample_id_all = 1;
	a.enable_on_exec = !L->o->attach_pid;
	a.disabled = !L->o->attach_pid;
	a.inherit = 1;
	a.inherit_thread = !L->o->follow_fork;
	S->fd = (int)sys_perf_event_open(&a, pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (S->fd < 0) {
		cli_error("cannot open the BTS event for thread %d: %s", (int)pid, strerror(errno));
		return -1;
	}
	S->map_size = (1 + data_pages) * page;
	S->pg = mmap(NULL, S->map_size, PROT_READ | PROT_WRITE, MAP_SHARED, S->fd, 0);
	if (S->pg == MAP_FAILED) {
		cli_error("cannot map the perf data ring (%zu KiB): %s; raise 'ulimit -l'", S->map_size / 1024,
			  strerror(errno));
		return -1;
	}
	S->data = (uint8_t *)S->pg + page;
	S->data_size = data_pages * page;
	R->pg = S->pg;
	R->data = S->data;
	R->data_size = S->data_size;
	R->legacy = L->m.legacy;
	R->overwrite = !!L->o->ring;
	R->spaces = L->spaces;
	R->fn = live_event;
	R->ctx = L;
	L->tid[i] = pid;
	if (L->m.legacy)
		return 0;
	/* AUX area after the data ring; read-only = overwrite (snapshot) mode. */
	S->aux_size = BTS_AUX_PAGES * page;
	while (L->o->ring && S->aux_size / 2 >= L->o->ring * BTS_RECORD_SIZE * 2 && S->aux_size > 2 * page)
		S->aux_size /= 2;
	S->pg->aux_offset = S->map_size;
	S->pg->aux_size = S->aux_size;
	S->aux = mmap(NULL, S->aux_size, L->o->ring ? PROT_READ : PROT_READ | PROT_WRITE, MAP_SHARED,
			S->fd, (off_t)S->map_size);
	if (S->aux == MAP_FAILED) {
		cli_error("cannot map the BTS AUX area (%zu KiB): %s; raise 'ulimit -l' or kernel.perf_event_mlock_kb",
			  S->aux_size / 1024, strerror(errno));
		S->aux = NULL;
		return -1;
	}
	R->aux = S->aux;
	R->aux_size = S->aux_size;
	return 0;
}

static void stream_close(struct stream *s)
{
	if (!s->pg && s->fd < 0)
		return;
	if (s->aux)
		munmap(s->aux, s->aux_size);
	if (s->pg && s->pg != MAP_FAILED)
		munmap(s->pg, s->map_size);
	if (s->fd >= 0)
		close(s->fd);
}

/*
 * Our own vDSO: the kernel maps the same image into every process, so its
 * bytes describe the traced program's [vdso] too (at its own address).
 */
static size_t own_vdso(const uint8_t **bytes)
{
	FILE *f = fopen("/proc/self/maps", "re");
	char line[512];
	unsigned long long lo, hi;
	size_t len = 0;

	*bytes = (const uint8_t *)getauxval(AT_SYSINFO_EHDR);
	if (!f || !*bytes) {
		if (f)
			fclose(f);
		return 0;
	}
	while (fgets(line, sizeof line, f))
		if (strstr(line, "[vdso]") && sscanf(line, "%llx-%llx", &lo, &hi) == 2 &&
		    lo == (unsigned long long)(uintptr_t)*bytes) {
			len = (size_t)(hi - lo);
			break;
		}
	fclose(f);
	return len;
}

/* Mappings reported by the kernel carry no build-id; read it from the file. */
static int live_event(void *ctx, const struct bts_event *ev)
{
	struct live *L = ctx;

	if (ev->type == BTS_EV_MMAP && ev->u.mmap.path_len == 6 && !memcmp(ev->u.mmap.path, "[vdso]", 6)) {
		const uint8_t *vdso;
		size_t n = own_vdso(&vdso);
		int rc = bts_sink_event(&L->sink, ev);
		if (!rc && n && n == ev->u.mmap.len)
			rc = bts_sink_code(&L->sink, ev->u.mmap.start, vdso, n);
		return rc;
	}
	if (ev->type == BTS_EV_MMAP && !ev->u.mmap.buildid_len && ev->u.mmap.path_len &&
	    ev->u.mmap.path[0] == '/') {
		struct bts_event e = *ev;
		e.u.mmap.buildid_len = (uint8_t)maps_buildid(ev->u.mmap.path, e.u.mmap.buildid, ITRACE_BUILDID_MAX);
		return bts_sink_event(&L->sink, &e);
	}
	return bts_sink_event(&L->sink, ev);
}

/* ---- starting the program --------------------------------------------- */

/* Fork the child stopped on a pipe; it execs when released. */
static pid_t spawn(const struct collect_options *o, int *go_fd, int *err_fd)
{
	int go[2], errp[2];
	pid_t pid;

	if (pipe2(go, O_CLOEXEC) || pipe2(errp, O_CLOEXEC))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		char c;
		int e;
		close(go[1]);
		close(errp[0]);
		if (read(go[0], &c, 1) != 1)
			_exit(127);
		if (!o->aslr)
			personality(ADDR_NO_RANDOMIZE);
		execvp(o->argv[0], o->argv);
		e = errno;
		if (write(errp[1], &e, sizeof e) < 0)
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(errp[1]);
	*go_fd = go[1];
	*err_fd = errp[0];
	return pid;
}

static int exit_code(int status, int *end, int *end_status)
{
	if (WIFSIGNALED(status)) {
		*end = ITRACE_END_CRASHED;
		*end_status = WTERMSIG(status);
		return 128 + WTERMSIG(status);
	}
	*end = ITRACE_END_COMPLETE;
	*end_status = WEXITSTATUS(status);
	return WEXITSTATUS(status);
}

static int write_process(struct live *L, uint8_t event, int64_t status, const char *name)
{
	return emit_process(&L->sink.out, event, (uint32_t)L->pid, 0, status, name);
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int drain_all(struct live *L)
{
	for (size_t i = 0; i < L->n; i++) {
		int rc = bts_ring_drain(&L->ring[i]);
		if (rc)
			return rc;
	}
	return 0;
}

static void close_all(struct live *L)
{
	for (size_t i = 0; i < L->n; i++) {
		stream_close(&L->s[i]);
		bts_ring_fini(&L->ring[i]);
	}
	L->n = 0;
}

static int ioctl_all(struct live *L, unsigned long req)
{
	int bad = 0;
	for (size_t i = 0; i < L->n; i++)
		bad |= ioctl(L->s[i].fd, req, 0) != 0;
	return bad ? -1 : 0;
}

/* Open a stream for every thread of an attached process (/proc/PID/task). */
static int open_attached(struct live *L)
{
	char path[64];
	struct dirent *d;
	DIR *dir;
	int rc = 0;

	snprintf(path, sizeof path, "/proc/%d/task", (int)L->pid);
	dir = opendir(path);
	if (!dir) {
		cli_error("cannot attach to process %d: %s", (int)L->pid, strerror(errno));
		return -1;
	}
	while (!rc && (d = readdir(dir))) {
		char *end;
		long tid = strtol(d->d_name, &end, 10);
		if (*end || tid <= 0)
			continue;
		if (L->n == BTS_MAX_STREAMS) {
			cli_error("process %d has more than %d threads; the bts backend traces at most that many",
				  (int)L->pid, BTS_MAX_STREAMS);
			rc = -1;
			break;
		}
		L->s[L->n].fd = -1;
		rc = stream_open(L, L->n, (pid_t)tid);
		L->n++;
	}
	closedir(dir);
	return rc;
}

/* Poll until the program ends (or we are interrupted), draining as we go. */
static int trace_loop(struct live *L, int *status, int *interrupted)
{
	struct pollfd pfd[BTS_MAX_STREAMS];

	for (size_t i = 0; i < L->n; i++)
		pfd[i] = (struct pollfd){.fd = L->s[i].fd, .events = POLLIN};
	for (;;) {
		int rc = drain_all(L);
		if (rc)
			return rc;
		if (collect_interrupted) {
			*interrupted = 1;
			return 0;
		}
		if (!L->o->attach_pid) {
			pid_t r = waitpid(L->pid, status, WNOHANG);
			if (r == L->pid) {
				L->reaped = 1;
				return 0;
			}
		} else if (kill(L->pid, 0) && errno == ESRCH) {
			*status = 0;
			return 0;
		}
		poll(pfd, L->n, BTS_POLL_MS);
	}
}

static int bts_run(const struct collect_options *o, struct collect_result *res)
{
	struct live L;
	char err[768];
	int go_fd = -1, err_fd = -1, status = 0, interrupted = 0, end, end_status, code, rc;
	double t0 = now();
	uint64_t steps = 0;
	struct itrace_meta extra[1];

	memset(&L, 0, sizeof L);
	L.o = o;
	L.spaces = bts_spaces_of(o);
	if (bts_choose_method(o, L.spaces, &L.m, err, sizeof err)) {
		cli_error("bts backend unavailable: %s", err);
		return -1;
	}
	extra[0] = (struct itrace_meta){"bts_path", L.m.legacy ? "legacy" : o->ring ? "intel_bts snapshot" : "intel_bts"};
	if (o->attach_pid) {
		L.pid = o->attach_pid;
	} else {
		L.pid = spawn(o, &go_fd, &err_fd);
		if (L.pid < 0) {
			cli_error("cannot start '%s': %s", o->argv[0], strerror(errno));
			return -1;
		}
	}
	if (o->attach_pid) {
		rc = open_attached(&L);
	} else {
		L.s[0].fd = -1;
		L.n = 1;
		rc = stream_open(&L, 0, L.pid);
	}
	if (rc || collect_writer_open(o, "bts", L.pid, ITRACE_FF_TAKEN_ONLY, extra, 1, &L.w)) {
		if (!o->attach_pid) {
			kill(L.pid, SIGKILL);
			waitpid(L.pid, NULL, 0);
		}
		close_all(&L);
		return -1;
	}
	bts_sink_init(&L.sink, L.w, L.spaces);
	rc = write_process(&L, ITRACE_PROCESS_START, 0, o->attach_pid ? NULL : o->argv[0]);
	if (!rc && o->attach_pid) {
		rc = maps_write_process(&L.sink.out, L.pid, NULL, NULL) < 0 ? -ITRACE_E_IO : 0;
		if (!rc && ioctl_all(&L, PERF_EVENT_IOC_ENABLE))
			rc = -ITRACE_E_IO;
	}
	if (!o->attach_pid) {
		int e = 0;
		if (write(go_fd, "g", 1) != 1 || read(err_fd, &e, sizeof e) == (ssize_t)sizeof e) {
			waitpid(L.pid, NULL, 0);
			cli_error("cannot run '%s': %s", o->argv[0], strerror(e ? e : EPIPE));
			itrace_writer_close(L.w, ITRACE_END_ERROR, e);
			bts_sink_fini(&L.sink);
			close_all(&L);
			return -1;
		}
		close(go_fd);
		close(err_fd);
	}
	if (!rc)
		rc = trace_loop(&L, &status, &interrupted);
	ioctl_all(&L, PERF_EVENT_IOC_DISABLE);
	if (!rc)
		rc = drain_all(&L);
	for (size_t i = 0; !rc && o->ring && i < L.n; i++)
		rc = bts_ring_snapshot(&L.ring[i], (uint32_t)L.pid, (uint32_t)L.tid[i], o->ring);
	if (!o->attach_pid && !L.reaped) {
		/* Interrupted, or the trace failed: a program we started does not outlive us. */
		kill(L.pid, SIGKILL);
		waitpid(L.pid, &status, 0);
	}
	if (interrupted) {
		if (o->attach_pid) {
			end = ITRACE_END_DETACHED;
			end_status = 0;
			code = 0;
		} else {
			end = ITRACE_END_INTERRUPTED;
			end_status = (int)collect_interrupted;
			code = 128 + (int)collect_interrupted;
		}
	} else {
		code = exit_code(status, &end, &end_status);
		if (!rc)
			rc = write_process(&L, ITRACE_PROCESS_EXIT, end == ITRACE_END_CRASHED ? -end_status : end_status, NULL);
	}
	for (size_t i = 0; i < L.n; i++)
		steps += L.ring[i].cst.records;
	close_all(&L);
	bts_sink_fini(&L.sink);
	if (rc) {
		cli_error("writing the trace failed: %s", itrace_errstr(rc));
		itrace_writer_close(L.w, ITRACE_END_ERROR, -rc);
		return -1;
	}
	if (!L.sink.branches && !interrupted) {
		/* Never claim an empty trace is a successful one. */
		cli_error("the BTS hardware delivered no branches for '%s'; the trace is marked as failed",
			  o->attach_pid ? "the process" : o->argv[0]);
		itrace_writer_close(L.w, ITRACE_END_ERROR, ENODATA);
		return -1;
	}
	collect_handlers_finish();
	itrace_writer_stats(L.w, &res->stats);
	res->end_reason = end;
	res->end_status = end_status;
	res->steps = steps;
	res->seconds = now() - t0;
	if (itrace_writer_close(L.w, end, end_status)) {
		cli_error("cannot finish the trace '%s'", o->output);
		return -1;
	}
	return code;
}

const struct collect_backend collect_backend_bts = {
	.name = "bts",
	.description = "Intel Branch Trace Store via perf (taken branches, near native speed)",
	.levels = COLLECT_LEVEL_BIT(ITRACE_LEVEL_BRANCH),
	.probe = bts_probe,
	.run = bts_run,
};
