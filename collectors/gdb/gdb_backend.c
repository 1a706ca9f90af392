/*
 * gdb_backend.c - itrace-collect --backend gdb: trace a program through
 * the gdb remote serial protocol, single-stepping it.
 *
 *   itrace-collect --backend gdb --remote HOST:PORT [-- prog]
 *       a gdb stub already runs the program (gdbserver, qemu -g, a
 *       simulator); naming the program lets --start/--stop use its symbols
 *       and puts its mapping into the trace.
 *   itrace-collect --backend gdb -- prog args
 *       starts `qemu-<arch> -g PORT prog args` for the program's ELF
 *       machine (qemu-ppc64le for ppc64le, ...), which is how POWER code is
 *       traced on an x86-64 machine.
 *
 * Each step: read the registers ('g'), the instruction bytes ('m', cached),
 * compute its loads/stores with libitrace's decoder and the registers, write
 * INSN and MEM records (or BRANCH records at branch level, once the next
 * pc is known), then 's'.  --start FUNC sets a Z0 breakpoint and runs at
 * full speed ('c') until it is hit; tracing then lasts until FUNC returns,
 * or until --stop is reached.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>


#include "../backend.h"
#include "../collect_handlers.h"
#include "../collect_writer.h"
#include "../emit.h"
#include "../guard.h"
#include "../maps.h"
#include "../trigger.h"
#include "cli.h"
#include "arch_ppc.h"
#include "gdb_arch.h"
#include "gdb_elf.h"
#include "gdb_target.h"
#include "itrace.h"
#include "itrace_code.h"
#include "itrace_format.h"

#define QEMU_CONNECT_WAIT_MS 10000
#define REMOTE_CONNECT_WAIT_MS 2000
#define GDB_SIGTRAP 5

struct gdb_session {
	const struct collect_options *opts;
	struct gdb_target t;
	const char *prog;	   /* program path (NULL: unknown, remote) */
	struct gdb_elf elf;
	int have_elf;
	pid_t child;		   /* stub we started (qemu, gdbserver), or 0 */
	struct collect_guard guard; /* its guardian (guard.h) */
	const char *stub;	   /* its name */
	int proc_maps;		   /* a native stub on this machine: /proc/PID/maps */
	struct maps_seen seen;	   /* mappings already written from it */
	char remote[300];
	uint32_t pid, tid;
	uint64_t bias;		   /* run-time address - ELF address */
	struct itrace_decoder *dec;
	struct itrace_writer *w;
	struct emit_sink out; /* w as the sink of emit.h */
	uint64_t start[2], stop[2];
	int n_start, n_stop;
	int stepping;		   /* tracing (single-stepping) now */
	int bp_inserted;
	int window;		   /* --start without --stop: until FUNC returns */
	uint64_t window_ret, window_sp;
	int pending_sig;	   /* gdb signal to deliver with the next resume */
	/* branch level: the instruction just stepped */
	int prev_valid;
	uint64_t prev_addr;
	unsigned prev_len;
	int prev_kind;
	int in_syscall;		   /* the step just made was a system call */
	int prev_rep;		   /* ... an x86 rep string instruction: */
	struct itrace_insn_info rep_in;	/* it, */
	struct itrace_regs rep_before;	/* the registers before the step */
	uint8_t rep_bytes[16];		/* and its bytes */
	int undecoded;		   /* ... was an instruction the decoder cannot decode */
	uint8_t undecoded_bytes[16];
	uint64_t syscall_nr;
	uint64_t steps;
	int end_reason, end_status, exit_status;
};

/* ---- Program and stub --------------------------------------------------- */

/* find_program - argv[0] as a path: as given if it has a '/', else on PATH. */
static char *find_program(const char *name)
{
	const char *path = getenv("PATH");
	char buf[PATH_MAX];

	if (strchr(name, '/'))
		return realpath(name, NULL); /* absolute, as /proc/PID/maps names files */
	while (path && *path) {
		const char *colon = strchr(path, ':');
		size_t n = colon ? (size_t)(colon - path) : strlen(path);

		snprintf(buf, sizeof(buf), "%.*s/%s", (int)n, n ? path : ".", name);
		if (access(buf, X_OK) == 0)
			return realpath(buf, NULL);
		path = colon ? colon + 1 : NULL;
	}
	return NULL;
}

static int on_path(const char *name)
{
	char *p = find_program(name);

	free(p);
	return p != NULL;
}

/* free_port - a TCP port nobody listens on now (the kernel's choice). */
static int free_port(void)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), port = -1;

	if (fd < 0)
		return -1;
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0 &&
	    getsockname(fd, (struct sockaddr *)&a, &len) == 0)
		port = ntohs(a.sin_port);
	close(fd);
	return port;
}

static void sleep_ms(int ms)
{
	struct timespec ts = {0, (long)ms * 1000000L};

	nanosleep(&ts, NULL);
}

/* qemu_sysroot - where the cross libc lives, for dynamically linked programs. */
static const char *qemu_sysroot(const struct gdb_elf *e)
{
	if (!e->has_interp)
		return NULL;
	if (e->machine == EM_PPC64 && e->endian == 1 &&
	    access("/usr/powerpc64le-linux-gnu", F_OK) == 0)
		return "/usr/powerpc64le-linux-gnu";
	return NULL;
}

/*
 * The stub to start for `-- prog`: qemu-<arch> -g, for every architecture
 * (it runs the program the same way everywhere).  ITRACE_GDB_STUB=gdbserver
 * runs a program of this machine's architecture under gdbserver instead
 * (faster; but gdbserver 13.1 single-stepping corrupts AVX-512 state on
 * this machine, see the e2e test gdb_x86.sh).
 */
static int use_gdbserver(const struct gdb_elf *e)
{
	const char *force = getenv("ITRACE_GDB_STUB");
	struct utsname un;

	return force && strcmp(force, "gdbserver") == 0 && uname(&un) == 0 &&
	       strcmp(un.machine, "x86_64") == 0 && e->machine == EM_X86_64 &&
	       on_path("gdbserver");
}

/* stub_argv - "qemu-ppc64le [-L root] -g PORT prog args" or
 * "gdbserver --once 127.0.0.1:PORT prog args". */
static char **stub_argv(const char *stub, int gdbserver, const char *sysroot, const char *port,
			const char *prog, char *const *argv)
{
	size_t argc = 0, i = 0;
	char **args;

	while (argv[argc])
		argc++;
	args = calloc(argc + 8, sizeof(*args));
	if (!args)
		return NULL;
	args[i++] = (char *)stub;
	if (gdbserver) {
		args[i++] = "--once";
	} else {
		if (sysroot) {
			args[i++] = "-L";
			args[i++] = (char *)sysroot;
		}
		args[i++] = "-g";
	}
	args[i++] = (char *)port;
	args[i++] = (char *)prog;
	for (size_t k = 1; k < argc; k++)
		args[i++] = argv[k];
	return args;
}

static pid_t spawn_stub(struct collect_guard *g, char **args)
{
	pid_t pid = guard_fork(g);

	if (pid == 0) {
		/* Own process group: the terminal's ^C goes to itrace-collect only. */
		setpgid(0, 0);
		if (strcmp(args[0], "gdbserver") == 0) {
			/* gdbserver chats on stderr; keep the terminal for the program. */
			int fd = open("/dev/null", O_WRONLY);

			if (fd >= 0)
				dup2(fd, STDERR_FILENO);
		}
		execvp(args[0], args);
		fprintf(stderr, "itrace-collect: cannot run '%s': %s\n", args[0], strerror(errno));
		_exit(127);
	}
	return pid;
}

/* start_stub - run the program under gdbserver or qemu-<arch> -g, connect. */
static int start_stub(struct gdb_session *s, struct rsp **rp)
{
	const struct gdb_arch *a = gdb_arch_for_machine(s->elf.machine);
	int gdbserver = use_gdbserver(&s->elf);
	const char *stub = gdbserver ? "gdbserver" : gdb_arch_qemu(a, s->elf.endian);
	char err[300], port[32];
	int p = free_port(), status;
	char **args;

	if (p < 0) {
		cli_error("cannot find a free TCP port for the gdb stub: %s", strerror(errno));
		return -1;
	}
	snprintf(port, sizeof(port), gdbserver ? "127.0.0.1:%d" : "%d", p);
	snprintf(s->remote, sizeof(s->remote), "127.0.0.1:%d", p);
	args = stub_argv(stub, gdbserver, qemu_sysroot(&s->elf), port, s->prog, s->opts->argv);
	s->child = args ? spawn_stub(&s->guard, args) : -1;
	free(args);
	if (s->child < 0) {
		cli_error("cannot start '%s': %s", stub, strerror(errno));
		return -1;
	}
	s->stub = stub;
	for (int waited = 0; waited < QEMU_CONNECT_WAIT_MS; waited += 20) {
		if (rsp_connect(s->remote, 0, rp, err, sizeof(err)) == 0)
			return 0;
		if (guard_poll(&s->guard, &status)) {
			guard_wait(&s->guard, &status);
			s->child = 0;
			cli_error("'%s' exited before accepting the gdb connection (see its "
				  "message above)", stub);
			return -1;
		}
		sleep_ms(20);
	}
	cli_error("%s", err);
	return -1;
}

/* ---- Trace output ---------------------------------------------------------- */

static void utc_now(char *buf, size_t len)
{
	time_t now = time(NULL);
	struct tm tm;

	gmtime_r(&now, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/*
 * open_writer - the trace with itrace-collect's standard metadata, for the
 * target's machine and byte order (collect_writer_open() writes x86-64).
 */
static int open_writer(struct gdb_session *s)
{
	const struct collect_options *o = s->opts;
	char cmdline[4096] = "", pidbuf[24], host[256] = "", start[40];
	struct itrace_writer_options wo;
	struct itrace_meta meta[16];
	struct utsname un;
	size_t n = 0, used = 0;
	int rc;

	for (char *const *a = o->argv; a && *a && used + 1 < sizeof(cmdline); a++)
		used += (size_t)snprintf(cmdline + used, sizeof(cmdline) - used, "%s%s",
					 a == o->argv ? "" : " ", *a);
	snprintf(pidbuf, sizeof(pidbuf), "%u", s->pid);
	gethostname(host, sizeof(host) - 1);
	if (uname(&un) != 0)
		strcpy(un.release, "unknown");
	utc_now(start, sizeof(start));
	meta[n++] = (struct itrace_meta){"cmdline", cmdline};
	meta[n++] = (struct itrace_meta){"pid", pidbuf};
	meta[n++] = (struct itrace_meta){"host", host};
	meta[n++] = (struct itrace_meta){"kernel", un.release};
	meta[n++] = (struct itrace_meta){"collector", "itrace-collect"};
	meta[n++] = (struct itrace_meta){"backend", "gdb"};
	meta[n++] = (struct itrace_meta){"version", ITRACE_VERSION_STRING};
	meta[n++] = (struct itrace_meta){"start_time", start};
	meta[n++] = (struct itrace_meta){"level", o->level == ITRACE_LEVEL_INSN ? "insn" : "branch"};
	meta[n++] = (struct itrace_meta){"aslr", "off"};
	meta[n++] = (struct itrace_meta){"arch", gdb_elf_machine_name(s->t.arch->machine,
								       s->t.endian)};
	meta[n++] = (struct itrace_meta){"gdb_remote", s->remote};
	if (s->child)
		meta[n++] = (struct itrace_meta){"gdb_stub", s->stub};

	itrace_writer_options_init(&wo);
	wo.machine = s->t.arch->machine;
	wo.target_endian = s->t.endian;
	wo.level = (uint8_t)o->level;
	wo.flags = o->level == ITRACE_LEVEL_INSN ? ITRACE_FF_MEM | ITRACE_FF_INSN_BYTES : 0;
	wo.compression = o->compression;
	wo.out_flags = cli_output_flags();
	wo.flush_ms = COLLECT_FLUSH_MS;
	wo.meta = meta;
	wo.meta_count = n;
	rc = collect_writer_create(o, &wo, &s->w);
	if (rc > 0)
		return -1;
	if (rc < 0) {
		if (rc == -ITRACE_E_IO)
			cli_error("cannot create '%s': %s", o->output, strerror(errno));
		else
			cli_error("cannot start the trace '%s': %s", o->output, itrace_errstr(rc));
		return -1;
	}
	s->out = emit_writer_sink(s->w);
	return 0;
}

/* written - the result of a record written: an error reported, -1. */
static int written(struct gdb_session *s, int rc)
{
	if (rc < 0)
		cli_error("cannot write '%s': %s", s->opts->output, cli_errstr(rc));
	return rc < 0 ? -1 : 0;
}

/*
 * write_mmaps - one MMAP record per executable segment of the program, at
 * its run-time address, with the file's build-id, so that itrace-fill and
 * the symbolizer find the code (qemu-user has no /proc/PID/maps of the
 * guest to read).
 */
static int write_mmaps(struct gdb_session *s)
{
	const uint64_t page = 4096;
	struct itrace_mmap m = {.pid = s->pid, .path = s->prog, .path_len = strlen(s->prog)};
	int id_len = itrace_elf_build_id(s->prog, m.buildid, sizeof(m.buildid));

	m.buildid_len = id_len > 0 ? (uint8_t)id_len : 0;
	for (size_t i = 0; i < s->elf.n_seg; i++) {
		const struct gdb_elf_segment *g = &s->elf.seg[i];
		uint64_t at = g->vaddr + s->bias, start = at & ~(page - 1);

		m.start = start;
		m.len = at + g->memsz - start;
		m.pgoff = g->offset - (at - start);
		m.prot = g->prot;
		if (written(s, emit_mmap(&s->out, &m)) < 0)
			return -1;
	}
	return 0;
}

/* read_target - maps_read_fn over the gdb connection (for [vdso] bytes). */
static ssize_t read_target(void *ctx, uint64_t addr, void *buf, size_t len)
{
	struct gdb_session *s = ctx;

	return rsp_read_memory(s->t.rsp, addr, buf, len);
}

/*
 * write_new_mappings - a native stub (gdbserver started here) runs the
 * program on this machine: describe its address space from /proc/PID/maps,
 * as the ptrace backend does, libraries included.  Called again after
 * system calls that change mappings.
 */
static int write_new_mappings(struct gdb_session *s)
{
	int rc = maps_write_new(&s->out, (pid_t)s->pid, &s->seen, read_target, s);

	if (rc < 0) {
		cli_error("cannot describe the mappings of process %u: %s", s->pid,
			  itrace_errstr(rc));
		return -1;
	}
	return 0;
}

static int changes_mappings(const struct gdb_session *s, uint64_t nr)
{
	for (int i = 0; i < 4; i++)
		if (s->t.arch->sys_map[i] == nr)
			return 1;
	return 0;
}

/* write_process_start - PROCESS START, THREAD SWITCH, then the program's code. */
static int write_process_start(struct gdb_session *s)
{
	const char *name = s->prog ? s->prog : s->remote;

	if (written(s, emit_process(&s->out, ITRACE_PROCESS_START, s->pid, 0, 0, name)) < 0 ||
	    written(s, emit_thread(&s->out, ITRACE_THREAD_SWITCH, s->tid, s->pid, 0)) < 0)
		return -1;
	if (s->proc_maps)
		return write_new_mappings(s);
	return s->have_elf ? write_mmaps(s) : 0;
}

static int write_ctl(struct gdb_session *s, int on, int reason, uint64_t addr)
{
	return written(s, emit_ctl(&s->out, on, reason, addr));
}

static int write_signal(struct gdb_session *s, int gdb_sig)
{
	struct itrace_signal sig = {.signo = (uint32_t)gdb_signal_to_host(gdb_sig),
				    .pc = s->t.vals[s->t.arch->pc]};
	return written(s, emit_signal(&s->out, &sig));
}

static int write_syscall(struct gdb_session *s, int dir)
{
	const struct gdb_arch *a = s->t.arch;

	if (dir == ITRACE_SYSCALL_ENTER) {
		uint64_t args[6];

		for (int i = 0; i < 6; i++)
			args[i] = s->t.vals[a->sys_args[i]];
		return written(s, emit_syscall_enter(&s->out, s->syscall_nr, 6, args));
	}
	return written(s, emit_syscall_exit(&s->out, s->syscall_nr, (int64_t)s->t.vals[a->sys_ret]));
}

/* ---- One instruction --------------------------------------------------- */

static uint64_t reg(const struct gdb_session *s, unsigned i)
{
	return s->t.vals[i];
}

/* target_word - the 32-bit instruction word at b, in the target's byte order. */
static uint32_t target_word(const struct gdb_session *s, const uint8_t *b)
{
	if (s->t.endian == 1)
		return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
		       (uint32_t)b[3] << 24;
	return (uint32_t)b[3] | (uint32_t)b[2] << 8 | (uint32_t)b[1] << 16 | (uint32_t)b[0] << 24;
}

/* insn_length - the decoder's length, else POWER's fixed width (8 if
 * prefixed); 0 for a variable-length ISA (learnt from the step). */
static unsigned insn_length(struct gdb_session *s, const uint8_t *b, size_t avail,
			    const struct itrace_insn_info *in)
{
	uint32_t w;

	if (in)
		return in->d.len;
	if (!s->t.arch->fixed_len)
		return 0; /* variable length: learnt from the step (see finish_undecoded) */
	if (avail < 4)
		return 0;
	w = target_word(s, b);
	return (w >> 26) == 1 && avail >= 8 ? 8 : 4;
}

static int emit_insn_level(struct gdb_session *s, uint64_t pc, const uint8_t *bytes,
			   unsigned len, const struct itrace_insn_info *in)
{
	struct itrace_mem_access mem[GDB_MAX_MEM];
	struct itrace_regs regs;
	int n = 0, rc;

	if (in) {
		s->t.arch->gpr(s->t.vals, &regs);
		n = itrace_insn_mem_accesses(in, &regs, mem, GDB_MAX_MEM);
	}
	rc = emit_insn(&s->out, pc, len, bytes);

	for (int i = 0; rc >= 0 && i < n; i++)
		rc = emit_mem(&s->out, mem[i].addr, mem[i].size, mem[i].store ? ITRACE_MEM_STORE : 0);
	if (rc < 0) {
		cli_error("cannot write '%s': %s", s->opts->output, itrace_errstr(rc));
		return -1;
	}
	return 0;
}

/*
 * record_code - the instruction at `pc` (bytes[0..got) read there), before
 * it runs, with the registers in s->t.vals.  At branch level only its
 * address, length and kind are kept until the next pc shows where it went.
 */
static int record_code(struct gdb_session *s, uint64_t pc, const uint8_t *bytes, size_t got)
{
	struct itrace_insn_info in;
	int decoded = got && itrace_decoder_info(s->dec, bytes, got, pc, &in) == 0;
	unsigned len = insn_length(s, bytes, got, decoded ? &in : NULL);

	if (got == 0) {
		cli_error("cannot read the instruction at 0x%llx from the gdb stub",
			  (unsigned long long)pc);
		return -1;
	}
	s->prev_kind = decoded ? in.d.kind : ITRACE_INSN_NOT_BRANCH;
	s->prev_rep = decoded && (in.d.flags & ITRACE_DECODED_REP);
	if (s->prev_rep) {
		s->rep_in = in;
		s->t.arch->gpr(s->t.vals, &s->rep_before);
		memcpy(s->rep_bytes, bytes, len);
	}
	if (len == 0) {
		/* the decoder cannot decode it: its length is where the step
		 * lands, so the record waits until then. */
		s->undecoded = 1;
		memcpy(s->undecoded_bytes, bytes, got < 16 ? got : 16);
	} else if (s->opts->level == ITRACE_LEVEL_INSN &&
		   emit_insn_level(s, pc, bytes, len, decoded ? &in : NULL) < 0) {
		return -1;
	}
	s->prev_valid = 1;
	s->prev_addr = pc;
	s->prev_len = len;
	if (s->prev_kind == ITRACE_BRANCH_SYSCALL) {
		/* As the ptrace backend does: fill walks up to SYSCALL records. */
		s->in_syscall = 1;
		s->syscall_nr = s->t.vals[s->t.arch->sys_nr];
		return write_syscall(s, ITRACE_SYSCALL_ENTER);
	}
	return 0;
}

/* record_insn - the instruction at the current pc. */
static int record_insn(struct gdb_session *s)
{
	uint64_t pc = reg(s, s->t.arch->pc);
	uint8_t bytes[16];
	int got = gdb_target_code(&s->t, pc, bytes, sizeof(bytes));

	if (got < 0) {
		cli_error("%s", s->t.err);
		return -1;
	}
	return record_code(s, pc, bytes, (size_t)got);
}

/*
 * rep_entry_follows - the rep string instruction just stepped is entered
 * again: for its next iteration (the pc stayed on it), or for the check
 * that finds its count run out, which a stub's single step leaves out
 * (ITRACE.md 6.5.2).
 */
static int rep_entry_follows(const struct gdb_session *s, uint64_t next)
{
	struct itrace_regs after;

	if (!s->prev_valid || !s->prev_rep)
		return 0;
	if (next == s->prev_addr)
		return 1;
	if (next != s->prev_addr + s->prev_len)
		return 0;
	s->t.arch->gpr(s->t.vals, &after);
	return itrace_insn_rep_final_check(&s->rep_in, &s->rep_before, &after);
}

/* record_rep_check - insn level: the final check of a rep loop. */
static int record_rep_check(struct gdb_session *s)
{
	uint64_t next = reg(s, s->t.arch->pc);
	int check = next != s->prev_addr && rep_entry_follows(s, next);

	s->prev_rep = 0;
	if (!check || s->opts->level != ITRACE_LEVEL_INSN)
		return 0;
	if (emit_insn(&s->out, s->prev_addr, s->prev_len, s->rep_bytes) < 0) {
		cli_error("cannot write '%s'", s->opts->output);
		return -1;
	}
	return 0;
}

/*
 * record_branch_to - branch level: the previous instruction's outcome,
 * now that the pc after it (`next`) is known.  Real branches are written
 * taken or not; a jump from a non-branch (signal delivery) is an
 * interrupt; a rep loop's next entry is its taken branch to itself.
 */
static int record_branch_to(struct gdb_session *s, uint64_t next)
{
	int jumped = next != s->prev_addr + s->prev_len;
	int kind = s->prev_kind;
	int rc;

	if (!s->prev_valid || s->opts->level != ITRACE_LEVEL_BRANCH)
		return 0;
	if (rep_entry_follows(s, next)) {
		next = s->prev_addr;
		kind = ITRACE_BRANCH_COND;
		jumped = 1;
	}
	s->prev_valid = 0;
	s->prev_rep = 0;
	if (kind == ITRACE_INSN_NOT_BRANCH || kind == ITRACE_BRANCH_SYSCALL) {
		if (!jumped)
			return 0;
		kind = ITRACE_BRANCH_INTERRUPT;
	}
	rc = emit_branch(&s->out, s->prev_addr, next, (unsigned)kind, jumped ? ITRACE_BRANCH_TAKEN : 0);
	if (rc < 0) {
		cli_error("cannot write '%s': %s", s->opts->output, itrace_errstr(rc));
		return -1;
	}
	return 0;
}

static int record_branch(struct gdb_session *s)
{
	return record_branch_to(s, reg(s, s->t.arch->pc));
}

/* ---- Triggers ---------------------------------------------------------- */

static int resolve(struct gdb_session *s, const char *func, int has_addr, uint64_t addr,
		   const char *opt, uint64_t out[2], int *n)
{
	if (trigger_fixed(func, has_addr, addr, out, n))
		return 0;
	if (!s->prog) {
		cli_error("%s %s needs the program's symbols: name the program after -- "
			  "or give %s-addr ADDRESS", opt, func, opt);
		return -1;
	}
	*n = gdb_elf_function(s->prog, func, out);
	if (*n < 0) {
		*n = 0;
		cli_error("%s %s: '%s' has no function of that name", opt, func, s->prog);
		return -1;
	}
	for (int i = 0; i < *n; i++)
		out[i] += s->bias;
	return 0;
}

static int is_start(const struct gdb_session *s, uint64_t pc)
{
	for (int i = 0; i < s->n_start; i++)
		if (s->start[i] == pc)
			return 1;
	return 0;
}

static int is_stop(const struct gdb_session *s, uint64_t pc)
{
	for (int i = 0; i < s->n_stop; i++)
		if (s->stop[i] == pc)
			return 1;
	return 0;
}

static int set_start_breakpoints(struct gdb_session *s, int insert)
{
	if (s->bp_inserted == insert)
		return 0;
	for (int i = 0; i < s->n_start; i++) {
		if (gdb_target_breakpoint(&s->t, s->start[i], insert) < 0) {
			cli_error("%s", s->t.err);
			return -1;
		}
	}
	s->bp_inserted = insert;
	return 0;
}

/* begin_window - the start function was entered: trace from here. */
static int begin_window(struct gdb_session *s)
{
	const struct gdb_arch *a = s->t.arch;

	s->stepping = 1;
	s->window = s->n_stop == 0;
	s->window_sp = reg(s, a->sp);
	if (s->window) {
		/* Where it returns to: the link register, or the word at sp. */
		if (a->link != GDB_NO_REG)
			s->window_ret = reg(s, a->link);
		else if (gdb_target_read_u64(&s->t, s->window_sp, &s->window_ret) < 0)
			s->window_ret = 0;
	}
	if (set_start_breakpoints(s, 0) < 0)
		return -1;
	/* Libraries may have been mapped while the program ran free. */
	if (s->proc_maps && write_new_mappings(s) < 0)
		return -1;
	return write_ctl(s, 1, ITRACE_CTL_TRIGGER, reg(s, a->pc));
}

static int window_over(const struct gdb_session *s)
{
	uint64_t pc = reg(s, s->t.arch->pc);

	if (is_stop(s, pc))
		return 1;
	return s->window && pc == s->window_ret && reg(s, s->t.arch->sp) >= s->window_sp;
}

/* ---- The loop ---------------------------------------------------------- */

/* on_stop - bookkeeping after any stop; returns 1 if the program ended. */
static int on_stop(struct gdb_session *s, const struct gdb_stop *st)
{
	if (st->kind == 'W') {
		s->end_reason = ITRACE_END_COMPLETE;
		s->end_status = st->code;
		s->exit_status = st->code;
		return 1;
	}
	if (st->kind == 'X') {
		s->end_reason = ITRACE_END_CRASHED;
		s->end_status = gdb_signal_to_host(st->sig);
		s->exit_status = 128 + s->end_status;
		return 1;
	}
	return 0;
}

/*
 * finish_undecoded - the instruction the decoder could not decode has run: a
 * non-branch is as long as the distance to the next pc (a jump leaves the
 * length unknown: 1 is written, the successor shows the discontinuity).
 */
static int finish_undecoded(struct gdb_session *s)
{
	uint64_t next = reg(s, s->t.arch->pc);
	uint64_t len = next - s->prev_addr;

	s->undecoded = 0;
	if (len == 0 || len > ITRACE_INSN_MAX_LEN)
		len = 1;
	s->prev_len = (unsigned)len;
	if (s->opts->level != ITRACE_LEVEL_INSN)
		return 0;
	if (emit_insn(&s->out, s->prev_addr, (unsigned)len, s->undecoded_bytes) < 0) {
		cli_error("cannot write '%s'", s->opts->output);
		return -1;
	}
	return 0;
}

static int after_stop(struct gdb_session *s, const struct gdb_stop *st)
{
	if (gdb_target_read_regs(&s->t) < 0) {
		cli_error("%s", s->t.err);
		return -1;
	}
	if (s->undecoded && finish_undecoded(s) < 0)
		return -1;
	if (s->opts->level == ITRACE_LEVEL_INSN && record_rep_check(s) < 0)
		return -1;
	if (record_branch(s) < 0)
		return -1;
	if (s->in_syscall) {
		s->in_syscall = 0;
		if (write_syscall(s, ITRACE_SYSCALL_EXIT) < 0)
			return -1;
		if (s->proc_maps && changes_mappings(s, s->syscall_nr) && write_new_mappings(s) < 0)
			return -1;
	}
	if (st->sig != GDB_SIGTRAP && st->sig != 0) {
		s->pending_sig = st->sig; /* delivered with the next resume */
		return write_signal(s, st->sig);
	}
	return 0;
}

/* end_interrupted - SIGINT/SIGTERM: the trace ends here, cleanly. */
static int end_interrupted(struct gdb_session *s)
{
	s->end_reason = ITRACE_END_INTERRUPTED;
	s->end_status = collect_interrupted;
	s->exit_status = 128 + collect_interrupted;
	return 1;
}

/*
 * resume - step or continue, delivering a pending signal.  Returns 0, 1
 * when an interrupt ended the wait (the trace is over), or -1.
 */
static int resume(struct gdb_session *s, int step, struct gdb_stop *st)
{
	int sig = s->pending_sig;

	s->pending_sig = 0;
	if (gdb_target_resume(&s->t, step, sig, step ? 0 : -1, st) < 0) {
		if (collect_interrupted)
			return end_interrupted(s);
		cli_error("%s", s->t.err);
		return -1;
	}
	return 0;
}

/* run_free - not tracing: run to the start breakpoint or the end. */
static int run_free(struct gdb_session *s, struct gdb_stop *st)
{
	uint64_t pc = reg(s, s->t.arch->pc);
	int rc;

	if (s->n_start && is_start(s, pc)) {
		/* Leave the breakpoint address first, or 'c' stops right here. */
		if ((rc = resume(s, 1, st)) != 0)
			return rc;
		if (on_stop(s, st))
			return 1;
		if (gdb_target_read_regs(&s->t) < 0) {
			cli_error("%s", s->t.err);
			return -1;
		}
	}
	if (s->n_start && set_start_breakpoints(s, 1) < 0)
		return -1;
	if ((rc = resume(s, 0, st)) != 0)
		return rc;
	if (on_stop(s, st))
		return 1;
	if (after_stop(s, st) < 0)
		return -1;
	if (s->n_start && is_start(s, reg(s, s->t.arch->pc)))
		return begin_window(s) < 0 ? -1 : 0;
	return 0;
}

/* ---- POWER load-reserve/store-conditional sequences ----------------- */

/* atomic_at - the larx..stcx. sequence starting at the pc, if there is one. */
static int atomic_at(struct gdb_session *s, uint8_t *bytes, struct arch_ppc_atomic *seq)
{
	uint64_t pc = reg(s, s->t.arch->pc);
	int got;

	if (s->t.arch->machine != EM_PPC64 || s->pending_sig)
		return 0;
	got = gdb_target_code(&s->t, pc, bytes, 4);
	if (got < 4 || !arch_ppc_is_larx(s->dec, bytes, (size_t)got))
		return 0;
	got = gdb_target_code(&s->t, pc, bytes, 4 * ARCH_PPC_ATOMIC_MAX);
	return got < 4 ? 0 : arch_ppc_atomic_sequence(s->dec, bytes, (size_t)got, pc, seq);
}

/* set_atomic_breakpoints - after the stcx. and at every exit of the sequence. */
static int set_atomic_breakpoints(struct gdb_session *s, uint64_t pc,
				  const struct arch_ppc_atomic *seq, int insert)
{
	if (gdb_target_breakpoint(&s->t, pc + 4 * seq->n, insert) < 0)
		goto fail;
	for (unsigned k = 0; k < seq->n_exits; k++) {
		uint64_t t = seq->exit_target[k];
		int dup = t == pc + 4 * seq->n;

		for (unsigned j = 0; j < k; j++)
			dup |= seq->exit_target[j] == t;
		if (!dup && gdb_target_breakpoint(&s->t, t, insert) < 0)
			goto fail;
	}
	return 0;
fail:
	cli_error("%s", s->t.err);
	return -1;
}

/* atomic_path_length - how many instructions of the sequence ran to reach `stop`. */
static unsigned atomic_path_length(uint64_t pc, const struct arch_ppc_atomic *seq, uint64_t stop)
{
	if (stop == pc + 4 * seq->n)
		return seq->n;
	for (unsigned k = 0; k < seq->n_exits; k++)
		if (seq->exit_target[k] == stop)
			return seq->exit_index[k] + 1;
	return 0; /* stopped elsewhere (a signal): the path is unknown */
}

/*
 * step_atomic - run a larx..stcx. sequence at full speed between
 * breakpoints, then record the instructions it ran: all of them when it
 * reached the end, up to the branch that left it otherwise.  Their memory
 * accesses use the registers at the larx (the sequence does not change
 * its address registers).  Returns like step_one.
 */
static int step_atomic(struct gdb_session *s, const uint8_t *bytes,
		       const struct arch_ppc_atomic *seq, struct gdb_stop *st)
{
	uint64_t pc = reg(s, s->t.arch->pc), at_larx[GDB_MAX_REGS], at_now[GDB_MAX_REGS], stop;
	unsigned n;
	int rc;

	memcpy(at_larx, s->t.vals, sizeof(at_larx));
	if (set_atomic_breakpoints(s, pc, seq, 1) < 0)
		return -1;
	if ((rc = resume(s, 0, st)) != 0)
		return rc;
	if (on_stop(s, st))
		return 1;
	if (set_atomic_breakpoints(s, pc, seq, 0) < 0 || gdb_target_read_regs(&s->t) < 0)
		return -1;
	stop = reg(s, s->t.arch->pc);
	n = atomic_path_length(pc, seq, stop);
	memcpy(at_now, s->t.vals, sizeof(at_now));
	memcpy(s->t.vals, at_larx, sizeof(at_larx));
	for (unsigned i = 0; i < n; i++) {
		uint64_t next = i + 1 < n ? pc + 4 * (i + 1) : stop;

		if (record_code(s, pc + 4 * i, bytes + 4 * i, 4) < 0 || record_branch_to(s, next) < 0)
			return -1;
	}
	memcpy(s->t.vals, at_now, sizeof(at_now));
	s->steps += n;
	if (st->sig != GDB_SIGTRAP && st->sig != 0) {
		s->pending_sig = st->sig;
		return write_signal(s, st->sig);
	}
	return 0;
}

/*
 * step_syscall - run over the system call instruction just recorded with
 * a breakpoint after it and 'c': qemu-user's single-step over a system
 * call also runs the instruction after it, which would go unrecorded.
 * sigreturn does not come back to the next instruction: it is stepped.
 */
static int step_syscall(struct gdb_session *s, struct gdb_stop *st)
{
	const struct gdb_arch *a = s->t.arch;
	uint64_t next = s->prev_addr + s->prev_len;
	int rc;

	if (s->syscall_nr == a->sys_sigreturn[0] || s->syscall_nr == a->sys_sigreturn[1])
		return resume(s, 1, st);
	if (gdb_target_breakpoint(&s->t, next, 1) < 0) {
		cli_error("%s", s->t.err);
		return -1;
	}
	if ((rc = resume(s, 0, st)) != 0)
		return rc;
	if (st->kind != 'W' && st->kind != 'X' && gdb_target_breakpoint(&s->t, next, 0) < 0) {
		cli_error("%s", s->t.err);
		return -1;
	}
	return 0;
}

static int step_one(struct gdb_session *s, struct gdb_stop *st)
{
	uint8_t seq_bytes[4 * ARCH_PPC_ATOMIC_MAX];
	struct arch_ppc_atomic seq;
	int rc;

	if (window_over(s)) {
		s->stepping = 0;
		s->prev_valid = 0;
		return write_ctl(s, 0, ITRACE_CTL_TRIGGER, reg(s, s->t.arch->pc));
	}
	if (atomic_at(s, seq_bytes, &seq))
		return step_atomic(s, seq_bytes, &seq, st);
	/* With a signal pending the instruction at pc does not run: the
	 * signal is delivered first (or ends the program). */
	if (!s->pending_sig && record_insn(s) < 0)
		return -1;
	rc = s->in_syscall ? step_syscall(s, st) : resume(s, 1, st);
	if (rc != 0)
		return rc;
	s->steps++;
	if (on_stop(s, st))
		return 1;
	return after_stop(s, st);
}

static int trace_loop(struct gdb_session *s)
{
	struct gdb_stop st;
	int rc = 0;

	if (gdb_target_read_regs(&s->t) < 0) {
		cli_error("%s", s->t.err);
		return -1;
	}
	s->stepping = s->n_start == 0;
	if (s->stepping && write_ctl(s, 1, ITRACE_CTL_START, reg(s, s->t.arch->pc)) < 0)
		return -1;
	if (s->n_start && is_start(s, reg(s, s->t.arch->pc)) && begin_window(s) < 0)
		return -1;
	while (rc == 0) {
		if (collect_interrupted)
			return end_interrupted(s);
		/* once a second to the file; a closed output pipe stops us */
		if ((rc = itrace_writer_tick(s->w)) < 0) {
			cli_error("cannot write '%s': %s", s->opts->output, cli_errstr(rc));
			return -1;
		}
		rc = s->stepping ? step_one(s, &st) : run_free(s, &st);
	}
	return rc;
}

/* ---- Setup and teardown ------------------------------------------------ */

static int open_decoders(struct gdb_session *s)
{
	const struct gdb_arch *a = s->t.arch;
	int rc;

	rc = itrace_decoder_alloc(a->machine, s->t.endian, &s->dec);
	if (rc < 0) {
		cli_error("cannot open the %s decoder: %s", a->name, itrace_errstr(rc));
		return -1;
	}
	return 0;
}

static int connect_target(struct gdb_session *s)
{
	const struct collect_options *o = s->opts;
	struct gdb_stop first;
	struct rsp *rsp = NULL;
	char err[300];

	if (o->remote) {
		snprintf(s->remote, sizeof(s->remote), "%s", o->remote);
		if (rsp_connect(o->remote, REMOTE_CONNECT_WAIT_MS, &rsp, err, sizeof(err)) < 0) {
			cli_error("%s", err);
			return -1;
		}
	} else if (start_stub(s, &rsp) < 0) {
		return -1;
	}
	rsp_set_interrupt(rsp, &collect_interrupted);
	if (gdb_target_attach(&s->t, rsp, s->have_elf ? s->elf.machine : 0,
			      s->have_elf ? s->elf.endian : 0, &first) < 0) {
		cli_error("%s: %s", s->remote, s->t.err);
		return -1;
	}
	if (on_stop(s, &first)) {
		cli_error("%s: the program has already ended", s->remote);
		return -1;
	}
	s->tid = first.tid;
	/* qemu-user reports pid 1; the thread id is the real one. */
	s->pid = first.pid > 1 ? first.pid : first.tid ? first.tid : (uint32_t)s->child;
	if (!s->tid)
		s->tid = s->pid;
	if (s->child && strcmp(s->stub, "gdbserver") == 0) {
		char maps[64];

		snprintf(maps, sizeof(maps), "/proc/%u/maps", s->pid);
		s->proc_maps = access(maps, R_OK) == 0;
	}
	if (s->have_elf && s->elf.is_dyn) {
		uint64_t entry = gdb_target_auxv_entry(&s->t);

		s->bias = entry ? entry - s->elf.entry : 0;
	}
	return 0;
}

static int prepare(struct gdb_session *s)
{
	const struct collect_options *o = s->opts;
	char err[300];

	if (o->argv && o->argv[0]) {
		s->prog = find_program(o->argv[0]);
		if (!s->prog) {
			cli_error("cannot find '%s' on PATH", o->argv[0]);
			return -1;
		}
		if (gdb_elf_read(s->prog, &s->elf, err, sizeof(err)) < 0) {
			cli_error("%s", err);
			return -1;
		}
		s->have_elf = 1;
	}
	if (connect_target(s) < 0 || open_decoders(s) < 0)
		return -1;
	if (resolve(s, o->start_func, o->has_start_addr, o->start_addr, "--start", s->start,
		    &s->n_start) < 0 ||
	    resolve(s, o->stop_func, o->has_stop_addr, o->stop_addr, "--stop", s->stop,
		    &s->n_stop) < 0)
		return -1;
	if (open_writer(s) < 0)
		return -1;
	return write_process_start(s);
}

static void write_exit(struct gdb_session *s)
{
	if (s->end_reason != ITRACE_END_COMPLETE && s->end_reason != ITRACE_END_CRASHED)
		return;
	written(s, emit_thread(&s->out, ITRACE_THREAD_EXIT, s->tid, s->pid, (uint64_t)s->end_status));
	written(s, emit_process(&s->out, ITRACE_PROCESS_EXIT, s->pid, 0,
				s->end_reason == ITRACE_END_COMPLETE ? s->end_status
								     : -(int64_t)s->end_status,
				NULL));
}

/* teardown - end the program if it still runs, and reap qemu. */
static void teardown(struct gdb_session *s)
{
	int status;

	if (s->t.rsp && s->end_reason != ITRACE_END_COMPLETE &&
	    s->end_reason != ITRACE_END_CRASHED) {
		if (s->child || !s->opts->remote)
			gdb_target_kill(&s->t);
		else
			gdb_target_detach(&s->t);
	}
	gdb_target_close(&s->t);
	if (s->child > 0) {
		for (int i = 0; i < 100 && !guard_poll(&s->guard, &status); i++)
			sleep_ms(10);
		/* an aborted run: what the program started goes with it */
		if (s->end_reason != ITRACE_END_COMPLETE && s->end_reason != ITRACE_END_CRASHED)
			guard_kill(&s->guard);
		else if (!guard_poll(&s->guard, &status))
			kill(s->child, SIGKILL); /* the stub alone: the program has ended */
		guard_wait(&s->guard, &status);
	}
	itrace_decoder_free(s->dec);
	maps_seen_free(&s->seen);
	free((char *)s->prog);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int gdb_run(const struct collect_options *opts, struct collect_result *res)
{
	struct gdb_session s;
	double t0 = now_s();
	int rc;

	memset(&s, 0, sizeof(s));
	s.opts = opts;
	s.end_reason = ITRACE_END_ERROR;
	s.end_status = EIO;
	rc = prepare(&s);
	if (rc == 0)
		rc = trace_loop(&s);
	if (s.w) {
		int crc;

		write_exit(&s);
		collect_handlers_finish();
		itrace_writer_flush(s.w); /* so that the statistics count the last chunk */
		itrace_writer_stats(s.w, &res->stats);
		crc = itrace_writer_close(s.w, s.end_reason, s.end_status);
		if (crc < 0 && rc >= 0) {
			cli_error("cannot write '%s': %s", opts->output, cli_errstr(crc));
			rc = -1;
		}
	}
	teardown(&s);
	res->steps = s.steps;
	res->seconds = now_s() - t0;
	res->end_reason = s.end_reason;
	res->end_status = s.end_status;
	return rc < 0 ? -1 : s.exit_status;
}

/* ---- Probe ------------------------------------------------------------- */

static int probe_program(const struct collect_options *o, char *err, size_t errlen)
{
	const struct gdb_arch *a;
	struct gdb_elf e;
	char *path = find_program(o->argv[0]);
	int rc;

	if (!path) {
		snprintf(err, errlen, "cannot find '%s' on PATH", o->argv[0]);
		return -1;
	}
	rc = gdb_elf_read(path, &e, err, errlen);
	free(path);
	if (rc < 0)
		return -1;
	a = gdb_arch_for_machine(e.machine);
	if (!a) {
		snprintf(err, errlen, "the gdb backend traces ppc64 and x86-64 programs; '%s' is "
			 "%s", o->argv[0], gdb_elf_machine_name(e.machine, e.endian));
		return -1;
	}
	if (!o->remote && !use_gdbserver(&e) && !on_path(gdb_arch_qemu(a, e.endian))) {
		snprintf(err, errlen, "'%s' is a %s program and %s is not installed: install "
			 "qemu-user (make deps) or give --remote HOST:PORT",
			 o->argv[0], gdb_elf_machine_name(e.machine, e.endian),
			 gdb_arch_qemu(a, e.endian));
		return -1;
	}
	return 0;
}

static int gdb_probe(const struct collect_options *o, char *err, size_t errlen)
{
	if (o->attach_pid) {
		snprintf(err, errlen, "the gdb backend does not attach to a pid; run "
			 "'gdbserver --attach :PORT %d' and give --remote :PORT", (int)o->attach_pid);
		return -1;
	}
	if (o->only_module || o->follow_fork || o->ring) {
		snprintf(err, errlen, "the gdb backend does not support %s; use --backend ptrace",
			 o->only_module ? "--only" : o->follow_fork ? "--follow-fork" : "--ring");
		return -1;
	}
	if (!o->remote && !(o->argv && o->argv[0])) {
		snprintf(err, errlen, "the gdb backend needs --remote HOST:PORT or a program "
			 "after --");
		return -1;
	}
	if (o->argv && o->argv[0])
		return probe_program(o, err, errlen);
	return 0;
}

const struct collect_backend collect_backend_gdb = {
	.name = "gdb",
	.description = "single-steps through the gdb remote protocol: --remote HOST:PORT, "
		       "or qemu-user for programs of another architecture (ppc64le)",
	.levels = COLLECT_LEVEL_BIT(ITRACE_LEVEL_INSN) | COLLECT_LEVEL_BIT(ITRACE_LEVEL_BRANCH),
	.probe = gdb_probe,
	.run = gdb_run,
};
