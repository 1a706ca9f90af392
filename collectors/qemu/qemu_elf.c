/* qemu_elf.c - ELF facts for the qemu backend (qemu_elf.h), through the
 * ELF reader (itrace_elf.h). */
#include "qemu_elf.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "itrace_elf.h"

int qemu_elf_read(const char *path, struct qemu_elf *e)
{
	struct itrace_elf_info info;
	struct itrace_elf *elf;
	int rc;

	memset(e, 0, sizeof(*e));
	if (itrace_elf_open(path, &elf) < 0)
		return -1; /* errno: the open's, or ENOEXEC */
	rc = itrace_elf_read_info(elf, &info);
	itrace_elf_close(elf);
	if (rc < 0) {
		errno = ENOEXEC;
		return -1;
	}
	e->machine = info.machine;
	e->endian = info.endian;
	e->is64 = info.is64;
	e->is_exec = info.type == ET_EXEC || info.type == ET_DYN;
	e->entry = info.entry;
	memcpy(e->interp, info.interp, sizeof(e->interp));
	for (size_t i = 0; i < info.n_load && i < QEMU_ELF_MAX_LOADS; i++)
		e->load[e->n_load++] = (struct qemu_elf_load){
			.vaddr = info.load[i].vaddr, .memsz = info.load[i].memsz,
			.offset = info.load[i].offset, .prot = info.load[i].prot};
	return 0;
}

uint64_t qemu_elf_min_exec_vaddr(const struct qemu_elf *e)
{
	uint64_t lo = UINT64_MAX;

	for (size_t i = 0; i < e->n_load; i++)
		if ((e->load[i].prot & PROT_EXEC) && e->load[i].vaddr < lo)
			lo = e->load[i].vaddr;
	return lo == UINT64_MAX ? 0 : lo;
}
