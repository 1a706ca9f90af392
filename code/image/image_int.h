/*
 * image_int.h - what the symbolizer, the filler and the analysis need to
 * see inside the image: the mappings of a process with the file each one
 * resolved to, and address spaces by number.  Internal to libitrace-code.
 */
#ifndef ITRACE_IMAGE_INT_H
#define ITRACE_IMAGE_INT_H

#include "itrace_code.h"

/* A mapping as the image keeps it. */
struct image_mapping_view {
	uint64_t start, end; /* runtime range */
	uint64_t pgoff;	     /* file offset of start */
	uint64_t bias;	     /* runtime - ELF vaddr; valid when status == 0 */
	const char *path;    /* path in the trace ("" when the MMAP had none) */
	const uint8_t *buildid; /* build-id in the trace (buildid_len bytes) */
	uint8_t buildid_len;
	uint32_t name_id;    /* > 0, the same for every mapping whose MMAP
			      * record named the same (path, build-id) */
	const char *file;    /* resolved file (NULL unless status == 0) */
	uint32_t module;     /* file id shared by mappings of one file (0:
			      * a mapping without a file, e.g. [vdso]) */
	int status;	     /* 0 or the negative code of itrace_image_lookup */
};

/*
 * image_mapping_count / image_mapping_at - walk the mappings of process
 * `pid` in address order, resolving their files (a mapping without a file
 * has status -ITRACE_E_IO).  at() returns 0 or -ITRACE_E_INVAL when i is
 * out of range.
 */
size_t image_mapping_count(struct itrace_image *img, uint32_t pid);
int image_mapping_at(struct itrace_image *img, uint32_t pid, size_t i,
		     struct image_mapping_view *v);

/*
 * Address spaces by number.  A process's space lasts from its first
 * record to its exec (PROCESS EXEC) or to a fork that makes a new process
 * with its pid; the next records of the pid make a new space.  Spaces are
 * numbered from 1 in the order they are made.
 *
 * image_keep_spaces - from now on an ended space stays (its mappings and
 * code), for image_space_lookup() and image_mapping_find(), until the
 * image is freed: for the analysis, which reads the code of every space
 * a function ran in at the end of the trace.  Without it an ended space
 * is freed at once.
 */
void image_keep_spaces(struct itrace_image *img);

/* image_space - the number of pid's current space (0: none yet). */
uint32_t image_space(const struct itrace_image *img, uint32_t pid);

/* image_space_lookup - itrace_image_lookup() in space number `space`
 * (-ITRACE_E_NOENT for 0, an unknown space or one freed). */
int image_space_lookup(struct itrace_image *img, uint32_t space, uint64_t addr,
		       struct itrace_image_loc *loc);

/*
 * image_mapping_find - the mapping of space `space` that holds addr (as
 * its MMAP record named it, whatever CODE records cover addr) without
 * opening its file: 0 and *v with file NULL and status 0, or
 * -ITRACE_E_NOENT.
 */
int image_mapping_find(const struct itrace_image *img, uint32_t space, uint64_t addr,
		       struct image_mapping_view *v);

/* image_generation - changes whenever a mapping of any process changes. */
uint64_t image_generation(const struct itrace_image *img);

/*
 * image_add_elf_memory - the file that MMAP records naming m->path with
 * build-id m->buildid map is the ELF image at `bytes` (len bytes, kept by
 * the caller as long as the image lives), not a file on disk: for the
 * fuzz target of the ELF handling (tests/fuzz/fuzz_image.c).  0 or a
 * negative code; a bad ELF is what lookups then report.
 */
int image_add_elf_memory(struct itrace_image *img, const struct itrace_mmap *m, const void *bytes,
			 size_t len);

/*
 * elf_find_symbol - itrace_elf_find_symbol() on an ELF that is open
 * already (libelf's Elf *): the defined `name` in .symtab, then .dynsym.
 */
struct Elf;
int elf_find_symbol(struct Elf *elf, const char *name, struct itrace_elf_symbol *out);

/*
 * elf_plt_entry - if link-time address vaddr lies in an x86-64 PLT stub
 * (the entries of .plt.sec, or of .plt when there is none): 1, with the
 * stub's first address in *start (16 bytes long) and the name of the
 * symbol it serves in *name ("name@plt" in objdump -d; valid while elf is
 * open), else *name NULL and, for an IRELATIVE relocation, its addend in
 * *abs ("*ABS*+0xADDEND@plt"), 0 for PLT0.  0 if vaddr is in no stub.
 */
int elf_plt_entry(struct Elf *elf, uint64_t vaddr, uint64_t *start, const char **name, uint64_t *abs);

/*
 * elf_fde_start - the start of the last unwind table entry (FDE, as
 * .eh_frame_hdr lists them) that starts at or before link-time address
 * vaddr, in *start, and the start of the entry after it in *next (each
 * UINT64_MAX if there is none).  1, or 0 when the file has no such table.
 * Whether that entry covers vaddr is the unwinder's question (libdw's
 * dwarf_cfi_addrframe).
 */
int elf_fde_start(struct Elf *elf, uint64_t vaddr, uint64_t *start, uint64_t *next);

/* image_debug_dir - the debug directory in use (never NULL). */
const char *image_debug_dir(const struct itrace_image *img);

#endif
