/* qemu_elf.c - ELF facts for the qemu backend (qemu_elf.h), through libelf. */
#include "qemu_elf.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* PROT_* of a segment's p_flags (PF_X 1, PF_W 2, PF_R 4 -> PROT_EXEC 4, PROT_WRITE 2, PROT_READ 1). */
static uint8_t load_prot(Elf64_Word flags)
{
	static const uint8_t prot[8] = {0, PROT_EXEC, PROT_WRITE, PROT_WRITE | PROT_EXEC, PROT_READ,
					PROT_READ | PROT_EXEC, PROT_READ | PROT_WRITE,
					PROT_READ | PROT_WRITE | PROT_EXEC};

	return prot[flags & (PF_R | PF_W | PF_X)];
}

/* PT_INTERP's string, read from the file at its offset. */
static void read_interp(int fd, const GElf_Phdr *ph, struct qemu_elf *e)
{
	size_t len = ph->p_filesz < sizeof(e->interp) ? ph->p_filesz : sizeof(e->interp) - 1;
	ssize_t n = pread(fd, e->interp, len, (off_t)ph->p_offset);

	e->interp[n > 0 ? (size_t)n : 0] = '\0';
	e->interp[strcspn(e->interp, "\n")] = '\0';
}

static void read_phdrs(Elf *elf, int fd, struct qemu_elf *e)
{
	size_t n = 0;

	if (elf_getphdrnum(elf, &n) != 0)
		return;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph))
			continue;
		if (ph.p_type == PT_INTERP)
			read_interp(fd, &ph, e);
		if (ph.p_type != PT_LOAD || e->n_load == QEMU_ELF_MAX_LOADS)
			continue;
		e->load[e->n_load++] = (struct qemu_elf_load){
			.vaddr = ph.p_vaddr, .memsz = ph.p_memsz, .offset = ph.p_offset,
			.prot = load_prot(ph.p_flags)};
	}
}

int qemu_elf_read(const char *path, struct qemu_elf *e)
{
	GElf_Ehdr eh;
	Elf *elf;
	int fd, ok;

	memset(e, 0, sizeof(*e));
	if (elf_version(EV_CURRENT) == EV_NONE) {
		errno = ENOEXEC;
		return -1;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	ok = elf && elf_kind(elf) == ELF_K_ELF && gelf_getehdr(elf, &eh);
	if (ok) {
		e->machine = eh.e_machine;
		e->endian = eh.e_ident[EI_DATA] == ELFDATA2MSB ? 2 : 1;
		e->is64 = eh.e_ident[EI_CLASS] == ELFCLASS64;
		e->is_exec = eh.e_type == ET_EXEC || eh.e_type == ET_DYN;
		e->entry = eh.e_entry;
		read_phdrs(elf, fd, e);
	}
	elf_end(elf);
	close(fd);
	if (!ok)
		errno = ENOEXEC;
	return ok ? 0 : -1;
}

uint64_t qemu_elf_min_exec_vaddr(const struct qemu_elf *e)
{
	uint64_t lo = UINT64_MAX;

	for (size_t i = 0; i < e->n_load; i++)
		if ((e->load[i].prot & PROT_EXEC) && e->load[i].vaddr < lo)
			lo = e->load[i].vaddr;
	return lo == UINT64_MAX ? 0 : lo;
}
