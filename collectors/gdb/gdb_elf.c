/*
 * gdb_elf.c - program facts from its ELF file, through libelf (gdb_elf.h).
 */
#include "gdb_elf.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* open_elf - libelf handle on `path`; *fd must be closed after elf_end. */
static Elf *open_elf(const char *path, int *fd)
{
	Elf *elf;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return NULL;
	*fd = open(path, O_RDONLY | O_CLOEXEC);
	if (*fd < 0)
		return NULL;
	elf = elf_begin(*fd, ELF_C_READ, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		elf_end(elf);
		close(*fd);
		*fd = -1;
		errno = ENOEXEC;
		return NULL;
	}
	return elf;
}

static uint8_t segment_prot(Elf64_Word flags)
{
	return (uint8_t)(((flags & PF_R) ? PROT_READ : 0) | ((flags & PF_W) ? PROT_WRITE : 0) |
			 ((flags & PF_X) ? PROT_EXEC : 0));
}

static void read_segments(Elf *elf, struct gdb_elf *e)
{
	size_t n = 0;

	if (elf_getphdrnum(elf, &n) != 0)
		return;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph))
			continue;
		if (ph.p_type == PT_INTERP)
			e->has_interp = 1;
		if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_X) || e->n_seg == GDB_ELF_MAX_SEGMENTS)
			continue;
		e->seg[e->n_seg++] = (struct gdb_elf_segment){
			.vaddr = ph.p_vaddr, .memsz = ph.p_memsz, .offset = ph.p_offset,
			.prot = segment_prot(ph.p_flags)};
	}
}

int gdb_elf_read(const char *path, struct gdb_elf *e, char *err, size_t errlen)
{
	GElf_Ehdr eh;
	Elf *elf;
	int fd;

	memset(e, 0, sizeof(*e));
	elf = open_elf(path, &fd);
	if (!elf) {
		snprintf(err, errlen, "cannot read '%s': %s", path,
			 errno == ENOEXEC ? "not an ELF file" : strerror(errno));
		return -1;
	}
	if (!gelf_getehdr(elf, &eh)) {
		snprintf(err, errlen, "cannot read the ELF header of '%s': %s", path,
			 elf_errmsg(-1));
		elf_end(elf);
		close(fd);
		return -1;
	}
	e->machine = eh.e_machine;
	e->endian = eh.e_ident[EI_DATA] == ELFDATA2MSB ? 2 : 1;
	e->is64 = eh.e_ident[EI_CLASS] == ELFCLASS64;
	e->is_dyn = eh.e_type == ET_DYN;
	e->entry = eh.e_entry;
	read_segments(elf, e);
	elf_end(elf);
	close(fd);
	return 0;
}

/* ELFv2 local entry offset, encoded in st_other (PPC64_LOCAL_ENTRY_OFFSET). */
static uint64_t ppc64_local_entry_offset(unsigned char other)
{
	unsigned v = (other >> 5) & 7;

	return v >= 2 && v <= 6 ? (1u << v) >> 2 << 2 : 0;
}

static int find_in_section(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, uint16_t machine,
			   const char *name, uint64_t addr[2])
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t n = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;

	for (size_t i = 0; data && i < n; i++) {
		GElf_Sym sym;
		const char *s;

		if (!gelf_getsym(data, (int)i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
		    sym.st_shndx == SHN_UNDEF)
			continue;
		s = elf_strptr(elf, sh->sh_link, sym.st_name);
		if (!s || strcmp(s, name) != 0)
			continue;
		addr[0] = sym.st_value;
		if (machine == EM_PPC64 && ppc64_local_entry_offset(sym.st_other)) {
			addr[1] = sym.st_value + ppc64_local_entry_offset(sym.st_other);
			return 2;
		}
		return 1;
	}
	return -1;
}

int gdb_elf_function(const char *path, const char *name, uint64_t addr[2])
{
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	int fd, found = -1;
	Elf *elf = open_elf(path, &fd);

	if (!elf)
		return -1;
	if (!gelf_getehdr(elf, &eh))
		goto out;
	/* .symtab first (complete), then .dynsym. */
	for (int pass = 0; pass < 2 && found < 0; pass++) {
		unsigned want = pass == 0 ? SHT_SYMTAB : SHT_DYNSYM;

		while (found < 0 && (scn = elf_nextscn(elf, scn)) != NULL) {
			GElf_Shdr sh;

			if (gelf_getshdr(scn, &sh) && sh.sh_type == want)
				found = find_in_section(elf, scn, &sh, eh.e_machine, name, addr);
		}
		scn = NULL;
	}
out:
	elf_end(elf);
	close(fd);
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
