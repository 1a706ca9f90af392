/*
 * vg_backend.c - `itrace-collect --backend valgrind`: run the program
 * under Valgrind with the itrace tool (itrace_tool.c) and turn the words
 * it sends through a pipe into a trace (vg_convert.c).
 *
 * The tool binary is executed directly (as Valgrind's launcher would,
 * with --tool and VALGRIND_LAUNCHER set), so no VALGRIND_LIB reaches the
 * program's environment; the core finds its preload library in its own
 * installation.  Valgrind's messages go to a private log file and are
 * shown only when it fails, so the program's stdout and stderr are its own.
 */
#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "backend.h"
#include "cli.h"
#include "collect_paths.h"
#include "collect_program.h"
#include "collect_writer.h"
#include "guard.h"
#include "itrace.h"
#include "maps.h"
#include "symbols.h"
#include "vg_convert.h"
#include "vg_wire.h"

#ifndef ITRACE_VG_VERSION
#define ITRACE_VG_VERSION "unknown"
#endif

#define VG_TOOL_NAME "itrace-amd64-linux"
#define VG_LAUNCH_NAME "itrace-vg-launch" /* beside the tool: vg_launch.c */
#define VG_SHM_BYTES ((size_t)VGW_SLOTS * VGW_SLOT_WORDS * 8)

/* ---- Finding valgrind and the tool ---------------------------------------- */

static const char *valgrind_name(void)
{
	const char *v = getenv("ITRACE_VALGRIND");
	return v && *v ? v : "valgrind";
}

/* "3.19.0" from `valgrind --version` ("valgrind-3.19.0"); -1 if it fails. */
static int valgrind_version(const char *launcher, char *ver, size_t verlen)
{
	int fds[2], status;
	char buf[128];
	ssize_t n, got = 0;
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC) != 0)
		return -1;
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (pid == 0) {
		dup2(fds[1], 1);
		execl(launcher, launcher, "--version", (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	while (got < (ssize_t)sizeof(buf) - 1 &&
	       (n = read(fds[0], buf + got, sizeof(buf) - 1 - (size_t)got)) > 0)
		got += n;
	close(fds[0]);
	buf[got] = '\0';
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (strncmp(buf, "valgrind-", 9) != 0)
		return -1;
	snprintf(ver, verlen, "%.*s", (int)strcspn(buf + 9, "\n -"), buf + 9);
	return 0;
}

/* Major and minor of "3.19.0" must match: the tool carries that core. */
static int same_release(const char *a, const char *b)
{
	unsigned amaj, amin, bmaj, bmin;

	if (sscanf(a, "%u.%u", &amaj, &amin) != 2 || sscanf(b, "%u.%u", &bmaj, &bmin) != 2)
		return 0;
	return amaj == bmaj && amin == bmin;
}

struct vg_setup {
	char launcher[PATH_MAX];
	char tool[PATH_MAX];
	char launch[PATH_MAX];	/* itrace-vg-launch: runs the tool for exec'd programs */
	char version[32];
};

static int vg_find_once(struct vg_setup *s, char *err, size_t errlen)
{
	if (collect_find_in_path(valgrind_name(), s->launcher, sizeof(s->launcher)) != 0) {
		snprintf(err, errlen,
			 "valgrind is not installed (apt-get install valgrind, or set ITRACE_VALGRIND)");
		return -1;
	}
	if (valgrind_version(s->launcher, s->version, sizeof(s->version)) != 0) {
		snprintf(err, errlen, "'%s --version' does not answer like valgrind", s->launcher);
		return -1;
	}
	if (strcmp(ITRACE_VG_VERSION, "") == 0 || strcmp(ITRACE_VG_VERSION, "unknown") == 0) {
		snprintf(err, errlen, "itrace was built without valgrind's development files "
				      "(apt-get install valgrind; then rebuild itrace)");
		return -1;
	}
	if (!same_release(s->version, ITRACE_VG_VERSION)) {
		snprintf(err, errlen,
			 "valgrind %s is installed but itrace's tool was built for valgrind %s: "
			 "rebuild itrace (make)",
			 s->version, ITRACE_VG_VERSION);
		return -1;
	}
	if (collect_lib_file("ITRACE_VALGRIND_LIB", "valgrind", VG_TOOL_NAME, X_OK, s->tool,
			     sizeof(s->tool)) != 0 ||
	    collect_lib_file("ITRACE_VALGRIND_LIB", "valgrind", VG_LAUNCH_NAME, X_OK, s->launch,
			     sizeof(s->launch)) != 0) {
		snprintf(err, errlen,
			 "the itrace valgrind tool (%s, %s) is not installed next to itrace-collect; "
			 "build it with make or set ITRACE_VALGRIND_LIB",
			 VG_TOOL_NAME, VG_LAUNCH_NAME);
		return -1;
	}
	return 0;
}

/* vg_find - vg_find_once(), kept: the probe and the run find the same
 * valgrind, and `valgrind --version` is a fork and three execs (3.5 ms
 * of start-up, measured on /bin/true). */
static int vg_find(struct vg_setup *s, char *err, size_t errlen)
{
	static struct vg_setup found;
	static int have;

	if (!have) {
		if (vg_find_once(&found, err, errlen) != 0)
			return -1;
		have = 1;
	}
	*s = found;
	return 0;
}

static int vg_probe(const struct collect_options *o, char *err, size_t errlen)
{
	struct vg_setup s;

	if (collect_refuse_emulated(o, "valgrind", "valgrind", err, errlen))
		return -1;
	if (o->ring) {
		snprintf(err, errlen, "--ring is not supported by the valgrind backend");
		return -1;
	}
	if (o->insn_bytes) {
		snprintf(err, errlen, "--insn-bytes is not supported by the valgrind backend "
				      "(tools read the code from the mapped files); use --backend ptrace");
		return -1;
	}
	return vg_find(&s, err, errlen);
}

/* ---- Starting the program ------------------------------------------------- */

/* Valgrind's and the tool's options (the program's arguments follow). */
#define VG_MAX_OPTS 24

struct vg_child {
	pid_t pid;
	struct collect_guard guard; /* the program's guardian (guard.h) */
	int rd;			/* read end of the notes pipe */
	int ack;		/* write end of the acknowledgement pipe */
	uint64_t *shm;		/* the slots, shared with the tool */
	char logdir[256];
	char logfile[300];
};

static void add_arg(char **argv, int *argc, char *s)
{
	if (*argc < VG_MAX_OPTS)
		argv[(*argc)++] = s;
}

/* The module --only names, as the tool will compare it with file names
 * ("main": the tool finds the executable in the memory map). */
static void only_arg(const struct collect_options *o, char *buf, size_t len)
{
	char real[PATH_MAX];

	if (strcmp(o->only_module, "main") == 0)
		snprintf(buf, len, "--itrace-only=main");
	else if (strchr(o->only_module, '/') && realpath(o->only_module, real))
		snprintf(buf, len, "--itrace-only=%s", real);
	else
		snprintf(buf, len, "--itrace-only=%s", o->only_module);
}

/*
 * Valgrind writes its messages to a descriptor it never moves out of the
 * program's sight (--log-file and --log-fd alike), so the program would
 * see one more open file and get other descriptor numbers than without
 * valgrind.  Valgrind keeps the top VG_RESERVED_FDS descriptors below its
 * RLIMIT_NOFILE (raising the soft limit by that much where the hard limit
 * allows, else lowering the program's) and refuses them to the program;
 * it allocates its own from the bottom of that range.  The log goes to
 * the top one.  Returns its number, or -1 if there is none.
 */
#define VG_RESERVED_FDS 12

static int hidden_fd_number(void)
{
	struct rlimit rl;
	rlim_t top;

	if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY ||
	    rl.rlim_cur > (rlim_t)INT_MAX - VG_RESERVED_FDS || rl.rlim_cur < 3 * VG_RESERVED_FDS)
		return -1;
	top = rl.rlim_cur + VG_RESERVED_FDS;
	if (rl.rlim_max != RLIM_INFINITY && top > rl.rlim_max)
		top = rl.rlim_max;
	return (int)top - 1;
}

/* In the child: put `fd` at `target`, raising the soft limit for the
 * moment where dup2 needs it, and restore the limit. */
static int hide_fd(int fd, int target)
{
	struct rlimit rl, raised;
	int rc;

	if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
		return -1;
	raised = rl;
	if ((rlim_t)target >= rl.rlim_cur) {
		raised.rlim_cur = (rlim_t)target + 1;
		if (setrlimit(RLIMIT_NOFILE, &raised) != 0)
			return -1;
	}
	rc = dup2(fd, target) == target ? 0 : -1;
	setrlimit(RLIMIT_NOFILE, &rl);
	return rc;
}

/*
 * The channels to the tool, all close-on-exec here: fds[0]/[1] the notes
 * pipe (tool writes), fds[2]/[3] the acknowledgement pipe (tool reads),
 * fds[4] the shared slots (a memory file, also mapped at c->shm).
 */
static int open_channels(struct vg_child *c, int fds[5])
{
	int shm;

	if (pipe2(fds, O_CLOEXEC) != 0 || pipe2(fds + 2, O_CLOEXEC) != 0) {
		cli_error("cannot create a pipe: %s", strerror(errno));
		return -1;
	}
	shm = memfd_create("itrace-valgrind", MFD_CLOEXEC);
	if (shm < 0 || ftruncate(shm, (off_t)VG_SHM_BYTES) != 0) {
		cli_error("cannot create the buffer shared with valgrind: %s", strerror(errno));
		return -1;
	}
	c->shm = mmap(NULL, VG_SHM_BYTES, PROT_READ, MAP_SHARED, shm, 0);
	if (c->shm == MAP_FAILED) {
		cli_error("cannot map the buffer shared with valgrind: %s", strerror(errno));
		close(shm);
		return -1;
	}
	fds[4] = shm;
	return 0;
}

static void close_channels(struct vg_child *c, int fds[5])
{
	for (int i = 0; i < 5; i++)
		close(fds[i]);
	munmap(c->shm, VG_SHM_BYTES);
	c->shm = NULL;
}

/*
 * sweep_logdirs - remove the log directories that collectors killed with
 * SIGKILL left in `tmp`: "itrace-vg.PID.XXXXXX" of a PID that no longer
 * exists, owned by us, holding at most valgrind.log.
 */
static void sweep_logdirs(const char *tmp)
{
	DIR *d = opendir(tmp);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d)) != NULL) {
		char path[PATH_MAX], log[PATH_MAX + 16];
		struct stat st;
		char *end;
		long pid;

		if (strncmp(e->d_name, "itrace-vg.", 10) != 0)
			continue;
		pid = strtol(e->d_name + 10, &end, 10);
		if (pid <= 0 || *end != '.' || pid == getpid() || kill((pid_t)pid, 0) == 0 ||
		    errno != ESRCH)
			continue;
		snprintf(path, sizeof(path), "%s/%s", tmp, e->d_name);
		if (lstat(path, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid())
			continue;
		snprintf(log, sizeof(log), "%s/valgrind.log", path);
		unlink(log);
		rmdir(path);
	}
	closedir(d);
}

/*
 * A trigger function of a position-dependent program, by address as well
 * as by name: Valgrind 3.19 reads no symbols of an executable without a
 * writable segment (a -nostdlib program), so the tool would never see
 * the name there.
 */
static int fixed_trigger(const struct collect_options *o, const char *func, uint64_t *addr)
{
	char path[PATH_MAX];

	return func && collect_find_in_path(o->argv[0], path, sizeof(path)) == 0 &&
	       symbols_fixed_address(path, func, addr) == 0;
}

static int start_valgrind(const struct collect_options *o, const struct vg_setup *s,
			  struct vg_child *c)
{
	char fdarg[32], ackarg[32], shmarg[32], logarg[320], levelarg[32], onlyarg[PATH_MAX + 20];
	char startarg[300], stoparg[300], saddr[64], eaddr[64];
	uint64_t start_addr = 0, stop_addr = 0;
	const char *tmp = getenv("TMPDIR");
	int fds[5], argc = 0, logfd, log_target;
	size_t nprog = 0;
	char **argv;

	if (!tmp || !*tmp || strlen(tmp) > sizeof(c->logdir) - 40)
		tmp = "/tmp";
	sweep_logdirs(tmp);
	/* our pid in the name: a later run removes it if we are killed */
	snprintf(c->logdir, sizeof(c->logdir), "%s/itrace-vg.%d.XXXXXX", tmp, (int)getpid());
	if (!mkdtemp(c->logdir)) {
		cli_error("cannot create a temporary directory in %s: %s", tmp, strerror(errno));
		return -1;
	}
	while (o->argv[nprog])
		nprog++;
	argv = calloc(VG_MAX_OPTS + nprog + 1, sizeof(*argv));
	if (!argv) {
		cli_error("out of memory");
		return -1;
	}
	snprintf(c->logfile, sizeof(c->logfile), "%s/valgrind.log", c->logdir);
	if (open_channels(c, fds) != 0)
		return -1;
	snprintf(fdarg, sizeof(fdarg), "--itrace-fd=%d", fds[1]);
	snprintf(ackarg, sizeof(ackarg), "--itrace-ack-fd=%d", fds[2]);
	snprintf(shmarg, sizeof(shmarg), "--itrace-shm-fd=%d", fds[4]);
	logfd = open(c->logfile, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (logfd < 0) {
		cli_error("cannot create '%s': %s", c->logfile, strerror(errno));
		close_channels(c, fds);
		return -1;
	}
	log_target = hidden_fd_number();
	snprintf(logarg, sizeof(logarg), "--log-fd=%d", log_target >= 0 ? log_target : logfd);
	snprintf(levelarg, sizeof(levelarg), "--itrace-level=%s",
		 o->level == ITRACE_LEVEL_BRANCH ? "branch" : "insn");
	add_arg(argv, &argc, (char *)s->tool);
	add_arg(argv, &argc, "--tool=itrace");
	add_arg(argv, &argc, "-q");
	add_arg(argv, &argc, logarg);
	/* Valgrind runs libc's and libstdc++'s cleanup at exit, which the
	 * program alone does not: off, so the trace is the program's. */
	/* No gdbserver: its FIFOs in $TMPDIR outlive a valgrind killed with
	 * the collector (SIGKILL), and nothing here talks to it. */
	add_arg(argv, &argc, "--vgdb=no");
	add_arg(argv, &argc, "--run-libc-freeres=no");
	add_arg(argv, &argc, "--run-cxx-freeres=no");
	add_arg(argv, &argc, fdarg);
	add_arg(argv, &argc, ackarg);
	add_arg(argv, &argc, shmarg);
	add_arg(argv, &argc, levelarg);
	if (o->only_module) {
		only_arg(o, onlyarg, sizeof(onlyarg));
		add_arg(argv, &argc, onlyarg);
	}
	if (o->start_func) {
		snprintf(startarg, sizeof(startarg), "--itrace-start=%s", o->start_func);
		add_arg(argv, &argc, startarg);
	}
	if (o->stop_func) {
		snprintf(stoparg, sizeof(stoparg), "--itrace-stop=%s", o->stop_func);
		add_arg(argv, &argc, stoparg);
	}
	if (o->has_start_addr || fixed_trigger(o, o->start_func, &start_addr)) {
		snprintf(saddr, sizeof(saddr), "--itrace-start-addr=%llx",
			 (unsigned long long)(o->has_start_addr ? o->start_addr : start_addr));
		add_arg(argv, &argc, saddr);
	}
	if (o->has_stop_addr || fixed_trigger(o, o->stop_func, &stop_addr)) {
		snprintf(eaddr, sizeof(eaddr), "--itrace-stop-addr=%llx",
			 (unsigned long long)(o->has_stop_addr ? o->stop_addr : stop_addr));
		add_arg(argv, &argc, eaddr);
	}
	/* The program as typed: valgrind searches $PATH like execvp, and
	 * the program sees argv[0] unchanged. */
	memcpy(argv + argc, o->argv, nprog * sizeof(*argv));
	argv[argc + nprog] = NULL;

	c->pid = guard_fork(&c->guard);
	if (c->pid < 0) {
		cli_error("cannot fork: %s", strerror(errno));
		close_channels(c, fds);
		close(logfd);
		free(argv);
		return -1;
	}
	if (c->pid == 0) {
		/* The tool's ends must survive exec; it moves them out of
		 * the program's sight before the program starts. */
		fcntl(fds[1], F_SETFD, 0);
		fcntl(fds[2], F_SETFD, 0);
		fcntl(fds[4], F_SETFD, 0);
		if (log_target < 0) {
			fcntl(logfd, F_SETFD, 0);
		} else if (hide_fd(logfd, log_target) != 0) {
			fprintf(stderr, "%s: cannot move valgrind's log to descriptor %d: %s\n",
				cli_progname(), log_target, strerror(errno));
			_exit(127);
		}
		/* the program inherits the dispositions the collector found
		 * (its own SIGPIPE is ignored), as under any other backend */
		collect_restore_signals();
		setenv("VALGRIND_LAUNCHER", s->launch, 1);
		unsetenv("VALGRIND_LIB");
		execv(s->tool, argv);
		fprintf(stderr, "%s: cannot run '%s': %s\n", cli_progname(), s->tool, strerror(errno));
		_exit(127);
	}
	close(fds[1]);
	close(fds[2]);
	close(fds[4]);
	close(logfd);
	free(argv);
	c->rd = fds[0];
	c->ack = fds[3];
	return 0;
}

/* First lines of valgrind's log, for an error message. */
static void show_log(const struct vg_child *c)
{
	char line[512];
	int shown = 0;
	FILE *f = fopen(c->logfile, "r");

	if (!f)
		return;
	while (shown < 8 && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (line[0] == '\0')
			continue;
		fprintf(stderr, "%s: valgrind: %s\n", cli_progname(), line);
		shown++;
	}
	fclose(f);
}

static void remove_logdir(const struct vg_child *c)
{
	unlink(c->logfile);
	rmdir(c->logdir);
}

/* ---- The conversion loop ---------------------------------------------------- */

/*
 * At the program's entry point (the tool waits for this), as the ptrace
 * backend checks there: a --start/--stop function defined by none of the
 * files mapped executable, or an --only module not mapped, is an error
 * before the program's own code runs.  Returns 0, or -1 after the error.
 */
static int check_at_entry(const struct collect_options *o, const struct vg_convert *c)
{
	const char *const *files = (const char *const *)c->code_files;
	int found = 0;

	if (o->start_func && !symbols_defined_in(files, c->n_code_files, o->start_func)) {
		symbols_error_missing("--start", o->start_func);
		return -1;
	}
	if (o->stop_func && !symbols_defined_in(files, c->n_code_files, o->stop_func)) {
		symbols_error_missing("--stop", o->stop_func);
		return -1;
	}
	if (!o->only_module || strcmp(o->only_module, "main") == 0)
		return 0;
	for (size_t i = 0; i < c->n_code_files && !found; i++)
		found = maps_module_matches(c->code_files[i], o->only_module, "");
	if (!found)
		cli_error("--only: no executable mapping of '%s' in process %u", o->only_module, c->pid);
	return found ? 0 : -1;
}

/* pump's answer when a check at the entry point failed (already said). */
#define VG_FAILED_AT_ENTRY (-1000)
/* The bench's dump (below) could not be written: conv.error says so. */
#define VG_DUMP_FAILED (-1001)

/*
 * ITRACE_VG_BENCH=tool, for bench/valgrind_speed.sh only: after the tool's
 * HELLO, every slot goes back unread, so that a run times the tool and the
 * hand-over alone (bench/README.md, where the time goes).  The trace then
 * holds nothing of the program.
 */
static int bench_tool_only(void)
{
	const char *v = getenv("ITRACE_VG_BENCH");

	return v && strcmp(v, "tool") == 0;
}

/*
 * ITRACE_VG_BENCH=dump:FILE, for bench/vg_replay.sh only: every slot the
 * tool hands over is also written to FILE (created, or truncated), as its
 * length in bytes (64 bits, the machine's order) and its words, so that
 * bench/vg_replay can convert the same words again, without Valgrind and
 * its noise.  The trace is made as usual.  Returns NULL when not asked.
 */
static const char *bench_dump_path(void)
{
	const char *v = getenv("ITRACE_VG_BENCH");

	return v && strncmp(v, "dump:", 5) == 0 && v[5] ? v + 5 : NULL;
}

/* dump_slot - append one slot to the dump (above); 0 or VG_DUMP_FAILED. */
static int dump_slot(FILE *dump, const uint64_t *words, uint64_t bytes, struct vg_convert *conv)
{
	if (fwrite(&bytes, sizeof(bytes), 1, dump) == 1 &&
	    fwrite(words, 1, (size_t)bytes, dump) == (size_t)bytes)
		return 0;
	snprintf(conv->error, sizeof(conv->error), "cannot write '%s': %s", bench_dump_path(),
		 strerror(errno));
	return VG_DUMP_FAILED;
}

/*
 * Convert the slots as the tool announces them, giving each back at once.
 * Returns 0 at the end of the notes, 1 if interrupted, VG_FAILED_AT_ENTRY,
 * VG_DUMP_FAILED, or a negative -ITRACE_E_* code.
 */
static int pump(const struct collect_options *o, struct vg_convert *conv, const struct vg_child *c,
		struct cli_progress *prog, FILE *dump)
{
	uint64_t notes[64];
	uint8_t acks[64];
	size_t have = 0; /* bytes of notes read */
	int rc = 0, tool_only = bench_tool_only();

	memset(acks, 1, sizeof(acks));
	for (;;) {
		ssize_t n;
		size_t count;

		if (collect_interrupted)
			return 1; /* guard_wait() kills the program */
		/* Once a second the trace reaches the file, also while the
		 * program sleeps (the ticker's SIGALRM interrupts the read). */
		if ((rc = itrace_writer_tick(conv->w)) < 0) {
			snprintf(conv->error, sizeof(conv->error), "%s", strerror(errno));
			return rc;
		}
		n = read(c->rd, (char *)notes + have, sizeof(notes) - have);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		have += (size_t)n;
		count = have / 8;
		for (size_t i = 0; i < count && rc >= 0; i++) {
			uint64_t slot = notes[i] >> 32, bytes = notes[i] & 0xffffffffu, used;
			if (slot >= VGW_SLOTS || bytes > VGW_SLOT_WORDS * 8 || bytes % 8) {
				snprintf(conv->error, sizeof(conv->error), "tool stream: bad note %#llx",
					 (unsigned long long)notes[i]);
				return -ITRACE_E_CORRUPT;
			}
			if (tool_only && conv->hello) {
				conv->exited = 1; /* (the EXIT event is not read either) */
				continue;
			}
			if (dump && (rc = dump_slot(dump, c->shm + slot * VGW_SLOT_WORDS, bytes, conv)) < 0)
				return rc;
			rc = vg_convert_words(conv, c->shm + slot * VGW_SLOT_WORDS, bytes / 8, &used);
			if (rc >= 0 && used != bytes / 8) {
				snprintf(conv->error, sizeof(conv->error),
					 "tool stream: record cut at the end of a slot");
				rc = -ITRACE_E_CORRUPT;
			}
		}
		if (rc < 0)
			return rc;
		if (conv->at_entry) {
			conv->at_entry = 0;
			if (check_at_entry(o, conv) != 0)
				return VG_FAILED_AT_ENTRY;
		}
		/* The tool may be waiting for a slot: give them back.  After
		 * its last slot it has closed its end (EPIPE): nothing waits. */
		if (count && write(c->ack, acks, count) < 0 && errno != EPIPE) {
			snprintf(conv->error, sizeof(conv->error), "cannot answer valgrind: %s",
				 strerror(errno));
			return -ITRACE_E_IO;
		}
		have -= count * 8;
		memmove(notes, (char *)notes + count * 8, have);
		cli_progress(prog, conv->words);
	}
	return rc;
}

/* ---- A fatal signal ----------------------------------------------------------- */

/* Valgrind's words for the si_code of a fault (its default_action()). */
static const struct fault_text {
	int signo, code;
	const char *text;
} fault_texts[] = {
	{SIGSEGV, 1, "Access not within mapped region"},
	{SIGSEGV, 2, "Bad permissions for mapped region"},
	{SIGSEGV, 0x80, "General Protection Fault"},
	{SIGILL, 1, "Illegal opcode"},
	{SIGILL, 2, "Illegal operand"},
	{SIGILL, 3, "Illegal addressing mode"},
	{SIGILL, 4, "Illegal trap"},
	{SIGILL, 5, "Privileged opcode"},
	{SIGILL, 6, "Privileged register"},
	{SIGILL, 7, "Coprocessor error"},
	{SIGILL, 8, "Internal stack error"},
	{SIGFPE, 1, "Integer divide by zero"},
	{SIGFPE, 2, "Integer overflow"},
	{SIGFPE, 3, "FP divide by zero"},
	{SIGFPE, 4, "FP overflow"},
	{SIGFPE, 5, "FP underflow"},
	{SIGFPE, 6, "FP inexact"},
	{SIGFPE, 7, "FP invalid operation"},
	{SIGFPE, 8, "FP subscript out of range"},
	{SIGBUS, 1, "Invalid address alignment"},
	{SIGBUS, 2, "Non-existent physical address"},
	{SIGBUS, 3, "Hardware error"},
};

/*
 * si_code and si_addr of the fault that killed the program: Valgrind
 * reports a fatal signal from the kernel (even with -q) as "Process
 * terminating with default action of signal N", then the fault in words
 * and its address.  Returns 1 if the log has it.
 */
static int fault_from_log(const struct vg_child *c, int signo, struct itrace_signal *sig)
{
	char line[512], head[64];
	FILE *f = fopen(c->logfile, "r");
	int found = 0, armed = 0;

	if (!f)
		return 0;
	snprintf(head, sizeof(head), "Process terminating with default action of signal %d ", signo);
	while (!found && fgets(line, sizeof(line), f)) {
		const char *text = strstr(line, "== "), *at;

		text = text ? text + 3 : line;
		if (strstr(text, head)) {
			armed = 1;
			continue;
		}
		if (!armed)
			continue;
		armed = 0;
		while (*text == ' ')
			text++;
		for (size_t i = 0; i < sizeof(fault_texts) / sizeof(fault_texts[0]); i++) {
			const struct fault_text *t = &fault_texts[i];

			if (t->signo != signo || strncmp(text, t->text, strlen(t->text)) != 0)
				continue;
			sig->code = t->code;
			at = strstr(text, " at address ");
			sig->addr = at ? strtoull(at + 12, NULL, 16) : 0;
			found = 1;
			break;
		}
	}
	fclose(f);
	return found;
}

/*
 * The SIGNAL record of the signal that killed the program, as the ptrace
 * backend writes it: in the thread that got it (the tool's FATAL event),
 * at its pc, no handler.  si_code and si_addr: a fault's from Valgrind's
 * report; an int3's SIGTRAP SI_KERNEL; a signal the thread sent itself
 * (abort, raise) SI_TKILL or SI_USER; else SI_USER, another process's
 * kill.
 */
static int write_fatal_signal(struct vg_convert *conv, const struct vg_child *c, int signo)
{
	struct itrace_signal sig;

	memset(&sig, 0, sizeof(sig));
	sig.signo = (uint32_t)signo;
	if (fault_from_log(c, signo, &sig))
		; /* a fault Valgrind described */
	else if (signo == SIGTRAP && conv->fatal_after_int3)
		sig.code = SI_KERNEL; /* an int3, as the kernel reports it */
	else if (conv->kill_tid == conv->fatal_tid && conv->kill_sig == (uint64_t)signo &&
		 conv->kill_nr != SYS_kill)
		sig.code = SI_TKILL;
	return vg_convert_fatal_signal(conv, &sig);
}

static int vg_run(const struct collect_options *o, struct collect_result *res)
{
	struct vg_setup s;
	struct vg_child child;
	struct vg_convert conv;
	struct itrace_writer *w = NULL;
	struct cli_progress prog;
	struct itrace_meta extra[1];
	char err[512], prog_path[PATH_MAX], real_path[PATH_MAX];
	int rc, status = 0, end, end_status, ret, e, io_errno;
	double t0 = cli_now();
	const char *dump_path = bench_dump_path();
	FILE *dump = NULL;

	if (vg_find(&s, err, sizeof(err)) != 0) {
		cli_error("%s", err);
		return -1;
	}
	/* The program as execvp would find it: valgrind needs a path, and a
	 * clear error here beats valgrind's own message. */
	e = collect_resolve_program(o->argv[0], prog_path, sizeof(prog_path));
	if (e) {
		cli_error("cannot run '%s': %s", o->argv[0], strerror(e));
		return -1;
	}
	if (collect_is_setid(prog_path)) {
		cli_error("cannot run '%s' under valgrind: it is set-user-ID or set-group-ID, which "
			  "Valgrind refuses (use --backend ptrace)", o->argv[0]);
		return -1;
	}
	if (dump_path && !(dump = fopen(dump_path, "we"))) {
		cli_error("cannot open '%s': %s", dump_path, strerror(errno));
		return -1;
	}
	if (start_valgrind(o, &s, &child) != 0) {
		if (dump)
			fclose(dump);
		return -1;
	}
	extra[0] = (struct itrace_meta){"valgrind", s.version};
	if (collect_writer_open(o, "valgrind", child.pid, vg_trace_flags(o->level), extra, 1,
				&w) != 0) {
		if (dump)
			fclose(dump);
		guard_kill(&child.guard);
		guard_wait(&child.guard, &status);
		close(child.rd);
		close(child.ack);
		munmap(child.shm, VG_SHM_BYTES);
		remove_logdir(&child);
		return -1;
	}
	/* Named like the ptrace backend names it (/proc/PID/exe). */
	vg_convert_init(&conv, w, o->only_module != NULL);
	rc = emit_process(&conv.out, ITRACE_PROCESS_START, (uint32_t)child.pid, 0, 0,
			  realpath(prog_path, real_path) ? real_path : prog_path);
	cli_progress_init(&prog, "words", 0, o->quiet);
	collect_ticker_start();
	if (rc >= 0)
		rc = pump(o, &conv, &child, &prog, dump);
	io_errno = errno;
	if (dump && fclose(dump) != 0 && rc >= 0) {
		snprintf(conv.error, sizeof(conv.error), "cannot write '%s': %s", dump_path,
			 strerror(errno));
		io_errno = errno;
		rc = VG_DUMP_FAILED;
	}
	collect_ticker_stop();
	cli_progress_end(&prog);
	close(child.rd);
	close(child.ack);
	munmap(child.shm, VG_SHM_BYTES);
	if (rc < 0 && rc != -ITRACE_E_CORRUPT)
		guard_kill(&child.guard);
	guard_wait(&child.guard, &status);
	if (rc == VG_FAILED_AT_ENTRY) {
		vg_convert_free(&conv);
		itrace_writer_stats(w, &res->stats);
		itrace_writer_close(w, ITRACE_END_ERROR, ENOENT);
		remove_logdir(&child);
		return -1;
	}

	if (collect_interrupted) {
		end = ITRACE_END_INTERRUPTED;
		end_status = (int)collect_interrupted;
		ret = 128 + (int)collect_interrupted;
	} else if (WIFSIGNALED(status)) {
		end = ITRACE_END_CRASHED;
		end_status = WTERMSIG(status);
		ret = 128 + end_status;
	} else {
		end = ITRACE_END_COMPLETE;
		end_status = WEXITSTATUS(status);
		ret = end_status;
	}
	if (rc == 0 && !collect_interrupted && end == ITRACE_END_CRASHED && conv.fatal)
		rc = write_fatal_signal(&conv, &child, end_status);
	if (rc == 0 && !collect_interrupted)
		rc = vg_convert_finish(&conv, end == ITRACE_END_CRASHED ? -(int64_t)end_status
									: end_status);
	if (rc == 0 && !collect_interrupted && conv.exec_seen) {
		/* An exec'd program the tool could not run ran natively. */
		cli_warn("'%s' was not traced (%s): it ran natively, and the trace ends at its execve",
			 conv.exec_path,
			 conv.exec_follow == VGW_EXEC_SETUID ? "set-user-ID or set-group-ID: Valgrind "
							       "cannot give it its privileges"
			 : conv.exec_follow == VGW_EXEC_FOREIGN ? "not an x86-64 program"
			 : conv.exec_follow == VGW_EXEC_UNKNOWN ? "execveat relative to a directory"
			 : "Valgrind did not start it");
		end = ITRACE_END_DETACHED;
	}
	if (rc < 0) {
		/* the dump's errors name the dump */
		if (rc == -ITRACE_E_CORRUPT || rc == VG_DUMP_FAILED)
			cli_error("%s", conv.error);
		else
			cli_error("cannot write '%s': %s", o->output, conv.error);
		end = ITRACE_END_ERROR;
		end_status = rc == -ITRACE_E_IO || rc == VG_DUMP_FAILED ? io_errno : EPROTO;
		ret = -1;
	} else if (!conv.hello) {
		/* Valgrind never started the tool: its log says why. */
		cli_error("valgrind could not run '%s'", o->argv[0]);
		show_log(&child);
		end = ITRACE_END_ERROR;
		end_status = ENOEXEC;
		ret = -1;
	} else if (!conv.exited && !conv.exec_seen && end == ITRACE_END_COMPLETE) {
		/* Valgrind ended without the tool's exit: a fatal valgrind error. */
		cli_error("valgrind stopped before '%s' ended", o->argv[0]);
		show_log(&child);
		end = ITRACE_END_ERROR;
		end_status = EPROTO;
	}
	if (rc >= 0 && (end == ITRACE_END_COMPLETE || end == ITRACE_END_CRASHED))
		emit_process(&conv.out, ITRACE_PROCESS_EXIT, (uint32_t)child.pid, 0,
			     end == ITRACE_END_CRASHED ? -(int64_t)end_status : end_status, NULL);
	if (rc >= 0)
		end = collect_final_end(o, w, end, &end_status);
	vg_convert_free(&conv);
	itrace_writer_stats(w, &res->stats);
	rc = itrace_writer_close(w, end, end_status);
	if (rc < 0 && ret >= 0) {
		cli_error("cannot write '%s': %s", o->output, cli_errstr(rc));
		ret = -1;
	}
	remove_logdir(&child);
	res->steps = res->stats.insns + res->stats.branches;
	res->seconds = cli_now() - t0;
	res->end_reason = end;
	res->end_status = end_status;
	return ret;
}

const struct collect_backend collect_backend_valgrind = {
	.name = "valgrind",
	.description = "Valgrind dynamic instrumentation: every instruction with its loads and "
		       "stores at JIT speed (programs it starts, x86-64)",
	.levels = COLLECT_LEVEL_BIT(ITRACE_LEVEL_INSN) | COLLECT_LEVEL_BIT(ITRACE_LEVEL_BRANCH),
	.probe = vg_probe,
	.run = vg_run,
};
