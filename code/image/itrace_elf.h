/*
 * itrace_elf.h - the one ELF reader of libitrace-code (libelf): a file's
 * header facts and PT_LOAD segments, its function symbols, the file
 * offset of an address, its GNU build-id (itrace_elf_build_id, itrace.h).
 * Used by the image and symbolizer's callers, the collectors (triggers,
 * --only, MMAP records) and the gdb and qemu backends (which qemu-<arch>,
 * what the loader maps).  Functions return >= 0 or -ITRACE_E_*; they
 * never print.
 */
#ifndef ITRACE_ELF_H
#define ITRACE_ELF_H

#include <stddef.h>
#include <stdint.h>

#include <libelf.h>

#include "itrace.h"

/* An open ELF file: itrace_elf_open, itrace_elf_close. */
struct itrace_elf;

/*
 * itrace_elf_open_fd - open `path` read-only for the bytes of a file a
 * trace names: a regular file only, without waiting (a FIFO) or taking a
 * terminal (a device).  Returns the descriptor, or -1 with errno set
 * (ENOEXEC when the path is not a regular file).
 */
int itrace_elf_open_fd(const char *path);

/*
 * itrace_elf_open - open `path` read-only (mapped) as an ELF file.
 * Returns 0 with *ep set, -ITRACE_E_IO with errno kept when the file
 * cannot be opened, -ITRACE_E_ELF (errno ENOEXEC) when it is not ELF or
 * not a regular file (a FIFO or a device named by a trace is neither read
 * nor waited on).
 */
int itrace_elf_open(const char *path, struct itrace_elf **ep);

/* itrace_elf_close - close what itrace_elf_open opened; NULL is a no-op. */
void itrace_elf_close(struct itrace_elf *e);

/* itrace_elf_libelf - the libelf handle, for readers of other parts
 * (unwind tables, the dynamic section). */
Elf *itrace_elf_libelf(const struct itrace_elf *e);

#define ITRACE_ELF_MAX_LOADS 16

struct itrace_elf_load {
	uint64_t vaddr, memsz, filesz, offset;
	uint8_t prot; /* PROT_* of p_flags */
};

struct itrace_elf_info {
	uint16_t machine;  /* e_machine */
	uint16_t type;	   /* e_type: ET_EXEC, ET_DYN, ... */
	uint8_t endian;	   /* 1 little, 2 big (EI_DATA) */
	uint8_t is64;	   /* ELFCLASS64 */
	uint64_t entry;	   /* e_entry */
	char interp[4096]; /* PT_INTERP, "" for a static program */
	struct itrace_elf_load load[ITRACE_ELF_MAX_LOADS]; /* the first PT_LOADs */
	size_t n_load;
};

/* itrace_elf_read_info - header facts and PT_LOAD segments of e.
 * Returns 0 or -ITRACE_E_ELF (no readable header). */
int itrace_elf_read_info(const struct itrace_elf *e, struct itrace_elf_info *info);

/* A defined function symbol (STT_FUNC, not SHN_UNDEF, value not 0). */
struct itrace_elf_sym {
	uint64_t value;	   /* st_value */
	uint8_t other;	   /* st_other (ppc64 ELFv2: local entry offset) */
};

/*
 * itrace_elf_function - the function called `name`: .symtab first (it has
 * the static functions), then .dynsym.  Returns 0 or -ITRACE_E_NOENT.
 */
int itrace_elf_function(const struct itrace_elf *e, const char *name, struct itrace_elf_sym *sym);

/*
 * itrace_elf_functions - call fn for every function of .symtab, or of
 * .dynsym when the file has no .symtab (stripped).  Returns 0.
 */
int itrace_elf_functions(const struct itrace_elf *e,
			 void (*fn)(void *arg, const struct itrace_elf_sym *sym), void *arg);

/*
 * itrace_elf_vaddr_offset - the file offset of virtual address vaddr,
 * through the PT_LOAD whose file bytes hold it.  Returns 0,
 * -ITRACE_E_NOENT (in no segment's file bytes) or -ITRACE_E_ELF.
 */
int itrace_elf_vaddr_offset(const struct itrace_elf *e, uint64_t vaddr, uint64_t *offset);

/*
 * itrace_elf_local_entry - ppc64 ELFv2: the offset of sym's local entry
 * point, where calls from the same TOC land (PPC64_LOCAL_ENTRY_OFFSET,
 * 64-bit ELF V2 ABI specification, "Symbol Values"); 0 for other machines
 * or a single entry.
 */
uint64_t itrace_elf_local_entry(uint16_t machine, const struct itrace_elf_sym *sym);

#endif
