/*
 * image.c - which code was at an address: MMAP records -> ELF files, CODE
 * records -> copied bytes.
 *
 * Files are resolved lazily (first lookup that lands in them) and stay open
 * for the life of the image, so the code pointers handed out stay valid and
 * the filler's block cache can key on (module, offset).  A file is read
 * through libelf (ELF_C_READ_MMAP): elf_rawfile() gives the bytes at a file
 * offset, dwelf_elf_gnu_build_id() the build-id to compare with the trace.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <elfutils/libdwelf.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "image_int.h"
#include "internal.h"
#include "itrace_format.h"

#define DEFAULT_DEBUG_DIR "/usr/lib/debug"

/* One file as named by the trace, with the build-id the trace expects. */
struct image_file {
	char *path;
	uint8_t buildid[ITRACE_BUILDID_MAX];
	uint8_t buildid_len;
	int status;	   /* 1 = not tried yet, 0 = loaded, < 0 = error */
	char *opened;	   /* file actually used */
	int fd;
	Elf *elf;
	const uint8_t *data; /* elf_rawfile() */
	size_t size;
	uint32_t module;
};

struct image_map {
	uint64_t start, end, pgoff;
	int file; /* index in img->files, -1 for mappings without a file */
	char *path; /* only when file < 0 (e.g. "[vdso]") */
};

struct image_code {
	uint64_t start, end;
	uint8_t *bytes;
	uint32_t module;
};

struct image_proc {
	uint32_t pid;
	struct image_map *maps; /* sorted by start, non-overlapping */
	size_t nmaps, capmaps;
	struct image_code *codes; /* in arrival order; newest wins */
	size_t ncodes, capcodes;
};

struct itrace_image {
	char *sysroot;
	char *debug_dir;
	struct image_file *files;
	size_t nfiles, capfiles;
	struct image_proc *procs;
	size_t nprocs, capprocs;
	uint32_t next_module;
	uint64_t generation;
	uint32_t last_mmap_pid; /* owner of CODE records that name no process */
};

static pthread_once_t elf_once = PTHREAD_ONCE_INIT;

static void elf_init(void)
{
	elf_version(EV_CURRENT);
}

void itrace_image_options_init(struct itrace_image_options *o)
{
	memset(o, 0, sizeof(*o));
	o->size = sizeof(*o);
}

int itrace_image_alloc(const struct itrace_image_options *o, struct itrace_image **ip)
{
	struct itrace_image *img;

	if (!o || !ip)
		return -ITRACE_E_INVAL;
	*ip = NULL;
	pthread_once(&elf_once, elf_init);
	img = calloc(1, sizeof(*img));
	if (!img)
		return -ITRACE_E_NOMEM;
	img->sysroot = o->sysroot && *o->sysroot ? strdup(o->sysroot) : NULL;
	img->debug_dir = strdup(o->debug_dir && *o->debug_dir ? o->debug_dir : DEFAULT_DEBUG_DIR);
	if ((o->sysroot && *o->sysroot && !img->sysroot) || !img->debug_dir) {
		itrace_image_free(img);
		return -ITRACE_E_NOMEM;
	}
	img->next_module = 1;
	*ip = img;
	return 0;
}

static void file_close(struct image_file *f)
{
	if (f->elf)
		elf_end(f->elf);
	if (f->fd >= 0)
		close(f->fd);
	f->elf = NULL;
	f->fd = -1;
}

static void proc_free(struct image_proc *p)
{
	for (size_t i = 0; i < p->nmaps; i++)
		free(p->maps[i].path);
	for (size_t i = 0; i < p->ncodes; i++)
		free(p->codes[i].bytes);
	free(p->maps);
	free(p->codes);
}

void itrace_image_free(struct itrace_image *img)
{
	if (!img)
		return;
	for (size_t i = 0; i < img->nfiles; i++) {
		file_close(&img->files[i]);
		free(img->files[i].path);
		free(img->files[i].opened);
	}
	for (size_t i = 0; i < img->nprocs; i++)
		proc_free(&img->procs[i]);
	free(img->files);
	free(img->procs);
	free(img->sysroot);
	free(img->debug_dir);
	free(img);
}

static struct image_proc *find_proc(struct itrace_image *img, uint32_t pid)
{
	for (size_t i = 0; i < img->nprocs; i++)
		if (img->procs[i].pid == pid)
			return &img->procs[i];
	return NULL;
}

static struct image_proc *get_proc(struct itrace_image *img, uint32_t pid)
{
	struct image_proc *p = find_proc(img, pid);

	if (p)
		return p;
	if (itrace_reserve((void **)&img->procs, &img->capprocs, img->nprocs + 1, sizeof(*p)) < 0)
		return NULL;
	p = &img->procs[img->nprocs++];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	return p;
}

/* Mappings without a file behind them: anonymous memory, [vdso], [stack]. */
static int path_has_file(const char *path, size_t len)
{
	return len > 0 && path[0] != '[' && !(len >= 6 && memcmp(path, "//anon", 6) == 0);
}

/* Index of the file entry for (path, build-id), created if new. */
static int get_file(struct itrace_image *img, const struct itrace_mmap *m)
{
	struct image_file *f;

	for (size_t i = 0; i < img->nfiles; i++) {
		f = &img->files[i];
		if (strlen(f->path) == m->path_len && memcmp(f->path, m->path, m->path_len) == 0 &&
		    f->buildid_len == m->buildid_len &&
		    memcmp(f->buildid, m->buildid, m->buildid_len) == 0)
			return (int)i;
	}
	if (itrace_reserve((void **)&img->files, &img->capfiles, img->nfiles + 1, sizeof(*f)) < 0)
		return -ITRACE_E_NOMEM;
	f = &img->files[img->nfiles];
	memset(f, 0, sizeof(*f));
	f->path = strndup(m->path, m->path_len);
	if (!f->path)
		return -ITRACE_E_NOMEM;
	f->buildid_len = m->buildid_len > ITRACE_BUILDID_MAX ? ITRACE_BUILDID_MAX : m->buildid_len;
	memcpy(f->buildid, m->buildid, f->buildid_len);
	f->status = 1;
	f->fd = -1;
	f->module = img->next_module++;
	return (int)img->nfiles++;
}

/* Remove [start, end) from the process's mappings, splitting as needed. */
static int punch_hole(struct image_proc *p, uint64_t start, uint64_t end)
{
	for (size_t i = 0; i < p->nmaps; i++) {
		struct image_map *m = &p->maps[i];

		if (m->end <= start || m->start >= end)
			continue;
		if (m->start < start && m->end > end) {
			/* The new mapping lands inside m: keep both sides. */
			struct image_map right = *m;

			if (itrace_reserve((void **)&p->maps, &p->capmaps, p->nmaps + 1, sizeof(*m)) < 0)
				return -ITRACE_E_NOMEM;
			m = &p->maps[i];
			right.pgoff += end - m->start;
			right.start = end;
			right.path = m->path ? strdup(m->path) : NULL;
			if (m->path && !right.path)
				return -ITRACE_E_NOMEM;
			m->end = start;
			p->maps[p->nmaps++] = right;
		} else if (m->start < start) {
			m->end = start;
		} else if (m->end > end) {
			m->pgoff += end - m->start;
			m->start = end;
		} else {
			free(m->path);
			p->maps[i--] = p->maps[--p->nmaps];
		}
	}
	return 0;
}

static int map_cmp(const void *a, const void *b)
{
	const struct image_map *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

int itrace_image_add_mmap(struct itrace_image *img, const struct itrace_mmap *mm)
{
	struct image_proc *p;
	struct image_map m = { 0 };
	int rc;

	if (!img || !mm || mm->len == 0 || mm->start + mm->len < mm->start)
		return -ITRACE_E_INVAL;
	p = get_proc(img, mm->pid);
	if (!p)
		return -ITRACE_E_NOMEM;
	m.start = mm->start;
	m.end = mm->start + mm->len;
	m.pgoff = mm->pgoff;
	m.file = -1;
	if (path_has_file(mm->path, mm->path_len)) {
		rc = get_file(img, mm);
		if (rc < 0)
			return rc;
		m.file = rc;
	} else {
		m.path = strndup(mm->path ? mm->path : "", mm->path_len);
		if (!m.path)
			return -ITRACE_E_NOMEM;
	}
	rc = punch_hole(p, m.start, m.end);
	if (rc == 0)
		rc = itrace_reserve((void **)&p->maps, &p->capmaps, p->nmaps + 1, sizeof(m));
	if (rc < 0) {
		free(m.path);
		return rc;
	}
	p->maps[p->nmaps++] = m;
	qsort(p->maps, p->nmaps, sizeof(m), map_cmp);
	img->last_mmap_pid = mm->pid;
	img->generation++;
	return 0;
}

int itrace_image_add_code(struct itrace_image *img, uint32_t pid, const struct itrace_code *c)
{
	struct image_proc *p;
	struct image_code *k;

	if (!img || !c || !c->bytes || c->len == 0 || c->addr + c->len < c->addr)
		return -ITRACE_E_INVAL;
	p = get_proc(img, pid);
	if (!p || itrace_reserve((void **)&p->codes, &p->capcodes, p->ncodes + 1, sizeof(*k)) < 0)
		return -ITRACE_E_NOMEM;
	k = &p->codes[p->ncodes];
	k->bytes = malloc(c->len);
	if (!k->bytes)
		return -ITRACE_E_NOMEM;
	memcpy(k->bytes, c->bytes, c->len);
	k->start = c->addr;
	k->end = c->addr + c->len;
	k->module = img->next_module++;
	p->ncodes++;
	img->generation++;
	return 0;
}

static int copy_proc(struct itrace_image *img, uint32_t parent, uint32_t child)
{
	struct image_proc *src, *dst;
	size_t pi;

	if (!find_proc(img, parent) || parent == child)
		return 0;
	dst = get_proc(img, child); /* may move img->procs: look src up after */
	if (!dst)
		return -ITRACE_E_NOMEM;
	src = find_proc(img, parent);
	pi = (size_t)(dst - img->procs);
	for (size_t i = 0; i < src->nmaps; i++) {
		struct image_map m = src->maps[i];

		if (m.path && !(m.path = strdup(m.path)))
			return -ITRACE_E_NOMEM;
		if (punch_hole(&img->procs[pi], m.start, m.end) < 0 ||
		    itrace_reserve((void **)&dst->maps, &dst->capmaps, dst->nmaps + 1, sizeof(m)) < 0) {
			free(m.path);
			return -ITRACE_E_NOMEM;
		}
		dst->maps[dst->nmaps++] = m;
	}
	qsort(dst->maps, dst->nmaps, sizeof(struct image_map), map_cmp);
	for (size_t i = 0; i < src->ncodes; i++) {
		struct itrace_code c = { src->codes[i].start, src->codes[i].bytes,
					 src->codes[i].end - src->codes[i].start };
		int rc = itrace_image_add_code(img, child, &c);

		if (rc < 0)
			return rc;
		src = find_proc(img, parent);
	}
	img->generation++;
	return 0;
}

static void forget_proc(struct itrace_image *img, uint32_t pid)
{
	struct image_proc *p = find_proc(img, pid);

	if (!p)
		return;
	proc_free(p);
	*p = img->procs[--img->nprocs];
	img->generation++;
}

int itrace_image_apply(struct itrace_image *img, const struct itrace_record *rec)
{
	int rc;

	if (!img || !rec)
		return -ITRACE_E_INVAL;
	switch (rec->type) {
	case ITRACE_REC_MMAP:
		rc = itrace_image_add_mmap(img, &rec->u.mmap);
		break;
	case ITRACE_REC_CODE:
		/* Before the first THREAD record a CODE record has no process:
		 * it belongs with the MMAP records it follows. */
		rc = itrace_image_add_code(img, rec->pid ? rec->pid : img->last_mmap_pid, &rec->u.code);
		break;
	case ITRACE_REC_PROCESS:
		if (rec->u.process.event == ITRACE_PROCESS_FORK)
			rc = copy_proc(img, rec->u.process.pid, (uint32_t)rec->u.process.other);
		else if (rec->u.process.event == ITRACE_PROCESS_EXEC)
			forget_proc(img, rec->u.process.pid), rc = 0;
		else
			return 0;
		break;
	default:
		return 0;
	}
	return rc < 0 ? rc : 1;
}

/* ---- Resolving files ------------------------------------------------- */

/*
 * Open `name` through libelf and compare its build-id with the expected
 * one.  Returns 0 and fills f, or a negative code (f untouched).
 */
static int try_open(struct image_file *f, const char *name)
{
	const void *id;
	ssize_t idlen;
	size_t size;
	char *raw;
	int fd = open(name, O_RDONLY | O_CLOEXEC);
	Elf *elf;

	if (fd < 0)
		return -ITRACE_E_IO;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF || !(raw = elf_rawfile(elf, &size))) {
		if (elf)
			elf_end(elf);
		close(fd);
		return -ITRACE_E_ELF;
	}
	if (f->buildid_len) {
		idlen = dwelf_elf_gnu_build_id(elf, &id);
		if (idlen != f->buildid_len || memcmp(id, f->buildid, f->buildid_len) != 0) {
			elf_end(elf);
			close(fd);
			return -ITRACE_E_BUILDID;
		}
	}
	f->opened = strdup(name);
	if (!f->opened) {
		elf_end(elf);
		close(fd);
		return -ITRACE_E_NOMEM;
	}
	f->fd = fd;
	f->elf = elf;
	f->data = (const uint8_t *)raw;
	f->size = size;
	return 0;
}

/* The more telling of two failures: a mismatch beats a missing file. */
static int worse(int a, int b)
{
	if (a == -ITRACE_E_BUILDID || b == -ITRACE_E_BUILDID)
		return -ITRACE_E_BUILDID;
	if (a == -ITRACE_E_ELF || b == -ITRACE_E_ELF)
		return -ITRACE_E_ELF;
	return a ? a : b;
}

/*
 * Candidates: sysroot + path (or path), then DEBUG/.build-id/xx/rest.  The
 * kernel names a file replaced after it was mapped "PATH (deleted)": the
 * file now at PATH is tried (the build-id check refuses a different one).
 */
static int resolve_file(struct itrace_image *img, struct image_file *f)
{
	static const char deleted[] = " (deleted)";
	char name[ITRACE_PATH_MAX + 512];
	size_t len = strlen(f->path), dl = sizeof(deleted) - 1;
	int rc, best = 0;

	if (len > dl && strcmp(f->path + len - dl, deleted) == 0)
		len -= dl;
	snprintf(name, sizeof(name), "%s%.*s", img->sysroot ? img->sysroot : "", (int)len, f->path);
	rc = try_open(f, name);
	if (rc == 0 || rc == -ITRACE_E_NOMEM)
		return rc;
	best = rc;
	if (f->buildid_len) {
		int n = snprintf(name, sizeof(name), "%s/.build-id/%02x/", img->debug_dir, f->buildid[0]);

		for (unsigned i = 1; i < f->buildid_len && n < (int)sizeof(name) - 3; i++)
			n += snprintf(name + n, sizeof(name) - n, "%02x", f->buildid[i]);
		rc = try_open(f, name);
		if (rc == 0 || rc == -ITRACE_E_NOMEM)
			return rc;
		/* A missing build-id link says nothing about the file at path. */
		if (rc != -ITRACE_E_IO)
			best = worse(best, rc);
	}
	return best;
}

static int file_status(struct itrace_image *img, struct image_file *f)
{
	if (f->status == 1)
		f->status = resolve_file(img, f);
	return f->status;
}

/* Runtime - vaddr for file offset `off` of f (0 when no PT_LOAD holds it). */
static uint64_t file_bias(struct image_file *f, uint64_t addr, uint64_t off)
{
	size_t n;
	GElf_Phdr ph;

	if (elf_getphdrnum(f->elf, &n) != 0)
		return 0;
	for (size_t i = 0; i < n; i++) {
		if (!gelf_getphdr(f->elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (off >= ph.p_offset && off < ph.p_offset + ph.p_filesz)
			return addr - (ph.p_vaddr + (off - ph.p_offset));
	}
	return 0;
}

static const struct image_map *find_map(const struct image_proc *p, uint64_t addr)
{
	size_t lo = 0, hi = p->nmaps;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (p->maps[mid].end <= addr)
			lo = mid + 1;
		else if (p->maps[mid].start > addr)
			hi = mid;
		else
			return &p->maps[mid];
	}
	return NULL;
}

/*
 * Shrink [loc->start, loc->end) around addr so that it excludes the CODE
 * blocks codes[from..] (newer ones shadow what lies below): callers may
 * then reuse the range for later addresses without a new lookup.
 */
static void narrow_around_code(const struct image_proc *p, uint64_t addr, size_t from,
			       struct itrace_image_loc *loc)
{
	for (size_t j = from; j < p->ncodes; j++) {
		const struct image_code *k = &p->codes[j];

		if (k->end <= loc->start || k->start >= loc->end)
			continue;
		if (k->start > addr)
			loc->end = k->start;
		else if (k->end <= addr)
			loc->start = k->end;
	}
}

static int lookup_code(const struct image_proc *p, uint64_t addr, struct itrace_image_loc *loc)
{
	for (size_t i = p->ncodes; i-- > 0;) {
		const struct image_code *k = &p->codes[i];

		if (addr < k->start || addr >= k->end)
			continue;
		loc->start = k->start;
		loc->end = k->end;
		narrow_around_code(p, addr, i + 1, loc);
		loc->offset = addr - k->start;
		loc->path = "[code]";
		loc->bytes = k->bytes + loc->offset;
		loc->avail = loc->end - addr;
		loc->module = k->module;
		return 1;
	}
	return 0;
}

int itrace_image_lookup(struct itrace_image *img, uint32_t pid, uint64_t addr,
			struct itrace_image_loc *loc)
{
	const struct image_proc *p;
	const struct image_map *m;
	struct image_file *f;
	int rc;

	if (!img || !loc)
		return -ITRACE_E_INVAL;
	memset(loc, 0, sizeof(*loc));
	p = find_proc(img, pid);
	if (!p)
		return -ITRACE_E_NOENT;
	if (lookup_code(p, addr, loc))
		return 0;
	m = find_map(p, addr);
	if (!m)
		return -ITRACE_E_NOENT;
	loc->start = m->start;
	loc->end = m->end;
	narrow_around_code(p, addr, p->ncodes, loc);
	loc->offset = m->pgoff + (addr - m->start);
	if (m->file < 0) {
		loc->path = m->path;
		return -ITRACE_E_IO;
	}
	f = &img->files[m->file];
	loc->path = f->path;
	loc->module = f->module;
	rc = file_status(img, f);
	if (rc < 0)
		return rc;
	if (loc->offset >= f->size)
		return -ITRACE_E_ELF;
	loc->file = f->opened;
	loc->bias = file_bias(f, addr, loc->offset);
	loc->bytes = f->data + loc->offset;
	loc->avail = f->size - loc->offset;
	if (loc->avail > loc->end - addr)
		loc->avail = loc->end - addr;
	return 0;
}

/* ---- For the symbolizer ---------------------------------------------- */

size_t image_mapping_count(struct itrace_image *img, uint32_t pid)
{
	const struct image_proc *p = find_proc(img, pid);

	return p ? p->nmaps : 0;
}

int image_mapping_at(struct itrace_image *img, uint32_t pid, size_t i,
		     struct image_mapping_view *v)
{
	const struct image_proc *p = find_proc(img, pid);
	const struct image_map *m;
	struct image_file *f;

	if (!p || i >= p->nmaps)
		return -ITRACE_E_INVAL;
	m = &p->maps[i];
	memset(v, 0, sizeof(*v));
	v->start = m->start;
	v->end = m->end;
	if (m->file < 0) {
		v->path = m->path;
		v->status = -ITRACE_E_IO;
		return 0;
	}
	f = &img->files[m->file];
	v->path = f->path;
	v->module = f->module;
	v->status = file_status(img, f);
	if (v->status == 0) {
		v->file = f->opened;
		v->bias = file_bias(f, m->start, m->pgoff);
	}
	return 0;
}

uint64_t image_generation(const struct itrace_image *img)
{
	return img->generation;
}

const char *image_debug_dir(const struct itrace_image *img)
{
	return img->debug_dir;
}

/* ---- Standalone ------------------------------------------------------ */

int itrace_elf_build_id(const char *path, uint8_t *buf, size_t cap)
{
	const void *id;
	ssize_t len;
	int fd;
	Elf *elf;

	if (!path || !buf)
		return -ITRACE_E_INVAL;
	pthread_once(&elf_once, elf_init);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -ITRACE_E_IO;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		len = -ITRACE_E_ELF;
	} else {
		len = dwelf_elf_gnu_build_id(elf, &id);
		if (len <= 0)
			len = -ITRACE_E_NOENT;
		else if ((size_t)len > cap)
			len = -ITRACE_E_INVAL;
		else
			memcpy(buf, id, (size_t)len);
	}
	if (elf)
		elf_end(elf);
	close(fd);
	return (int)len;
}
