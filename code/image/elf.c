/*
 * elf.c - the one ELF reader (itrace_elf.h): header, segments, function
 * symbols and build-id of a file, through libelf and libdw's dwelf.
 */
#include "itrace_elf.h"
#include "image_int.h"

#include <elf.h>
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/mman.h>
#include <unistd.h>

struct itrace_elf {
	int fd;
	Elf *elf;
};

static pthread_once_t version_once = PTHREAD_ONCE_INIT;

static void version_init(void)
{
	elf_version(EV_CURRENT);
}

int itrace_elf_open_fd(const char *path)
{
	struct stat st;
	int fd;

	/* A path from a trace (an MMAP record) may name a FIFO, which an
	 * open for reading would wait on for ever, or a device: open without
	 * waiting or taking a terminal, and read regular files only. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		errno = ENOEXEC;
		return -1;
	}
	return fd;
}

int itrace_elf_open(const char *path, struct itrace_elf **ep)
{
	struct itrace_elf *e;

	if (!path || !ep)
		return -ITRACE_E_INVAL;
	*ep = NULL;
	pthread_once(&version_once, version_init);
	e = calloc(1, sizeof(*e));
	if (!e)
		return -ITRACE_E_NOMEM;
	e->fd = itrace_elf_open_fd(path);
	if (e->fd < 0) {
		int err = errno;

		free(e);
		errno = err;
		return err == ENOEXEC ? -ITRACE_E_ELF : -ITRACE_E_IO;
	}
	e->elf = elf_begin(e->fd, ELF_C_READ_MMAP, NULL);
	if (!e->elf || elf_kind(e->elf) != ELF_K_ELF) {
		itrace_elf_close(e);
		errno = ENOEXEC;
		return -ITRACE_E_ELF;
	}
	*ep = e;
	return 0;
}

void itrace_elf_close(struct itrace_elf *e)
{
	if (!e)
		return;
	elf_end(e->elf);
	close(e->fd);
	free(e);
}

Elf *itrace_elf_libelf(const struct itrace_elf *e)
{
	return e->elf;
}

/* PROT_* of a segment's p_flags. */
static uint8_t segment_prot(Elf64_Word flags)
{
	return (uint8_t)(((flags & PF_R) ? PROT_READ : 0) | ((flags & PF_W) ? PROT_WRITE : 0) |
			 ((flags & PF_X) ? PROT_EXEC : 0));
}

/* PT_INTERP's string, read from the file at its offset. */
static void read_interp(int fd, const GElf_Phdr *ph, struct itrace_elf_info *info)
{
	size_t len = ph->p_filesz < sizeof(info->interp) ? ph->p_filesz : sizeof(info->interp) - 1;
	ssize_t n = pread(fd, info->interp, len, (off_t)ph->p_offset);

	info->interp[n > 0 ? (size_t)n : 0] = '\0';
	info->interp[strcspn(info->interp, "\n")] = '\0';
}

int itrace_elf_read_info(const struct itrace_elf *e, struct itrace_elf_info *info)
{
	GElf_Ehdr eh;
	size_t n = 0;

	memset(info, 0, sizeof(*info));
	if (!gelf_getehdr(e->elf, &eh))
		return -ITRACE_E_ELF;
	info->machine = eh.e_machine;
	info->type = eh.e_type;
	info->endian = eh.e_ident[EI_DATA] == ELFDATA2MSB ? 2 : 1;
	info->is64 = eh.e_ident[EI_CLASS] == ELFCLASS64;
	info->entry = eh.e_entry;
	if (elf_getphdrnum(e->elf, &n) != 0)
		return 0;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(e->elf, (int)i, &ph))
			continue;
		if (ph.p_type == PT_INTERP)
			read_interp(e->fd, &ph, info);
		if (ph.p_type != PT_LOAD || info->n_load == ITRACE_ELF_MAX_LOADS)
			continue;
		info->load[info->n_load++] = (struct itrace_elf_load){
			.vaddr = ph.p_vaddr, .memsz = ph.p_memsz, .filesz = ph.p_filesz,
			.offset = ph.p_offset, .prot = segment_prot(ph.p_flags)};
	}
	return 0;
}

/*
 * The symbol walk, the only one: every defined symbol of the symbol table
 * scn, until fn returns non-zero (then that value).
 */
static int walk_symbols(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh,
			int (*fn)(void *arg, const char *name, const GElf_Sym *sym), void *arg)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t n = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;

	for (size_t i = 1; data && i < n; i++) {
		GElf_Sym sym;
		int rc;

		if (!gelf_getsym(data, (int)i, &sym) || sym.st_shndx == SHN_UNDEF)
			continue;
		if ((rc = fn(arg, elf_strptr(elf, sh->sh_link, sym.st_name), &sym)) != 0)
			return rc;
	}
	return 0;
}

/* The first section of type `type` (SHT_SYMTAB, SHT_DYNSYM), or NULL. */
static Elf_Scn *find_section(Elf *elf, unsigned type, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn)) != NULL)
		if (gelf_getshdr(scn, sh) && sh->sh_type == type)
			return scn;
	return NULL;
}

/* Walk .symtab, then .dynsym, until fn returns non-zero (then that value). */
static int walk_both_tables(Elf *elf, int (*fn)(void *arg, const char *name, const GElf_Sym *sym),
			    void *arg)
{
	static const unsigned types[] = {SHT_SYMTAB, SHT_DYNSYM};

	for (size_t t = 0; t < sizeof(types) / sizeof(types[0]); t++) {
		GElf_Shdr sh;
		Elf_Scn *scn = find_section(elf, types[t], &sh);
		int rc;

		if (scn && (rc = walk_symbols(elf, scn, &sh, fn, arg)) != 0)
			return rc;
	}
	return 0;
}

/* The section called `name`, or NULL. */
static Elf_Scn *section_named(Elf *elf, const char *name, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx) < 0)
		return NULL;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		const char *n = gelf_getshdr(scn, sh) ? elf_strptr(elf, shstrndx, sh->sh_name) : NULL;

		if (n && strcmp(n, name) == 0)
			return scn;
	}
	return NULL;
}

/*
 * elf_plt_entry - the x86-64 PLT stub holding link-time address vaddr
 * (image_int.h).  The layout GNU ld writes and objdump -d names its
 * "NAME@plt" symbols by: 16-byte entries, the n-th relocation of .rela.plt
 * served by the n-th entry of .plt.sec where the file has one (IBT), else
 * by the entry after .plt's PLT0 (objdump: "FIRST@plt-0x10").
 */
int elf_plt_entry(Elf *elf, uint64_t vaddr, uint64_t *start, const char **name, uint64_t *abs)
{
	enum { ENTRY = 16 };
	GElf_Ehdr eh;
	GElf_Shdr plt, rela, dynsym;
	Elf_Scn *scn = section_named(elf, ".plt.sec", &plt), *rscn;
	Elf_Data *data;
	GElf_Rela r;
	GElf_Sym sym;
	uint64_t n, first = 0;

	if (!gelf_getehdr(elf, &eh) || eh.e_machine != EM_X86_64)
		return 0;
	if (!scn) {
		scn = section_named(elf, ".plt", &plt);
		first = 1; /* PLT0, the lazy binder's entry, comes first */
	}
	if (!scn || vaddr < plt.sh_addr || vaddr - plt.sh_addr >= plt.sh_size)
		return 0;
	n = (vaddr - plt.sh_addr) / ENTRY;
	*start = plt.sh_addr + n * ENTRY;
	*name = NULL;
	*abs = 0;
	if (n < first)
		return 1; /* PLT0: a stub with no symbol of its own */
	rscn = section_named(elf, ".rela.plt", &rela);
	if (!rscn || rela.sh_type != SHT_RELA || !rela.sh_entsize ||
	    n - first >= rela.sh_size / rela.sh_entsize || !(data = elf_getdata(rscn, NULL)) ||
	    !gelf_getrela(data, (int)(n - first), &r))
		return 0;
	if (!GELF_R_SYM(r.r_info)) { /* IRELATIVE: objdump's "*ABS*+0xADDEND@plt" */
		*abs = (uint64_t)r.r_addend;
		return 1;
	}
	scn = elf_getscn(elf, rela.sh_link);
	if (!scn || !gelf_getshdr(scn, &dynsym) || !(data = elf_getdata(scn, NULL)) ||
	    !gelf_getsym(data, (int)GELF_R_SYM(r.r_info), &sym) ||
	    !(*name = elf_strptr(elf, dynsym.sh_link, sym.st_name)) || !**name)
		*name = NULL;
	return 1;
}

/* A 4-byte signed value of the file's byte order. */
static int64_t read_s32(const unsigned char *p, int big_endian)
{
	uint32_t v = big_endian ? (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]
				: (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];

	return (int32_t)v;
}

/*
 * elf_fde_start - the unwind table entry starts around link-time address
 * vaddr (image_int.h), from the binary search table of .eh_frame_hdr (LSB
 * "Exception Frame Header"): sorted (initial location, FDE address)
 * pairs.  The table's encoding is DW_EH_PE_datarel | DW_EH_PE_sdata4
 * (0x3b), relative to the section, as GNU ld, gold and lld write it; any
 * other is not read.
 */
int elf_fde_start(Elf *elf, uint64_t vaddr, uint64_t *start, uint64_t *next)
{
	enum { VERSION = 1, DATAREL_SDATA4 = 0x3b, UDATA4 = 0x03, PCREL_SDATA4 = 0x1b };
	GElf_Ehdr eh;
	GElf_Shdr sh;
	Elf_Scn *scn = section_named(elf, ".eh_frame_hdr", &sh);
	Elf_Data *data = scn ? elf_getdata(scn, NULL) : NULL;
	const unsigned char *p;
	size_t lo = 0, hi, count, table = 8;
	int big;

	if (!data || !data->d_buf || data->d_size < table || !gelf_getehdr(elf, &eh))
		return 0;
	p = data->d_buf;
	big = eh.e_ident[EI_DATA] == ELFDATA2MSB;
	/* version, eh_frame_ptr encoding (4 bytes), fde_count encoding, table encoding */
	if (p[0] != VERSION || (p[1] & 0x0f) != (PCREL_SDATA4 & 0x0f) || p[2] != UDATA4 ||
	    p[3] != DATAREL_SDATA4)
		return 0;
	count = (uint32_t)read_s32(p + 8, big);
	table = 12;
	if (count > (data->d_size - table) / 8)
		return 0;
	hi = count;
	while (lo < hi) { /* the first entry that starts after vaddr */
		size_t mid = lo + (hi - lo) / 2;

		if (sh.sh_addr + (uint64_t)read_s32(p + table + mid * 8, big) <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	*start = lo ? sh.sh_addr + (uint64_t)read_s32(p + table + (lo - 1) * 8, big) : UINT64_MAX;
	*next = lo < count ? sh.sh_addr + (uint64_t)read_s32(p + table + lo * 8, big) : UINT64_MAX;
	return 1;
}

/* A function in the sense of itrace_elf_sym: code with an address. */
static int is_function(const GElf_Sym *sym)
{
	return GELF_ST_TYPE(sym->st_info) == STT_FUNC && sym->st_value != 0;
}

struct by_name {
	const char *name;
	int functions_only;
	GElf_Sym sym;
};

static int match_name(void *arg, const char *name, const GElf_Sym *sym)
{
	struct by_name *b = arg;

	if (!name || strcmp(name, b->name) != 0 || (b->functions_only && !is_function(sym)))
		return 0;
	b->sym = *sym;
	return 1;
}

int itrace_elf_function(const struct itrace_elf *e, const char *name, struct itrace_elf_sym *sym)
{
	struct by_name b = {name, 1, {0}};

	if (!walk_both_tables(e->elf, match_name, &b))
		return -ITRACE_E_NOENT;
	sym->value = b.sym.st_value;
	sym->other = b.sym.st_other;
	return 0;
}

struct each {
	void (*fn)(void *arg, const struct itrace_elf_sym *sym);
	void *arg;
};

static int call_each(void *arg, const char *name, const GElf_Sym *sym)
{
	struct each *a = arg;
	struct itrace_elf_sym s = {sym->st_value, sym->st_other};

	(void)name;
	if (is_function(sym))
		a->fn(a->arg, &s);
	return 0;
}

int itrace_elf_functions(const struct itrace_elf *e,
			 void (*fn)(void *arg, const struct itrace_elf_sym *sym), void *arg)
{
	struct each a = {fn, arg};
	GElf_Shdr sh;
	Elf_Scn *scn = find_section(e->elf, SHT_SYMTAB, &sh);

	if (!scn)
		scn = find_section(e->elf, SHT_DYNSYM, &sh);
	if (scn)
		walk_symbols(e->elf, scn, &sh, call_each, &a);
	return 0;
}

/* The file offset of vaddr through the PT_LOAD whose file bytes hold it. */
static int vaddr_offset(Elf *elf, uint64_t vaddr, uint64_t *offset)
{
	size_t phnum;

	if (elf_getphdrnum(elf, &phnum))
		return -ITRACE_E_ELF;
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD &&
		    vaddr >= ph.p_vaddr && vaddr < ph.p_vaddr + ph.p_filesz) {
			*offset = vaddr - ph.p_vaddr + ph.p_offset;
			return 0;
		}
	}
	return -ITRACE_E_NOENT;
}

int itrace_elf_vaddr_offset(const struct itrace_elf *e, uint64_t vaddr, uint64_t *offset)
{
	return vaddr_offset(e->elf, vaddr, offset);
}

int elf_find_symbol(Elf *elf, const char *name, struct itrace_elf_symbol *out)
{
	struct by_name b = {name, 0, {0}};
	int type;

	if (!walk_both_tables(elf, match_name, &b))
		return -ITRACE_E_NOENT;
	type = GELF_ST_TYPE(b.sym.st_info);
	out->vaddr = b.sym.st_value;
	out->size = b.sym.st_size;
	out->is_func = type == STT_FUNC || type == STT_GNU_IFUNC;
	out->offset = 0;
	vaddr_offset(elf, b.sym.st_value, &out->offset);
	return 0;
}

int itrace_elf_find_symbol(const char *path, const char *name, struct itrace_elf_symbol *out)
{
	struct itrace_elf *e;
	int rc;

	if (!path || !name || !out)
		return -ITRACE_E_INVAL;
	memset(out, 0, sizeof(*out));
	if ((rc = itrace_elf_open(path, &e)) < 0)
		return rc;
	rc = elf_find_symbol(e->elf, name, out);
	itrace_elf_close(e);
	return rc;
}

uint64_t itrace_elf_local_entry(uint16_t machine, const struct itrace_elf_sym *sym)
{
	unsigned v = (sym->other >> 5) & 7;

	if (machine != EM_PPC64)
		return 0;
	return v >= 2 && v <= 6 ? (1u << v) >> 2 << 2 : 0;
}

int itrace_elf_build_id(const char *path, uint8_t *buf, size_t cap)
{
	struct itrace_elf *e;
	const void *id;
	ssize_t len;
	int rc;

	if (!path || !buf)
		return -ITRACE_E_INVAL;
	if ((rc = itrace_elf_open(path, &e)) < 0)
		return rc;
	len = dwelf_elf_gnu_build_id(e->elf, &id);
	if (len <= 0)
		len = -ITRACE_E_NOENT;
	else if ((size_t)len > cap)
		len = -ITRACE_E_INVAL;
	else
		memcpy(buf, id, (size_t)len);
	itrace_elf_close(e);
	return (int)len;
}
