/*
 * fill-gen - make branch-level traces (and their instruction-level oracle)
 * of a static test program by single-stepping it, for the fill e2e tests
 * and benchmarks.
 *
 *   fill-gen [--taken-only] [--chunk-bytes N] [--insn-out FILE]
 *            [--extrapolate N] [--qemu-ppc64le] -o OUT PROG
 *
 * With --qemu-ppc64le, PROG is a static ppc64le program run under
 * qemu-ppc64le -singlestep -d exec, whose log names every executed pc.
 *
 * The program is stepped with ptrace; its mappings come from /proc/PID/maps
 * (build-ids read from the files, [vdso] bytes as a CODE record).  With
 * --extrapolate N the program is stepped with argc = 1 and argc = 2 and the
 * branch events of the extra iteration are repeated to make the trace of
 * argc = N without stepping it (fill_bench.S branches identically in every
 * outer iteration), so benchmarks get long traces cheaply.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <fcntl.h>
#include <gelf.h>

#include "fill_stepper.h"
#include "itrace_format.h"

struct event {
	int is_syscall;
	uint64_t from, to, nr;
	uint8_t kind, flags;
};

struct events {
	struct event *v;
	size_t n, cap;
};

static void die(const char *what)
{
	fprintf(stderr, "fill-gen: %s\n", what);
	exit(1);
}

static void push(struct events *e, struct event ev)
{
	if (e->n == e->cap) {
		e->cap = e->cap ? 2 * e->cap : 1024;
		e->v = realloc(e->v, e->cap * sizeof(*e->v));
		if (!e->v)
			die("out of memory");
	}
	e->v[e->n++] = ev;
}

/* The branch events of a stepped run, as write_branches() would write them. */
static void derive_events(struct itrace_decoder *d, const struct steps *s, int taken_only,
			  struct events *e)
{
	for (size_t i = 0; i < s->n; i++) {
		const struct step *st = &s->v[i];
		struct itrace_decoded di;
		int last = i + 1 == s->n;
		uint64_t next = last ? 0 : s->v[i + 1].addr;

		if (itrace_decoder_decode(d, st->bytes, 16, st->addr, &di) < 0)
			die("undecodable instruction in the stepped run");
		if (di.kind == ITRACE_BRANCH_SYSCALL) {
			push(e, (struct event){ .is_syscall = 1, .nr = st->rax });
			if (taken_only || last)
				continue;
		}
		if (last)
			break;
		if ((di.flags & ITRACE_DECODED_REP) && next == st->addr) {
			push(e, (struct event){ 0, st->addr, next, 0, ITRACE_BRANCH_COND, ITRACE_BRANCH_TAKEN });
		} else if (di.kind != ITRACE_INSN_NOT_BRANCH) {
			int taken = di.kind != ITRACE_BRANCH_COND || next != st->addr + di.len;

			if (!taken && taken_only)
				continue;
			push(e, (struct event){ 0, st->addr, next, 0, di.kind, taken ? ITRACE_BRANCH_TAKEN : 0 });
		}
	}
}

static int same_event(const struct event *a, const struct event *b)
{
	return a->is_syscall == b->is_syscall && a->from == b->from && a->to == b->to &&
	       a->nr == b->nr && a->kind == b->kind && a->flags == b->flags;
}

/* e1 = P E, e2 = P X E: the trace for n iterations is P X^(n-1) E. */
static void extrapolate(const struct events *e1, const struct events *e2, uint64_t n,
			struct events *out)
{
	size_t lenx = e2->n - e1->n, suffix = 0, split;

	if (e2->n < e1->n)
		die("the second run is shorter: the program does not loop on argc");
	while (suffix < e1->n && same_event(&e1->v[e1->n - 1 - suffix], &e2->v[e2->n - 1 - suffix]))
		suffix++;
	split = e1->n - suffix;
	for (size_t i = 0; i < split; i++)
		if (!same_event(&e1->v[i], &e2->v[i]))
			die("runs differ before the repeated part: cannot extrapolate");
	for (size_t i = 0; i < split; i++)
		push(out, e1->v[i]);
	for (uint64_t k = 1; k < n; k++)
		for (size_t i = 0; i < lenx; i++)
			push(out, e2->v[split + i]);
	for (size_t i = split; i < e1->n; i++)
		push(out, e1->v[i]);
}

static void write_or_die(struct itrace_writer *w, const struct itrace_record *rec)
{
	if (itrace_writer_write(w, rec) < 0)
		die("cannot write a record");
}

/* MMAP (and CODE for [vdso]) records from /proc/PID/maps. */
static void write_mappings(struct itrace_writer *w, pid_t pid)
{
	char path[64], line[4096 + 256];
	FILE *fp;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	fp = fopen(path, "r");
	if (!fp)
		die("cannot read /proc/PID/maps");
	while (fgets(line, sizeof(line), fp)) {
		struct itrace_record rec = { .type = ITRACE_REC_MMAP, .pid = (uint32_t)pid };
		struct itrace_mmap *m = &rec.u.mmap;
		unsigned long long start, end, off;
		char perms[8], file[4096] = "";
		int rc;

		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %4095[^\n]", &start, &end, perms, &off, file) < 4)
			continue;
		if (perms[2] != 'x')
			continue;
		m->start = start;
		m->len = end - start;
		m->pgoff = off;
		m->pid = (uint32_t)pid;
		m->prot = 5;
		m->path = file;
		m->path_len = strlen(file);
		if (file[0] == '/' && (rc = itrace_elf_build_id(file, m->buildid, sizeof(m->buildid))) > 0)
			m->buildid_len = (uint8_t)rc;
		write_or_die(w, &rec);
		if (strcmp(file, "[vdso]") == 0) {
			static uint8_t buf[1 << 16];
			struct iovec local = { buf, m->len < sizeof(buf) ? m->len : sizeof(buf) };
			struct iovec remote = { (void *)(uintptr_t)start, local.iov_len };

			if (process_vm_readv(pid, &local, 1, &remote, 1, 0) != (ssize_t)local.iov_len)
				continue;
			rec.type = ITRACE_REC_CODE;
			rec.u.code = (struct itrace_code){ start, buf, local.iov_len };
			write_or_die(w, &rec);
		}
	}
	fclose(fp);
}

/* Step `prog` with `nargs` arguments (argc = nargs + 1), writing its maps first. */
static void step(const char *prog, int nargs, const char *out, int taken_only, size_t chunk,
		 struct steps *s, struct itrace_writer **wp)
{
	pid_t pid = stepper_start(prog, nargs);

	if (pid < 0)
		die("the program did not start under ptrace");
	if (wp) {
		struct itrace_writer_options o;
		struct itrace_record rec = { .type = ITRACE_REC_THREAD };

		itrace_writer_options_init(&o);
		o.level = ITRACE_LEVEL_BRANCH;
		o.flags = taken_only ? ITRACE_FF_TAKEN_ONLY : 0;
		if (chunk)
			o.chunk_bytes = chunk;
		if (itrace_writer_open(out, &o, wp) < 0)
			die("cannot create the output");
		rec.u.thread = (struct itrace_thread){ .event = ITRACE_THREAD_SWITCH, .tid = (uint32_t)pid, .pid = (uint32_t)pid };
		write_or_die(*wp, &rec);
		write_mappings(*wp, pid);
	}
	if (stepper_run(pid, 2000000, s) < 0)
		die("single-stepping failed (ptrace not allowed?)");
}


/* ---- ppc64le through qemu ------------------------------------------- */

/* Executable PT_LOAD segments of a static ELF: MMAP records and code. */
struct segs {
	struct { uint64_t vaddr, off, size; } v[8];
	int n;
	int fd;
};

static void read_segments(const char *prog, struct segs *sg)
{
	Elf *elf;
	size_t n;

	elf_version(EV_CURRENT);
	sg->n = 0;
	sg->fd = open(prog, O_RDONLY);
	if (sg->fd < 0 || !(elf = elf_begin(sg->fd, ELF_C_READ, NULL)) || elf_getphdrnum(elf, &n) != 0)
		die("cannot read the program's ELF headers");
	for (size_t i = 0; i < n && sg->n < 8; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD && (ph.p_flags & PF_X)) {
			sg->v[sg->n].vaddr = ph.p_vaddr;
			sg->v[sg->n].off = ph.p_offset;
			sg->v[sg->n].size = ph.p_filesz;
			sg->n++;
		}
	}
	elf_end(elf);
}

static void code_bytes(const struct segs *sg, uint64_t addr, uint8_t *buf)
{
	memset(buf, 0, 16);
	for (int i = 0; i < sg->n; i++)
		if (addr >= sg->v[i].vaddr && addr < sg->v[i].vaddr + sg->v[i].size) {
			if (pread(sg->fd, buf, 16, (off_t)(sg->v[i].off + addr - sg->v[i].vaddr)) < 4)
				die("cannot read code");
			return;
		}
	die("an executed pc lies outside the program's code");
}

static void qemu_steps(const char *prog, const struct segs *sg, struct steps *s)
{
	char cmd[4096 + 128], line[512];
	FILE *fp;

	memset(s, 0, sizeof(*s));
	/* The log goes to stderr, read through the pipe; the program's output is dropped. */
	snprintf(cmd, sizeof(cmd), "qemu-ppc64le -singlestep -d exec,nochain -D /dev/stderr '%s' 2>&1 >/dev/null",
		 prog);
	fp = popen(cmd, "r");
	if (!fp)
		die("cannot run qemu-ppc64le");
	while (fgets(line, sizeof(line), fp)) {
		unsigned long long pc;
		char *p = strchr(line, '[');

		if (strncmp(line, "Trace ", 6) != 0 || !p || sscanf(p, "[%*x/%llx", &pc) != 1)
			continue;
		if (s->n == s->cap) {
			s->cap = s->cap ? 2 * s->cap : 256;
			s->v = realloc(s->v, s->cap * sizeof(*s->v));
			if (!s->v)
				die("out of memory");
		}
		s->v[s->n].addr = pc;
		s->v[s->n].rax = 0;
		code_bytes(sg, pc, s->v[s->n].bytes);
		s->n++;
	}
	pclose(fp);
	if (!s->n)
		die("qemu-ppc64le logged no instructions");
}

static void write_segment_mmaps(struct itrace_writer *w, const char *prog, const struct segs *sg)
{
	for (int i = 0; i < sg->n; i++) {
		struct itrace_record rec = { .type = ITRACE_REC_MMAP, .tid = 1, .pid = 1 };
		struct itrace_mmap *m = &rec.u.mmap;
		int rc;

		m->pgoff = sg->v[i].off & ~0xffffull;
		m->start = sg->v[i].vaddr - (sg->v[i].off - m->pgoff);
		m->len = (sg->v[i].size + (sg->v[i].off - m->pgoff) + 0xffff) & ~0xffffull;
		m->pid = 1;
		m->prot = 5;
		m->path = prog;
		m->path_len = strlen(prog);
		if ((rc = itrace_elf_build_id(prog, m->buildid, sizeof(m->buildid))) > 0)
			m->buildid_len = (uint8_t)rc;
		write_or_die(w, &rec);
	}
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "taken-only", no_argument, NULL, 't' }, { "chunk-bytes", required_argument, NULL, 'c' },
		{ "insn-out", required_argument, NULL, 'i' }, { "extrapolate", required_argument, NULL, 'x' },
		{ "qemu-ppc64le", no_argument, NULL, 'q' }, { NULL, 0, NULL, 0 },
	};
	const char *out = NULL, *insn_out = NULL;
	int taken_only = 0, ppc = 0, c;
	uint16_t machine = EM_X86_64;
	size_t chunk = 0;
	uint64_t reps = 0;
	struct itrace_decoder *d;
	struct itrace_writer *w;
	struct steps s1, s2;
	struct events e1 = { 0 }, e2 = { 0 }, all = { 0 };
	struct itrace_record rec = { .type = ITRACE_REC_TRACE_CTL };

	while ((c = getopt_long(argc, argv, "o:", longopts, NULL)) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case 't': taken_only = 1; break;
		case 'c': chunk = strtoull(optarg, NULL, 0); break;
		case 'i': insn_out = optarg; break;
		case 'x': reps = strtoull(optarg, NULL, 0); break;
		case 'q': ppc = 1, machine = EM_PPC64; break;
		default: return 2;
		}
	}
	if (!out || optind + 1 != argc)
		die("usage: fill-gen [--taken-only] [--chunk-bytes N] [--insn-out FILE] [--extrapolate N] -o OUT PROG");
	if (itrace_decoder_alloc(machine, ELFDATA2LSB, &d) < 0)
		die("cannot open the decoder");
	if (ppc) {
		struct itrace_writer_options o;
		struct segs sg;

		if (reps > 1)
			die("--extrapolate is for x86-64 programs");
		read_segments(argv[optind], &sg);
		qemu_steps(argv[optind], &sg, &s1);
		close(sg.fd);
		itrace_writer_options_init(&o);
		o.machine = EM_PPC64;
		o.level = ITRACE_LEVEL_BRANCH;
		o.flags = taken_only ? ITRACE_FF_TAKEN_ONLY : 0;
		if (chunk)
			o.chunk_bytes = chunk;
		if (itrace_writer_open(out, &o, &w) < 0)
			die("cannot create the output");
		rec.type = ITRACE_REC_THREAD;
		rec.u.thread = (struct itrace_thread){ .event = ITRACE_THREAD_SWITCH, .tid = 1, .pid = 1 };
		write_or_die(w, &rec);
		write_segment_mmaps(w, argv[optind], &sg);
		rec = (struct itrace_record){ .type = ITRACE_REC_TRACE_CTL };
	} else {
		step(argv[optind], 0, out, taken_only, chunk, &s1, &w);
	}
	rec.u.ctl = (struct itrace_trace_ctl){ .on = 1, .reason = ITRACE_CTL_START, .addr = s1.v[0].addr };
	write_or_die(w, &rec);
	derive_events(d, &s1, taken_only, &e1);
	if (reps > 1) {
		step(argv[optind], 1, NULL, taken_only, chunk, &s2, NULL);
		derive_events(d, &s2, taken_only, &e2);
		extrapolate(&e1, &e2, reps, &all);
	} else {
		all = e1;
	}
	for (size_t i = 0; i < all.n; i++) {
		const struct event *ev = &all.v[i];

		if (ev->is_syscall) {
			struct itrace_record sr = { .type = ITRACE_REC_SYSCALL };

			sr.u.syscall.dir = ITRACE_SYSCALL_ENTER;
			sr.u.syscall.nr = ev->nr;
			write_or_die(w, &sr);
		} else if (itrace_writer_branch(w, ev->from, ev->to, ev->kind, ev->flags) < 0) {
			die("cannot write a branch");
		}
	}
	if (itrace_writer_close(w, ITRACE_END_COMPLETE, 0) < 0)
		die("cannot finish the output");
	if (insn_out) {
		struct itrace_writer_options o;

		itrace_writer_options_init(&o);
		o.machine = machine;
		if (itrace_writer_open(insn_out, &o, &w) < 0)
			die("cannot create the instruction output");
		for (size_t i = 0; i < s1.n; i++) {
			struct itrace_decoded di;

			itrace_decoder_decode(d, s1.v[i].bytes, 16, s1.v[i].addr, &di);
			if (itrace_writer_insn(w, s1.v[i].addr, di.len, NULL) < 0)
				die("cannot write an instruction");
		}
		if (itrace_writer_close(w, ITRACE_END_COMPLETE, 0) < 0)
			die("cannot finish the instruction output");
	}
	itrace_decoder_free(d);
	if (all.v != e1.v)
		free(all.v);
	free(e1.v);
	free(e2.v);
	free(s1.v);
	if (reps > 1)
		free(s2.v);
	return 0;
}
