/*
 * qemu_space.h - the guest's address space as itrace-collect rebuilds it
 * for the qemu backend.  qemu-user has no /proc/PID/maps of the guest to
 * read, so the mappings come from what the guest itself did: the images
 * QEMU's loader mapped (the program and its dynamic loader, from their
 * ELF headers and the addresses QEMU reports), then every successful
 * mmap, munmap, mprotect, mremap and brk.  Each change of a named mapping
 * is written as an MMAP record (files with their build-id, "[heap]"), and
 * the model answers "is this code backed by a file?" (CODE records) and
 * "where is function F / module M?" (--start, --stop, --only).
 */
#ifndef ITRACE_QEMU_SPACE_H
#define ITRACE_QEMU_SPACE_H

#include <stddef.h>
#include <stdint.h>

#include "emit.h"
#include "itrace.h"
#include "itrace_format.h"
#include "qemu_elf.h"

struct qs_map {
	uint64_t start, end, pgoff;
	uint32_t path; /* index in the path table; 0 = anonymous */
	uint8_t prot;  /* PROT_* */
};

struct qs_path {
	char *name;
	uint8_t buildid[ITRACE_BUILDID_MAX];
	int buildid_len; /* -1: not read yet */
};

struct qemu_space {
	struct emit_sink *out;
	uint32_t pid;
	struct qs_map *map; /* sorted by start, never overlapping */
	size_t n, cap;
	struct qs_path *paths; /* [0] is the anonymous "" */
	size_t n_paths, cap_paths;
	uint64_t brk_start, brk_end; /* the heap as brk() left it; 0 = unknown */
	uint32_t exe_path;	     /* the program's path index (0 before qs_load_image) */
};

/* qs_init - an empty space whose MMAP records go to `out` for process `pid`. */
void qs_init(struct qemu_space *s, struct emit_sink *out, uint32_t pid);
void qs_free(struct qemu_space *s);

/*
 * qs_load_image - the PT_LOAD segments of ELF `e` (file `path`) placed by
 * QEMU's loader at `bias`: one mapping and MMAP record each, as the kernel
 * lays out an ELF image.  `is_exe` marks the program itself.
 */
int qs_load_image(struct qemu_space *s, const char *path, const struct qemu_elf *e, uint64_t bias,
		  int is_exe);

/*
 * qs_mmap - [start, start+len) now maps `path` at file offset `pgoff`
 * (path NULL or "": anonymous) with `prot`.  Writes an MMAP record for a
 * file.  Returns 0 or a writer error.
 */
int qs_mmap(struct qemu_space *s, uint64_t start, uint64_t len, uint64_t pgoff, uint8_t prot,
	    const char *path);

/* qs_munmap - [start, start+len) is unmapped. */
int qs_munmap(struct qemu_space *s, uint64_t start, uint64_t len);

/* qs_mprotect - new protection for [start, start+len); MMAP records for named pieces. */
int qs_mprotect(struct qemu_space *s, uint64_t start, uint64_t len, uint8_t prot);

/* qs_mremap - [old, old+old_len) moved to [new, new+new_len). */
int qs_mremap(struct qemu_space *s, uint64_t old, uint64_t old_len, uint64_t new_addr,
	      uint64_t new_len);

/* qs_brk - brk() returned `end`: the heap grows or shrinks to it ("[heap]"). */
int qs_brk(struct qemu_space *s, uint64_t end);

/*
 * qs_anon_code - code ran in [start, end), which no file holds: unless a
 * named mapping covers it, its pages become a mapping named "//anon"
 * (perf's name for anonymous memory with code), with an MMAP record.
 */
int qs_anon_code(struct qemu_space *s, uint64_t start, uint64_t end);

/* qs_file_at - the file mapping holding `addr` (NULL if none or anonymous). */
const struct qs_map *qs_file_at(const struct qemu_space *s, uint64_t addr);

/* qs_path_name - the path of a mapping ("" if anonymous). */
const char *qs_path_name(const struct qemu_space *s, const struct qs_map *m);

/*
 * qs_find_function - the run-time entry points of function `name`, looked
 * up in the program first and then in the other mapped files in address
 * order: the symbol's address and, on ppc64 ELFv2, its local entry point.
 * Returns how many (1 or 2) into addr[], or 0 if no mapped file defines it.
 */
int qs_find_function(const struct qemu_space *s, const char *name, uint64_t addr[2]);

/*
 * qs_find_module - the hull [*lo, *hi) of the executable mappings of
 * `module`: "main" (the program), a full path, or a basename.  Returns 0,
 * or -1 if no executable mapping matches.
 */
int qs_find_module(const struct qemu_space *s, const char *module, uint64_t *lo, uint64_t *hi);

#endif
