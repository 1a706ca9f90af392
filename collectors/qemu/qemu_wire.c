/*
 * qemu_wire.c - the slot queues shared by the QEMU plugin and itrace-collect
 * (qemu_wire.h).  Built into both: the plugin (inside qemu-user) queues
 * filled slots and takes free ones; the collector does the reverse.  The
 * critical sections are a few loads and stores under a spin lock; sleeping
 * is on futex words, woken only when the other side said it sleeps.
 */
#include "qemu_wire.h"

#include <elf.h>
#include <linux/futex.h>
#include <sched.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static const struct qw_sysnums ppc64_sysnums = {
	.mmap = 90, .munmap = 91, .mprotect = 125, .mremap = 163, .brk = 45,
	.rt_sigaction = 173, .rt_sigreturn = 172, .sigreturn = 119,
	.clone = 120, .clone3 = 435, .fork = 2, .vfork = 189, .execve = 11, .execveat = 362,
	.exit = 1, .exit_group = 234, .kill = 37, .tkill = 208, .tgkill = 250,
};

static const struct qw_sysnums x86_64_sysnums = {
	.mmap = 9, .munmap = 11, .mprotect = 10, .mremap = 25, .brk = 12,
	.rt_sigaction = 13, .rt_sigreturn = 15, .sigreturn = 0,
	.clone = 56, .clone3 = 435, .fork = 57, .vfork = 58, .execve = 59, .execveat = 322,
	.exit = 60, .exit_group = 231, .kill = 62, .tkill = 200, .tgkill = 234,
};

const struct qw_sysnums *qw_sysnums_for(const char *name, uint16_t machine)
{
	if (name)
		return strncmp(name, "ppc64", 5) == 0	? &ppc64_sysnums
		       : strcmp(name, "x86_64") == 0 ? &x86_64_sysnums
						      : NULL;
	return machine == EM_PPC64 ? &ppc64_sysnums : machine == EM_X86_64 ? &x86_64_sysnums : NULL;
}

static void lock(struct qw_shm *s)
{
	for (unsigned spins = 0; __atomic_exchange_n(&s->lock, 1, __ATOMIC_ACQUIRE); spins++)
		if (spins > 100)
			sched_yield();
}

static void unlock(struct qw_shm *s)
{
	__atomic_store_n(&s->lock, 0, __ATOMIC_RELEASE);
}

/* Shared (not FUTEX_PRIVATE): the words are in memory two processes map. */
static void futex_wait(uint32_t *word, uint32_t seen, int timeout_ms)
{
	struct timespec ts = {timeout_ms / 1000, (long)(timeout_ms % 1000) * 1000000L};

	syscall(SYS_futex, word, FUTEX_WAIT, seen, timeout_ms >= 0 ? &ts : NULL, NULL, 0);
}

static void futex_wake(uint32_t *word, int n)
{
	syscall(SYS_futex, word, FUTEX_WAKE, n, NULL, NULL, 0);
}

void qw_init(struct qw_shm *s)
{
	memset(s, 0, sizeof(*s));
	s->magic = QW_MAGIC;
	s->version = QW_VERSION;
}

void qw_put_note(struct qw_shm *s, const struct qw_note *n)
{
	lock(s);
	s->notes[s->note_tail % QW_NOTE_CAP] = *n;
	s->note_tail++;
	unlock(s);
	__atomic_add_fetch(&s->note_seq, 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&s->collector_waits, __ATOMIC_SEQ_CST))
		futex_wake(&s->note_seq, 1);
}

int qw_get_note(struct qw_shm *s, struct qw_note *n, int timeout_ms)
{
	for (int pass = 0; pass < 2; pass++) {
		uint32_t seen = __atomic_load_n(&s->note_seq, __ATOMIC_SEQ_CST);
		int got = 0;

		lock(s);
		if (s->note_head != s->note_tail) {
			*n = s->notes[s->note_head % QW_NOTE_CAP];
			s->note_head++;
			got = 1;
		}
		unlock(s);
		if (got)
			return 1;
		if (pass == 1)
			break;
		/* Announce the sleep, then sleep only if nothing came since
		 * `seen` (the plugin increments note_seq before looking). */
		__atomic_store_n(&s->collector_waits, 1, __ATOMIC_SEQ_CST);
		futex_wait(&s->note_seq, seen, timeout_ms);
		__atomic_store_n(&s->collector_waits, 0, __ATOMIC_SEQ_CST);
	}
	return 0;
}

void qw_free_slot(struct qw_shm *s, uint32_t i)
{
	lock(s);
	s->free_slots[s->n_free++] = i;
	unlock(s);
	__atomic_add_fetch(&s->free_seq, 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&s->plugin_waits, __ATOMIC_SEQ_CST))
		futex_wake(&s->free_seq, 1 << 30);
}

uint32_t qw_take_slot(struct qw_shm *s)
{
	for (;;) {
		uint32_t seen = __atomic_load_n(&s->free_seq, __ATOMIC_SEQ_CST);
		uint32_t slot = QW_NO_SLOT;

		lock(s);
		if (s->n_free)
			slot = s->free_slots[--s->n_free]; /* the most recently used */
		else if (s->next_unused < QW_SLOTS &&
			 s->note_tail - s->note_head < QW_BACKLOG)
			slot = s->next_unused++;
		unlock(s);
		if (slot != QW_NO_SLOT)
			return slot;
		__atomic_add_fetch(&s->plugin_waits, 1, __ATOMIC_SEQ_CST);
		futex_wait(&s->free_seq, seen, 1000);
		__atomic_sub_fetch(&s->plugin_waits, 1, __ATOMIC_SEQ_CST);
	}
}

uint32_t qw_words_written(const uint64_t *w, uint32_t cap)
{
	uint32_t i = 0;

	while (i < cap && w[i] != 0) {
		uint32_t len = QW_TAG(w[i]) == QW_EVENT	   ? 1 + QW_EVENT_WORDS(w[i])
			       : QW_TAG(w[i]) == QW_MEM_FULL ? 2
							     : 1;

		if (len > cap - i)
			break;
		i += len;
	}
	return i;
}
