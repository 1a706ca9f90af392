/* symbols.c - function name -> run-time address through libelf (see symbols.h). */
#include "symbols.h"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "itrace.h"
#include "maps.h"

/* st_value of defined function `name` in the symbol table `scn`. */
static int find_in_symtab(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, const char *name,
			  uint64_t *value)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t n = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;

	for (size_t i = 0; data && i < n; i++) {
		GElf_Sym sym;
		const char *s;

		if (!gelf_getsym(data, (int)i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
		    sym.st_shndx == SHN_UNDEF || sym.st_value == 0)
			continue;
		s = elf_strptr(elf, sh->sh_link, sym.st_name);
		if (s && strcmp(s, name) == 0) {
			*value = sym.st_value;
			return 0;
		}
	}
	return -ITRACE_E_NOENT;
}

/* .symtab first (it has the static functions), then .dynsym. */
static int find_symbol_value(Elf *elf, const char *name, uint64_t *value)
{
	static const unsigned types[] = {SHT_SYMTAB, SHT_DYNSYM};

	for (size_t t = 0; t < sizeof(types) / sizeof(types[0]); t++) {
		Elf_Scn *scn = NULL;

		while ((scn = elf_nextscn(elf, scn)) != NULL) {
			GElf_Shdr sh;

			if (gelf_getshdr(scn, &sh) && sh.sh_type == types[t] &&
			    find_in_symtab(elf, scn, &sh, name, value) == 0)
				return 0;
		}
	}
	return -ITRACE_E_NOENT;
}

/* File offset of virtual address `vaddr` through the PT_LOAD holding it. */
static int vaddr_to_offset(Elf *elf, uint64_t vaddr, uint64_t *offset)
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

int symbols_file_offset(const char *path, const char *name, uint64_t *offset)
{
	uint64_t value;
	Elf *elf;
	int fd, rc = -ITRACE_E_ELF;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return -ITRACE_E_ELF;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -ITRACE_E_ELF;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && elf_kind(elf) == ELF_K_ELF) {
		rc = find_symbol_value(elf, name, &value);
		if (rc == 0)
			rc = vaddr_to_offset(elf, value, offset);
	}
	elf_end(elf);
	close(fd);
	return rc;
}

/* Address of `name` in file `path` as mapped in `pid`, via its mappings. */
static int lookup_in_file(pid_t pid, const char *path, const char *name, uint64_t *addr)
{
	char mpath[64], line[4200];
	struct maps_entry e;
	uint64_t off;
	int rc = symbols_file_offset(path, name, &off);
	FILE *f;

	if (rc)
		return rc;
	snprintf(mpath, sizeof(mpath), "/proc/%d/maps", (int)pid);
	f = fopen(mpath, "re");
	if (!f)
		return -ITRACE_E_IO;
	rc = -ITRACE_E_NOENT;
	while (rc && fgets(line, sizeof(line), f)) {
		if (maps_parse_line(line, &e) == 0 && strcmp(e.path, path) == 0 &&
		    off >= e.pgoff && off < e.pgoff + (e.end - e.start)) {
			*addr = e.start + (off - e.pgoff);
			rc = 0;
		}
	}
	fclose(f);
	return rc;
}

/* Search each distinct file mapped in `pid`, the executable first. */
static int search_mapped_files(pid_t pid, const char *name, uint64_t *addr)
{
	char link[64], exe[PATH_MAX], prev[4096] = "", mpath[64], line[4200];
	struct maps_entry e;
	ssize_t n;
	int rc = -ITRACE_E_NOENT;
	FILE *f;

	snprintf(link, sizeof(link), "/proc/%d/exe", (int)pid);
	n = readlink(link, exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		if (lookup_in_file(pid, exe, name, addr) == 0)
			return 0;
	}
	snprintf(mpath, sizeof(mpath), "/proc/%d/maps", (int)pid);
	f = fopen(mpath, "re");
	if (!f)
		return -ITRACE_E_IO;
	while (rc && fgets(line, sizeof(line), f)) {
		if (maps_parse_line(line, &e) || e.path[0] != '/' || strcmp(e.path, prev) == 0)
			continue;
		snprintf(prev, sizeof(prev), "%s", e.path);
		if (n > 0 && strcmp(e.path, exe) == 0)
			continue;
		if (lookup_in_file(pid, e.path, name, addr) == 0)
			rc = 0;
	}
	fclose(f);
	return rc;
}

int symbols_fixed_address(const char *path, const char *name, uint64_t *addr)
{
	GElf_Ehdr eh;
	Elf *elf;
	int fd, rc = -ITRACE_E_ELF;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return -ITRACE_E_ELF;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -ITRACE_E_ELF;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && elf_kind(elf) == ELF_K_ELF && gelf_getehdr(elf, &eh) && eh.e_type == ET_EXEC)
		rc = find_symbol_value(elf, name, addr);
	elf_end(elf);
	close(fd);
	return rc;
}

int symbols_lookup(pid_t pid, const char *name, uint64_t *addr)
{
	return search_mapped_files(pid, name, addr);
}

struct addr_list {
	uint64_t *v;
	size_t n, cap;
	int nomem;
};

static void add_addr(struct addr_list *l, uint64_t a)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 256;
		uint64_t *v = realloc(l->v, cap * sizeof(*v));

		if (!v) {
			l->nomem = 1;
			return;
		}
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n++] = a;
}

/* Add the run-time address of file virtual address `vaddr`, if mapping e
 * holds it. */
static void add_if_mapped(Elf *elf, uint64_t vaddr, const struct maps_entry *e,
			  struct addr_list *l)
{
	uint64_t off;

	if (vaddr_to_offset(elf, vaddr, &off) == 0 && off >= e->pgoff &&
	    off < e->pgoff + (e->end - e->start))
		add_addr(l, e->start + (off - e->pgoff));
}

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* DWARF exception-header pointer encodings (LSB, "Exception Frame Header"). */
#define EH_PE_ABSPTR 0x00
#define EH_PE_ULEB128 0x01
#define EH_PE_UDATA2 0x02
#define EH_PE_UDATA4 0x03
#define EH_PE_UDATA8 0x04
#define EH_PE_SLEB128 0x09
#define EH_PE_SDATA2 0x0a
#define EH_PE_SDATA4 0x0b
#define EH_PE_SDATA8 0x0c
#define EH_PE_PCREL 0x10
#define EH_PE_DATAREL 0x30
#define EH_PE_OMIT 0xff

/* A reader of the file's bytes by virtual address, within one PT_LOAD's
 * file image; any read past its end sets `bad`. */
struct eh_cursor {
	const unsigned char *p, *end;
	uint64_t vaddr; /* of p */
	int bad;
};

static int eh_at(Elf *elf, uint64_t vaddr, struct eh_cursor *c)
{
	size_t phnum, rawsize;
	const unsigned char *raw = (const unsigned char *)elf_rawfile(elf, &rawsize);

	memset(c, 0, sizeof(*c));
	c->bad = 1;
	if (!raw || elf_getphdrnum(elf, &phnum))
		return -1;
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD || vaddr < ph.p_vaddr ||
		    vaddr - ph.p_vaddr >= ph.p_filesz || ph.p_offset > rawsize ||
		    ph.p_filesz > rawsize - ph.p_offset)
			continue;
		c->p = raw + ph.p_offset + (vaddr - ph.p_vaddr);
		c->end = raw + ph.p_offset + ph.p_filesz;
		c->vaddr = vaddr;
		c->bad = 0;
		return 0;
	}
	return -1;
}

static uint64_t eh_u(struct eh_cursor *c, unsigned n)
{
	uint64_t v = 0;

	if (c->bad || (size_t)(c->end - c->p) < n) {
		c->bad = 1;
		return 0;
	}
	for (unsigned k = 0; k < n; k++)
		v |= (uint64_t)c->p[k] << (8 * k);
	c->p += n;
	c->vaddr += n;
	return v;
}

/* uleb128 and sleb128 (DWARF 5, 7.6) */
static uint64_t eh_leb(struct eh_cursor *c, int is_signed)
{
	uint64_t v = 0;
	unsigned shift = 0;
	uint8_t b;

	do {
		b = (uint8_t)eh_u(c, 1);
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
	} while (!c->bad && (b & 0x80));
	if (is_signed && shift < 64 && (b & 0x40))
		v |= ~(uint64_t)0 << shift;
	return v;
}

/* A pointer in encoding `enc`: the value, plus the field's own address
 * for pcrel; other bases (datarel, textrel, funcrel) and indirection are
 * not used by x86-64 compilers for what is read here. */
static uint64_t eh_pointer(struct eh_cursor *c, uint8_t enc)
{
	uint64_t at = c->vaddr, v;

	switch (enc & 0x0f) {
	case EH_PE_ABSPTR: case EH_PE_UDATA8: case EH_PE_SDATA8: v = eh_u(c, 8); break;
	case EH_PE_ULEB128: v = eh_leb(c, 0); break;
	case EH_PE_SLEB128: v = eh_leb(c, 1); break;
	case EH_PE_UDATA2: v = eh_u(c, 2); break;
	case EH_PE_SDATA2: v = (uint64_t)(int64_t)(int16_t)eh_u(c, 2); break;
	case EH_PE_UDATA4: v = eh_u(c, 4); break;
	case EH_PE_SDATA4: v = (uint64_t)(int64_t)(int32_t)eh_u(c, 4); break;
	default: c->bad = 1; return 0;
	}
	if ((enc & 0x70) == EH_PE_PCREL)
		v += at;
	else if ((enc & 0x70) != 0)
		c->bad = 1;
	return v;
}

/* What the FDEs of one CIE need: the encodings of their pointers. */
struct eh_cie {
	uint8_t fde_enc, lsda_enc;
	int has_aug_data; /* "z": FDEs carry an augmentation length */
};

/* The CIE at vaddr (LSB, "The Common Information Entry Format"). */
static int eh_read_cie(Elf *elf, uint64_t vaddr, struct eh_cie *cie)
{
	struct eh_cursor c;
	const char *aug;
	size_t auglen;
	uint8_t version;

	cie->fde_enc = EH_PE_ABSPTR;
	cie->lsda_enc = EH_PE_OMIT;
	if (eh_at(elf, vaddr, &c) || eh_u(&c, 4) == 0xffffffffu || eh_u(&c, 4) != 0)
		return -1; /* (64-bit DWARF is not used in .eh_frame) */
	version = (uint8_t)eh_u(&c, 1);
	aug = (const char *)c.p;
	auglen = c.bad ? 0 : strnlen(aug, (size_t)(c.end - c.p));
	if (c.bad || (version != 1 && version != 3) || auglen == (size_t)(c.end - c.p))
		return -1;
	c.p += auglen + 1;
	c.vaddr += auglen + 1;
	eh_leb(&c, 0);	/* code alignment */
	eh_leb(&c, 1);	/* data alignment */
	if (version == 1)
		eh_u(&c, 1);
	else
		eh_leb(&c, 0); /* return address register */
	cie->has_aug_data = aug[0] == 'z';
	if (!cie->has_aug_data)
		return c.bad ? -1 : 0;
	eh_leb(&c, 0);
	for (size_t k = 1; k < auglen && !c.bad; k++) {
		if (aug[k] == 'P') {
			uint8_t enc = (uint8_t)eh_u(&c, 1);

			eh_pointer(&c, enc & 0x7f); /* the personality: skipped */
		} else if (aug[k] == 'L') {
			cie->lsda_enc = (uint8_t)eh_u(&c, 1);
		} else if (aug[k] == 'R') {
			cie->fde_enc = (uint8_t)eh_u(&c, 1);
		} else if (aug[k] != 'S' && aug[k] != 'B' && aug[k] != 'G') {
			break; /* unknown: what follows cannot be read */
		}
	}
	return c.bad ? -1 : 0;
}

/*
 * The landing pads of the function whose FDE is at `fde`: where the C++
 * unwinder (or any personality routine using GCC's LSDA layout) resumes
 * execution in it, a way into the module that neither calls nor returns.
 * From the LSDA its FDE points to: the call-site table's landing pads,
 * relative to LPStart (GCC's unwind-c.c and libsupc++'s eh_personality.cc
 * read the same layout).  Returns the number added.
 */
static size_t add_landing_pads(Elf *elf, uint64_t fde, const struct maps_entry *e,
			       struct addr_list *l)
{
	struct eh_cursor c;
	struct eh_cie cie;
	uint64_t cie_at, func, lsda, lpstart, table_end;
	uint8_t enc, cs_enc;
	size_t added = 0;

	if (eh_at(elf, fde, &c) || eh_u(&c, 4) == 0xffffffffu)
		return 0;
	cie_at = c.vaddr - eh_u(&c, 4); /* CIE_pointer: back from this field */
	if (c.bad || eh_read_cie(elf, cie_at, &cie) || !cie.has_aug_data || cie.lsda_enc == EH_PE_OMIT)
		return 0;
	func = eh_pointer(&c, cie.fde_enc);
	eh_pointer(&c, cie.fde_enc & 0x0f); /* the range */
	eh_leb(&c, 0);
	lsda = eh_pointer(&c, cie.lsda_enc);
	if (c.bad || !lsda || eh_at(elf, lsda, &c))
		return 0;
	enc = (uint8_t)eh_u(&c, 1);
	lpstart = enc == EH_PE_OMIT ? func : eh_pointer(&c, enc);
	if ((uint8_t)eh_u(&c, 1) != EH_PE_OMIT)
		eh_leb(&c, 0); /* the type table's offset */
	cs_enc = (uint8_t)eh_u(&c, 1);
	table_end = eh_leb(&c, 0);
	if (c.bad || table_end > (uint64_t)(c.end - c.p))
		return 0;
	table_end += c.vaddr;
	while (!c.bad && c.vaddr < table_end) {
		uint64_t lp;

		eh_pointer(&c, cs_enc & 0x0f); /* call-site start */
		eh_pointer(&c, cs_enc & 0x0f); /* and length */
		lp = eh_pointer(&c, cs_enc & 0x0f);
		eh_leb(&c, 0); /* action */
		if (!c.bad && lp) {
			add_if_mapped(elf, lpstart + lp, e, l);
			added++;
		}
	}
	return added;
}

/*
 * The start of every function that has unwind information: the initial
 * locations of the FDEs, from the binary search table of .eh_frame_hdr
 * (the PT_GNU_EH_FRAME segment, so section headers are not needed), and
 * the landing pads of their exception tables.  A stripped executable
 * keeps them: compilers emit unwind tables for every function on x86-64.
 * Only the encodings linkers write are read: the count as udata4 or
 * sdata4, the table as datarel|sdata4 pairs.  Returns the number of
 * addresses added.
 */
static size_t collect_fde_starts(Elf *elf, const struct maps_entry *e, struct addr_list *l)
{
	size_t phnum, rawsize, added = 0;
	const unsigned char *raw = (const unsigned char *)elf_rawfile(elf, &rawsize), *h;
	uint64_t count;

	if (!raw || elf_getphdrnum(elf, &phnum))
		return 0;
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_GNU_EH_FRAME ||
		    ph.p_offset > rawsize || ph.p_filesz > rawsize - ph.p_offset || ph.p_filesz < 12)
			continue;
		h = raw + ph.p_offset;
		/* version 1; eh_frame_ptr: any 4-byte form; the count; the table */
		if (h[0] != 1 || ((h[1] & 0x0f) != EH_PE_SDATA4 && (h[1] & 0x0f) != EH_PE_UDATA4) ||
		    (h[2] != EH_PE_UDATA4 && h[2] != EH_PE_SDATA4) ||
		    h[3] != (EH_PE_DATAREL | EH_PE_SDATA4))
			continue;
		count = le32(h + 8);
		if (count > (ph.p_filesz - 12) / 8)
			continue;
		for (uint64_t k = 0; k < count; k++) {
			add_if_mapped(elf, ph.p_vaddr + (uint64_t)(int64_t)(int32_t)le32(h + 12 + 8 * k), e, l);
			added += 1 + add_landing_pads(elf, ph.p_vaddr + (uint64_t)(int64_t)(int32_t)le32(h + 16 + 8 * k),
						      e, l);
		}
	}
	return added;
}

/* Load bias of the file of mapping e: run-time address - virtual address. */
static int load_bias(Elf *elf, const struct maps_entry *e, uint64_t *bias)
{
	size_t phnum;

	if (elf_getphdrnum(elf, &phnum))
		return -1;
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD &&
		    e->pgoff >= ph.p_offset && e->pgoff < ph.p_offset + ph.p_filesz) {
			*bias = e->start - (ph.p_vaddr + (e->pgoff - ph.p_offset));
			return 0;
		}
	}
	return -1;
}

/* The function pointers of an init/fini array of `pid`, as relocated. */
static void add_array(pid_t pid, uint64_t addr, uint64_t bytes, const struct maps_entry *e,
		      struct addr_list *l)
{
	uint64_t fn[64];

	for (uint64_t done = 0; done < bytes && done < 64 * 1024;) {
		size_t want = bytes - done < sizeof(fn) ? (size_t)(bytes - done) : sizeof(fn);
		ssize_t n = maps_read_proc_mem((void *)(intptr_t)pid, addr + done, fn, want);

		if (n < 8)
			return;
		for (ssize_t k = 0; k < n / 8; k++)
			if (fn[k] >= e->start && fn[k] < e->end)
				add_addr(l, fn[k]);
		done += (uint64_t)n / 8 * 8;
	}
}

/*
 * What the dynamic loader and libc call in a module without a symbol:
 * DT_INIT, DT_FINI (_init, _fini: no unwind information) and the
 * functions of the init, fini and preinit arrays (read from `pid`, where
 * they are relocated).
 */
static void collect_init_fini(Elf *elf, pid_t pid, const struct maps_entry *e, struct addr_list *l)
{
	uint64_t bias, arr[3] = {0}, sz[3] = {0};
	size_t phnum;

	if (elf_getphdrnum(elf, &phnum) || load_bias(elf, e, &bias))
		return;
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;
		Elf_Data *d;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_DYNAMIC)
			continue;
		d = elf_getdata_rawchunk(elf, (int64_t)ph.p_offset, ph.p_filesz, ELF_T_DYN);
		for (size_t k = 0; d && k < ph.p_filesz / sizeof(GElf_Dyn); k++) {
			GElf_Dyn dyn;

			if (!gelf_getdyn(d, (int)k, &dyn) || dyn.d_tag == DT_NULL)
				break;
			switch (dyn.d_tag) {
			case DT_INIT: case DT_FINI: add_if_mapped(elf, dyn.d_un.d_ptr, e, l); break;
			case DT_INIT_ARRAY: arr[0] = dyn.d_un.d_ptr; break;
			case DT_INIT_ARRAYSZ: sz[0] = dyn.d_un.d_val; break;
			case DT_FINI_ARRAY: arr[1] = dyn.d_un.d_ptr; break;
			case DT_FINI_ARRAYSZ: sz[1] = dyn.d_un.d_val; break;
			case DT_PREINIT_ARRAY: arr[2] = dyn.d_un.d_ptr; break;
			case DT_PREINIT_ARRAYSZ: sz[2] = dyn.d_un.d_val; break;
			default: break;
			}
		}
	}
	for (int k = 0; k < 3; k++)
		if (arr[k] && sz[k])
			add_array(pid, bias + arr[k], sz[k], e, l);
}

/* Functions of one symbol table, mapped through mapping e (pgoff-based). */
static void collect_functions(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh,
			      const struct maps_entry *e, struct addr_list *l)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t n = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;

	for (size_t i = 0; data && i < n; i++) {
		GElf_Sym sym;

		if (!gelf_getsym(data, (int)i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
		    sym.st_shndx == SHN_UNDEF || sym.st_value == 0)
			continue;
		add_if_mapped(elf, sym.st_value, e, l);
	}
}

/* The functions of `path` that lie in its executable mapping e: those of
 * its symbol table (.symtab, else .dynsym) and those with unwind
 * information, so that a stripped file is covered too. */
static void functions_of_mapping(pid_t pid, const struct maps_entry *e, struct addr_list *l)
{
	Elf_Scn *scn = NULL, *dyn = NULL;
	GElf_Shdr sh, dynsh;
	int fd = open(e->path, O_RDONLY | O_CLOEXEC), found = 0;
	Elf *elf;

	if (fd < 0)
		return;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	while (elf && elf_kind(elf) == ELF_K_ELF && (scn = elf_nextscn(elf, scn)) != NULL) {
		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB) {
			collect_functions(elf, scn, &sh, e, l);
			found = 1;
		} else if (sh.sh_type == SHT_DYNSYM) {
			dyn = scn;
			dynsh = sh;
		}
	}
	if (!found && dyn)
		collect_functions(elf, dyn, &dynsh, e, l);
	if (elf && elf_kind(elf) == ELF_K_ELF) {
		collect_fde_starts(elf, e, l);
		collect_init_fini(elf, pid, e, l);
	}
	elf_end(elf);
	close(fd);
}

int symbols_functions_in(pid_t pid, uint64_t lo, uint64_t hi, uint64_t **addrs, size_t *n)
{
	struct addr_list l = {0};
	char mpath[64], line[4200];
	struct maps_entry e;
	FILE *f;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return -ITRACE_E_ELF;
	snprintf(mpath, sizeof(mpath), "/proc/%d/maps", (int)pid);
	f = fopen(mpath, "re");
	if (!f)
		return -ITRACE_E_IO;
	while (fgets(line, sizeof(line), f))
		if (maps_parse_line(line, &e) == 0 && e.path[0] == '/' && (e.prot & PROT_EXEC) &&
		    e.start >= lo && e.end <= hi)
			functions_of_mapping(pid, &e, &l);
	fclose(f);
	if (l.nomem) {
		free(l.v);
		return -ITRACE_E_NOMEM;
	}
	*addrs = l.v;
	*n = l.n;
	return 0;
}

int symbols_defined_in(const char *const *paths, size_t n, const char *name)
{
	uint64_t off;

	for (size_t i = 0; i < n; i++)
		if (symbols_file_offset(paths[i], name, &off) == 0)
			return 1;
	return 0;
}

void symbols_error_missing(const char *opt, const char *func)
{
	cli_error("%s: no function '%s' in the program or its libraries "
		  "(check the name with nm; static functions need a symbol table)",
		  opt, func);
}
