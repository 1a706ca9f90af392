/* qemu_space.c - the guest address-space model of the qemu backend (qemu_space.h). */
#include "qemu_space.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "gdb_elf.h"
#include "maps.h"
#include "symbols.h"

#define PAGE 4096ULL

void qs_init(struct qemu_space *s, struct emit_sink *out, uint32_t pid)
{
	memset(s, 0, sizeof(*s));
	s->out = out;
	s->pid = pid;
}

void qs_free(struct qemu_space *s)
{
	for (size_t i = 0; i < s->n_paths; i++)
		free(s->paths[i].name);
	free(s->paths);
	free(s->map);
	memset(s, 0, sizeof(*s));
}

/* The index of `name` in the path table, added if new; 0 for anonymous. */
static int intern(struct qemu_space *s, const char *name, uint32_t *out)
{
	if (s->n_paths == 0) {
		s->paths = calloc(16, sizeof(*s->paths));
		if (!s->paths || !(s->paths[0].name = strdup("")))
			return -ITRACE_E_NOMEM;
		s->cap_paths = 16;
		s->n_paths = 1;
	}
	*out = 0;
	if (!name || !*name)
		return 0;
	for (size_t i = 1; i < s->n_paths; i++)
		if (strcmp(s->paths[i].name, name) == 0) {
			*out = (uint32_t)i;
			return 0;
		}
	if (s->n_paths == s->cap_paths) {
		struct qs_path *p = realloc(s->paths, 2 * s->cap_paths * sizeof(*p));

		if (!p)
			return -ITRACE_E_NOMEM;
		s->paths = p;
		s->cap_paths *= 2;
	}
	s->paths[s->n_paths] = (struct qs_path){.name = strdup(name), .buildid_len = -1};
	if (!s->paths[s->n_paths].name)
		return -ITRACE_E_NOMEM;
	*out = (uint32_t)s->n_paths++;
	return 0;
}

const char *qs_path_name(const struct qemu_space *s, const struct qs_map *m)
{
	return m->path < s->n_paths ? s->paths[m->path].name : "";
}

/*
 * A file, as opposed to anonymous memory or a pseudo-name: "[heap]", or
 * "//anon", perf's name for anonymous memory that holds code.
 */
static int is_file(const struct qemu_space *s, const struct qs_map *m)
{
	const char *name = s->paths[m->path].name;

	return m->path != 0 && name[0] == '/' && name[1] != '/';
}

/* MMAP record of a named mapping; build-ids are read once per file. */
static int write_mmap(struct qemu_space *s, const struct qs_map *m)
{
	struct qs_path *p = &s->paths[m->path];
	struct itrace_mmap rec = {.pid = s->pid, .start = m->start, .len = m->end - m->start,
				  .pgoff = m->pgoff, .prot = m->prot};

	if (m->path == 0)
		return 0;
	if (p->buildid_len < 0)
		p->buildid_len = is_file(s, m) ? maps_buildid(p->name, p->buildid, sizeof(p->buildid))
					       : 0;
	rec.path = p->name;
	rec.path_len = strlen(p->name);
	memcpy(rec.buildid, p->buildid, (size_t)p->buildid_len);
	rec.buildid_len = (uint8_t)p->buildid_len;
	return emit_mmap(s->out, &rec);
}

static int grow(struct qemu_space *s, size_t need)
{
	if (s->n + need <= s->cap)
		return 0;
	size_t cap = s->cap ? 2 * s->cap : 64;
	while (cap < s->n + need)
		cap *= 2;
	struct qs_map *v = realloc(s->map, cap * sizeof(*v));

	if (!v)
		return -ITRACE_E_NOMEM;
	s->map = v;
	s->cap = cap;
	return 0;
}

/* Index of the first mapping that ends after `addr`. */
static size_t first_after(const struct qemu_space *s, uint64_t addr)
{
	size_t lo = 0, hi = s->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (s->map[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * Cut [start, end) out of the model: mappings inside it go, mappings
 * across its edges are trimmed (a file mapping's pgoff follows its start).
 * Returns the index where a mapping of [start, end) belongs.
 */
static int cut(struct qemu_space *s, uint64_t start, uint64_t end, size_t *at)
{
	size_t i = first_after(s, start);

	*at = 0;
	if (!s->map)
		return 0; /* nothing mapped yet */

	if (i < s->n && s->map[i].start < start && s->map[i].end > end) {
		/* inside one mapping: split it in two around the hole */
		if (grow(s, 1) < 0)
			return -ITRACE_E_NOMEM;
		memmove(&s->map[i + 1], &s->map[i], (s->n - i) * sizeof(s->map[0]));
		s->n++;
		s->map[i].end = start;
		s->map[i + 1].pgoff += end - s->map[i + 1].start;
		s->map[i + 1].start = end;
		*at = i + 1;
		return 0;
	}
	if (i < s->n && s->map[i].start < start) {
		s->map[i].end = start;
		i++;
	}
	size_t j = i;
	while (j < s->n && s->map[j].end <= end)
		j++;
	if (j < s->n && s->map[j].start < end) {
		s->map[j].pgoff += end - s->map[j].start;
		s->map[j].start = end;
	}
	memmove(&s->map[i], &s->map[j], (s->n - j) * sizeof(s->map[0]));
	s->n -= j - i;
	*at = i;
	return 0;
}

/* Put `m` into the model (its range emptied first). */
static int insert(struct qemu_space *s, const struct qs_map *m)
{
	size_t at;
	int rc = cut(s, m->start, m->end, &at);

	if (rc < 0 || (rc = grow(s, 1)) < 0)
		return rc;
	memmove(&s->map[at + 1], &s->map[at], (s->n - at) * sizeof(s->map[0]));
	s->map[at] = *m;
	s->n++;
	return 0;
}

int qs_mmap(struct qemu_space *s, uint64_t start, uint64_t len, uint64_t pgoff, uint8_t prot,
	    const char *path)
{
	struct qs_map m = {start, start + ((len + PAGE - 1) & ~(PAGE - 1)), pgoff, 0, prot};
	int rc = intern(s, path, &m.path);

	if (rc < 0 || len == 0 || (rc = insert(s, &m)) < 0)
		return rc;
	return write_mmap(s, &m);
}

int qs_munmap(struct qemu_space *s, uint64_t start, uint64_t len)
{
	size_t at;

	return len ? cut(s, start, start + ((len + PAGE - 1) & ~(PAGE - 1)), &at) : 0;
}

int qs_mprotect(struct qemu_space *s, uint64_t start, uint64_t len, uint8_t prot)
{
	uint64_t end = start + ((len + PAGE - 1) & ~(PAGE - 1));
	size_t i = first_after(s, start);
	int rc = 0;

	/* Collect the pieces first: re-inserting changes the array. */
	while (rc >= 0 && i < s->n && s->map[i].start < end) {
		struct qs_map m = s->map[i];

		if (m.start < start) {
			m.pgoff += start - m.start;
			m.start = start;
		}
		if (m.end > end)
			m.end = end;
		if (m.prot == prot) {
			i++;
			continue;
		}
		m.prot = prot;
		rc = insert(s, &m);
		if (rc >= 0 && m.path != 0)
			rc = write_mmap(s, &m);
		i = first_after(s, m.end);
	}
	return rc;
}

int qs_mremap(struct qemu_space *s, uint64_t old, uint64_t old_len, uint64_t new_addr,
	      uint64_t new_len)
{
	size_t i = first_after(s, old);
	struct qs_map m = {0};
	int rc;

	if (i < s->n && s->map[i].start <= old) {
		m = s->map[i];
		m.pgoff += old - m.start;
	}
	rc = qs_munmap(s, old, old_len);
	if (rc < 0)
		return rc;
	m.start = new_addr;
	m.end = new_addr + ((new_len + PAGE - 1) & ~(PAGE - 1));
	if (m.end == m.start || (rc = insert(s, &m)) < 0)
		return rc;
	return write_mmap(s, &m);
}

int qs_brk(struct qemu_space *s, uint64_t end)
{
	struct qs_map m = {0};
	int rc;

	if (s->brk_start == 0) {
		s->brk_start = s->brk_end = end; /* the first brk(0): the heap is empty */
		return 0;
	}
	if (end < s->brk_start)
		return 0;
	if (((end + PAGE - 1) & ~(PAGE - 1)) == ((s->brk_end + PAGE - 1) & ~(PAGE - 1))) {
		s->brk_end = end; /* the same pages */
		return 0;
	}
	if (end < s->brk_end) {
		rc = qs_munmap(s, (end + PAGE - 1) & ~(PAGE - 1), s->brk_end - end);
		s->brk_end = end;
		return rc;
	}
	s->brk_end = end;
	m.start = s->brk_start & ~(PAGE - 1);
	m.end = (end + PAGE - 1) & ~(PAGE - 1);
	m.prot = PROT_READ | PROT_WRITE;
	rc = intern(s, "[heap]", &m.path);
	if (rc < 0 || (rc = insert(s, &m)) < 0)
		return rc;
	return write_mmap(s, &m);
}

int qs_load_image(struct qemu_space *s, const char *path, const struct qemu_elf *e, uint64_t bias,
		  int is_exe)
{
	uint32_t id;
	int rc = intern(s, path, &id);

	if (rc < 0)
		return rc;
	if (is_exe)
		s->exe_path = id;
	for (size_t i = 0; i < e->n_load; i++) {
		const struct qemu_elf_load *l = &e->load[i];
		uint64_t at = bias + l->vaddr, start = at & ~(PAGE - 1);
		struct qs_map m = {start, (at + l->memsz + PAGE - 1) & ~(PAGE - 1),
				   l->offset - (at - start), id, l->prot};

		if (l->memsz == 0)
			continue;
		rc = insert(s, &m);
		if (rc < 0 || (rc = write_mmap(s, &m)) < 0)
			return rc;
	}
	return 0;
}

int qs_anon_code(struct qemu_space *s, uint64_t start, uint64_t end)
{
	size_t i;

	start &= ~(PAGE - 1);
	end = (end + PAGE - 1) & ~(PAGE - 1);
	i = first_after(s, start);
	/* already described: a mapping of its own covers it */
	if (i < s->n && s->map[i].start <= start && s->map[i].end >= end && s->map[i].path != 0)
		return 0;
	return qs_mmap(s, start, end - start, 0, PROT_READ | PROT_EXEC, "//anon");
}

const struct qs_map *qs_file_at(const struct qemu_space *s, uint64_t addr)
{
	size_t i = first_after(s, addr);

	if (i < s->n && s->map[i].start <= addr && is_file(s, &s->map[i]))
		return &s->map[i];
	return NULL;
}

/* The run-time address of file offset `off` of file `path`, if mapped. */
static int place_offset(const struct qemu_space *s, uint32_t path, uint64_t off, uint64_t *addr)
{
	for (size_t i = 0; i < s->n; i++) {
		const struct qs_map *m = &s->map[i];

		if (m->path == path && off >= m->pgoff && off - m->pgoff < m->end - m->start) {
			*addr = m->start + (off - m->pgoff);
			return 0;
		}
	}
	return -1;
}

/* Function `name` in file `path` (index id), if the file defines and maps it. */
static int function_in(const struct qemu_space *s, uint32_t id, const char *name, uint64_t addr[2])
{
	const char *path = s->paths[id].name;
	uint64_t off, link[2];
	int n;

	if (symbols_file_offset(path, name, &off) != 0 || place_offset(s, id, off, &addr[0]) != 0)
		return 0;
	/* ppc64 ELFv2: calls from the same TOC enter after the TOC set-up. */
	n = gdb_elf_function(path, name, link);
	if (n == 2) {
		addr[1] = addr[0] + (link[1] - link[0]);
		return 2;
	}
	return 1;
}

int qs_find_function(const struct qemu_space *s, const char *name, uint64_t addr[2])
{
	int n = s->exe_path ? function_in(s, s->exe_path, name, addr) : 0;

	for (size_t i = 0; n == 0 && i < s->n; i++) {
		const struct qs_map *m = &s->map[i];

		/* each file once: at its first mapping */
		if (is_file(s, m) && m->path != s->exe_path && (i == 0 || s->map[i - 1].path != m->path))
			n = function_in(s, m->path, name, addr);
	}
	return n;
}

static int module_matches(const struct qemu_space *s, const struct qs_map *m, const char *module)
{
	const char *path = s->paths[m->path].name, *base = strrchr(path, '/');

	if (strcmp(module, "main") == 0)
		return m->path == s->exe_path;
	if (strchr(module, '/'))
		return strcmp(path, module) == 0;
	return base && strcmp(base + 1, module) == 0;
}

int qs_find_module(const struct qemu_space *s, const char *module, uint64_t *lo, uint64_t *hi)
{
	*lo = UINT64_MAX;
	*hi = 0;
	for (size_t i = 0; i < s->n; i++) {
		const struct qs_map *m = &s->map[i];

		if (!is_file(s, m) || !(m->prot & PROT_EXEC) || !module_matches(s, m, module))
			continue;
		if (m->start < *lo)
			*lo = m->start;
		if (m->end > *hi)
			*hi = m->end;
	}
	return *hi ? 0 : -1;
}
