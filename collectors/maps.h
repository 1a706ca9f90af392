/*
 * maps.h - describe a process's address space in the trace: one MMAP
 * record per executable mapping of /proc/PID/maps (path, offset, prot,
 * build-id read from the ELF file's note), and a CODE record with the
 * bytes of [vdso] (and [vsyscall] is skipped: it is not readable), so a
 * trace decodes later on another machine.  Usable by any backend that can
 * read the target's memory (a read callback hides ptrace vs gdb).
 */
#ifndef ITRACE_COLLECT_MAPS_H
#define ITRACE_COLLECT_MAPS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "emit.h"
#include "itrace.h"

/* One line of /proc/PID/maps. */
struct maps_entry {
	uint64_t start, end, pgoff;
	uint8_t prot;	  /* PROT_* bits */
	char path[4096];  /* "" for anonymous mappings */
};

/*
 * Reads `len` bytes at `addr` of the target into buf; returns the number
 * read or -1.  maps_read_proc_mem is the /proc/PID/mem implementation.
 */
typedef ssize_t (*maps_read_fn)(void *ctx, uint64_t addr, void *buf, size_t len);
ssize_t maps_read_proc_mem(void *pid_as_ptr, uint64_t addr, void *buf, size_t len);

/*
 * maps_parse_line - parse one /proc/PID/maps line into *e.
 * Returns 0, or -1 if the line is malformed.
 */
int maps_parse_line(const char *line, struct maps_entry *e);

/*
 * maps_buildid - read the GNU build-id note of the ELF file `path`
 * into id[ITRACE_BUILDID_MAX] (itrace_elf_build_id).  Returns its length
 * (> 0), or 0 if the file has none or cannot be read.
 */
int maps_buildid(const char *path, uint8_t *id, size_t idmax);

/* Mappings already described in the trace (see maps_write_new). */
struct maps_seen {
	struct maps_seen_entry {
		uint64_t start, end, pgoff, path_hash;
		uint8_t prot;
	} *v;
	size_t n, cap;
};

/*
 * maps_write_new - like maps_write_process, but only for the mappings
 * not already in *seen (zero-initialised at first), which it adds: call
 * it again after mmap/munmap/mprotect to describe libraries loaded since.
 * Returns the number of MMAP records written or a negative code.
 */
int maps_write_new(struct emit_sink *out, pid_t pid, struct maps_seen *seen, maps_read_fn read,
		   void *read_ctx);
/* maps_seen_free - release *seen and empty it (after exec). */
void maps_seen_free(struct maps_seen *seen);

/*
 * maps_write_process - write into `out` one MMAP record per named mapping of `pid`
 * (files with their build-id, and [vdso], [stack], [heap]; anonymous
 * mappings are skipped) and a CODE record with the bytes of [vdso] read
 * through `read` (NULL: /proc/PID/mem).  Returns the number of MMAP
 * records written, or a negative -ITRACE_E_* code (-ITRACE_E_IO with
 * errno set when /proc/PID/maps cannot be read).
 */
int maps_write_process(struct emit_sink *out, pid_t pid, maps_read_fn read, void *read_ctx);

/*
 * maps_find_module - the mapping range [*lo, *hi) of the executable
 * mappings of `pid` whose path matches `module`: "main" (the
 * executable, /proc/PID/exe), a full path, or a basename ("libc.so.6").
 * Several mappings of the same file are merged into their hull.
 * Returns 0, or -ITRACE_E_NOENT if no mapping matches.
 */
int maps_find_module(pid_t pid, const char *module, uint64_t *lo, uint64_t *hi);

/*
 * maps_module_matches - does the mapped file `path` belong to `module` as
 * --only names it: "main" (then `exe` is the executable's path), a full
 * path, or a basename?  Returns 1 or 0.
 */
int maps_module_matches(const char *path, const char *module, const char *exe);

#endif
