/*
 * gdb_elf.c - program facts from its ELF file, through the ELF reader
 * (itrace_elf.h; gdb_elf.h).
 */
#include "gdb_elf.h"

#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "itrace_elf.h"

int gdb_elf_read(const char *path, struct gdb_elf *e, char *err, size_t errlen)
{
	struct itrace_elf_info info;
	struct itrace_elf *elf;
	int rc;

	memset(e, 0, sizeof(*e));
	rc = itrace_elf_open(path, &elf);
	if (rc < 0) {
		snprintf(err, errlen, "cannot read '%s': %s", path,
			 rc == -ITRACE_E_ELF ? "not an ELF file" : strerror(errno));
		return -1;
	}
	rc = itrace_elf_read_info(elf, &info);
	itrace_elf_close(elf);
	if (rc < 0) {
		snprintf(err, errlen, "cannot read the ELF header of '%s': %s", path,
			 elf_errmsg(-1));
		return -1;
	}
	e->machine = info.machine;
	e->endian = info.endian;
	e->is64 = info.is64;
	e->is_dyn = info.type == ET_DYN;
	e->has_interp = info.interp[0] != '\0';
	e->entry = info.entry;
	for (size_t i = 0; i < info.n_load && e->n_seg < GDB_ELF_MAX_SEGMENTS; i++)
		if (info.load[i].prot & PROT_EXEC)
			e->seg[e->n_seg++] = (struct gdb_elf_segment){
				.vaddr = info.load[i].vaddr, .memsz = info.load[i].memsz,
				.offset = info.load[i].offset, .prot = info.load[i].prot};
	return 0;
}

int gdb_elf_function(const char *path, const char *name, uint64_t addr[2])
{
	struct itrace_elf_info info;
	struct itrace_elf_sym sym;
	struct itrace_elf *elf;
	uint64_t local;
	int found = -1;

	if (itrace_elf_open(path, &elf) < 0)
		return -1;
	if (itrace_elf_read_info(elf, &info) == 0 && itrace_elf_function(elf, name, &sym) == 0) {
		addr[0] = sym.value;
		local = itrace_elf_local_entry(info.machine, &sym);
		found = 1;
		if (local) {
			addr[1] = sym.value + local;
			found = 2;
		}
	}
	itrace_elf_close(elf);
	return found;
}

const char *gdb_elf_machine_name(uint16_t machine, uint8_t endian)
{
	switch (machine) {
	case EM_X86_64:
		return "x86-64";
	case EM_PPC64:
		return endian == 1 ? "ppc64le" : "ppc64";
	case EM_PPC:
		return "ppc";
	case EM_AARCH64:
		return "aarch64";
	case EM_386:
		return "i386";
	case EM_RISCV:
		return "riscv64";
	default:
		return "unknown";
	}
}
