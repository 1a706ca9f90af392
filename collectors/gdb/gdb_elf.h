/*
 * gdb_elf.h - what the gdb backend needs from the traced program's ELF
 * file (libelf): its machine and byte order (to pick qemu-<arch>), its
 * executable segments (MMAP records) and function addresses for --start
 * and --stop.
 */
#ifndef ITRACE_GDB_ELF_H
#define ITRACE_GDB_ELF_H

#include <stddef.h>
#include <stdint.h>

struct gdb_elf_segment {
	uint64_t vaddr, memsz, offset;
	uint8_t prot; /* PROT_* */
};

#define GDB_ELF_MAX_SEGMENTS 16

struct gdb_elf {
	uint16_t machine;   /* e_machine */
	uint8_t endian;	    /* 1 little, 2 big */
	uint8_t is64;
	uint8_t is_dyn;	    /* ET_DYN (PIE): loaded at a bias */
	uint8_t has_interp; /* dynamically linked */
	uint64_t entry;
	struct gdb_elf_segment seg[GDB_ELF_MAX_SEGMENTS];
	size_t n_seg;
};

/*
 * gdb_elf_read - read the header and executable segments of `path`.
 * Returns 0, or -1 with a message in err (cannot open, not ELF).
 */
int gdb_elf_read(const char *path, struct gdb_elf *e, char *err, size_t errlen);

/*
 * gdb_elf_function - the addresses where function `name` can be entered:
 * its symbol value and, for ppc64 ELFv2, its local entry point (where
 * calls from the same TOC land).  Returns how many (1 or 2) into addr[],
 * or -1 if the file has no such function.
 */
int gdb_elf_function(const char *path, const char *name, uint64_t addr[2]);

/* gdb_elf_machine_name - "ppc64le", "x86-64", ... for messages. */
const char *gdb_elf_machine_name(uint16_t machine, uint8_t endian);

#endif
