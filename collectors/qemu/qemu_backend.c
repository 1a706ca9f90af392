/*
 * qemu_backend.c - `itrace-collect --backend qemu`: run the program under
 * the qemu-user emulator of its architecture (qemu-ppc64le, qemu-ppc64,
 * qemu-x86_64) with the itrace plugin (itrace_qemu_plugin.c) loaded, and
 * convert what the plugin hands over in shared memory (qemu_convert.c),
 * while a second thread of the writer compresses and writes chunks.
 *
 *   itrace-collect --backend qemu [--arch ARCH] [--sysroot DIR] -- prog args
 *
 * The user never types a QEMU command line.  The architecture comes from
 * the program's ELF header (--arch only confirms it); the foreign
 * libraries from --sysroot, else $QEMU_LD_PREFIX, else the Debian cross
 * toolchain's directory (/usr/powerpc64le-linux-gnu for ppc64le).
 * QEMU_CPU is QEMU's own (QEMU_CPU=power10 for POWER10 code).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "backend.h"
#include "cli.h"
#include "collect_paths.h"
#include "collect_writer.h"
#include "guard.h"
#include "gdb_elf.h"
#include "itrace.h"
#include "itrace_format.h"
#include "qemu_convert.h"
#include "qemu_elf.h"
#include "qemu_wire.h"
#include "symbols.h"

#define PLUGIN_NAME "itrace-qemu.so"
#define EM_PPC64_ 21
#define EM_X86_64_ 62
#define POLL_MS 50

/* ---- The emulator, the plugin, the libraries ------------------------------- */

/* What a program of one architecture needs. */
struct qb_arch {
	uint16_t machine;
	uint8_t endian;
	const char *name;	/* as --arch and messages say it */
	const char *qemu;	/* the emulator */
	const char *sysroot;	/* Debian's cross libraries */
	const char *package;	/* the package that installs them */
};

static const struct qb_arch arches[] = {
	{EM_PPC64_, 1, "ppc64le", "qemu-ppc64le", "/usr/powerpc64le-linux-gnu",
	 "libc6-ppc64el-cross"},
	{EM_PPC64_, 2, "ppc64", "qemu-ppc64", "/usr/powerpc64-linux-gnu", "libc6-ppc64-cross"},
	{EM_X86_64_, 1, "x86-64", "qemu-x86_64", "/usr/x86_64-linux-gnu", "libc6-amd64-cross"},
};

static const struct qb_arch *arch_of(uint16_t machine, uint8_t endian)
{
	for (size_t i = 0; i < sizeof(arches) / sizeof(arches[0]); i++)
		if (arches[i].machine == machine && arches[i].endian == endian)
			return &arches[i];
	return NULL;
}

/* Is this machine's own architecture the program's? (no sysroot needed) */
static int is_host_arch(const struct qb_arch *a)
{
	struct utsname un;

	return a->machine == EM_X86_64_ && uname(&un) == 0 && strcmp(un.machine, "x86_64") == 0;
}

struct qb_setup {
	char prog[PATH_MAX];	/* the program as found on $PATH */
	char exe[PATH_MAX];	/* its real path (MMAP records) */
	struct qemu_elf elf;
	const struct qb_arch *arch;
	char qemu[PATH_MAX];
	char plugin[PATH_MAX];
	char sysroot[PATH_MAX]; /* "" = none */
	char interp[PATH_MAX];	/* host path of the dynamic loader, "" if static */
	struct qemu_elf interp_elf;
};

/*
 * The emulator exports the plugin API when it was built with plugin
 * support (Debian's qemu-user is; a static build such as
 * qemu-user-static cannot load plugins at all).
 */
static int has_plugin_api(const char *qemu)
{
	uint64_t off;

	return symbols_file_offset(qemu, "qemu_plugin_register_vcpu_tb_trans_cb", &off) == 0;
}

static int find_qemu(struct qb_setup *s, char *err, size_t errlen)
{
	const char *env = getenv("ITRACE_QEMU");
	const char *name = env && *env ? env : s->arch->qemu;

	if (collect_find_in_path(name, s->qemu, sizeof(s->qemu)) != 0) {
		snprintf(err, errlen, "%s is not installed (apt-get install qemu-user, or set ITRACE_QEMU)",
			 name);
		return -1;
	}
	if (!has_plugin_api(s->qemu)) {
		snprintf(err, errlen,
			 "%s cannot load TCG plugins (built without plugin support, e.g. "
			 "qemu-user-static's static binaries); install qemu-user",
			 s->qemu);
		return -1;
	}
	if (collect_lib_file("ITRACE_QEMU_LIB", "qemu", PLUGIN_NAME, R_OK, s->plugin,
			     sizeof(s->plugin)) != 0) {
		snprintf(err, errlen,
			 "the itrace QEMU plugin (%s) is not installed next to itrace-collect; "
			 "build it with make or set ITRACE_QEMU_LIB",
			 s->plugin);
		return -1;
	}
	return 0;
}

/*
 * Where the foreign libraries are, and the dynamic loader there: QEMU
 * looks up the program's absolute file names under the sysroot first
 * (-L), then on the host.
 */
static int find_interp(const struct collect_options *o, struct qb_setup *s, char *err,
		       size_t errlen)
{
	const char *root = o->sysroot ? o->sysroot : getenv("QEMU_LD_PREFIX");
	char path[PATH_MAX * 2];

	if (!root || !*root)
		root = is_host_arch(s->arch) ? "" : s->arch->sysroot;
	if (*root && access(root, F_OK) != 0) {
		snprintf(err, errlen, "no sysroot '%s' for %s programs (%s; install %s, or give "
			 "--sysroot DIR or QEMU_LD_PREFIX)", root, s->arch->name, strerror(errno),
			 s->arch->package);
		return -1;
	}
	snprintf(s->sysroot, sizeof(s->sysroot), "%s", root);
	s->interp[0] = '\0';
	if (!s->elf.interp[0])
		return 0;
	snprintf(path, sizeof(path), "%s%s", root, s->elf.interp);
	if (!realpath(path, s->interp) && !realpath(s->elf.interp, s->interp)) {
		snprintf(err, errlen,
			 "the %s dynamic loader %s of '%s' is not %s%s (install %s, or give "
			 "--sysroot DIR or QEMU_LD_PREFIX)",
			 s->arch->name, s->elf.interp, s->prog, *root ? "under " : "installed",
			 root, s->arch->package);
		return -1;
	}
	if (qemu_elf_read(s->interp, &s->interp_elf) != 0) {
		snprintf(err, errlen, "cannot read the dynamic loader '%s': %s", s->interp,
			 strerror(errno));
		return -1;
	}
	return 0;
}

/* The program, its architecture, the emulator and the libraries for it. */
static int qb_setup(const struct collect_options *o, struct qb_setup *s, char *err, size_t errlen)
{
	const char *arg0 = o->argv[0];

	memset(s, 0, sizeof(*s));
	if (collect_find_in_path(arg0, s->prog, sizeof(s->prog)) != 0 ||
	    !realpath(s->prog, s->exe)) {
		snprintf(err, errlen, "cannot run '%s': %s", arg0,
			 strchr(arg0, '/') && access(arg0, F_OK) == 0 ? strerror(EACCES)
								  : strerror(ENOENT));
		return -1;
	}
	if (qemu_elf_read(s->exe, &s->elf) != 0 || !s->elf.is_exec) {
		snprintf(err, errlen, "QEMU cannot run '%s': %s", arg0,
			 errno == ENOEXEC || !s->elf.is_exec ? "not an ELF executable" : strerror(errno));
		return -1;
	}
	s->arch = arch_of(s->elf.machine, s->elf.endian);
	if (!s->arch || !s->elf.is64) {
		snprintf(err, errlen,
			 "QEMU cannot run '%s' here: %s%s programs are not supported by the qemu "
			 "backend (ppc64le, ppc64, x86-64)",
			 arg0, s->elf.is64 ? "" : "32-bit ",
			 gdb_elf_machine_name(s->elf.machine, s->elf.endian));
		return -1;
	}
	if (o->arch && strcmp(o->arch, s->arch->name) != 0 &&
	    !(strcmp(o->arch, "x86_64") == 0 && s->arch->machine == EM_X86_64_)) {
		snprintf(err, errlen, "'%s' is a %s program, not %s (--arch)", arg0, s->arch->name,
			 o->arch);
		return -1;
	}
	if (find_qemu(s, err, errlen) != 0)
		return -1;
	return find_interp(o, s, err, errlen);
}

static int qb_probe(const struct collect_options *o, char *err, size_t errlen)
{
	struct qb_setup *s;
	int rc;

	if (collect_refuse_emulated(o, "qemu", "qemu-user", err, errlen))
		return -1;
	if (o->arch && !strstr(" ppc64le ppc64 x86-64 x86_64 ", o->arch)) {
		snprintf(err, errlen, "unknown --arch '%s' (ppc64le, ppc64 or x86-64)", o->arch);
		return -1;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (o->argv) {
		rc = qb_setup(o, s, err, errlen);
	} else { /* --list-backends: can POWER programs be traced here? */
		s->arch = &arches[0];
		rc = find_qemu(s, err, errlen);
	}
	free(s);
	return rc;
}

/* ---- Starting QEMU ------------------------------------------------------------ */

struct qb_child {
	pid_t pid;
	struct collect_guard guard; /* the program's guardian (guard.h) */
	struct qw_shm *shm;
	int shm_fd;
};

static int make_shm(struct qb_child *c)
{
	c->shm_fd = memfd_create("itrace-qemu", MFD_CLOEXEC);
	if (c->shm_fd < 0 || ftruncate(c->shm_fd, (off_t)QW_SHM_BYTES) != 0) {
		cli_error("cannot create the buffer shared with QEMU: %s", strerror(errno));
		return -1;
	}
	c->shm = mmap(NULL, QW_SHM_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, c->shm_fd, 0);
	if (c->shm == MAP_FAILED) {
		cli_error("cannot map the buffer shared with QEMU: %s", strerror(errno));
		c->shm = NULL;
		return -1;
	}
	qw_init(c->shm);
	return 0;
}

/*
 * ITRACE_QEMU_BENCH, for bench/qemu_speed.sh only (bench/README.md, where
 * the time goes): "callbacks": the plugin's callbacks write every thread's
 * words into a scratch buffer that is never handed over; "handoff": the
 * slots are handed over and given back unread.  Either way the trace then
 * holds nothing of the program.
 */
static int bench_mode(const char *mode)
{
	const char *v = getenv("ITRACE_QEMU_BENCH");

	return v && strcmp(v, mode) == 0;
}

/* qemu [-L root] -0 argv0 -plugin PLUGIN,shm=FD,level=L prog args... */
static char **qemu_argv(const struct collect_options *o, const struct qb_setup *s, char *plugin_arg)
{
	size_t n = 0, i = 0;
	char **argv;

	while (o->argv[n])
		n++;
	argv = calloc(n + 10, sizeof(*argv));
	if (!argv)
		return NULL;
	argv[i++] = (char *)s->qemu;
	if (s->sysroot[0]) {
		argv[i++] = "-L";
		argv[i++] = (char *)s->sysroot;
	}
	argv[i++] = "-0"; /* the program sees argv[0] as typed */
	argv[i++] = o->argv[0];
	argv[i++] = "-plugin";
	argv[i++] = plugin_arg;
	argv[i++] = (char *)s->prog;
	for (size_t k = 1; k < n; k++)
		argv[i++] = o->argv[k];
	return argv;
}

static int start_qemu(const struct collect_options *o, const struct qb_setup *s, struct qb_child *c)
{
	char plugin_arg[PATH_MAX + 64];
	char **argv;

	if (make_shm(c) != 0)
		return -1;
	snprintf(plugin_arg, sizeof(plugin_arg), "%s,shm=%d,level=%s%s", s->plugin, c->shm_fd,
		 o->level == ITRACE_LEVEL_BRANCH ? "branch" : "insn",
		 bench_mode("callbacks") ? ",bench=callbacks" : "");
	argv = qemu_argv(o, s, plugin_arg);
	if (!argv) {
		cli_error("out of memory");
		return -1;
	}
	c->pid = guard_fork(&c->guard);
	if (c->pid < 0) {
		cli_error("cannot fork: %s", strerror(errno));
		free(argv);
		return -1;
	}
	if (c->pid == 0) {
		/* The plugin maps the buffer and closes this descriptor at once. */
		fcntl(c->shm_fd, F_SETFD, 0);
		if (strcmp(o->output, "-") == 0)
			dup2(STDERR_FILENO, STDOUT_FILENO); /* stdout carries the trace */
		collect_restore_signals();
		execv(s->qemu, argv);
		fprintf(stderr, "%s: cannot run '%s': %s\n", cli_progname(), s->qemu, strerror(errno));
		_exit(127);
	}
	free(argv);
	close(c->shm_fd);
	c->shm_fd = -1;
	return 0;
}

/* ---- The conversion loop --------------------------------------------------------- */

/* Is the buffer still mapped in the process?  Not after a successful execve. */
static int shm_mapped(pid_t pid)
{
	char path[64], line[512];
	int found = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, "/memfd:itrace-qemu") != NULL;
	fclose(f);
	return found;
}

/*
 * Convert slots as the plugin queues them, giving each back at once.
 * Returns 0 when the stream ended (the process ended or exec'd, or QEMU
 * went away), 1 if interrupted, or a negative code (conversion error).
 * *status is the child's wait status if it was reaped here.
 */
static int pump(struct qemu_conv *conv, struct qb_child *c, struct cli_progress *prog, int *status,
		int *reaped)
{
	struct qw_note note;
	struct qc_state st;
	int idle = 0, unread = bench_mode("handoff");

	for (;;) {
		if (collect_interrupted) {
			guard_kill(&c->guard);
			return 1;
		}
		if (qw_get_note(c->shm, &note, POLL_MS)) {
			int rc;

			idle = 0;
			if (note.slot == QW_NO_SLOT)
				return 0; /* the plugin's last word */
			if (note.slot >= QW_SLOTS || note.words > QW_SLOT_WORDS)
				return -ITRACE_E_CORRUPT;
			rc = unread && note.tid ? 0
					      : qc_slot(conv, &note, qw_slot(c->shm, note.slot),
							note.words);
			/* zero what was read: a slot is read up to its first zero
			 * word when its owner dies (see recover) */
			memset(qw_slot(c->shm, note.slot), 0, (size_t)note.words * 8);
			qw_free_slot(c->shm, note.slot);
			if (rc < 0)
				return rc;
			qc_state(conv, &st);
			cli_progress(prog, st.words);
			continue;
		}
		if (!*reaped && guard_poll(&c->guard, status))
			*reaped = 1;
		if (*reaped && ++idle > 1)
			return 0; /* gone without a last word (killed), notes drained */
		qc_state(conv, &st);
		if (st.exec_pending && !*reaped && !shm_mapped(c->pid))
			return 0; /* the process image is another program's now */
	}
}

/* The words thread state `v` had not handed over (tid 0: descriptions). */
static int recover_slot(struct qemu_conv *conv, struct qw_shm *shm, const struct qw_vcpu *v,
			uint32_t pid)
{
	struct qw_note note = {v->slot, 0, pid, v->tid};

	if (v->slot >= QW_SLOTS)
		return 0;
	note.words = qw_words_written(qw_slot(shm, v->slot), QW_SLOT_WORDS);
	return note.words ? qc_slot(conv, &note, qw_slot(shm, v->slot), note.words) : 0;
}

/*
 * The stream ended.  Without the plugin's last word (a fatal signal: QEMU
 * 7.2 calls no plugin callback then; SIGKILL; an execve that replaced the
 * process), the threads' state is still in the shared memory: first the
 * words they had not handed over.  Then, either way, where each thread's
 * open block stopped (the instruction it last started, or its end).  The
 * thread whose block stopped early is taken as the one a signal hit.
 */
static int recover(struct qemu_conv *conv, struct qw_shm *shm, uint32_t pid, int held)
{
	uint32_t hit = 0;
	int rc = held ? recover_slot(conv, shm, &shm->defs, pid) : 0;

	for (unsigned i = 0; rc >= 0 && i < QW_MAX_VCPUS; i++) {
		const struct qw_vcpu *v = &shm->vcpu[i];
		struct qw_note note = {QW_NO_SLOT, 1, pid, v->tid};
		uint64_t w;

		if (!v->tid)
			continue;
		if (held)
			rc = recover_slot(conv, shm, v, pid);
		if (rc < 0 || !v->n || v->cur >= v->n)
			continue;
		w = ((uint64_t)QW_PARTIAL << QW_TAG_SHIFT) | (v->cur + 1 == v->n ? v->n : v->cur);
		rc = qc_slot(conv, &note, &w, 1);
		if (!hit && v->cur + 1 != v->n)
			hit = v->tid;
	}
	if (rc >= 0 && hit)
		qc_set_ender(conv, hit);
	return rc;
}

static int open_writer(const struct collect_options *o, const struct qb_setup *s, pid_t pid,
		       struct itrace_writer **w)
{
	struct itrace_meta extra[] = {
		{"arch", s->arch->name},
		{"qemu", s->qemu},
		{"sysroot", s->sysroot[0] ? s->sysroot : "/"},
		/* QEMU 7.2 tells plugins nothing about signals: see the README */
		{"signals", "inferred from handler entry and exit status; no si_code, si_addr"},
	};
	uint32_t flags = 0;

	if (o->level == ITRACE_LEVEL_INSN)
		flags |= ITRACE_FF_MEM;
	if (o->insn_bytes && o->level == ITRACE_LEVEL_INSN)
		flags |= ITRACE_FF_INSN_BYTES;
	return collect_writer_open_target(o, "qemu", pid, s->arch->machine, s->arch->endian, flags,
					  extra, sizeof(extra) / sizeof(extra[0]), w);
}

static void fill_options(const struct collect_options *o, const struct qb_setup *s,
			 struct qc_options *q)
{
	memset(q, 0, sizeof(*q));
	q->level = o->level;
	q->insn_bytes = o->insn_bytes;
	q->exe = s->exe;
	q->exe_elf = &s->elf;
	q->interp = s->interp;
	q->interp_elf = s->interp[0] ? &s->interp_elf : NULL;
	q->start_func = o->start_func;
	q->stop_func = o->stop_func;
	q->start_addr = o->start_addr;
	q->stop_addr = o->stop_addr;
	q->has_start_addr = o->has_start_addr;
	q->has_stop_addr = o->has_stop_addr;
	q->only_module = o->only_module;
	q->ring = o->ring;
}

/* --only with a path: compared with the real paths of the mapped files. */
static const char *only_module(const char *m, char *buf)
{
	if (m && strchr(m, '/') && realpath(m, buf))
		return buf;
	return m;
}

struct qb_end {
	int reason, status, ret;
};

/* Footer and exit status from the child's wait status. */
static struct qb_end end_of(int status)
{
	struct qb_end e;

	if (collect_interrupted) {
		e.reason = ITRACE_END_INTERRUPTED;
		e.status = (int)collect_interrupted;
		e.ret = 128 + (int)collect_interrupted;
	} else if (WIFSIGNALED(status)) {
		e.reason = ITRACE_END_CRASHED;
		e.status = WTERMSIG(status);
		e.ret = 128 + e.status;
	} else {
		e.reason = ITRACE_END_COMPLETE;
		e.status = WEXITSTATUS(status);
		e.ret = e.status;
	}
	return e;
}

static int qb_run(const struct collect_options *o, struct collect_result *res)
{
	struct qb_setup *s = malloc(sizeof(*s));
	struct qb_child child = {.shm_fd = -1};
	struct qemu_conv *conv = NULL;
	struct itrace_writer *w = NULL;
	struct cli_progress prog;
	struct qc_options qo;
	struct qc_state st;
	struct qb_end end;
	char err[1024], only[PATH_MAX];
	int rc, status = 0, reaped = 0;
	double t0 = cli_now();

	if (!s || qb_setup(o, s, err, sizeof(err)) != 0) {
		cli_error("%s", s ? err : "out of memory");
		free(s);
		return -1;
	}
	if (start_qemu(o, s, &child) != 0) {
		if (child.shm)
			munmap(child.shm, QW_SHM_BYTES);
		free(s);
		return -1;
	}
	fill_options(o, s, &qo);
	qo.only_module = only_module(o->only_module, only);
	rc = open_writer(o, s, child.pid, &w);
	if (rc == 0) {
		rc = qc_alloc(&qo, s->arch->machine, s->arch->endian, w, &conv);
		if (rc < 0)
			cli_error("cannot convert %s code: %s", s->arch->name, itrace_errstr(rc));
	}
	if (rc < 0) {
		guard_kill(&child.guard);
		guard_wait(&child.guard, &status);
		itrace_writer_abandon(w);
		munmap(child.shm, QW_SHM_BYTES);
		free(s);
		return -1;
	}
	/* Named like the other backends name it (the real path). */
	rc = qc_write_process(conv, ITRACE_PROCESS_START, (uint32_t)child.pid, 0, s->exe);
	cli_progress_init(&prog, "words", 0, o->quiet);
	if (rc >= 0)
		rc = pump(conv, &child, &prog, &status, &reaped);
	cli_progress_end(&prog);
	if (rc < 0 && rc != -ITRACE_E_IO)
		guard_kill(&child.guard);
	guard_wait(&child.guard, &status);
	end = end_of(status);
	qc_state(conv, &st);
	if (rc == 0 && !collect_interrupted)
		rc = recover(conv, child.shm, st.pid, !st.ended);
	qc_state(conv, &st);
	if (rc == 0 && !collect_interrupted)
		rc = qc_finish(conv, end.reason == ITRACE_END_CRASHED ? -(int64_t)end.status
								   : end.status);
	/* After an execve the new program ran untraced to its end. */
	if (rc == 0 && st.exec_pending && !collect_interrupted)
		end.reason = ITRACE_END_DETACHED;
	if (rc < 0) {
		if (rc == -ITRACE_E_CORRUPT || rc == -ITRACE_E_NOENT)
			cli_error("%s", qc_error(conv));
		else
			cli_error("cannot write '%s': %s", o->output, qc_error(conv));
		end.reason = ITRACE_END_ERROR;
		end.status = rc == -ITRACE_E_IO ? EIO : rc == -ITRACE_E_NOENT ? ENOENT : EPROTO;
		end.ret = -1;
	} else if (!st.hello) {
		/* QEMU said why on stderr; the plugin may have too. */
		if (child.shm->error_len)
			cli_error("%s: %.*s", s->qemu, (int)child.shm->error_len, child.shm->error);
		else
			cli_error("%s could not run '%s'", s->qemu, o->argv[0]);
		end.reason = ITRACE_END_ERROR;
		end.status = ENOEXEC;
		end.ret = -1;
	}
	if (rc >= 0 && end.reason != ITRACE_END_ERROR && end.reason != ITRACE_END_INTERRUPTED)
		qc_write_process(conv, ITRACE_PROCESS_EXIT, (uint32_t)child.pid,
				 end.reason == ITRACE_END_CRASHED ? -(int64_t)end.status : end.status,
				 NULL);
	if (rc >= 0)
		end.reason = collect_final_end(o, w, end.reason, &end.status);
	qc_free(conv);
	itrace_writer_stats(w, &res->stats);
	rc = itrace_writer_close(w, end.reason, end.status);
	if (rc < 0 && end.ret >= 0) {
		cli_error("cannot write '%s': %s", o->output, itrace_errstr(rc));
		end.ret = -1;
	}
	munmap(child.shm, QW_SHM_BYTES);
	free(s);
	res->steps = res->stats.insns + res->stats.branches;
	res->seconds = cli_now() - t0;
	res->end_reason = end.reason;
	res->end_status = end.status;
	return end.ret;
}

const struct collect_backend collect_backend_qemu = {
	.name = "qemu",
	.description = "QEMU user-mode emulation with a TCG plugin: every instruction with its "
		       "loads and stores, for ppc64le, ppc64 and x86-64 programs",
	.levels = COLLECT_LEVEL_BIT(ITRACE_LEVEL_INSN) | COLLECT_LEVEL_BIT(ITRACE_LEVEL_BRANCH),
	.probe = qb_probe,
	.run = qb_run,
};
