/*
 * itrace_qemu_plugin.c - the QEMU TCG plugin of `itrace-collect --backend
 * qemu`, loaded into qemu-user (qemu-ppc64le, qemu-x86_64, ...) by
 * itrace-collect with "-plugin itrace-qemu.so,shm=FD,level=insn|branch".
 *
 * It formats nothing.  At translation time each block gets an id, and its
 * instructions (addresses, lengths, bytes) are described once in a BLOCK
 * event; the callbacks then append fixed-size words to the running
 * thread's slot of the shared memory (qemu_wire.h):
 *   - before the first instruction of a block: the block's id;
 *   - before every other instruction: nothing but its index, kept in the
 *     thread's state, so that a block cut short by a fault or a fatal
 *     signal is known exactly (a PARTIAL word);
 *   - after each memory access (instruction level): its address, size,
 *     direction and the index of its instruction;
 *   - system calls, thread exits and the end of the process as events.
 * itrace-collect turns the words into records on another CPU.
 *
 * Threads: QEMU runs each guest thread on a host thread of its own (one
 * vCPU each); every vCPU owns one slot at a time, so the callbacks take no
 * lock.  Block descriptions go to a slot of their own (under a mutex:
 * translation is rare), which is queued before any thread's slot, so that
 * itrace-collect never meets a block before its description, whichever
 * thread runs it.  A thread's slot is queued when full, and at once after
 * an event other threads' words may depend on (a change of the address
 * space, a new thread or process, a new signal handler).
 *
 * A forked child is not traced: it leaves the parent's slots alone, stops
 * writing and uninstalls the plugin, running at full speed.
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "qemu_plugin_api.h"
#include "qemu_wire.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

static struct {
	struct qw_shm *shm;
	struct qw_vcpu *vcpus;	  /* shm->vcpu, or a private copy in a forked child */
	struct qw_vcpu *defs;	  /* shm->defs: the block descriptions (tid 0) */
	const struct qw_sysnums *sys;
	qemu_plugin_id_t id;
	int level;
	uint32_t pid;
	pthread_mutex_t defs_lock;
	uint64_t next_block;	  /* block ids (under defs_lock) */
	int hello_sent;
	atomic_int closing;	  /* the process ends: slots are no longer queued */
	int detached;		  /* a forked child: nothing is recorded */
	int bench_callbacks;	  /* bench=callbacks: threads' words go to scratch */
	uint64_t guest_base;	  /* host address of guest address 0 */
	uint64_t scratch[QW_SLOT_WORDS]; /* where writes go once closing */
	atomic_ullong meminfo_memo[64];  /* meminfo -> size shift and store bit */
} g;

static uint32_t gettid_(void)
{
	return (uint32_t)syscall(SYS_gettid);
}

static struct qw_vcpu *vcpu(unsigned idx)
{
	return &g.vcpus[idx];
}

/* ---- Slots -------------------------------------------------------------- */

static void use_scratch(struct qw_vcpu *v)
{
	v->slot = QW_NO_SLOT;
	v->base = v->pos = g.scratch;
	v->end = g.scratch + QW_SLOT_WORDS - QW_SLOT_MARGIN;
	v->hard_end = g.scratch + QW_SLOT_WORDS;
}

/* Queue the slot's words (if any); an empty slot is kept. */
static void queue_one(struct qw_vcpu *v)
{
	struct qw_note note;

	if (v->slot == QW_NO_SLOT || v->pos == v->base)
		return;
	note.slot = v->slot;
	note.words = (uint32_t)(v->pos - v->base);
	note.pid = g.pid;
	note.tid = v->tid;
	v->slot = QW_NO_SLOT;
	/* the next write must take a slot first */
	v->pos = v->end = v->hard_end = NULL;
	qw_put_note(g.shm, &note);
}

/* A thread's slot, after the block descriptions it may use. */
static void queue_slot(struct qw_vcpu *v)
{
	if (v->slot == QW_NO_SLOT || v->pos == v->base)
		return;
	pthread_mutex_lock(&g.defs_lock);
	queue_one(g.defs);
	pthread_mutex_unlock(&g.defs_lock);
	queue_one(v);
}

static void take_slot(struct qw_vcpu *v)
{
	if (v->slot == QW_NO_SLOT) {
		uint32_t slot = qw_take_slot(g.shm);

		v->base = qw_slot(g.shm, slot);
		v->slot = slot;
	}
	v->pos = v->base;
	v->end = v->base + QW_SLOT_WORDS - QW_SLOT_MARGIN;
	v->hard_end = v->base + QW_SLOT_WORDS;
}

/* Hand the thread's slot over and take a fresh one. */
static void flush(struct qw_vcpu *v)
{
	__atomic_store_n(&v->busy, 1, __ATOMIC_SEQ_CST);
	if (!v->tid)
		v->tid = gettid_();
	if (atomic_load(&g.closing) || g.detached || g.bench_callbacks) {
		use_scratch(v);
	} else {
		queue_slot(v);
		take_slot(v);
	}
	__atomic_store_n(&v->busy, 0, __ATOMIC_SEQ_CST);
}

/* Room for `n` words (an event) in the slot. */
static uint64_t *reserve(struct qw_vcpu *v, size_t n)
{
	if (v->slot == QW_NO_SLOT || v->pos + n > v->hard_end)
		flush(v);
	return v->pos;
}

/*
 * Store a record's first word last: the collector reads a slot whose
 * owner died up to the first zero word.
 */
static void publish(uint64_t *w, uint64_t first)
{
	atomic_signal_fence(memory_order_release); /* (x86-64 keeps stores in order) */
	*(volatile uint64_t *)w = first;
}

/*
 * The open block ends here: if its last instruction did not start (a
 * fault stopped it), say where it stopped.
 */
static void close_block(struct qw_vcpu *v)
{
	if (v->n && v->cur + 1 != v->n) {
		uint64_t *w = reserve(v, 1);

		publish(w, ((uint64_t)QW_PARTIAL << QW_TAG_SHIFT) | v->cur);
		v->pos++;
	}
	v->n = 0;
}

/* Append an event of `n` payload words (p) and `nb` trailing bytes (b). */
static void put_event(struct qw_vcpu *v, unsigned type, const uint64_t *p, size_t n,
		      const void *b, size_t nb)
{
	size_t words = n + QW_BYTES_WORDS(nb);
	uint64_t *w;

	close_block(v);
	w = reserve(v, 1 + words);
	if (n)
		memcpy(w + 1, p, n * 8);
	if (nb) {
		w[1 + words - 1] = 0; /* padding */
		memcpy(w + 1 + n, b, nb);
	}
	publish(w, QW_EVENT_WORD(type, words));
	v->pos += 1 + words;
}

/* ---- Execution callbacks ------------------------------------------------ */

/* Before a block's first instruction; udata = id << 10 | instructions. */
static void block_start(unsigned idx, void *udata)
{
	struct qw_vcpu *v = vcpu(idx);
	uint64_t u = (uint64_t)(uintptr_t)udata;

	if (v->n && v->cur + 1 != v->n)
		close_block(v);
	if (v->pos >= v->end) /* (both NULL without a slot) */
		flush(v);
	*v->pos++ = ((uint64_t)QW_BLOCK << QW_TAG_SHIFT) | (u >> 10);
	v->n = (uint32_t)(u & 0x3ff);
	v->cur = 0;
}

/* Before every other instruction; udata = its index in the block. */
static void insn_start(unsigned idx, void *udata)
{
	vcpu(idx)->cur = (uint32_t)(uintptr_t)udata;
}

/* log2(size) | store << 3 of a memory access, memoised per meminfo value. */
static unsigned mem_meta(qemu_plugin_meminfo_t info)
{
	atomic_ullong *e = &g.meminfo_memo[(info ^ (info >> 6) ^ (info >> 16)) & 63];
	uint64_t m = atomic_load_explicit(e, memory_order_relaxed);
	unsigned meta;

	if ((m >> 32) == (uint64_t)info + 1)
		return (unsigned)m & 0xf;
	meta = (qemu_plugin_mem_size_shift(info) & 7) | (qemu_plugin_mem_is_store(info) ? 8u : 0u);
	atomic_store_explicit(e, ((uint64_t)info + 1) << 32 | meta, memory_order_relaxed);
	return meta;
}

/* After each memory access; udata = the instruction's index in the block. */
static void mem_access(unsigned idx, qemu_plugin_meminfo_t info, uint64_t vaddr, void *udata)
{
	struct qw_vcpu *v = vcpu(idx);
	unsigned meta = mem_meta(info);
	uint64_t w = (uint64_t)(uintptr_t)udata << QW_MEM_INDEX_SHIFT |
		     (uint64_t)(meta >> 3) << QW_MEM_STORE_BIT |
		     (uint64_t)(meta & 7) << QW_MEM_SHIFT_SHIFT;

	if ((uintptr_t)v->pos + 16 > (uintptr_t)v->hard_end)
		flush(v);
	if (vaddr <= QW_MEM_ADDR_MASK) {
		*v->pos++ = ((uint64_t)QW_MEM << QW_TAG_SHIFT) | w | vaddr;
	} else {
		v->pos[1] = vaddr;
		publish(v->pos, ((uint64_t)QW_MEM_FULL << QW_TAG_SHIFT) | w);
		v->pos += 2;
	}
}

/* ---- Translation ----------------------------------------------------------- */

/* Room for `n` words in the descriptions' slot (under defs_lock). */
static uint64_t *reserve_def(size_t n)
{
	struct qw_vcpu *d = g.defs;

	if (d->slot == QW_NO_SLOT || d->pos + n > d->hard_end) {
		if (atomic_load(&g.closing) || g.detached) {
			use_scratch(d);
		} else {
			queue_one(d);
			take_slot(d);
		}
	}
	return d->pos;
}

static void send_hello(const struct qemu_plugin_insn *first)
{
	const char *path = qemu_plugin_path_to_binary();
	size_t len = path ? strlen(path) : 0, words = QW_HELLO_WORDS + QW_BYTES_WORDS(len);
	uint64_t p[QW_HELLO_WORDS] = {QW_VERSION, g.pid, (uint64_t)g.level,
				      qemu_plugin_start_code(), qemu_plugin_end_code(),
				      qemu_plugin_entry_code(), len};
	uint64_t *w = reserve_def(1 + words);

	/* In user mode the guest's memory is the emulator's, offset by
	 * guest_base: where the first instruction lies tells it. */
	g.guest_base = (uint64_t)(uintptr_t)qemu_plugin_insn_haddr(first) -
		       qemu_plugin_insn_vaddr(first);
	memcpy(w + 1, p, sizeof(p));
	w[words] = 0;
	if (len)
		memcpy(w + 1 + QW_HELLO_WORDS, path, len);
	publish(w, QW_EVENT_WORD(QW_EV_HELLO, words));
	g.defs->pos += 1 + words;
}

/* The BLOCK event of a block being translated, and its callbacks. */
static void block_translated(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb), nbytes = 0, words;
	uint64_t block, *w;
	uint8_t *lens, *code;

	(void)id;
	if (g.detached || n == 0 || n > QW_MAX_BLOCK_INSNS)
		return;
	for (size_t i = 0; i < n; i++)
		nbytes += qemu_plugin_insn_size(qemu_plugin_tb_get_insn(tb, i));
	words = QW_BLOCK_WORDS + QW_BYTES_WORDS(n) + QW_BYTES_WORDS(nbytes);
	pthread_mutex_lock(&g.defs_lock);
	if (!g.hello_sent) {
		g.hello_sent = 1;
		send_hello(qemu_plugin_tb_get_insn(tb, 0));
	}
	block = g.next_block++;
	w = reserve_def(1 + words);
	w[1] = block;
	w[2] = qemu_plugin_tb_vaddr(tb);
	w[3] = n;
	w[4] = nbytes;
	lens = (uint8_t *)(w + 1 + QW_BLOCK_WORDS);
	code = lens + QW_BYTES_WORDS(n) * 8;
	memset(lens, 0, (QW_BYTES_WORDS(n) + QW_BYTES_WORDS(nbytes)) * 8);
	for (size_t i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		size_t len = qemu_plugin_insn_size(insn);

		lens[i] = (uint8_t)len;
		memcpy(code, qemu_plugin_insn_data(insn), len);
		code += len;
	}
	publish(w, QW_EVENT_WORD(QW_EV_BLOCK, words));
	g.defs->pos += 1 + words;
	pthread_mutex_unlock(&g.defs_lock);

	for (size_t i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);

		if (i == 0)
			qemu_plugin_register_vcpu_insn_exec_cb(insn, block_start, QEMU_PLUGIN_CB_NO_REGS,
							       (void *)(uintptr_t)(block << 10 | n));
		else
			qemu_plugin_register_vcpu_insn_exec_cb(insn, insn_start, QEMU_PLUGIN_CB_NO_REGS,
							       (void *)(uintptr_t)i);
		if (g.level == QW_LEVEL_INSN)
			qemu_plugin_register_vcpu_mem_cb(insn, mem_access, QEMU_PLUGIN_CB_NO_REGS,
							 QEMU_PLUGIN_MEM_RW, (void *)(uintptr_t)i);
	}
}

/* ---- Threads ---------------------------------------------------------------- */

static void vcpu_init(qemu_plugin_id_t id, unsigned idx)
{
	struct qw_vcpu *v;

	(void)id;
	if (idx >= QW_MAX_VCPUS) {
		fprintf(stderr, "itrace-qemu: more than %d threads at once\n", QW_MAX_VCPUS);
		abort();
	}
	if (g.detached)
		return;
	v = vcpu(idx);
	/* QEMU creates the vCPU of a new thread on the creating thread: the
	 * tid is taken at the vCPU's first flush, on its own thread. */
	memset(v, 0, sizeof(*v));
	v->slot = QW_NO_SLOT;
}

static void vcpu_exit(qemu_plugin_id_t id, unsigned idx)
{
	struct qw_vcpu *v = vcpu(idx);

	(void)id;
	if (g.detached)
		return;
	put_event(v, QW_EV_THREAD_EXIT, NULL, 0, NULL, 0);
	__atomic_store_n(&v->busy, 1, __ATOMIC_SEQ_CST);
	if (!atomic_load(&g.closing))
		queue_slot(v);
	v->slot = QW_NO_SLOT;
	v->tid = 0;
	__atomic_store_n(&v->busy, 0, __ATOMIC_SEQ_CST);
}

/* ---- System calls ----------------------------------------------------------- */

/* Read guest memory without risking a fault in the emulator. */
static int read_guest(uint64_t addr, void *buf, size_t len)
{
	struct iovec local = {buf, len};
	struct iovec remote = {(void *)(uintptr_t)(addr + g.guest_base), len};

	return process_vm_readv((pid_t)g.pid, &local, 1, &remote, 1, 0) == (ssize_t)len ? 0 : -1;
}

/* A NUL-terminated string of guest memory, read a page at a time. */
static size_t read_guest_string(uint64_t addr, char *buf, size_t cap)
{
	size_t len = 0;

	while (addr && len + 1 < cap) {
		size_t chunk = 4096 - ((addr + g.guest_base) & 4095);
		char *nul;

		if (chunk > cap - 1 - len)
			chunk = cap - 1 - len;
		if (read_guest(addr, buf + len, chunk) != 0)
			break;
		nul = memchr(buf + len, '\0', chunk);
		if (nul)
			return (size_t)(nul - buf);
		len += chunk;
		addr += chunk;
	}
	return len;
}

static int changes_address_space(int64_t nr)
{
	const struct qw_sysnums *s = g.sys;

	return nr == s->mmap || nr == s->munmap || nr == s->mprotect || nr == s->mremap ||
	       nr == s->brk;
}

static int creates_task(int64_t nr)
{
	const struct qw_sysnums *s = g.sys;

	return nr == s->clone || nr == s->clone3 || nr == s->fork || nr == s->vfork;
}

static void syscall_entry(qemu_plugin_id_t id, unsigned idx, int64_t nr, uint64_t a1, uint64_t a2,
			  uint64_t a3, uint64_t a4, uint64_t a5, uint64_t a6, uint64_t a7, uint64_t a8)
{
	struct qw_vcpu *v = vcpu(idx);
	uint64_t p[QW_SYSCALL_WORDS] = {(uint64_t)nr, a1, a2, a3, a4, a5, a6, 0, 0, 0};
	char path[4096];
	size_t len = 0;

	(void)id, (void)a7, (void)a8;
	if (g.detached)
		return;
	v->sys_nr = nr;
	memcpy(v->sys_arg, p + 1, sizeof(v->sys_arg));
	/* The handler being installed (struct sigaction starts with the
	 * handler and the flags on ppc64 and x86-64 alike). */
	if (nr == g.sys->rt_sigaction && a2 != 0 && read_guest(a2, p + 7, 16) != 0)
		p[7] = p[8] = 0;
	if (nr == g.sys->execve)
		len = read_guest_string(a1, path, sizeof(path));
	else if (nr == g.sys->execveat)
		len = read_guest_string(a2, path, sizeof(path));
	p[9] = len;
	put_event(v, QW_EV_SYSCALL, p, QW_SYSCALL_WORDS, path, len);
	/* execve may end this process image: nothing may stay behind. */
	if (nr == g.sys->execve || nr == g.sys->execveat)
		flush(v);
}

/* The file an mmap mapped: what its descriptor names now. */
static size_t mapped_path(const struct qw_vcpu *v, char *path, size_t cap)
{
	char link[64];
	ssize_t n;

	if (v->sys_nr != g.sys->mmap || (int64_t)v->sys_arg[4] < 0)
		return 0;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", (int)v->sys_arg[4]);
	n = readlink(link, path, cap);
	return n > 0 ? (size_t)n : 0;
}

static void uninstalled(qemu_plugin_id_t id)
{
	(void)id;
}

/*
 * In a forked child: the shared state stays the parent's; this process
 * records nothing and runs at full speed once the plugin is uninstalled.
 */
static void detach_child(void)
{
	struct qw_vcpu *mine = aligned_alloc(_Alignof(struct qw_vcpu),
					     (QW_MAX_VCPUS + 1) * sizeof(*mine));

	g.detached = 1;
	if (!mine)
		abort();
	memset(mine, 0, (QW_MAX_VCPUS + 1) * sizeof(*mine));
	for (unsigned i = 0; i <= QW_MAX_VCPUS; i++)
		use_scratch(&mine[i]);
	g.vcpus = mine;
	g.defs = &mine[QW_MAX_VCPUS];
	munmap(g.shm, QW_SHM_BYTES);
	g.shm = NULL;
	qemu_plugin_uninstall(g.id, uninstalled);
}

static void syscall_return(qemu_plugin_id_t id, unsigned idx, int64_t nr, int64_t ret)
{
	struct qw_vcpu *v = vcpu(idx);
	char path[4096];
	uint64_t p[3];
	size_t len;

	(void)id;
	if (g.detached)
		return;
	if (creates_task(nr) && ret == 0 && (uint32_t)getpid() != g.pid) {
		detach_child();
		return;
	}
	len = ret >= 0 || ret < -4095 ? mapped_path(v, path, sizeof(path)) : 0;
	p[0] = (uint64_t)nr;
	p[1] = (uint64_t)ret;
	p[2] = len;
	put_event(v, QW_EV_SYSRET, p, 3, path, len);
	if (changes_address_space(nr) || creates_task(nr) || nr == g.sys->rt_sigaction)
		flush(v);
}

/* ---- The end ------------------------------------------------------------------- */

/*
 * The process ends (exit_group; QEMU 7.2 calls this on the thread that
 * called it).  Other threads may still run for a moment: their slots are
 * taken from them (waiting while they hand one over) and queued; what
 * they write after that goes to the scratch buffer.  (A fatal signal
 * calls nothing: itrace-collect then reads the slots the threads held.)
 */
static void process_exit(qemu_plugin_id_t id, void *udata)
{
	struct qw_vcpu *self = NULL;
	uint32_t tid = gettid_();
	struct qw_note end = {QW_NO_SLOT, 0, 0, 0};

	(void)id, (void)udata;
	if (g.detached || !g.shm)
		return;
	for (unsigned i = 0; i < QW_MAX_VCPUS; i++)
		if (g.vcpus[i].tid == tid)
			self = &g.vcpus[i];
	if (self) {
		put_event(self, QW_EV_EXIT, NULL, 0, NULL, 0);
		queue_slot(self);
	}
	atomic_store(&g.closing, 1);
	if (self)
		use_scratch(self);
	for (unsigned i = 0; i < QW_MAX_VCPUS; i++) {
		struct qw_vcpu *v = &g.vcpus[i];

		if (v == self || !v->tid || v->slot == QW_NO_SLOT)
			continue;
		while (__atomic_load_n(&v->busy, __ATOMIC_SEQ_CST))
			sched_yield();
		queue_slot(v);
		use_scratch(v);
	}
	pthread_mutex_lock(&g.defs_lock);
	queue_one(g.defs);
	pthread_mutex_unlock(&g.defs_lock);
	end.pid = g.pid;
	end.tid = tid;
	qw_put_note(g.shm, &end);
}

/* ---- Installation --------------------------------------------------------- */

/* Say why in the shared memory (itrace-collect prints it), or on stderr. */
static int fail(const char *fmt, const char *arg)
{
	char msg[sizeof(g.shm->error)];

	snprintf(msg, sizeof(msg), fmt, arg);
	if (g.shm) {
		memcpy(g.shm->error, msg, sizeof(msg));
		g.shm->error_len = (uint32_t)strlen(msg);
	} else {
		fprintf(stderr, "itrace-qemu: %s\n", msg);
	}
	return -1;
}

static int map_shm(int fd)
{
	void *m = mmap(NULL, QW_SHM_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

	close(fd); /* the mapping stays; the program sees no descriptor of ours */
	if (m == MAP_FAILED)
		return fail("cannot map the buffer shared with itrace-collect%s", "");
	if (((struct qw_shm *)m)->magic != QW_MAGIC || ((struct qw_shm *)m)->version != QW_VERSION) {
		munmap(m, QW_SHM_BYTES);
		return fail("the shared buffer is not itrace-collect's%s", "");
	}
	g.shm = m;
	g.vcpus = g.shm->vcpu;
	g.defs = &g.shm->defs;
	g.defs->slot = QW_NO_SLOT;
	for (unsigned i = 0; i < QW_MAX_VCPUS; i++)
		g.vcpus[i].slot = QW_NO_SLOT;
	return 0;
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc,
					   char **argv)
{
	int fd = -1;
	char ver[32];

	g.id = id;
	g.level = QW_LEVEL_INSN;
	pthread_mutex_init(&g.defs_lock, NULL);
	for (int i = 0; i < argc; i++) {
		if (strncmp(argv[i], "shm=", 4) == 0)
			fd = atoi(argv[i] + 4);
		else if (strcmp(argv[i], "level=branch") == 0)
			g.level = QW_LEVEL_BRANCH;
		else if (strcmp(argv[i], "bench=callbacks") == 0)
			g.bench_callbacks = 1; /* bench/qemu_speed.sh: the callbacks alone */
		else if (strcmp(argv[i], "level=insn") != 0)
			return fail("unknown option '%s' (the plugin is started by itrace-collect)",
				    argv[i]);
	}
	if (fd < 0)
		return fail("no shm= option (the plugin is started by itrace-collect)%s", "");
	if (map_shm(fd) != 0)
		return -1;
	if (info->system_emulation)
		return fail("needs a user-mode emulator (qemu-%s), not system emulation",
			    info->target_name);
	/* QEMU checks qemu_plugin_version too; this says it in one line. */
	if (QEMU_PLUGIN_VERSION < info->version.min || QEMU_PLUGIN_VERSION > info->version.cur) {
		snprintf(ver, sizeof(ver), "%d to %d", info->version.min, info->version.cur);
		return fail("plugin API version mismatch: the emulator supports versions %s, "
			    "itrace's plugin is written for version 1 (QEMU 5.0 to 8.1)",
			    ver);
	}
	g.sys = qw_sysnums_for(info->target_name, 0);
	if (!g.sys)
		return fail("guest architecture '%s' is not supported", info->target_name);
	g.pid = (uint32_t)getpid();
	qemu_plugin_register_vcpu_init_cb(id, vcpu_init);
	qemu_plugin_register_vcpu_exit_cb(id, vcpu_exit);
	qemu_plugin_register_vcpu_tb_trans_cb(id, block_translated);
	qemu_plugin_register_vcpu_syscall_cb(id, syscall_entry);
	qemu_plugin_register_vcpu_syscall_ret_cb(id, syscall_return);
	qemu_plugin_register_atexit_cb(id, process_exit, NULL);
	return 0;
}
