/*
 * symbolizer.c - symbols and source lines by address, addresses by name.
 *
 * Per process, the image's resolved files are reported to a libdwfl session
 * at their load bias; libdwfl then does the symbol-table search, finds
 * separate debug info (by build-id under the debug directory, or
 * .gnu_debuglink) and reads the DWARF line tables.  When the image changes
 * the session is rebuilt; old sessions are kept until the symbolizer is
 * freed because the strings handed out point into them.
 */
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <gelf.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "image_int.h"

struct sym_proc {
	uint32_t pid;
	Dwfl *dwfl;
	uint64_t generation;
};

struct itrace_symbolizer {
	struct itrace_image *img;
	char *debuginfo_path; /* libdwfl search list: ":.debug:DIR" */
	Dwfl_Callbacks callbacks;
	struct sym_proc *procs;
	size_t nprocs, capprocs;
	Dwfl **retired; /* superseded sessions, freed last */
	size_t nretired, capretired;
};

static int push(void **v, size_t *cap, size_t n, size_t elem)
{
	size_t ncap;
	void *p;

	if (n < *cap)
		return 0;
	ncap = *cap ? *cap * 2 : 4;
	p = realloc(*v, ncap * elem);
	if (!p)
		return -ITRACE_E_NOMEM;
	*v = p;
	*cap = ncap;
	return 0;
}

int itrace_symbolizer_alloc(struct itrace_image *img, struct itrace_symbolizer **sp)
{
	struct itrace_symbolizer *s;
	const char *dir;

	if (!img || !sp)
		return -ITRACE_E_INVAL;
	*sp = NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ITRACE_E_NOMEM;
	dir = image_debug_dir(img);
	if (asprintf(&s->debuginfo_path, ":.debug:%s", dir) < 0) {
		free(s);
		return -ITRACE_E_NOMEM;
	}
	s->img = img;
	s->callbacks.find_elf = dwfl_build_id_find_elf;
	s->callbacks.find_debuginfo = dwfl_standard_find_debuginfo;
	s->callbacks.debuginfo_path = &s->debuginfo_path;
	*sp = s;
	return 0;
}

void itrace_symbolizer_free(struct itrace_symbolizer *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nprocs; i++)
		dwfl_end(s->procs[i].dwfl);
	for (size_t i = 0; i < s->nretired; i++)
		dwfl_end(s->retired[i]);
	free(s->procs);
	free(s->retired);
	free(s->debuginfo_path);
	free(s);
}

/* Report each resolved file of the process once, at its bias. */
static Dwfl *build_session(struct itrace_symbolizer *s, uint32_t pid)
{
	Dwfl *dwfl = dwfl_begin(&s->callbacks);
	size_t n = image_mapping_count(s->img, pid);
	uint32_t *seen = calloc(n ? n : 1, sizeof(*seen));
	size_t nseen = 0;

	if (!dwfl || !seen) {
		dwfl_end(dwfl);
		free(seen);
		return NULL;
	}
	dwfl_report_begin(dwfl);
	for (size_t i = 0; i < n; i++) {
		struct image_mapping_view v;
		size_t j;

		if (image_mapping_at(s->img, pid, i, &v) < 0 || v.status != 0)
			continue;
		for (j = 0; j < nseen && seen[j] != v.module; j++)
			;
		if (j < nseen)
			continue;
		seen[nseen++] = v.module;
		/* A failure leaves that file unsymbolized, not the others. */
		dwfl_report_elf(dwfl, v.path, v.file, -1, v.bias, true);
	}
	dwfl_report_end(dwfl, NULL, NULL);
	free(seen);
	return dwfl;
}

static Dwfl *session(struct itrace_symbolizer *s, uint32_t pid)
{
	uint64_t gen = image_generation(s->img);
	struct sym_proc *p = NULL;

	for (size_t i = 0; i < s->nprocs; i++)
		if (s->procs[i].pid == pid)
			p = &s->procs[i];
	if (p && p->generation == gen)
		return p->dwfl;
	if (!p) {
		if (push((void **)&s->procs, &s->capprocs, s->nprocs, sizeof(*p)) < 0)
			return NULL;
		p = &s->procs[s->nprocs++];
		p->pid = pid;
		p->dwfl = NULL;
	} else if (p->dwfl) {
		if (push((void **)&s->retired, &s->capretired, s->nretired, sizeof(Dwfl *)) < 0)
			return NULL;
		s->retired[s->nretired++] = p->dwfl;
		p->dwfl = NULL;
	}
	p->dwfl = build_session(s, pid);
	p->generation = gen;
	return p->dwfl;
}

/* in_plt - addr lies in a section of PLT stubs: ".plt" (lazy binding,
 * BFD and gold), ".plt.sec" (IBT), ".plt.got" (GOT entries without lazy
 * binding) or ".iplt" (IFUNCs of static executables). */
static int in_plt(Dwfl_Module *mod, uint64_t addr)
{
	Dwarf_Addr rel = addr, bias;
	Elf_Scn *scn = dwfl_module_address_section(mod, &rel, &bias);
	Elf *elf = dwfl_module_getelf(mod, &bias);
	GElf_Shdr sh;
	size_t shstrndx;
	const char *name;

	if (!scn || !elf || !gelf_getshdr(scn, &sh) || elf_getshdrstrndx(elf, &shstrndx) < 0)
		return 0;
	name = elf_strptr(elf, shstrndx, sh.sh_name);
	return name && (strcmp(name, ".plt") == 0 || strncmp(name, ".plt.", 5) == 0 ||
			strcmp(name, ".iplt") == 0);
}

static void lookup_name(Dwfl_Module *mod, uint64_t addr, struct itrace_symbol *out)
{
	GElf_Off off;
	GElf_Sym sym;
	const char *name = dwfl_module_addrinfo(mod, addr, &off, &sym, NULL, NULL, NULL);

	out->plt = in_plt(mod, addr);
	if (!name)
		return;
	out->name = name;
	out->offset = off;
	out->addr = addr - off;
	out->size = sym.st_size;
}

static void lookup_line(Dwfl_Module *mod, uint64_t addr, struct itrace_symbol *out)
{
	Dwfl_Line *line = dwfl_module_getsrc(mod, addr);
	int lineno = 0;
	const char *file;

	if (!line)
		return;
	file = dwfl_lineinfo(line, NULL, &lineno, NULL, NULL, NULL);
	if (file) {
		out->file = file;
		out->line = lineno;
	}
}

int itrace_symbolizer_lookup(struct itrace_symbolizer *s, uint32_t pid, uint64_t addr,
			     unsigned what, struct itrace_symbol *out)
{
	struct itrace_image_loc loc;
	Dwfl_Module *mod;
	Dwfl *dwfl;
	int rc;

	if (!s || !out)
		return -ITRACE_E_INVAL;
	memset(out, 0, sizeof(*out));
	rc = itrace_image_lookup(s->img, pid, addr, &loc);
	if (rc == -ITRACE_E_NOENT)
		return rc;
	out->module = loc.path;
	if (rc < 0 || loc.file == NULL)
		return rc;
	dwfl = session(s, pid);
	if (!dwfl)
		return -ITRACE_E_NOMEM;
	mod = dwfl_addrmodule(dwfl, addr);
	if (!mod)
		return 0;
	if (what & ITRACE_SYM_NAME)
		lookup_name(mod, addr, out);
	if (what & ITRACE_SYM_LINE)
		lookup_line(mod, addr, out);
	return 0;
}

struct find_ctx {
	const char *name;
	struct itrace_symbol *out;
	int found;
};

static int find_in_module(Dwfl_Module *mod, void **user, const char *modname, Dwarf_Addr start,
			  void *arg)
{
	struct find_ctx *c = arg;
	int n = dwfl_module_getsymtab(mod);

	(void)user;
	(void)start;
	for (int i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		const char *name = dwfl_module_getsym_info(mod, i, &sym, &addr, NULL, NULL, NULL);

		if (!name || sym.st_shndx == SHN_UNDEF || strcmp(name, c->name) != 0)
			continue;
		c->out->name = name;
		c->out->addr = addr;
		c->out->size = sym.st_size;
		c->out->module = modname;
		c->found = 1;
		return DWARF_CB_ABORT;
	}
	return DWARF_CB_OK;
}

int itrace_symbolizer_find(struct itrace_symbolizer *s, uint32_t pid, const char *name,
			   struct itrace_symbol *out)
{
	struct find_ctx c = { name, out, 0 };
	Dwfl *dwfl;

	if (!s || !name || !out)
		return -ITRACE_E_INVAL;
	memset(out, 0, sizeof(*out));
	dwfl = session(s, pid);
	if (!dwfl)
		return -ITRACE_E_NOMEM;
	dwfl_getmodules(dwfl, find_in_module, &c, 0);
	return c.found ? 0 : -ITRACE_E_NOENT;
}

/* ---- One ELF file, before any process exists ------------------------- */

static int vaddr_to_offset(Elf *elf, uint64_t vaddr, uint64_t *off)
{
	size_t n;
	GElf_Phdr ph;

	if (elf_getphdrnum(elf, &n) != 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (vaddr >= ph.p_vaddr && vaddr < ph.p_vaddr + ph.p_memsz) {
			*off = vaddr - ph.p_vaddr + ph.p_offset;
			return 0;
		}
	}
	return -1;
}

/* Search one symbol table section for a defined `name`. */
static int search_symtab(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, const char *name,
			 struct itrace_elf_symbol *out)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t n = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;

	for (size_t i = 1; data && i < n; i++) {
		GElf_Sym sym;
		const char *s;
		int type;

		if (!gelf_getsym(data, (int)i, &sym) || sym.st_shndx == SHN_UNDEF)
			continue;
		s = elf_strptr(elf, sh->sh_link, sym.st_name);
		if (!s || strcmp(s, name) != 0)
			continue;
		type = GELF_ST_TYPE(sym.st_info);
		out->vaddr = sym.st_value;
		out->size = sym.st_size;
		out->is_func = type == STT_FUNC || type == STT_GNU_IFUNC;
		out->offset = 0;
		vaddr_to_offset(elf, sym.st_value, &out->offset);
		return 0;
	}
	return -ITRACE_E_NOENT;
}

static int find_in_elf(Elf *elf, const char *name, struct itrace_elf_symbol *out)
{
	static const Elf64_Word order[] = { SHT_SYMTAB, SHT_DYNSYM };

	for (size_t k = 0; k < 2; k++) {
		Elf_Scn *scn = NULL;

		while ((scn = elf_nextscn(elf, scn)) != NULL) {
			GElf_Shdr sh;

			if (!gelf_getshdr(scn, &sh) || sh.sh_type != order[k])
				continue;
			if (search_symtab(elf, scn, &sh, name, out) == 0)
				return 0;
		}
	}
	return -ITRACE_E_NOENT;
}

int itrace_elf_find_symbol(const char *path, const char *name, struct itrace_elf_symbol *out)
{
	int fd, rc;
	Elf *elf;

	if (!path || !name || !out)
		return -ITRACE_E_INVAL;
	memset(out, 0, sizeof(*out));
	elf_version(EV_CURRENT);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -ITRACE_E_IO;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF)
		rc = -ITRACE_E_ELF;
	else
		rc = find_in_elf(elf, name, out);
	if (elf)
		elf_end(elf);
	close(fd);
	return rc;
}
