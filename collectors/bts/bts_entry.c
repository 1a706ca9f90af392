/*
 * bts_entry.c - where a freshly exec'd program starts executing.
 *
 * BTS records branches, not the first instruction: a trace that begins at
 * exec would otherwise lose the straight-line code from the entry point to
 * the first taken branch.  The kernel starts a new program at the ELF
 * entry of its interpreter (dynamic programs) or of the executable itself
 * (static ones), so the start follows from the exec'd files and where
 * they were mapped.  Read with libelf.
 */
#include <fcntl.h>
#include <gelf.h>
#include <string.h>
#include <unistd.h>

#include "bts.h"

/* Load bias of the mapping at `start` of file offset `pgoff`. */
static int load_bias(Elf *e, const GElf_Ehdr *eh, uint64_t start, uint64_t pgoff, uint64_t *bias)
{
	size_t n;

	if (eh->e_type == ET_EXEC) {
		*bias = 0;
		return 0;
	}
	if (elf_getphdrnum(e, &n))
		return -1;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (pgoff < (ph.p_offset & ~0xfffull) || pgoff >= ph.p_offset + ph.p_filesz)
			continue;
		/* The mapping's start corresponds to vaddr p_vaddr - (p_offset - pgoff). */
		*bias = start - (ph.p_vaddr - (ph.p_offset - pgoff));
		return 0;
	}
	return -1;
}

static void interp_name(Elf *e, char *interp, size_t len)
{
	size_t n, size;
	char *raw = elf_rawfile(e, &size);

	interp[0] = 0;
	if (!raw || elf_getphdrnum(e, &n))
		return;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_INTERP)
			continue;
		if (ph.p_offset >= size || ph.p_filesz > size - ph.p_offset || !ph.p_filesz)
			return;
		size_t k = ph.p_filesz < len ? ph.p_filesz : len - 1;
		memcpy(interp, raw + ph.p_offset, k);
		interp[k] = 0;
		return;
	}
}

int bts_elf_entry(const char *path, uint64_t start, uint64_t pgoff, uint64_t *entry, char *interp,
		  size_t interp_len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc = -1;
	Elf *e;
	GElf_Ehdr eh;
	uint64_t bias;

	if (fd < 0)
		return -1;
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (e && elf_kind(e) == ELF_K_ELF && gelf_getehdr(e, &eh) &&
	    !load_bias(e, &eh, start, pgoff, &bias)) {
		*entry = eh.e_entry + bias;
		interp_name(e, interp, interp_len);
		rc = 0;
	}
	elf_end(e);
	close(fd);
	return rc;
}
