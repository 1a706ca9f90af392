/* vg_convert.c - the Valgrind tool's raw words -> itrace records (see vg_convert.h). */
#include "vg_convert.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "emit.h"
#include "maps.h"
#include "vg_wire.h"

void vg_convert_init(struct vg_convert *c, struct itrace_writer *w, int only_active)
{
	memset(c, 0, sizeof(*c));
	c->w = w;
	c->out = emit_writer_sink(w);
	c->only_active = only_active;
	c->plain = 1;
}

static void forget_code_files(struct vg_convert *c)
{
	for (size_t i = 0; i < c->n_code_files; i++)
		free(c->code_files[i]);
	c->n_code_files = 0;
}

void vg_convert_free(struct vg_convert *c)
{
	for (size_t i = 0; i < c->n_buildids; i++)
		free(c->buildids[i].path);
	c->n_buildids = 0;
	forget_code_files(c);
	free(c->groups);
	free(c->group_lens);
	free(c->group_acc);
	free(c->chains);
	free(c->defs);
	free(c->def_bytes);
	c->defs = NULL;
	c->def_bytes = NULL;
	c->n_defs = c->cap_defs = c->n_def_bytes = c->cap_def_bytes = 0;
	free(c->bsites);
	c->bsites = NULL;
	c->n_bsites = c->cap_bsites = 0;
	free(c->paths);
	free(c->fast);
	free(c->path_of);
	free(c->ind);
	c->paths = NULL;
	c->fast = NULL;
	c->path_of = NULL;
	c->ind = NULL;
	c->n_paths = c->cap_paths = c->cap_path_of = 0;
	c->groups = NULL;
	c->group_lens = NULL;
	c->group_acc = NULL;
	c->chains = NULL;
	c->n_groups = c->cap_groups = c->n_group_lens = c->cap_group_lens = 0;
	c->n_group_acc = c->cap_group_acc = 0;
	c->n_chains = c->cap_chains = 0;
}

/* Remember a file mapped executable (once). */
static void add_code_file(struct vg_convert *c, const char *path)
{
	for (size_t i = 0; i < c->n_code_files; i++)
		if (strcmp(c->code_files[i], path) == 0)
			return;
	if (c->n_code_files < VG_MAX_CODE_FILES && (c->code_files[c->n_code_files] = strdup(path)))
		c->n_code_files++;
}

/* Build-id of `path`, read once per file. */
static int buildid_of(struct vg_convert *c, const char *path, uint8_t *id)
{
	struct vg_buildid_entry *e;

	for (size_t i = 0; i < c->n_buildids; i++) {
		e = &c->buildids[i];
		if (strcmp(e->path, path) == 0) {
			memcpy(id, e->id, (size_t)e->len);
			return e->len;
		}
	}
	if (c->n_buildids == VG_BUILDID_CACHE) {
		free(c->buildids[0].path);
		memmove(&c->buildids[0], &c->buildids[1], sizeof(c->buildids[0]) * (VG_BUILDID_CACHE - 1));
		c->n_buildids--;
	}
	e = &c->buildids[c->n_buildids];
	e->path = strdup(path);
	if (!e->path)
		return 0;
	e->len = maps_buildid(path, e->id, sizeof(e->id));
	if (e->len < 0)
		e->len = 0;
	c->n_buildids++;
	memcpy(id, e->id, (size_t)e->len);
	return e->len;
}

static int corrupt(struct vg_convert *c, const char *what, uint64_t word)
{
	snprintf(c->error, sizeof(c->error), "tool stream: %s (word %llu: %#llx)", what,
		 (unsigned long long)c->words, (unsigned long long)word);
	return -ITRACE_E_CORRUPT;
}

/* Nothing to write before the next instruction but the instruction. */
static void update_plain(struct vg_convert *c)
{
	c->plain = c->cur_tid == c->written_tid && !c->out_of_scope;
}

/*
 * Like the ptrace backend, a THREAD switch is written before the first
 * record of the thread that now runs, not at every scheduling decision.
 */
static int write_switch(struct vg_convert *c)
{
	c->written_tid = c->cur_tid;
	update_plain(c);
	return emit_thread(&c->out, ITRACE_THREAD_SWITCH, c->cur_tid, c->pid, 0);
}

#define TRY(call) EMIT_TRY(call)

static inline int switch_if_needed(struct vg_convert *c)
{
	return c->cur_tid != c->written_tid ? write_switch(c) : 0;
}

/* Leaving or re-entering the --only module is visible in the trace. */
static int scope_ctl(struct vg_convert *c, int on, uint64_t addr)
{
	c->out_of_scope = !on;
	update_plain(c);
	TRY(switch_if_needed(c));
	return emit_ctl(&c->out, on, ITRACE_CTL_SCOPE, addr);
}

/* Payload bytes of an event as a string (NUL-terminated copy in buf). */
static void payload_string(const uint64_t *p, size_t nwords, size_t len, char *buf, size_t bufsize)
{
	if (len > nwords * 8)
		len = nwords * 8;
	if (len >= bufsize)
		len = bufsize - 1;
	memcpy(buf, p, len);
	buf[len] = '\0';
}

static int event_mmap(struct vg_convert *c, const uint64_t *p, size_t n)
{
	struct itrace_mmap m = {0};
	char path[ITRACE_PATH_MAX];

	if (n < 5) /* before any p[k]: the event may be shorter than its fields */
		return corrupt(c, "short MMAP event", p[-1]);
	m = (struct itrace_mmap){.start = p[0], .len = p[1], .pgoff = p[2], .prot = (uint8_t)p[3]};
	payload_string(p + 5, n - 5, (size_t)p[4], path, sizeof(path));
	m.pid = c->pid;
	m.path = path;
	m.path_len = strlen(path);
	if (path[0] == '/')
		m.buildid_len = (uint8_t)buildid_of(c, path, m.buildid);
	if (path[0] == '/' && (m.prot & 4))
		add_code_file(c, path);
	return emit_mmap(&c->out, &m);
}

/* The vDSO: an MMAP record named like /proc/PID/maps does, then its bytes. */
static int event_code(struct vg_convert *c, const uint64_t *p, size_t n)
{
	struct itrace_mmap m = {.prot = 5 /* r-x */, .path = "[vdso]", .path_len = 6};

	if (n < 2 || p[1] > (n - 2) * 8 || p[1] > ITRACE_CODE_MAX)
		return corrupt(c, "bad CODE event", p[-1]);
	m.start = p[0];
	m.len = p[1];
	m.pid = c->pid;
	TRY(emit_mmap(&c->out, &m));
	return emit_code(&c->out, p[0], (const uint8_t *)(p + 2), (size_t)p[1]);
}

static int event_thread(struct vg_convert *c, const uint64_t *p, size_t n)
{
	if (n < 4)
		return corrupt(c, "short THREAD event", p[-1]);
	if (p[0] == ITRACE_THREAD_SWITCH) {
		c->cur_tid = (uint32_t)p[1];
		update_plain(c);
		return 0;
	}
	if (p[0] == ITRACE_THREAD_EXIT && p[3] == VGW_STATUS_UNKNOWN) {
		/* Killed with the process: vg_convert_finish knows how. */
		if (c->n_unknown_exits < VG_MAX_UNKNOWN_EXITS)
			c->unknown_exits[c->n_unknown_exits++] = (uint32_t)p[1];
		return 0;
	}
	return emit_thread(&c->out, (int)(uint8_t)p[0], (uint32_t)p[1], (uint32_t)p[2], p[3]);
}

static int event_syscall(struct vg_convert *c, int enter, const uint64_t *p, size_t n)
{
	if (n < 2)
		return corrupt(c, "short SYSCALL event", p[-1]);
	/* Made by code outside --only: not recorded (as with ptrace). */
	if (c->out_of_scope)
		return 0;
	TRY(switch_if_needed(c));
	if (enter && n >= 5 && (p[0] == SYS_kill || p[0] == SYS_tkill || p[0] == SYS_tgkill)) {
		c->kill_tid = c->cur_tid;
		c->kill_nr = p[0];
		c->kill_sig = p[0] == SYS_tgkill ? p[4] : p[3];
	}
	if (enter) {
		size_t nargs = p[1] < ITRACE_SYSCALL_MAX_ARGS ? (size_t)p[1] : ITRACE_SYSCALL_MAX_ARGS;
		if (n < 2 + nargs)
			return corrupt(c, "short SYSCALL event", p[-1]);
		return emit_syscall_enter(&c->out, p[0], nargs, p + 2);
	}
	return emit_syscall_exit(&c->out, p[0], (int64_t)p[1]);
}

/*
 * as_kernel_reports - a signal's si_code and si_addr as the kernel gives
 * them on x86-64 where Valgrind's differ (caught signals: the tool's
 * SIGNAL event; fatal ones: vg_convert_fatal_signal):
 * - a division fault's si_addr is the faulting instruction, its pc (the
 *   tool keeps the guest pc exact at divisions), where Valgrind gives the
 *   host's div in its translation;
 * - an int3's SIGTRAP is SI_KERNEL, where Valgrind's synth_sigtrap says
 *   TRAP_BRKPT.
 */
static void as_kernel_reports(struct itrace_signal *s)
{
	if (s->signo == SIGFPE && (s->code == FPE_INTDIV || s->code == FPE_INTOVF))
		s->addr = s->pc;
	if (s->signo == SIGTRAP && s->code == TRAP_BRKPT)
		s->code = SI_KERNEL;
}

static int event_signal(struct vg_convert *c, const uint64_t *p, size_t n)
{
	struct itrace_signal sig;
	int rc;

	if (n < 5)
		return corrupt(c, "short SIGNAL event", p[-1]);
	rc = switch_if_needed(c);
	if (rc < 0)
		return rc;
	sig = (struct itrace_signal){.signo = (uint32_t)p[0], .code = (int32_t)p[1], .addr = p[2],
				     .pc = p[3], .handler = p[4]};
	as_kernel_reports(&sig);
	rc = emit_signal(&c->out, &sig);
	/* At branch level the delivery is also a branch into the handler,
	 * where the thread is recording (p[5]: not outside a --start window;
	 * events of tools before it have 5 words). */
	if (rc >= 0 && c->level == VGW_LEVEL_BRANCH && p[4] != 0 && !c->out_of_scope &&
	    (n < 6 || p[5]))
		rc = emit_branch(&c->out, p[3], p[4], ITRACE_BRANCH_INTERRUPT, ITRACE_BRANCH_TAKEN);
	return rc;
}

static int event_trace_ctl(struct vg_convert *c, const uint64_t *p, size_t n)
{
	if (n < 3)
		return corrupt(c, "short TRACE_CTL event", p[-1]);
	TRY(switch_if_needed(c));
	return emit_ctl(&c->out, (int)(uint8_t)p[0], (int)(uint8_t)p[1], p[2]);
}

/* Records that name a process: the PROCESS exec of the image just traced
 * (ptrace names it by /proc/PID/exe; here the path the program gave,
 * made absolute from its working directory). */
static int write_exec(struct vg_convert *c)
{
	char cwd_link[64], cwd[PATH_MAX], joined[PATH_MAX + ITRACE_PATH_MAX + 2], real[PATH_MAX];
	const char *name = c->exec_path;
	ssize_t n;

	if (name[0] != '/') {
		snprintf(cwd_link, sizeof(cwd_link), "/proc/%u/cwd", c->pid);
		n = readlink(cwd_link, cwd, sizeof(cwd) - 1);
		if (n > 0) {
			cwd[n] = '\0';
			snprintf(joined, sizeof(joined), "%s/%s", cwd, name);
			name = joined;
		}
	}
	if (realpath(name, real))
		name = real;
	TRY(switch_if_needed(c));
	return emit_process(&c->out, ITRACE_PROCESS_EXEC, c->pid, c->cur_tid, 0, name);
}

static int write_unknown_exits(struct vg_convert *c, int64_t status);

/* forget_units - BSITE ids start again in each image: the units of the
 * paths' fast links (struct vg_fast) name the old image's events.  The
 * paths stay: they are branches by contents. */
static void forget_units(struct vg_convert *c)
{
	for (size_t i = 0; i < c->n_paths; i++)
		c->fast[i] = (struct vg_fast){ .next = (uint32_t)i, .next2 = (uint32_t)i,
					       .id = c->fast[i].id };
}

/*
 * The tool starts, or starts again in the program an execve it followed
 * started: the old image's other threads are gone (exit status 0, as the
 * ptrace backend says), the process runs a new program, and every record
 * of the new image names its thread again.
 */
static int event_hello(struct vg_convert *c, const uint64_t *p, size_t n)
{
	if (n < 4 || p[0] != VGW_VERSION)
		return corrupt(c, "tool of another version", p[-1]);
	if (c->hello) {
		if (!c->exec_seen || c->exec_follow != VGW_EXEC_FOLLOW || (uint32_t)p[1] != c->pid)
			return corrupt(c, "a second HELLO without an execve", p[-1]);
		TRY(write_unknown_exits(c, 0));
		TRY(write_exec(c));
		c->exec_seen = 0;
		c->written_tid = 0;
		c->out_of_scope = 0;
		c->fatal = 0;
		update_plain(c);
		forget_code_files(c);
		forget_units(c);
	}
	/* GROUP ids start again in each image (the writer's block
	 * definitions of the old image stay, unused). */
	c->n_groups = 0;
	c->n_group_lens = 0;
	c->n_group_acc = 0;
	c->n_chains = 0;
	c->n_bsites = 0;
	c->hello = 1;
	c->images++;
	c->pid = (uint32_t)p[1];
	c->level = (int)p[2];
	return 0;
}

/* Grow *v (of *cap elements of `elem` bytes) to hold `need`.  0 or -1. */
static int grow(void **v, size_t *cap, size_t need, size_t elem)
{
	size_t ncap = *cap ? *cap : 256;
	void *nv;

	if (need <= *cap)
		return 0;
	while (ncap < need)
		ncap *= 2;
	nv = realloc(*v, ncap * elem);
	if (!nv)
		return -1;
	*v = nv;
	*cap = ncap;
	return 0;
}

/*
 * The writer's definitions by contents (struct vg_def): each key is a
 * definition packed into bytes, its first byte saying what it defines,
 * so blocks and branches share one table.
 */
enum { DEF_BLOCK = 'b', DEF_BRANCH = 'j' };

/* A block's key: kind, start, n, m, the n lengths, then per access its
 * instruction, flags and size (8 bytes, host order). */
#define DEF_ACC_BYTES 10
#define DEF_BLOCK_HEAD 11

/* FNV-1a over a key. */
static uint64_t def_hash(const uint8_t *d, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < len; i++)
		h = (h ^ d[i]) * 0x100000001b3ull;
	return h;
}

/* Twice the entries, rehashed. */
static int defs_grow(struct vg_convert *c)
{
	size_t cap = c->cap_defs ? 2 * c->cap_defs : 1024;
	struct vg_def *v = malloc(cap * sizeof(*v));

	if (!v)
		return -ITRACE_E_NOMEM;
	for (size_t i = 0; i < cap; i++)
		v[i].id = -1;
	for (size_t i = 0; i < c->cap_defs; i++) {
		size_t j;

		if (c->defs[i].id < 0)
			continue;
		for (j = c->defs[i].hash & (cap - 1); v[j].id >= 0; j = (j + 1) & (cap - 1))
			;
		v[j] = c->defs[i];
	}
	free(c->defs);
	c->defs = v;
	c->cap_defs = cap;
	return 0;
}

/*
 * def_find - the entry of key[0..len) (hash h), or the empty one where it
 * goes, in *slot; the table has room for one more.  0 or -ITRACE_E_NOMEM.
 */
static int def_find(struct vg_convert *c, const uint8_t *key, size_t len, uint64_t h, size_t *slot)
{
	size_t j;

	if (2 * (c->n_defs + 1) > c->cap_defs && defs_grow(c) < 0)
		return -ITRACE_E_NOMEM;
	for (j = h & (c->cap_defs - 1); c->defs[j].id >= 0; j = (j + 1) & (c->cap_defs - 1)) {
		const struct vg_def *e = &c->defs[j];

		if (e->hash == h && e->len == len && memcmp(c->def_bytes + e->at, key, len) == 0)
			break;
	}
	*slot = j;
	return 0;
}

/* def_add - the writer's `id` (or its error) for key, at the empty entry
 * def_find() gave.  Returns id, or a negative error. */
static int def_add(struct vg_convert *c, size_t slot, const uint8_t *key, size_t len, uint64_t h,
		   int id)
{
	if (id < 0)
		return id;
	if (grow((void **)&c->def_bytes, &c->cap_def_bytes, c->n_def_bytes + len, 1) < 0)
		return -ITRACE_E_NOMEM;
	memcpy(c->def_bytes + c->n_def_bytes, key, len);
	c->defs[slot] = (struct vg_def){ .hash = h, .at = c->n_def_bytes, .len = len, .id = id };
	c->n_def_bytes += len;
	c->n_defs++;
	return id;
}

/*
 * define_block - the writer's block of n instructions from `start` with
 * lengths lens and the m accesses acc: the one defined before with the
 * same contents, or a new one.  Returns its id, or a negative error
 * (-ITRACE_E_INVAL: the writer refuses the definition).
 */
static int define_block(struct vg_convert *c, uint64_t start, size_t n, const uint8_t *lens,
			size_t m, const struct itrace_block_access *acc)
{
	uint8_t d[DEF_BLOCK_HEAD + ITRACE_RUN_MAX + ITRACE_BLOCK_ACCESS_MAX * DEF_ACC_BYTES];
	uint8_t *q = d + DEF_BLOCK_HEAD + n;
	size_t slot;
	uint64_t h;

	if (n > ITRACE_RUN_MAX || m > ITRACE_BLOCK_ACCESS_MAX)
		return -ITRACE_E_INVAL;
	d[0] = DEF_BLOCK;
	memcpy(d + 1, &start, 8);
	d[9] = (uint8_t)n;
	d[10] = (uint8_t)m;
	memcpy(d + DEF_BLOCK_HEAD, lens, n);
	for (size_t k = 0; k < m; k++, q += DEF_ACC_BYTES) {
		q[0] = acc[k].insn;
		q[1] = acc[k].flags;
		memcpy(q + 2, &acc[k].size, 8);
	}
	h = def_hash(d, (size_t)(q - d));
	TRY(def_find(c, d, (size_t)(q - d), h, &slot));
	if (c->defs[slot].id >= 0)
		return c->defs[slot].id;
	return def_add(c, slot, d, (size_t)(q - d), h,
		       emit_block_define(&c->out, start, n, lens, m, acc));
}

/*
 * A GROUP event: id (the next one), start, n, m, the n lengths and the m
 * access descriptors (vg_wire.h).  The group becomes a block of the
 * writer, defined once: each of its executions is then one call.
 */
static int event_group(struct vg_convert *c, const uint64_t *p, size_t n)
{
	struct itrace_block_access acc[VGW_GROUP_ACC_MAX];
	const uint8_t *bytes = (const uint8_t *)(p + 4);
	struct vg_group *g;
	uint64_t count, m, end;
	int id;

	if (n < 4 || p[0] != c->n_groups)
		return corrupt(c, "GROUP event out of sequence", p[-1]);
	count = p[2];
	m = p[3];
	end = p[1];
	if (count == 0 || count > VGW_GROUP_MAX || m > VGW_GROUP_ACC_MAX ||
	    n - 4 < VGW_BYTES_WORDS(count + m * VGW_ACC_BYTES))
		return corrupt(c, "bad GROUP event", p[-1]);
	for (uint64_t i = 0; i < count; i++) {
		if (bytes[i] == 0 || bytes[i] > ITRACE_INSN_MAX_LEN)
			return corrupt(c, "bad GROUP event length", p[-1]);
		end += bytes[i];
	}
	for (uint64_t k = 0; k < m; k++) {
		const uint8_t *d = bytes + count + k * VGW_ACC_BYTES;

		acc[k].insn = VGW_ACC_INSN(d);
		acc[k].flags = VGW_ACC_STORE(d) ? ITRACE_MEM_STORE : 0;
		acc[k].size = VGW_ACC_SIZE(d);
	}
	id = define_block(c, p[1], count, bytes, m, acc);
	if (id == -ITRACE_E_INVAL)
		return corrupt(c, "bad GROUP event access", p[-1]);
	if (id < 0)
		return id;
	if (grow((void **)&c->groups, &c->cap_groups, c->n_groups + 1, sizeof(*c->groups)) < 0 ||
	    grow((void **)&c->group_lens, &c->cap_group_lens, c->n_group_lens + count, 1) < 0 ||
	    grow((void **)&c->group_acc, &c->cap_group_acc, c->n_group_acc + m,
		 sizeof(*c->group_acc)) < 0 ||
	    grow((void **)&c->chains, &c->cap_chains, c->n_chains + 1, sizeof(*c->chains)) < 0)
		return -ITRACE_E_NOMEM;
	g = &c->groups[c->n_groups];
	g->start = p[1];
	g->end = end;
	g->n = (uint32_t)count;
	g->m = (uint32_t)m;
	g->block = id;
	g->lens = c->n_group_lens;
	memcpy(c->group_lens + c->n_group_lens, bytes, count);
	c->n_group_lens += count;
	g->acc = c->n_group_acc;
	if (m)
		memcpy(c->group_acc + c->n_group_acc, acc, m * sizeof(*acc));
	c->n_group_acc += m;
	g->chain = (uint32_t)c->n_chains;
	c->chains[c->n_chains++] = (struct vg_chain){
		.n = g->n,
		.m = g->m,
		.group = (uint32_t)c->n_groups,
		.groups = 1,
		.block = id,
	};
	c->n_groups++;
	return 0;
}

/* branch_flags - a BRANCH word's flags: taken, unless a conditional
 * branch went to the next instruction. */
static unsigned branch_flags(uint64_t from, unsigned aux, uint64_t to)
{
	unsigned len = aux & 0xf, kind = aux >> 4;

	return kind == ITRACE_BRANCH_COND && to == from + len ? 0 : ITRACE_BRANCH_TAKEN;
}

/*
 * define_branch - the writer's definition of the branch from -> to of
 * `kind` with `flags`: the one defined before with the same values, or a
 * new one.  Returns its id, or a negative error (-ITRACE_E_INVAL: the
 * writer refuses it).
 */
static int define_branch(struct vg_convert *c, uint64_t from, uint64_t to, unsigned kind,
			 unsigned flags)
{
	uint8_t d[1 + 8 + 8 + 2 * sizeof(unsigned)];
	size_t slot;
	uint64_t h;

	d[0] = DEF_BRANCH;
	memcpy(d + 1, &from, 8);
	memcpy(d + 9, &to, 8);
	memcpy(d + 17, &kind, sizeof(kind));
	memcpy(d + 17 + sizeof(kind), &flags, sizeof(flags));
	h = def_hash(d, sizeof(d));
	TRY(def_find(c, d, sizeof(d), h, &slot));
	if (c->defs[slot].id >= 0)
		return c->defs[slot].id;
	return def_add(c, slot, d, sizeof(d), h,
		       emit_branch_define(&c->out, from, to, kind, flags));
}

/*
 * seq_define - the writer's sequence of the k branches ids[0..k), or,
 * when the writer takes no sequences (-ITRACE_E_INVAL: no
 * ITRACE_FEAT_BRANCH_SEQ), `fallback` (its branch, for a path of one) or -1 (none), and
 * c->no_seqs set.  Negative: an error.
 */
static int seq_define(struct vg_convert *c, size_t k, const int *ids, int fallback, int *id)
{
	int rc = c->no_seqs ? -ITRACE_E_INVAL : emit_branch_seq_define(&c->out, k, ids);

	if (rc == -ITRACE_E_INVAL) {
		c->no_seqs = 1;
		*id = fallback;
		return 0;
	}
	if (rc < 0)
		return rc;
	*id = rc;
	return 0;
}

/* paths_add - a new path, *p, written as writer id `id`, that has not
 * grown yet; the paths may move.  Its index, or 0 (no memory). */
static uint32_t paths_add(struct vg_convert *c, const struct vg_path *p, int id)
{
	size_t cap = c->cap_paths, i = c->n_paths;

	if (i >= UINT32_MAX)
		return 0;
	if (i == cap) {
		size_t ncap = cap ? cap * 2 : 256;
		struct vg_path *np = realloc(c->paths, ncap * sizeof(*np));
		struct vg_fast *nf;

		if (!np)
			return 0;
		c->paths = np;
		if (!(nf = realloc(c->fast, ncap * sizeof(*nf))))
			return 0;
		c->fast = nf;
		c->cap_paths = ncap;
	}
	c->paths[i] = *p;
	c->fast[i] = (struct vg_fast){ .next = (uint32_t)i, .next2 = (uint32_t)i, .id = id };
	c->n_paths++;
	return (uint32_t)i;
}

/* paths_start - path 0, no path (bsites()), made once: it grows by
 * nothing, so never goes on.  0 or -ITRACE_E_NOMEM. */
static int paths_start(struct vg_convert *c)
{
	if (c->n_paths)
		return 0;
	paths_add(c, &(struct vg_path){ 0 }, -1);
	return c->n_paths ? 0 : -ITRACE_E_NOMEM;
}

/*
 * path_of_branch - the path of writer branch `id` alone (made at the
 * first call), in *path: a sequence of one branch, whose slot the writer
 * chooses, or the branch itself without sequences.  0 or a negative
 * error.
 */
static int path_of_branch(struct vg_convert *c, int id, uint32_t *path)
{
	size_t have = c->cap_path_of;
	int seq;

	TRY(paths_start(c));
	if (grow((void **)&c->path_of, &c->cap_path_of, (size_t)id + 1, sizeof(*c->path_of)) < 0)
		return -ITRACE_E_NOMEM;
	memset(c->path_of + have, 0, (c->cap_path_of - have) * sizeof(*c->path_of));
	if (!c->path_of[id]) {
		TRY(seq_define(c, 1, &id, id, &seq));
		if (!(c->path_of[id] = paths_add(c, &(struct vg_path){ .k = 1, .branch = id }, seq)))
			return -ITRACE_E_NOMEM;
	}
	*path = c->path_of[id];
	return 0;
}

/* The BSITE event id of BSITE unit u, and whether u is one (vg_wire.h). */
#define UNIT_ID(u) (((u) >> 1) & VGW_BSITE_ID_MAX)
#define IS_BSITE_UNIT(u) ((u) >> VGW_UNIT_TAG_SHIFT == VGW_BSITE)

/*
 * bsite_path - the path of one branch, the way the BSITE event goes that
 * unit u names (bs: the n_bsites events so far), or 0 if u is no BSITE
 * unit or names no such event.
 */
static inline uint32_t bsite_path(const struct vg_bsite *bs, uint32_t u, uint64_t n_bsites)
{
	return IS_BSITE_UNIT(u) && UNIT_ID(u) < n_bsites ? bs[UNIT_ID(u)].path[u & 1] : 0;
}

/*
 * word_units - the BSITE units of word x in u[], in their order, and how
 * many: 2 or 1 (tag VGW_BSITE; a zero unit is padding), 1 (tag 0, the
 * high half zero), or 0 (another word, or padding).  The hot loop of
 * bsites() takes zero units as padding too: a path that has not grown
 * goes on to itself with 0.
 */
static inline int word_units(uint64_t x, uint32_t u[2])
{
	u[0] = (uint32_t)x;
	u[1] = (uint32_t)(x >> 32);
	if (VGW_TAG(x) == VGW_BSITE) {
		if (u[0])
			return 2;
		u[0] = u[1]; /* a zero unit is padding */
		return 1;
	}
	return u[0] && !u[1] ? 1 : 0;
}

/*
 * end_path - path `pi` (not 0) ran, then the path of one branch `one`
 * (of BSITE unit `unit`, or 0 for a BRANCH word pair): if `pi` has grown
 * by no branch yet and has room, make the path that is both and define
 * it to the writer, once.  The paths may move.  0 (also when the writer
 * takes no sequences: c->no_seqs) or a negative error.
 */
static int end_path(struct vg_convert *c, uint32_t pi, uint32_t one, uint32_t unit)
{
	int ids[VG_PATH_BRANCHES];
	uint32_t k = c->paths[pi].k + 1, i = k, np;
	int id;

	if (c->no_seqs || c->paths[pi].next_one || k > VG_PATH_BRANCHES)
		return 0;
	ids[--i] = c->paths[one].branch;
	for (uint32_t q = pi; q; q = c->paths[q].parent)
		ids[--i] = c->paths[q].branch;
	TRY(seq_define(c, k, ids, -1, &id));
	if (id < 0)
		return 0;
	np = paths_add(c, &(struct vg_path){ .k = k, .parent = pi, .branch = c->paths[one].branch },
		       id);
	if (!np)
		return -ITRACE_E_NOMEM;
	c->paths[pi].next_one = one;
	c->paths[pi].next = np;
	if (unit) {
		uint32_t pp = c->paths[pi].parent;

		c->fast[pi].word = unit;
		c->fast[pi].next = np;
		/* the path before pi, if its unit led to pi, now goes on two
		 * branches at a time */
		if (pp && c->fast[pp].word && c->fast[pp].next == pi) {
			c->fast[pp].pair = (uint64_t)unit << 32 | c->fast[pp].word;
			c->fast[pp].next2 = np;
		}
	}
	return 0;
}

/*
 * indirect_miss - the path of the branch of a BRANCH word (from, aux, to)
 * that the cache does not hold: defined (or found) now and cached.
 * 0, or -ITRACE_E_INVAL (the writer refuses the branch: the caller
 * leaves the word to plain_branch(), which reports it), or a negative
 * error.
 */
static int indirect_miss(struct vg_convert *c, struct vg_ind *e, uint64_t from, unsigned aux,
			 uint64_t to, uint32_t *path)
{
	int id = define_branch(c, from, to, aux >> 4, branch_flags(from, aux, to));

	if (id < 0)
		return id;
	TRY(path_of_branch(c, id, path));
	*e = (struct vg_ind){ .from = from, .to = to, .aux = aux, .path = *path };
	return 0;
}

/* indirect_path - the path of one branch of a BRANCH word, as
 * indirect_miss(); the cache's hits inlined into the caller's loop. */
static inline int indirect_path(struct vg_convert *c, uint64_t from, unsigned aux, uint64_t to,
				uint32_t *path)
{
	uint64_t h = from * 0x9E3779B97F4A7C15ull ^ to * 0xC2B2AE3D27D4EB4Full;
	struct vg_ind *e;

	if (!c->ind && !(c->ind = calloc((size_t)1 << VG_IND_BITS, sizeof(*c->ind))))
		return -ITRACE_E_NOMEM;
	e = &c->ind[h >> (64 - VG_IND_BITS)];
	if (e->path && e->from == from && e->to == to && e->aux == aux) {
		*path = e->path;
		return 0;
	}
	return indirect_miss(c, e, from, aux, to, path);
}

/* A BSITE event: id (the next one), from, aux, target 0, target 1. */
static int event_bsite(struct vg_convert *c, const uint64_t *p, size_t n)
{
	struct vg_bsite *b;
	unsigned aux;

	if (n < 5 || p[0] != c->n_bsites)
		return corrupt(c, "BSITE event out of sequence", p[-1]);
	if (grow((void **)&c->bsites, &c->cap_bsites, c->n_bsites + 1, sizeof(*c->bsites)) < 0)
		return -ITRACE_E_NOMEM;
	b = &c->bsites[c->n_bsites];
	aux = (unsigned)p[2];
	for (int t = 0; t < 2; t++) {
		int def = define_branch(c, p[1], p[3 + t], aux >> 4, branch_flags(p[1], aux, p[3 + t]));

		if (def == -ITRACE_E_INVAL)
			return corrupt(c, "bad BSITE event", p[-1]);
		if (def < 0)
			return def;
		TRY(path_of_branch(c, def, &b->path[t]));
	}
	b->from = p[1];
	c->n_bsites++;
	return 0;
}

static int event(struct vg_convert *c, unsigned type, const uint64_t *p, size_t n)
{
	switch (type) {
	case VGW_EV_HELLO:
		return event_hello(c, p, n);
	case VGW_EV_THREAD:
		return event_thread(c, p, n);
	case VGW_EV_SYSCALL_ENTER:
	case VGW_EV_SYSCALL_EXIT:
		return event_syscall(c, type == VGW_EV_SYSCALL_ENTER, p, n);
	case VGW_EV_SIGNAL:
		return event_signal(c, p, n);
	case VGW_EV_MMAP:
		return event_mmap(c, p, n);
	case VGW_EV_CODE:
		return event_code(c, p, n);
	case VGW_EV_TRACE_CTL:
		return event_trace_ctl(c, p, n);
	case VGW_EV_EXIT:
		if (n < 1)
			return corrupt(c, "short EXIT event", p[-1]);
		c->exited = 1;
		c->exit_code = (int64_t)p[0];
		return 0;
	case VGW_EV_EXEC:
		if (n < 2)
			return corrupt(c, "short EXEC event", p[-1]);
		payload_string(p + 2, n - 2, (size_t)p[1], c->exec_path, sizeof(c->exec_path));
		c->exec_follow = (int)p[0];
		c->exec_seen = 1;
		return 0;
	case VGW_EV_ENTRY:
		c->at_entry = 1;
		return 0;
	case VGW_EV_GROUP:
		return event_group(c, p, n);
	case VGW_EV_BSITE:
		return event_bsite(c, p, n);
	case VGW_EV_FATAL:
		if (n < 2)
			return corrupt(c, "short FATAL event", p[-1]);
		c->fatal = 1;
		c->fatal_tid = (uint32_t)p[0];
		c->fatal_pc = p[1];
		c->fatal_after_int3 = n >= 3 && p[2];
		return 0;
	case VGW_EV_EXEC_FAILED:
		c->exec_seen = 0;
		return 0;
	case VGW_EV_ERROR:
		payload_string(p, n, n * 8, c->error, sizeof(c->error));
		return 0;
	default:
		return corrupt(c, "unknown event", p[-1]);
	}
}

/* Words a record occupies, or 0 if it does not fit in `avail`. */
static size_t record_words(uint64_t w, size_t avail)
{
	size_t need;

	switch (VGW_TAG(w)) {
	case VGW_BRANCH:
	case VGW_INSN_FULL:
		need = 2;
		break;
	case VGW_BRANCH_FULL:
		need = 3;
		break;
	case VGW_EVENT:
		need = 1 + (size_t)(w & 0xffffffffu);
		break;
	default:
		need = 1;
		break;
	}
	return need <= avail ? need : 0;
}

/* A branch when nothing else is to be written first (c->plain). */
static inline int plain_branch(struct vg_convert *c, uint64_t from, unsigned aux, uint64_t to)
{
	return emit_branch(&c->out, from, to, aux >> 4, branch_flags(from, aux, to));
}

/* What a branch at `from` needs written before it when not c->plain. */
static int before_branch(struct vg_convert *c, uint64_t from)
{
	TRY(switch_if_needed(c));
	if (c->out_of_scope)
		return scope_ctl(c, 1, from);
	return 0;
}

static int branch(struct vg_convert *c, uint64_t from, unsigned aux, uint64_t to)
{
	TRY(before_branch(c, from));
	return plain_branch(c, from, aux, to);
}

/* A word x of BSITE units (word_units()), one at a time: the branch of
 * the event each names went to the target its last bit says. */
static int bsite_units(struct vg_convert *c, uint64_t x)
{
	uint32_t u[2];
	int n = word_units(x, u);

	if (c->level != VGW_LEVEL_BRANCH)
		return corrupt(c, "BSITE unit at instruction level", x);
	for (int i = 0; i < n; i++) {
		uint32_t one = bsite_path(c->bsites, u[i], c->n_bsites);

		if (!one)
			return corrupt(c, "BSITE unit without its event", u[i]);
		if (!c->plain)
			TRY(before_branch(c, c->bsites[UNIT_ID(u[i])].from));
		TRY(emit_branch_id(&c->out, c->paths[one].branch));
	}
	return 0;
}

/* One instruction (a rep-prefixed string instruction has one word per
 * entry: ITRACE.md 6.5.2). */
static int insn(struct vg_convert *c, uint64_t addr, unsigned aux)
{
	TRY(switch_if_needed(c));
	if (c->out_of_scope) {
		int rc = scope_ctl(c, 1, addr);
		if (rc < 0)
			return rc;
	}
	return emit_insn(&c->out, addr, aux & 0xf, NULL);
}

/*
 * group_partial - the GROUP word at w[0] whose access words are not all there
 * (w[1..avail) holds what follows it): zero words are accesses that did
 * not happen; the first word that is not an access word, or the end of
 * the slot, is where the group stopped, before the instruction of the
 * first access missing.  *words: the words of the group.
 */
static int group_partial(struct vg_convert *c, const struct vg_group *g, const uint64_t *w,
			 size_t avail, size_t *words)
{
	uint64_t addrs[VGW_GROUP_ACC_MAX];
	uint8_t skip[VGW_GROUP_ACC_MAX];
	size_t k;

	for (k = 0; k < g->m && 1 + k < avail; k++) {
		uint64_t x = w[1 + k];

		if (VGW_IS_ACCESS(x)) {
			addrs[k] = VGW_ADDR(x);
			skip[k] = 0;
		} else if (x == 0) {
			addrs[k] = 0;
			skip[k] = 1;
		} else {
			break;
		}
	}
	*words = 1 + k;
	return emit_block_partial(&c->out, g->block, k == g->m ? g->n : c->group_acc[g->acc + k].insn,
				  addrs, skip);
}

/*
 * extend - make chain `ci` one group longer, by group `id`, if that group
 * starts where the chain ends and the longer chain is still a block the
 * writer takes.  Its block is defined here, once.  1: extended (the
 * chains may have moved), 0: not, or a negative error.
 */
static int extend(struct vg_convert *c, uint32_t ci, uint64_t id)
{
	uint8_t lens[ITRACE_RUN_MAX];
	struct itrace_block_access acc[ITRACE_BLOCK_ACCESS_MAX];
	uint32_t parts[VG_CHAIN_GROUPS], np = 0, n = 0, m = 0;
	uint64_t start;
	const struct vg_chain *ch = &c->chains[ci];
	const struct vg_group *h;
	int block;

	if (id >= c->n_groups || ch->groups >= VG_CHAIN_GROUPS)
		return 0;
	h = &c->groups[id];
	if (h->start != c->groups[ch->group].end || ch->n + h->n > ITRACE_RUN_MAX ||
	    ch->m + h->m > ITRACE_BLOCK_ACCESS_MAX)
		return 0;
	/* its groups, last first, then in order */
	parts[np++] = (uint32_t)id;
	for (uint32_t k = ci + 1; k; k = c->chains[k - 1].parent)
		parts[np++] = c->chains[k - 1].group;
	start = c->groups[parts[np - 1]].start;
	while (np--) {
		const struct vg_group *g = &c->groups[parts[np]];

		memcpy(lens + n, c->group_lens + g->lens, g->n);
		for (uint32_t k = 0; k < g->m; k++) {
			acc[m + k] = c->group_acc[g->acc + k];
			acc[m + k].insn = (uint8_t)(acc[m + k].insn + n);
		}
		n += g->n;
		m += g->m;
	}
	block = define_block(c, start, n, lens, m, acc);
	if (block < 0)
		return block;
	if (grow((void **)&c->chains, &c->cap_chains, c->n_chains + 1, sizeof(*c->chains)) < 0)
		return -ITRACE_E_NOMEM;
	ch = &c->chains[ci];
	c->chains[c->n_chains] = (struct vg_chain){
		.n = n,
		.m = m,
		.parent = ci + 1,
		.group = (uint32_t)id,
		.groups = ch->groups + 1,
		.block = block,
	};
	c->chains[ci].next_word = (uint64_t)VGW_GROUP << VGW_TAG_SHIFT | id;
	c->chains[ci].next_m = h->m;
	c->chains[ci].next = (uint32_t)c->n_chains++;
	return 1;
}

/*
 * whole_chain - the GROUP word at w[*pos] (of a known group) ran in full
 * if the words after it are its access words: their addresses go to
 * addrs, and the groups whose words follow join it while they make a
 * chain (struct vg_chain) and ran in full too.  Then *pos is past their
 * words, *block the chain's block and *m its accesses, and it returns 0;
 * 1: the first group did not run in full (group_partial() takes it); or
 * a negative error.
 */
static inline __attribute__((always_inline)) int whole_chain(struct vg_convert *c, const uint64_t *w,
							    size_t avail, size_t *pos, uint64_t *addrs,
							    int *block, size_t *m)
{
	const struct vg_group *g = &c->groups[w[*pos] & VGW_ADDR_MASK];
	const struct vg_chain *ch;
	size_t p = *pos, k;
	uint64_t *a = addrs, x;
	uint32_t ci;
	int rc;

	if (p + g->m >= avail)
		return 1;
	for (k = 0; k < g->m; k++) {
		x = w[p + 1 + k];
		if (!VGW_IS_ACCESS(x))
			return 1;
		a[k] = VGW_ADDR(x);
	}
	a += k;
	p += 1 + k;
	ch = &c->chains[g->chain];
	while (p < avail) {
		x = w[p];
		if (x != ch->next_word) {
			/* most: a taken branch, not the group after it */
			if (ch->next_word || VGW_TAG(x) != VGW_GROUP ||
			    (x & VGW_ADDR_MASK) >= c->n_groups ||
			    c->groups[x & VGW_ADDR_MASK].start != c->groups[ch->group].end)
				break;
			ci = (uint32_t)(ch - c->chains);
			if ((rc = extend(c, ci, x & VGW_ADDR_MASK)) < 0)
				return rc;
			ch = &c->chains[ci]; /* extend() may move them */
			if (rc == 0)
				break;
		}
		if (p + ch->next_m >= avail)
			break;
		for (k = 0; k < ch->next_m; k++) {
			x = w[p + 1 + k];
			if (!VGW_IS_ACCESS(x))
				goto out;
			a[k] = VGW_ADDR(x);
		}
		a += k;
		p += 1 + k;
		ch = &c->chains[ch->next];
	}
out:
	*pos = p;
	*block = ch->block;
	*m = (size_t)(a - addrs);
	return 0;
}

/* A GROUP word at w[0] (avail words from it): the instructions of its
 * GROUP event ran, with the accesses in the words after it, and the
 * chain it starts. */
static int group(struct vg_convert *c, const uint64_t *w, size_t avail, size_t *words)
{
	uint64_t id = w[0] & VGW_ADDR_MASK, addrs[ITRACE_BLOCK_ACCESS_MAX];
	const struct vg_group *g;
	size_t pos = 0, m;
	int block, rc;

	*words = 1;
	if (id >= c->n_groups)
		return corrupt(c, "GROUP word without its event", id);
	g = &c->groups[id];
	if (!c->plain) {
		TRY(switch_if_needed(c));
		if (c->out_of_scope)
			TRY(scope_ctl(c, 1, g->start));
	}
	if ((rc = whole_chain(c, w, avail, &pos, addrs, &block, &m)) == 1)
		return group_partial(c, g, w, avail, words);
	if (rc < 0)
		return rc;
	*words = pos;
	return emit_block(&c->out, block, addrs);
}

/* Most blocks, and accesses before the last block, in one writer call (groups()). */
#define VG_BLOCK_BATCH 256
#define VG_BATCH_ACCESSES 2048

/*
 * groups - the GROUP words from w[0] (avail words) that ran in full, and
 * their chains, up to a batch, in one writer call (c->plain).  Stops
 * before any other word, or a group that did not run in full, which
 * group() then takes.  *words: the words converted.
 */
static int groups(struct vg_convert *c, const uint64_t *w, size_t avail, size_t *words)
{
	int ids[VG_BLOCK_BATCH];
	uint64_t addrs[VG_BATCH_ACCESSES + ITRACE_BLOCK_ACCESS_MAX];
	size_t nb = 0, na = 0, pos = 0, m;
	int rc = 0, wrc;

	while (nb < VG_BLOCK_BATCH && na <= VG_BATCH_ACCESSES && pos < avail &&
	       VGW_TAG(w[pos]) == VGW_GROUP && (w[pos] & VGW_ADDR_MASK) < c->n_groups) {
		if ((rc = whole_chain(c, w, avail, &pos, addrs + na, &ids[nb], &m)) != 0)
			break;
		nb++;
		na += m;
	}
	if (nb == 0)
		return rc < 0 ? rc : group(c, w, avail, words);
	*words = pos;
	wrc = emit_blocks(&c->out, nb, ids, addrs);
	return wrc < 0 ? wrc : rc < 0 ? rc : 0;
}

/* Most words of BSITE units and BRANCH words converted in one writer
 * call (bsites()).  A batch's end also ends its last path: with 256
 * words, a gzip trace at branch level took 11.4 MB, with 4096, 8.5 MB
 * (paths cut short miss their slots more), for 5% fewer instructions. */
#define VG_BATCH 4096

/*
 * path_step - after path *cur (0: none yet), the branch whose path of one
 * branch is `one` ran (of BSITE unit `unit`, or 0 for a BRANCH word
 * pair): *cur goes on to the longer path, or ends, its writer id then in
 * ids[*nids++], and the branch starts the next.  0 or a negative error.
 */
static inline int path_step(struct vg_convert *c, uint32_t *cur, uint32_t one, uint32_t unit,
			    int *ids, size_t *nids)
{
	uint32_t p = *cur;

	if (unit && unit == c->fast[p].word) {
		*cur = c->fast[p].next;
		return 0;
	}
	/* the same branch from another BSITE event (or a BRANCH pair) also
	 * goes on */
	if (c->paths[p].next_one == one) {
		*cur = c->paths[p].next;
		return 0;
	}
	if (p) { /* the path ends here */
		/* end_path() grows only a path that has not grown yet: most
		 * have (on issue 22's gzip workload, all but 5621 of 28.7
		 * million path ends), so no call for them. */
		if (!c->paths[p].next_one)
			TRY(end_path(c, p, one, unit));
		ids[(*nids)++] = c->fast[p].id;
	}
	*cur = one;
	return 0;
}

/*
 * bsites - the words of BSITE units and the BRANCH words from w[0] (avail
 * words), up to a batch, in one writer call (c->plain), as paths: each
 * the longest path known that goes on with the branches after it (and a
 * path grows by the branch that ran after it).  Stops before any other
 * word, a bad one or a BRANCH word cut by the buffer, which the caller
 * then takes.  *words: the words converted.
 */
static int bsites(struct vg_convert *c, const uint64_t *w, size_t avail, size_t *words)
{
	int ids[2 * VG_BATCH + 1]; /* two units a word, and the last path */
	size_t n = 0, nids = 0, lim = avail < VG_BATCH ? avail : VG_BATCH;
	uint32_t cur = 0, one; /* cur 0: no path yet */
	int rc = paths_start(c), wrc;

	if (rc < 0) {
		*words = 0;
		return rc;
	}
	while (n < lim) {
		/* in locals: stores to ids[] could be c's fields to the compiler */
		const struct vg_fast *fast = c->fast;
		const struct vg_bsite *bs = c->bsites;
		const uint64_t n_bsites = c->n_bsites;
		uint32_t u[2];
		uint64_t x;
		int k;

		/* the hot loop: words of two units that made the path two
		 * branches longer */
		for (; n < lim && w[n] == fast[cur].pair; n++)
			cur = fast[cur].next2;
		if (n == lim)
			break;
		x = w[n];
		if ((k = word_units(x, u)) != 0) {
			uint32_t one1 = k == 2 ? bsite_path(bs, u[1], n_bsites) : 1;

			if (!(one = bsite_path(bs, u[0], n_bsites)) || !one1) {
				rc = corrupt(c, "BSITE unit without its event", x);
				n++; /* used, as any bad word (vg_convert_words()) */
				break;
			}
			n++;
			if ((rc = path_step(c, &cur, one, u[0], ids, &nids)) < 0 ||
			    (k == 2 && (rc = path_step(c, &cur, one1, u[1], ids, &nids)) < 0))
				break;
		} else if (VGW_TAG(x) == VGW_BRANCH && n + 1 < lim) {
			if ((rc = indirect_path(c, VGW_ADDR(x), VGW_AUX(x), w[n + 1], &one)) < 0)
				break;
			n += 2;
			if ((rc = path_step(c, &cur, one, 0, ids, &nids)) < 0)
				break;
		} else {
			break; /* the caller's */
		}
	}
	*words = n;
	if (rc == -ITRACE_E_INVAL) /* a branch the writer refuses: the caller reports it */
		rc = 0;
	if (rc < 0 && rc != -ITRACE_E_CORRUPT)
		return rc;
	/* also before a bad unit: every branch before it */
	if (cur)
		ids[nids++] = c->fast[cur].id;
	wrc = nids ? emit_branch_ids(&c->out, nids, ids) : 0;
	return rc < 0 ? rc : wrc;
}

int vg_convert_fatal_signal(struct vg_convert *c, const struct itrace_signal *sig)
{
	struct itrace_signal s = *sig;

	c->cur_tid = c->fatal_tid;
	TRY(switch_if_needed(c));
	s.pc = c->fatal_pc;
	s.handler = 0;
	as_kernel_reports(&s);
	return emit_signal(&c->out, &s);
}

/* THREAD exit records whose status only waitpid knew. */
static int write_unknown_exits(struct vg_convert *c, int64_t status)
{
	for (size_t i = 0; i < c->n_unknown_exits; i++)
		TRY(emit_thread(&c->out, ITRACE_THREAD_EXIT, c->unknown_exits[i], c->pid,
				(uint64_t)status));
	c->n_unknown_exits = 0;
	return 0;
}

int vg_convert_finish(struct vg_convert *c, int64_t status)
{
	TRY(write_unknown_exits(c, status));
	if (!c->exec_seen)
		return 0;
	TRY(write_exec(c));
	return emit_ctl(&c->out, 0, ITRACE_CTL_DETACH, 0);
}

/*
 * sequential_insns - how many plain INSN words from w[0] (one at least)
 * describe instructions that follow each other in memory, at most
 * ITRACE_RUN_MAX; their lengths go to lens.  They reach the writer in one
 * call: the tool's stream is mostly such stretches between MEM words.
 */
static size_t sequential_insns(const uint64_t *w, size_t n, uint8_t *lens)
{
	uint64_t next = (w[0] & VGW_ADDR_MASK) + VGW_AUX(w[0]);
	size_t k = 1;

	lens[0] = (uint8_t)VGW_AUX(w[0]);
	if (n > ITRACE_RUN_MAX)
		n = ITRACE_RUN_MAX;
	while (k < n && VGW_TAG(w[k]) == VGW_INSN && !(VGW_AUX(w[k]) & VGW_INSN_REP) &&
	       (w[k] & VGW_ADDR_MASK) == next) {
		lens[k] = (uint8_t)VGW_AUX(w[k]);
		next += lens[k];
		k++;
	}
	return k;
}

int vg_convert_words(struct vg_convert *c, const uint64_t *w, size_t n, size_t *used)
{
	size_t i = 0, k;
	uint8_t lens[ITRACE_RUN_MAX]; /* of a stretch of sequential instructions */
	int rc = 0;

	while (i < n) {
		uint64_t x = w[i];

		/* The hot cases first, without the size dispatch. */
		switch (VGW_TAG(x)) {
		case VGW_INSN:
			if (c->plain && !(VGW_AUX(x) & VGW_INSN_REP)) {
				k = sequential_insns(w + i, n - i, lens);
				rc = emit_insns(&c->out, x & VGW_ADDR_MASK, k, lens);
				i += k;
			} else {
				rc = insn(c, x & VGW_ADDR_MASK, VGW_AUX(x));
				i++;
			}
			break;
		case VGW_GROUP:
			if (c->plain)
				rc = groups(c, w + i, n - i, &k);
			else
				rc = group(c, w + i, n - i, &k);
			i += k;
			break;
		case VGW_BRANCH: /* branch level: indirect branches */
			if (i + 1 >= n)
				goto out; /* cut by the buffer: next call */
			k = 0;
			if (c->plain)
				rc = bsites(c, w + i, n - i, &k);
			if (rc == 0 && k == 0) {
				if (c->plain)
					rc = plain_branch(c, VGW_ADDR(x), VGW_AUX(x), w[i + 1]);
				else
					rc = branch(c, VGW_ADDR(x), VGW_AUX(x), w[i + 1]);
				k = 2;
			}
			i += k;
			break;
		case VGW_LOAD:
		case VGW_STORE:
			rc = emit_mem(&c->out, VGW_ADDR(x), VGW_AUX(x),
				      VGW_TAG(x) == VGW_STORE ? ITRACE_MEM_STORE : 0);
			i++;
			break;
		case 0: /* padding, or one BSITE unit */
			if (x == 0 || x >> 32 || c->level != VGW_LEVEL_BRANCH) {
				if (x != 0)
					rc = corrupt(c, "bad word", x);
				i++;
				break;
			}
			/* fall through */
		case VGW_BSITE: /* branch level: most branches, two to a word */
			k = 0;
			if (c->plain && c->level == VGW_LEVEL_BRANCH)
				rc = bsites(c, w + i, n - i, &k);
			if (k == 0) { /* the word alone, or (an error) counted as used */
				if (rc == 0)
					rc = bsite_units(c, x);
				k = 1;
			}
			i += k;
			break;
		default:
			k = record_words(x, n - i);
			if (k == 0)
				goto out; /* cut by the buffer: next call */
			switch (VGW_TAG(x)) {
			case VGW_BRANCH_FULL:
				rc = branch(c, w[i + 1], VGW_AUX(x), w[i + 2]);
				break;
			case VGW_INSN_FULL:
				rc = insn(c, w[i + 1], VGW_AUX(x));
				break;
			case VGW_SCOPE_OUT:
				if (c->only_active && !c->out_of_scope)
					rc = scope_ctl(c, 0, VGW_ADDR(x));
				break;
			case VGW_EVENT:
				rc = event(c, (x >> VGW_AUX_SHIFT) & 0xff, w + i + 1, k - 1);
				break;
			default:
				rc = corrupt(c, "unknown tag", x);
				break;
			}
			i += k;
			break;
		}
		if (rc < 0) {
			if (rc == -ITRACE_E_IO) /* the writer failed: ENOSPC, EPIPE, ... */
				snprintf(c->error, sizeof(c->error), "%s", strerror(errno));
			else if (!c->error[0])
				snprintf(c->error, sizeof(c->error), "tool word %llu (%#llx): %s",
					 (unsigned long long)(c->words + i), (unsigned long long)x,
					 itrace_errstr(rc));
			c->words += i;
			*used = i;
			return rc;
		}
	}
out:
	c->words += i;
	*used = i;
	return 0;
}
