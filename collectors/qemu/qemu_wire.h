/*
 * qemu_wire.h - what the itrace QEMU plugin (itrace_qemu_plugin.c, inside
 * qemu-user) and itrace-collect (qemu_backend.c, qemu_convert.c) share:
 * one memory file mapped by both, holding a queue of buffers ("slots")
 * of 64-bit words.  Private to collectors/qemu/; it never reaches disk.
 *
 * Each guest thread appends words to the slot it owns: per block of
 * guest code executed, one word naming the block; per memory access, one
 * word with its address; events (system calls, block definitions, ...)
 * as a header word and payload words.  A full slot (and any slot holding
 * an event others depend on) is queued as a note; itrace-collect converts
 * the slots in queue order on its own CPU and puts them back on the free
 * list.  Nothing is formatted inside the emulator.
 *
 * The plugin keeps no file descriptor open: it maps the memory file and
 * closes it at install time, so the program sees no descriptor of ours
 * and cannot close or reuse one.  Waiting uses futexes on the shared
 * words (FUTEX_WAIT/WAKE, not private: two processes).
 */
#ifndef ITRACE_QEMU_WIRE_H
#define ITRACE_QEMU_WIRE_H

#include <stdint.h>

/* ---- Words ---------------------------------------------------------------- */

#define QW_TAG_SHIFT 60
#define QW_TAG(w) ((unsigned)((w) >> QW_TAG_SHIFT))

enum qw_tag {
	QW_BLOCK = 1,	  /* bits 59..0: id of the block (translation) starting now */
	QW_MEM = 2,	  /* a memory access, see QW_MEM_* */
	QW_MEM_FULL = 3,  /* the same, address in the next word */
	QW_PARTIAL = 4,	  /* the current block stopped: bits 9..0 = index of the
			   * instruction that started but did not complete (a fault,
			   * a fatal signal), or the block's size if all did */
	QW_EVENT = 15,	  /* bits 59..52 type (enum qw_event), 31..0 payload words */
};

/*
 * QW_MEM: bits 59..51 index of the instruction in its block (QEMU
 * translates at most 512), bit 50 store, bits 49..47 log2 of the size,
 * bits 46..0 the address (user-space addresses; larger ones use
 * QW_MEM_FULL).
 */
#define QW_MEM_INDEX_SHIFT 51
#define QW_MEM_STORE_BIT 50
#define QW_MEM_SHIFT_SHIFT 47
#define QW_MEM_ADDR_MASK ((1ULL << 47) - 1)
#define QW_MEM_INDEX(w) ((unsigned)(((w) >> QW_MEM_INDEX_SHIFT) & 0x1ff))
#define QW_MEM_IS_STORE(w) ((unsigned)(((w) >> QW_MEM_STORE_BIT) & 1))
#define QW_MEM_SIZE(w) (1u << (((w) >> QW_MEM_SHIFT_SHIFT) & 7))

#define QW_MAX_BLOCK_INSNS 512

#define QW_EVENT_WORD(type, n) \
	(((uint64_t)QW_EVENT << QW_TAG_SHIFT) | ((uint64_t)(type) << 52) | (uint64_t)(uint32_t)(n))
#define QW_EVENT_TYPE(w) ((unsigned)(((w) >> 52) & 0xff))
#define QW_EVENT_WORDS(w) ((uint32_t)(w))

enum qw_event {
	/* version, pid, level, start_code, end_code, entry_code, pathlen, path:
	 * once, at the first translation (the program is loaded then) */
	QW_EV_HELLO = 1,
	/* id, vaddr, n, code bytes, then n lengths (bytes, padded to words),
	 * then the code (padded): a block as translated */
	QW_EV_BLOCK = 2,
	/* nr, a1..a6, x1, x2, n, then n bytes: for rt_sigaction x1, x2 are
	 * the new handler and its flags read from the program's memory; for
	 * execve the bytes are the path of the program to run */
	QW_EV_SYSCALL = 3,
	/* nr, ret, pathlen, path: for a successful mmap of a file, its path */
	QW_EV_SYSRET = 4,
	QW_EV_THREAD_EXIT = 5, /* (none): the thread of this slot ended */
	QW_EV_EXIT = 6,	       /* (none): the process ends (exit_group, fatal signal) */
	QW_EV_ERROR = 7,       /* message bytes: the plugin gives up */
};

#define QW_VERSION 1
#define QW_LEVEL_BRANCH 1
#define QW_LEVEL_INSN 2

/* Payload words needed for `n` bytes. */
#define QW_BYTES_WORDS(n) (((n) + 7) / 8)

/* HELLO: payload words before the path. */
#define QW_HELLO_WORDS 7
/* SYSCALL: nr, 6 arguments, x1, x2, byte count. */
#define QW_SYSCALL_WORDS 10
/* BLOCK: id, vaddr, n, code bytes. */
#define QW_BLOCK_WORDS 4

/* ---- The shared memory file -------------------------------------------- */

/*
 * Slots: many small ones, so that every guest thread can hold one (each
 * thread fills its own) and the ones in use stay in cache (the free list
 * is a stack).  The file is sized for all of them but only the pages
 * touched are ever allocated.  A block starts only where QW_SLOT_MARGIN
 * words are left, so the accesses of one block never straddle two slots
 * (unless a block makes more than that many accesses).
 */
#define QW_SLOTS 1024
#define QW_SLOT_WORDS (32 * 1024)
#define QW_SLOT_MARGIN 4096
#define QW_NOTE_CAP (QW_SLOTS + 1)
/*
 * A never-used slot is taken only while fewer than QW_BACKLOG slots wait
 * for the collector; past that a thread waits for one to be freed (the
 * collector is converting them).  Without this bound a producer faster
 * than the collector touches every slot once, a page fault per 4 KiB
 * (256 MiB, 65,000 faults), and the slots in use leave the caches.
 */
#define QW_BACKLOG 4
#define QW_NO_SLOT 0xffffffffu

struct qw_note {
	uint32_t slot;	/* QW_NO_SLOT: the stream ends (after the EXIT event) */
	uint32_t words; /* words used in the slot */
	uint32_t pid;	/* process and thread whose words they are */
	uint32_t tid;
};

/*
 * One guest thread's state, in the shared memory so that itrace-collect
 * can still read a thread's last words when the process dies without a
 * goodbye (QEMU 7.2 calls no plugin callback at a fatal signal; SIGKILL):
 * the slot it fills, up to the first zero word (the collector zeroes what
 * it converted), and where its open block stopped.  A word is written
 * after its payload, so a record is complete once its first word is not
 * zero.  The pointers are the plugin's own, meaningless elsewhere.
 */
struct qw_vcpu {
	uint32_t slot;	/* the slot the thread fills; QW_NO_SLOT: none */
	uint32_t tid;	/* 0 until its first slot */
	uint32_t cur;	/* index of the last instruction started in the open block */
	uint32_t n;	/* instructions of the open block; 0: none open */
	uint64_t *pos, *end, *hard_end, *base; /* (the plugin's) */
	uint32_t busy;			       /* (the plugin's) handing over */
	int64_t sys_nr;			       /* (the plugin's) system call ... */
	uint64_t sys_arg[6];		       /* ... and its arguments */
} __attribute__((aligned(64)));

#define QW_MAX_VCPUS 4096

struct qw_shm {
	uint32_t magic, version;
	uint32_t lock;		   /* spin lock of the two queues below */
	uint32_t note_seq;	   /* futex word: + 1 per note queued */
	uint32_t free_seq;	   /* futex word: + 1 per slot freed */
	uint32_t collector_waits;  /* the collector sleeps on note_seq */
	uint32_t plugin_waits;	   /* plugin threads sleep on free_seq */
	uint32_t next_unused;	   /* slots [next_unused, QW_SLOTS) never used */
	uint32_t note_head, note_tail; /* FIFO of notes */
	uint32_t n_free;	   /* stack of free slots */
	uint32_t error_len;
	char error[512];	   /* why the plugin gave up, if it did */
	struct qw_note notes[QW_NOTE_CAP];
	uint32_t free_slots[QW_SLOTS];
	struct qw_vcpu defs;		     /* the block descriptions' slot */
	struct qw_vcpu vcpu[QW_MAX_VCPUS];   /* by QEMU's vCPU index */
};

#define QW_MAGIC 0x51515449u /* "ITQQ" */
#define QW_SLOTS_OFFSET (((sizeof(struct qw_shm) + 4095) / 4096) * 4096)
#define QW_SHM_BYTES (QW_SLOTS_OFFSET + (uint64_t)QW_SLOTS * QW_SLOT_WORDS * 8)

/* The words of slot `i`. */
static inline uint64_t *qw_slot(struct qw_shm *s, uint32_t i)
{
	return (uint64_t *)((char *)s + QW_SLOTS_OFFSET) + (uint64_t)i * QW_SLOT_WORDS;
}

/* ---- Queue operations (qemu_wire.c, linked into both sides) ------------- */

/* qw_init - a fresh queue: every slot free, no note. */
void qw_init(struct qw_shm *s);

/* qw_put_note - queue a note and wake the collector if it sleeps. */
void qw_put_note(struct qw_shm *s, const struct qw_note *n);

/*
 * qw_get_note - the next note, waiting at most `timeout_ms` for one.
 * Returns 1 with *n filled, 0 on timeout (or a signal).
 */
int qw_get_note(struct qw_shm *s, struct qw_note *n, int timeout_ms);

/* qw_free_slot - give slot `i` back and wake a plugin thread waiting for one. */
void qw_free_slot(struct qw_shm *s, uint32_t i);

/* qw_take_slot - a free slot, waiting until the collector frees one. */
uint32_t qw_take_slot(struct qw_shm *s);

/*
 * qw_words_written - how many words of slot `w` (at most `cap`) hold
 * complete records: up to the first zero word where a record starts.
 */
uint32_t qw_words_written(const uint64_t *w, uint32_t cap);

/* ---- System call numbers both sides act on --------------------------- */

/* 0 = the architecture has no such call. */
struct qw_sysnums {
	int64_t mmap, munmap, mprotect, mremap, brk;
	int64_t rt_sigaction, rt_sigreturn, sigreturn;
	int64_t clone, clone3, fork, vfork, execve, execveat, exit, exit_group;
	int64_t kill, tkill, tgkill;
};

/*
 * qw_sysnums_for - the numbers of QEMU target `name` ("ppc64le", "ppc64",
 * "x86_64") or of ELF machine `machine` (when name is NULL); NULL if
 * unknown.  Values from the kernel's asm/unistd_64.h of each architecture.
 */
const struct qw_sysnums *qw_sysnums_for(const char *name, uint16_t machine);

#endif
