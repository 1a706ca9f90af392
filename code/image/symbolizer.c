/*
 * symbolizer.c - symbols and source lines by address (addresses by name:
 * the ELF reader, elf.c).
 *
 * Each file the image resolved is reported once to a libdwfl session of
 * its own, at its link-time addresses; libdwfl then does the symbol-table
 * search, finds separate debug info (by build-id under the debug
 * directory, or .gnu_debuglink) and reads the DWARF line tables.  A lookup
 * asks the image which file holds the address and at what bias, and asks
 * that file's session about (address - bias).  So mappings that come and
 * go (MMAP records, fork, exec) never rebuild a session: each file is
 * opened and indexed once, and a lookup costs the image's binary search
 * plus libdwfl's.  Sessions live until the symbolizer is freed, because
 * the strings handed out point into them.
 */
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <gelf.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "image_int.h"
#include "internal.h"

/* The session of one file (image module id). */
struct sym_file {
	uint32_t module;
	Dwfl *dwfl; /* NULL: libdwfl could not open it */
};

/* A name made for code that no symbol covers (made_name()). */
struct sym_made {
	uint32_t module;
	uint64_t start; /* link-time address */
	char *name;
};

struct itrace_symbolizer {
	struct itrace_image *img;
	char *debuginfo_path; /* libdwfl search list: ":.debug:DIR" */
	Dwfl_Callbacks callbacks;
	struct sym_file *files; /* open addressing on module (0 = empty slot) */
	size_t cap, n;
	struct sym_made *made; /* sorted by (module, start) */
	size_t n_made, cap_made;
};

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
	for (size_t i = 0; i < s->cap; i++)
		if (s->files[i].module)
			dwfl_end(s->files[i].dwfl);
	for (size_t i = 0; i < s->n_made; i++)
		free(s->made[i].name);
	free(s->made);
	free(s->files);
	free(s->debuginfo_path);
	free(s);
}

static struct sym_file *file_slot(struct sym_file *v, size_t cap, uint32_t module)
{
	size_t i = (module * 0x9E3779B9u) & (cap - 1);

	while (v[i].module && v[i].module != module)
		i = (i + 1) & (cap - 1);
	return &v[i];
}

/* grow - keep the table at most half full. */
static int grow(struct itrace_symbolizer *s)
{
	size_t cap = s->cap ? s->cap * 2 : 16;
	struct sym_file *v;

	if ((s->n + 1) * 2 <= s->cap)
		return 0;
	v = calloc(cap, sizeof(*v));
	if (!v)
		return -ITRACE_E_NOMEM;
	for (size_t i = 0; i < s->cap; i++)
		if (s->files[i].module)
			*file_slot(v, cap, s->files[i].module) = s->files[i];
	free(s->files);
	s->files = v;
	s->cap = cap;
	return 0;
}

/*
 * file_session - the session of file `module` (named `name` in the trace,
 * opened as `path`), reported at its link-time addresses.  NULL when
 * libdwfl cannot read it (or out of memory, *rc set).
 */
static Dwfl *file_session(struct itrace_symbolizer *s, uint32_t module, const char *name,
			  const char *path, int *rc)
{
	struct sym_file *f;
	Dwfl *dwfl;

	*rc = 0;
	if (s->cap && (f = file_slot(s->files, s->cap, module))->module)
		return f->dwfl;
	if (grow(s) < 0) {
		*rc = -ITRACE_E_NOMEM;
		return NULL;
	}
	dwfl = dwfl_begin(&s->callbacks);
	if (!dwfl) {
		*rc = -ITRACE_E_NOMEM;
		return NULL;
	}
	dwfl_report_begin(dwfl);
	/* A failure leaves that file unsymbolized, not the others. */
	if (!dwfl_report_elf(dwfl, name, path, -1, 0, true)) {
		dwfl_end(dwfl);
		dwfl = NULL;
	} else {
		dwfl_report_end(dwfl, NULL, NULL);
	}
	f = file_slot(s->files, s->cap, module);
	f->module = module;
	f->dwfl = dwfl;
	s->n++;
	return dwfl;
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

/* The PLT stub a made name is for (elf_plt_entry()); all 0: none. */
struct plt_stub {
	const char *sym; /* "SYM@plt" */
	uint64_t abs;	 /* else, if not 0: "*ABS*+0xABS@plt" */
};

/*
 * made_name - the name of unsymbolized function `start` (link-time) of
 * file `module`, kept until the symbolizer is freed: a PLT stub's as
 * objdump -d names it, else "FILE+0xOFFSET" with FILE the basename of
 * `path` and OFFSET `file_offset`, where the function starts in the file,
 * as perf places unsymbolized code (README.md, "Functions without a
 * symbol").  NULL when out of memory.
 */
static const char *made_name(struct itrace_symbolizer *s, uint32_t module, const char *path,
			     uint64_t start, uint64_t file_offset, const struct plt_stub *plt)
{
	size_t lo = 0, hi = s->n_made;
	const char *base = strrchr(path, '/');
	struct sym_made *m;
	char *name;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		m = &s->made[mid];
		if (m->module == module && m->start == start)
			return m->name;
		if (m->module < module || (m->module == module && m->start < start))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (s->n_made == s->cap_made) {
		size_t cap = s->cap_made ? s->cap_made * 2 : 64;

		m = realloc(s->made, cap * sizeof(*m));
		if (!m)
			return NULL;
		s->made = m;
		s->cap_made = cap;
	}
	if ((plt->sym   ? asprintf(&name, "%s@plt", plt->sym)
	     : plt->abs ? asprintf(&name, "*ABS*+%#llx@plt", (unsigned long long)plt->abs)
			: asprintf(&name, "%s+%#llx", base ? base + 1 : path,
				   (unsigned long long)file_offset)) < 0)
		return NULL;
	memmove(&s->made[lo + 1], &s->made[lo], (s->n_made - lo) * sizeof(*m));
	s->made[lo] = (struct sym_made){module, start, name};
	s->n_made++;
	return name;
}

/* covered - does libdw's CFI describe link-time address rel?  *hi: where
 * its row of the table ends. */
static int covered(Dwarf_CFI *cfi, Dwarf_Addr bias, uint64_t rel, uint64_t *hi)
{
	Dwarf_Frame *frame;
	Dwarf_Addr lo, end;
	int ok;

	if (dwarf_cfi_addrframe(cfi, rel - bias, &frame) != 0)
		return 0;
	ok = dwarf_frame_info(frame, &lo, &end, NULL) >= 0 && end > rel - bias;
	free(frame);
	*hi = end + bias;
	return ok;
}

/* section_range - [*lo, *hi) of the code section holding link-time
 * address rel; 0 if rel is in none. */
static int section_range(Dwfl_Module *mod, uint64_t rel, uint64_t *lo, uint64_t *hi)
{
	Dwarf_Addr in = rel, bias;
	Elf_Scn *scn = dwfl_module_address_section(mod, &in, &bias);
	GElf_Shdr sh;

	if (!scn || !gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_EXECINSTR))
		return 0;
	*lo = sh.sh_addr + bias;
	*hi = *lo + sh.sh_size;
	return 1;
}

/* fde_end - where the unwind entry that starts at `start` ends (at most
 * `limit`, the next entry's start): the end of its last row, its rows
 * being contiguous.  `start` itself if libdw does not describe it. */
static uint64_t fde_end(Dwarf_CFI *cfi, Dwarf_Addr bias, uint64_t start, uint64_t limit)
{
	uint64_t end, at;

	if (!covered(cfi, bias, start, &end))
		return start;
	while (end < limit && covered(cfi, bias, end, &at))
		end = at;
	return end < limit ? end : limit;
}

/*
 * code_range - the function-like range [*start, *start + *size) that holds
 * link-time address rel, from the unwind table (.eh_frame, which a
 * stripped file keeps for unwinders): the entry (FDE) that covers rel;
 * else the stretch of rel's code section between the entries around it
 * (code no entry describes: crtstuff's, .init), the whole section if it
 * has none.  Entry starts come from .eh_frame_hdr's table (elf.c), ends
 * from libdw.  0 if rel lies in no code section.
 */
static int code_range(Dwfl_Module *mod, Elf *elf, uint64_t rel, uint64_t *start, uint64_t *size)
{
	Dwarf_Addr bias;
	Dwarf_CFI *cfi = dwfl_module_eh_cfi(mod, &bias);
	uint64_t lo, hi, fde, next;

	if (!section_range(mod, rel, &lo, &hi))
		return 0;
	if (cfi && elf_fde_start(elf, rel - bias, &fde, &next)) {
		if (next != UINT64_MAX && next + bias < hi)
			hi = next + bias;
		if (fde != UINT64_MAX) {
			uint64_t end = fde_end(cfi, bias, fde + bias, hi);

			if (rel < end && fde + bias >= lo) { /* covered by it */
				lo = fde + bias;
				hi = end;
			} else if (end > lo) {
				lo = end;
			}
		}
	}
	*start = lo;
	*size = hi - lo;
	return 1;
}

/*
 * name_unsymbolized - code no symbol covers is a function all the same,
 * named and bounded from what the file has: its PLT stub (elf.c), else its
 * unwind table entry.  Left unnamed (NULL) when neither covers it.
 */
static void name_unsymbolized(struct itrace_symbolizer *s, const struct itrace_image_loc *loc,
			      Dwfl_Module *mod, uint64_t rel, struct itrace_symbol *out)
{
	Dwarf_Addr elf_bias;
	Elf *elf = dwfl_module_getelf(mod, &elf_bias);
	struct plt_stub plt = {0};
	uint64_t start, size = 16;
	int stub;

	if (!elf)
		return;
	stub = elf_plt_entry(elf, rel - elf_bias, &start, &plt.sym, &plt.abs);
	if (!stub) {
		if (!code_range(mod, elf, rel, &start, &size))
			return;
	} else {
		start += elf_bias;
	}
	/* (a function lies in one segment: the offsets differ as the addresses) */
	out->name = made_name(s, loc->module, loc->path, start, loc->offset - (rel - start), &plt);
	if (!out->name)
		return;
	out->addr = start + loc->bias;
	out->offset = rel - start;
	out->size = size;
	out->unwind = !stub;
}

static void lookup_name(struct itrace_symbolizer *s, const struct itrace_image_loc *loc,
			Dwfl_Module *mod, uint64_t addr, struct itrace_symbol *out)
{
	uint64_t bias = loc->bias;
	GElf_Off off;
	GElf_Sym sym;
	const char *name = dwfl_module_addrinfo(mod, addr - bias, &off, &sym, NULL, NULL, NULL);

	out->plt = in_plt(mod, addr - bias);
	if (!name) {
		name_unsymbolized(s, loc, mod, addr - bias, out);
		return;
	}
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
	dwfl = file_session(s, loc.module, loc.path, loc.file, &rc);
	if (!dwfl)
		return rc;
	mod = dwfl_addrmodule(dwfl, addr - loc.bias);
	if (!mod)
		return 0;
	if (what & ITRACE_SYM_NAME)
		lookup_name(s, &loc, mod, addr, out);
	if (what & ITRACE_SYM_LINE)
		lookup_line(mod, addr - loc.bias, out);
	return 0;
}

/* find_in_module - `name` in mod's symbol table (link-time address). */
static int find_in_module(Dwfl_Module *mod, const char *name, uint64_t bias,
			  struct itrace_symbol *out)
{
	int n = dwfl_module_getsymtab(mod);

	for (int i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		const char *sname = dwfl_module_getsym_info(mod, i, &sym, &addr, NULL, NULL, NULL);

		if (!sname || sym.st_shndx == SHN_UNDEF || strcmp(sname, name) != 0)
			continue;
		out->name = sname;
		out->addr = addr + bias;
		out->size = sym.st_size;
		return 1;
	}
	return 0;
}

/* first_module - dwfl_getmodules callback: the (only) module of a session. */
static int first_module(Dwfl_Module *mod, void **user, const char *name, Dwarf_Addr start,
			void *arg)
{
	(void)user;
	(void)name;
	(void)start;
	*(Dwfl_Module **)arg = mod;
	return DWARF_CB_ABORT;
}

int itrace_symbolizer_find(struct itrace_symbolizer *s, uint32_t pid, const char *name,
			   struct itrace_symbol *out)
{
	size_t n;
	uint32_t last = 0;

	if (!s || !name || !out)
		return -ITRACE_E_INVAL;
	memset(out, 0, sizeof(*out));
	n = image_mapping_count(s->img, pid);
	for (size_t i = 0; i < n; i++) {
		struct image_mapping_view v;
		Dwfl_Module *mod = NULL;
		Dwfl *dwfl;
		int rc;

		/* Several mappings of one file follow each other: search it once. */
		if (image_mapping_at(s->img, pid, i, &v) < 0 || v.status != 0 || v.module == last)
			continue;
		last = v.module;
		dwfl = file_session(s, v.module, v.path, v.file, &rc);
		if (!dwfl) {
			if (rc < 0)
				return rc;
			continue;
		}
		dwfl_getmodules(dwfl, first_module, &mod, 0);
		if (mod && find_in_module(mod, name, v.bias, out)) {
			out->module = v.path;
			return 0;
		}
	}
	return -ITRACE_E_NOENT;
}

/*
 * Every function of the module that covers `addr`, for coverage reports
 * that must list what never ran.  A function counts when its symbol is a
 * defined STT_FUNC with a size and the DWARF line table (dwfl_module_getsrc)
 * knows its first address: code without debug info is not listed.
 */
int itrace_symbolizer_functions(struct itrace_symbolizer *s, uint32_t pid, uint64_t addr,
				itrace_symbolizer_function_fn fn, void *arg)
{
	struct itrace_image_loc loc;
	Dwfl_Module *mod = NULL;
	Dwarf_Addr dwarf_bias;
	Dwfl *dwfl;
	int n, rc;

	if (!s || !fn)
		return -ITRACE_E_INVAL;
	/* A file that cannot be used (now) has nothing to list: as unmapped. */
	rc = itrace_image_lookup(s->img, pid, addr, &loc);
	if (rc == -ITRACE_E_NOMEM || rc == -ITRACE_E_INVAL)
		return rc;
	if (rc < 0 || !loc.file)
		return -ITRACE_E_NOENT;
	dwfl = file_session(s, loc.module, loc.path, loc.file, &rc);
	if (!dwfl)
		return rc < 0 ? rc : -ITRACE_E_NOENT;
	dwfl_getmodules(dwfl, first_module, &mod, 0);
	if (!mod)
		return -ITRACE_E_NOENT;
	if (!dwfl_module_getdwarf(mod, &dwarf_bias))
		return 0; /* no debug info: nothing to list */
	/* The session holds the file at its link-time addresses: the
	 * process sees them `loc.bias` higher. */
	n = dwfl_module_getsymtab(mod);
	for (int i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr start;
		const char *name = dwfl_module_getsym_info(mod, i, &sym, &start, NULL, NULL, NULL);
		int type = GELF_ST_TYPE(sym.st_info);

		if (!name || sym.st_shndx == SHN_UNDEF || !sym.st_size ||
		    (type != STT_FUNC && type != STT_GNU_IFUNC))
			continue;
		if (!dwfl_module_getsrc(mod, start))
			continue;
		if ((rc = fn(arg, start + loc.bias, sym.st_size, name)) < 0)
			return rc;
	}
	return 0;
}
