/*
 * qemu_elf.h - what itrace-collect needs from an ELF file to run it under
 * qemu-user and to describe what QEMU's loader mapped: machine, byte
 * order, program interpreter, and every PT_LOAD segment (libelf).
 */
#ifndef ITRACE_QEMU_ELF_H
#define ITRACE_QEMU_ELF_H

#include <stddef.h>
#include <stdint.h>

#define QEMU_ELF_MAX_LOADS 16

struct qemu_elf_load {
	uint64_t vaddr, memsz, offset;
	uint8_t prot; /* PROT_* */
};

struct qemu_elf {
	uint16_t machine; /* e_machine */
	uint8_t endian;	  /* 1 little, 2 big */
	uint8_t is64;
	uint8_t is_exec;  /* ET_EXEC or ET_DYN */
	uint64_t entry;	  /* e_entry */
	char interp[4096]; /* PT_INTERP, "" for a static program */
	struct qemu_elf_load load[QEMU_ELF_MAX_LOADS];
	size_t n_load;
};

/*
 * qemu_elf_read - the facts of ELF file `path`.  Returns 0, or -1 with
 * errno set (ENOEXEC: not an ELF file).
 */
int qemu_elf_read(const char *path, struct qemu_elf *e);

/* qemu_elf_min_exec_vaddr - lowest p_vaddr of an executable segment (0 if none). */
uint64_t qemu_elf_min_exec_vaddr(const struct qemu_elf *e);

#endif
