/*
 * vg_convert.h - turn the Valgrind tool's raw words (vg_wire.h) into
 * itrace records through the writer.  Pure: no processes, no pipes, so the
 * stream handling is testable on synthetic input.
 */
#ifndef ITRACE_VG_CONVERT_H
#define ITRACE_VG_CONVERT_H

#include <stddef.h>
#include <stdint.h>

#include "emit.h"
#include "itrace.h"
#include "itrace_format.h"

#define VG_MAX_UNKNOWN_EXITS 256

/* Build-ids already read, by path (a program maps each file several times). */
#define VG_BUILDID_CACHE 64

struct vg_buildid_entry {
	char *path;
	uint8_t id[ITRACE_BUILDID_MAX];
	int len;
};

/* Files mapped executable in the current image, for the entry checks. */
#define VG_MAX_CODE_FILES 512

struct vg_group {
	uint64_t start, end;	/* its first instruction; the address after its last */
	size_t lens;		/* offset in group_lens */
	size_t acc;		/* offset in group_acc */
	uint32_t n, m;		/* instructions, accesses */
	int block;		/* the writer's block id (itrace_writer_block_define) */
	uint32_t chain;		/* the chain of this group alone */
};

/*
 * A chain: groups that ran one after the other, each starting where the
 * one before it ended (the superblock before it fell through a
 * conditional branch), written as one block.  A chain grows by one group
 * at a time, the first one seen to follow it in memory, and only once:
 * the chains of an image are at most VG_CHAIN_GROUPS per group.
 */
struct vg_chain {
	uint32_t n, m;		/* instructions, accesses */
	uint32_t parent;	/* the chain it extends, + 1 (0: a group alone) */
	uint32_t group;		/* its last group (whose end is the chain's) */
	uint32_t groups;	/* how many groups */
	int block;		/* the writer's block id */
	uint64_t next_word;	/* the GROUP word of the group that extends it (0: none yet) */
	uint32_t next_m;	/* that group's accesses */
	uint32_t next;		/* that extension */
};

/* A block or branch of the writer, by its contents (vg_convert.c,
 * define_block, define_branch). */
struct vg_def {
	uint64_t hash;
	size_t at, len;		/* its key in def_bytes */
	int id;			/* the writer's id; -1: an empty entry */
};

/* Most groups in a chain. */
#define VG_CHAIN_GROUPS 16

/* A BSITE event: a branch with known targets, and the paths of one
 * branch of its two ways, whose `branch` is the writer's definition
 * (vg_convert.c, define_branch). */
struct vg_bsite {
	uint64_t from;
	uint32_t path[2];	/* target 0, target 1 (struct vg_path) */
};

/*
 * A path: branches that ran one after the other (branch level), written
 * as one sequence of the writer (format 4.0, BRANCH_SEQ).  Each branch
 * definition is a path of one branch; a path grows by one branch, the
 * first seen to follow it, and only once: the paths are at most
 * VG_PATH_BRANCHES per branch definition.
 */
struct vg_path {
	uint32_t k;		/* branches */
	uint32_t parent;	/* the path it extends (0: a branch alone) */
	int branch;		/* its last branch's writer id */
	uint32_t next_one;	/* the path of one branch that extends it (0: none yet) */
	uint32_t next;		/* that extension */
};

/*
 * What the hot loop (bsites()) and path ends read of path i, in an array
 * of its own beside the paths.  The BSITE unit (vg_wire.h) that makes
 * the path one branch longer, `word`, goes on to `next`; the word of two
 * units that makes it two branches longer, `pair`, goes on to `next2`.
 * Until the path (and for `pair` the path it grows into) has grown by a
 * BSITE unit, they are 0 and the path itself: a zero word or unit is
 * padding, which goes nowhere.  `id` is the path's writer id: the
 * branch's, or the sequence's.  The units name BSITE events of the
 * current image: a new image (HELLO) forgets them (forget_units()).
 *
 * 32 bytes, so that finding path i is a shift (24 bytes took 10% more
 * of the converter's time on issue 22's gzip workload), and apart from
 * the paths' other fields (16 bytes of them in a 40-byte struct vg_path
 * took 4% more).
 */
struct vg_fast {
	uint64_t pair;
	uint32_t next2;
	uint32_t word;
	uint32_t next;
	int id;
	uint64_t unused;
};

/* Most branches in a path. */
#define VG_PATH_BRANCHES 8

/* An indirect branch (a BRANCH word at branch level) and the path of its
 * one branch, in a direct-mapped cache (vg_convert.c, indirect_path). */
struct vg_ind {
	uint64_t from, to;
	uint32_t aux;		/* the word's aux: length and kind */
	uint32_t path;		/* 0: an empty entry */
};

#define VG_IND_BITS 10


struct vg_convert {
	struct itrace_writer *w;
	struct emit_sink out;	/* w as the sink of emit.h: every record goes there */
	int only_active;	/* --only given: SCOPE_OUT words are meaningful */
	int out_of_scope;	/* the last code that ran was outside --only */

	/* What the stream said so far. */
	int hello;		/* the tool started */
	int level;		/* VGW_LEVEL_* from the hello */
	uint32_t pid;
	int exited;		/* EXIT event seen */
	int64_t exit_code;
	uint32_t cur_tid;	/* thread running now (tool's last switch) */
	uint32_t written_tid;	/* thread of the last THREAD switch written */
	int plain;		/* no THREAD switch or scope record pending */
	int exec_seen;		/* an execve is under way: if the stream ends now, it worked */
	int exec_follow;	/* enum vgw_exec of that execve */
	char exec_path[ITRACE_PATH_MAX];
	int images;		/* programs traced (1 + the exec'd ones followed) */
	int at_entry;		/* ENTRY seen since the caller last cleared it */
	int fatal;		/* FATAL seen: the thread and pc of a fatal signal */
	uint32_t fatal_tid;
	uint64_t fatal_pc;
	int fatal_after_int3;	/* fatal_pc is just past an int3 instruction */
	/* The last kill/tkill/tgkill per the stream (abort() and raise() send
	 * the fatal signal to themselves this way). */
	uint32_t kill_tid;
	uint64_t kill_nr, kill_sig;
	char *code_files[VG_MAX_CODE_FILES];
	size_t n_code_files;
	char error[256];	/* ERROR event text, or a stream problem */

	uint32_t unknown_exits[VG_MAX_UNKNOWN_EXITS]; /* threads killed with the process */
	size_t n_unknown_exits;

	/* The GROUP events of the current image, by id (vg_wire.h): start,
	 * count and where their lengths are in group_lens. */
	struct vg_group *groups;
	size_t n_groups, cap_groups;
	uint8_t *group_lens;
	size_t n_group_lens, cap_group_lens;
	struct itrace_block_access *group_acc;
	size_t n_group_acc, cap_group_acc;
	struct vg_chain *chains;
	size_t n_chains, cap_chains;
	/* Every block and branch defined to the writer, by contents:
	 * Valgrind unrolls short loops into one superblock, so one loop
	 * body comes as several GROUP events (and its branch as several
	 * BSITE events), which must be one definition to repeat in its
	 * slot. */
	struct vg_def *defs;	/* open addressing, a power of two entries */
	size_t n_defs, cap_defs;
	uint8_t *def_bytes;
	size_t n_def_bytes, cap_def_bytes;
	/* The BSITE events of the current image, by id. */
	struct vg_bsite *bsites;
	size_t n_bsites, cap_bsites;
	/* The paths (of all images, as the writer's definitions; path 0 is
	 * none), and the path of one branch of each branch definition, by
	 * writer id (0: none yet). */
	struct vg_path *paths;
	struct vg_fast *fast;	/* as many as paths (cap_paths) */
	size_t n_paths, cap_paths;
	uint32_t *path_of;
	size_t cap_path_of;
	int no_seqs;		/* the writer takes no sequences (no ITRACE_FEAT_BRANCH_SEQ) */
	struct vg_ind *ind;	/* 1 << VG_IND_BITS entries, made at the first use */

	uint64_t words;		/* words consumed */
	struct vg_buildid_entry buildids[VG_BUILDID_CACHE];
	size_t n_buildids;
};

/* vg_trace_flags - the ITRACE_FF_* header flags of the trace the
 * converter writes at `level` (ITRACE_LEVEL_*): MEM records at
 * instruction level, from the tool's access words. */
static inline uint32_t vg_trace_flags(int level)
{
	return level == ITRACE_LEVEL_INSN ? ITRACE_FF_MEM : 0;
}

/* vg_convert_init - start converting into `w` (not owned). */
void vg_convert_init(struct vg_convert *c, struct itrace_writer *w, int only_active);

/* vg_convert_free - release the build-id cache (not the writer). */
void vg_convert_free(struct vg_convert *c);

/*
 * vg_convert_words - convert complete records from w[0..n).  *used is set
 * to the words consumed; a record cut at the end of the buffer is left for
 * the next call.  Returns 0, a negative -ITRACE_E_* from the writer, or
 * -ITRACE_E_CORRUPT for words the tool never writes (c->error says which).
 */
int vg_convert_words(struct vg_convert *c, const uint64_t *w, size_t n, size_t *used);

/*
 * vg_convert_fatal_signal - the SIGNAL record of a fatal signal (signo,
 * si_code, si_addr filled in by the caller), in the thread the FATAL event
 * named, at its pc, with no handler.  Call before vg_convert_finish, only
 * if c->fatal.  Returns 0 or a writer error.
 */
int vg_convert_fatal_signal(struct vg_convert *c, const struct itrace_signal *sig);

/*
 * vg_convert_finish - at the end of the stream, with the program's status
 * as the trace records it (exit code, or -signo if a signal killed it):
 * THREAD exit records of threads that died with the process, and, if the
 * stream ended in a successful execve, PROCESS exec with the new
 * program's path and TRACE_CTL off (detach): the trace stops there (the
 * exec'd program was not followed, c->exec_follow says why).
 * Returns 0 or a writer error.
 */
int vg_convert_finish(struct vg_convert *c, int64_t status);

#endif
