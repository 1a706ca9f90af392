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
#include "itrace_elf.h"
#include "internal.h"
#include "ranges.h"
#include "itrace_format.h"

#define DEFAULT_DEBUG_DIR "/usr/lib/debug"

/*
 * One file as named by the trace, with the build-id the trace expects.
 * Mappings without a file behind them (anonymous memory, [vdso]) have an
 * entry too, status -ITRACE_E_IO and module 0, so that every mapping
 * keeps how its MMAP record named it.
 */
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
	int file; /* index in img->files */
};

/*
 * The bytes of one CODE record, shared by the pieces of it that later
 * CODE records have not covered (and by the processes forked since).
 */
struct code_buf {
	uint64_t addr;	 /* address of data[0] */
	size_t size;
	size_t live;	 /* bytes of it still visible in some piece */
	unsigned refs;	 /* pieces pointing here */
	uint32_t module; /* offsets within a module are from data[0] */
	uint8_t data[];
};

/* A visible piece [start, end) of a CODE record's bytes. */
struct image_code {
	uint64_t start, end;
	struct code_buf *buf;
};

/*
 * A process's address space, from its start or exec to its next exec.
 * Both arrays are sorted by start and hold no overlaps: a new mapping or
 * CODE record replaces what it covers, so a lookup is a binary search and
 * memory stays proportional to what is mapped now, however many MMAP and
 * CODE records came before.
 */
struct image_proc {
	uint32_t pid;
	uint32_t space; /* 1-based number of the space among all made */
	struct image_map *maps;
	size_t nmaps, capmaps;
	struct image_code *codes;
	size_t ncodes, capcodes;
};

struct itrace_image {
	char *sysroot;
	char *debug_dir;
	struct image_file *files;
	size_t nfiles, capfiles;
	struct image_proc **procs; /* the current one of each pid, sorted by pid */
	size_t nprocs, capprocs;
	struct image_proc **spaces; /* spaces[n - 1]: space n, NULL once freed */
	size_t nspaces, capspaces;
	int keep_spaces;	/* image_keep_spaces(): an exec keeps the old space */
	uint32_t next_module;
	uint64_t generation;
	uint32_t last_mmap_pid; /* owner of CODE records that name no process */
	size_t file_hash_cap;	/* open-addressing index of files: */
	int *file_hash;		/* index + 1, 0 = empty */
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

static void code_unref(struct code_buf *b, uint64_t bytes)
{
	b->live -= bytes;
	if (--b->refs == 0)
		free(b);
}

static void proc_free(struct image_proc *p)
{
	for (size_t i = 0; i < p->ncodes; i++)
		code_unref(p->codes[i].buf, p->codes[i].end - p->codes[i].start);
	free(p->maps);
	free(p->codes);
	free(p);
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
	for (size_t i = 0; i < img->nspaces; i++)
		if (img->spaces[i])
			proc_free(img->spaces[i]);
	free(img->files);
	free(img->procs);
	free(img->spaces);
	free(img->file_hash);
	free(img->sysroot);
	free(img->debug_dir);
	free(img);
}

/* proc_index - where pid is, or would be inserted, in the sorted procs. */
static size_t proc_index(const struct itrace_image *img, uint32_t pid)
{
	size_t lo = 0, hi = img->nprocs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (img->procs[mid]->pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static struct image_proc *find_proc(struct itrace_image *img, uint32_t pid)
{
	size_t i = proc_index(img, pid);

	return i < img->nprocs && img->procs[i]->pid == pid ? img->procs[i] : NULL;
}

/* get_proc - the process, created (a new space, empty) if new. */
static struct image_proc *get_proc(struct itrace_image *img, uint32_t pid)
{
	size_t i = proc_index(img, pid);
	struct image_proc *p;

	if (i < img->nprocs && img->procs[i]->pid == pid)
		return img->procs[i];
	if (img->nspaces >= UINT32_MAX ||
	    itrace_reserve((void **)&img->procs, &img->capprocs, img->nprocs + 1, sizeof(*img->procs)) < 0 ||
	    itrace_reserve((void **)&img->spaces, &img->capspaces, img->nspaces + 1,
			   sizeof(*img->spaces)) < 0 ||
	    !(p = calloc(1, sizeof(*p))))
		return NULL;
	p->pid = pid;
	p->space = (uint32_t)++img->nspaces;
	img->spaces[img->nspaces - 1] = p;
	memmove(img->procs + i + 1, img->procs + i, (img->nprocs - i) * sizeof(*img->procs));
	img->procs[i] = p;
	img->nprocs++;
	return p;
}

/*
 * end_space - pid's current space ends (exec, or a fork makes a new
 * process with its pid): freed, or kept for lookups by space number when
 * image_keep_spaces() asked for it.
 */
static void end_space(struct itrace_image *img, uint32_t pid)
{
	struct image_proc *p = find_proc(img, pid);
	size_t i;

	if (!p)
		return;
	i = proc_index(img, pid);
	memmove(img->procs + i, img->procs + i + 1, (img->nprocs - i - 1) * sizeof(*img->procs));
	img->nprocs--;
	if (!img->keep_spaces) {
		img->spaces[p->space - 1] = NULL;
		proc_free(p);
	}
	img->generation++;
}

/* Mappings without a file behind them: anonymous memory, [vdso], [stack]. */
static int path_has_file(const char *path, size_t len)
{
	return len > 0 && path[0] != '[' && !(len >= 6 && memcmp(path, "//anon", 6) == 0);
}

static uint64_t file_key_hash(const char *path, size_t len, const uint8_t *id, size_t idlen)
{
	uint64_t h = 14695981039346656037ull; /* FNV-1a */

	for (size_t i = 0; i < len; i++)
		h = (h ^ (uint8_t)path[i]) * 1099511628211ull;
	for (size_t i = 0; i < idlen; i++)
		h = (h ^ id[i]) * 1099511628211ull;
	return h;
}

/* file_slot - the hash slot of (path, build-id): its file or an empty one. */
static int *file_slot(struct itrace_image *img, const char *path, size_t len, const uint8_t *id,
		      size_t idlen)
{
	size_t mask = img->file_hash_cap - 1;
	size_t i = file_key_hash(path, len, id, idlen) & mask;

	for (;; i = (i + 1) & mask) {
		const struct image_file *f;

		if (!img->file_hash[i])
			return &img->file_hash[i];
		f = &img->files[img->file_hash[i] - 1];
		if (strlen(f->path) == len && memcmp(f->path, path, len) == 0 &&
		    f->buildid_len == idlen && memcmp(f->buildid, id, idlen) == 0)
			return &img->file_hash[i];
	}
}

/* file_hash_grow - keep the file index at most half full. */
static int file_hash_grow(struct itrace_image *img)
{
	size_t cap = img->file_hash_cap ? img->file_hash_cap * 2 : 64;
	int *old = img->file_hash;
	size_t oldcap = img->file_hash_cap;

	if (img->nfiles * 2 < img->file_hash_cap)
		return 0;
	img->file_hash = calloc(cap, sizeof(int));
	if (!img->file_hash) {
		img->file_hash = old;
		return -ITRACE_E_NOMEM;
	}
	img->file_hash_cap = cap;
	for (size_t i = 0; i < oldcap; i++) {
		const struct image_file *f;

		if (!old[i])
			continue;
		f = &img->files[old[i] - 1];
		*file_slot(img, f->path, strlen(f->path), f->buildid, f->buildid_len) = old[i];
	}
	free(old);
	return 0;
}

/* Index of the file entry for (path, build-id), created if new. */
static int get_file(struct itrace_image *img, const struct itrace_mmap *m)
{
	size_t idlen = m->buildid_len > ITRACE_BUILDID_MAX ? ITRACE_BUILDID_MAX : m->buildid_len;
	const char *path = m->path ? m->path : "";
	size_t len = m->path ? m->path_len : 0;
	struct image_file *f;
	int *slot;

	if (file_hash_grow(img) < 0)
		return -ITRACE_E_NOMEM;
	slot = file_slot(img, path, len, m->buildid, idlen);
	if (*slot)
		return *slot - 1;
	if (itrace_reserve((void **)&img->files, &img->capfiles, img->nfiles + 1, sizeof(*f)) < 0)
		return -ITRACE_E_NOMEM;
	f = &img->files[img->nfiles];
	memset(f, 0, sizeof(*f));
	f->path = strndup(path, len);
	if (!f->path)
		return -ITRACE_E_NOMEM;
	f->buildid_len = (uint8_t)idlen;
	memcpy(f->buildid, m->buildid, idlen);
	f->fd = -1;
	if (path_has_file(path, len)) {
		f->status = 1;
		f->module = img->next_module++;
	} else {
		f->status = -ITRACE_E_IO; /* nothing to open */
	}
	*slot = (int)img->nfiles + 1;
	return (int)img->nfiles++;
}

/* The image's mappings as ranges (they begin as struct file_range). */
static const struct range_ops map_ops = { ranges_pgoff_trim, ranges_pgoff_split, NULL };

int itrace_image_add_mmap(struct itrace_image *img, const struct itrace_mmap *mm)
{
	struct image_proc *p;
	struct image_map m = { 0 };
	ssize_t at;
	int rc;

	if (!img || !mm || mm->len == 0 || mm->start + mm->len < mm->start)
		return -ITRACE_E_INVAL;
	p = get_proc(img, mm->pid);
	if (!p)
		return -ITRACE_E_NOMEM;
	m.start = mm->start;
	m.end = mm->start + mm->len;
	m.pgoff = mm->pgoff;
	rc = get_file(img, mm);
	if (rc < 0)
		return rc;
	m.file = rc;
	at = ranges_punch((void **)&p->maps, &p->nmaps, &p->capmaps, sizeof(m), m.start, m.end,
			  &map_ops, NULL);
	rc = at < 0 ? (int)at
		    : ranges_insert((void **)&p->maps, &p->nmaps, &p->capmaps, sizeof(m), (size_t)at, &m);
	if (rc < 0)
		return rc;
	img->last_mmap_pid = mm->pid;
	img->generation++;
	return 0;
}

/* ---- CODE records ---------------------------------------------------- */

/*
 * compact - a piece that keeps less than half of its buffer visible gets
 * a buffer of its own (and a new module: the old offsets do not apply),
 * so that CODE records shadowing each other by a few bytes cannot pin
 * more than twice the bytes that are visible.
 */
static int compact(struct itrace_image *img, struct image_code *k)
{
	size_t len = k->end - k->start;
	struct code_buf *old = k->buf, *b;

	if (old->live * 2 >= old->size)
		return 0;
	b = malloc(sizeof(*b) + len);
	if (!b)
		return -ITRACE_E_NOMEM;
	memcpy(b->data, old->data + (k->start - old->addr), len);
	b->addr = k->start;
	b->size = b->live = len;
	b->refs = 1;
	b->module = img->next_module++;
	k->buf = b;
	code_unref(old, len);
	return 0;
}

/* CODE pieces as ranges: cutting one makes fewer of its bytes visible. */
static int code_trim(void *ctx, void *e, uint64_t old_start, uint64_t old_end)
{
	struct image_code *k = e;

	k->buf->live -= (old_end - old_start) - (k->end - k->start);
	return compact(ctx, k);
}

static int code_split(void *ctx, void *left, void *right)
{
	struct image_code *l = left, *r = right;

	r->buf->refs++;
	r->buf->live -= r->start - l->end; /* the hole */
	return compact(ctx, l) < 0 ? -ITRACE_E_NOMEM : compact(ctx, r);
}

static void code_drop(void *ctx, void *e)
{
	struct image_code *k = e;

	(void)ctx;
	code_unref(k->buf, k->end - k->start);
}

static const struct range_ops code_ops = { code_trim, code_split, code_drop };

int itrace_image_add_code(struct itrace_image *img, uint32_t pid, const struct itrace_code *c)
{
	struct image_proc *p;
	struct image_code k;
	ssize_t at;

	if (!img || !c || !c->bytes || c->len == 0 || c->addr + c->len < c->addr)
		return -ITRACE_E_INVAL;
	p = get_proc(img, pid);
	if (!p)
		return -ITRACE_E_NOMEM;
	k.buf = malloc(sizeof(*k.buf) + c->len);
	if (!k.buf)
		return -ITRACE_E_NOMEM;
	memcpy(k.buf->data, c->bytes, c->len);
	k.buf->addr = k.start = c->addr;
	k.end = c->addr + c->len;
	k.buf->size = k.buf->live = c->len;
	k.buf->refs = 1;
	k.buf->module = img->next_module++;
	at = ranges_punch((void **)&p->codes, &p->ncodes, &p->capcodes, sizeof(k), k.start, k.end,
			  &code_ops, img);
	if (at < 0 ||
	    ranges_insert((void **)&p->codes, &p->ncodes, &p->capcodes, sizeof(k), (size_t)at, &k) < 0) {
		free(k.buf);
		return -ITRACE_E_NOMEM;
	}
	img->generation++;
	return 0;
}

/* copy_proc - a forked child starts with its parent's mappings and code. */
static int copy_proc(struct itrace_image *img, uint32_t parent, uint32_t child)
{
	struct image_proc *src = find_proc(img, parent), *dst;

	if (!src || parent == child)
		return 0;
	end_space(img, child); /* an earlier process with the same pid */
	dst = get_proc(img, child);
	if (!dst)
		return -ITRACE_E_NOMEM;
	if (itrace_reserve((void **)&dst->maps, &dst->capmaps, src->nmaps, sizeof(*src->maps)) < 0 ||
	    itrace_reserve((void **)&dst->codes, &dst->capcodes, src->ncodes, sizeof(*src->codes)) < 0)
		return -ITRACE_E_NOMEM;
	memcpy(dst->maps, src->maps, src->nmaps * sizeof(*src->maps));
	dst->nmaps = src->nmaps;
	for (size_t i = 0; i < src->ncodes; i++) {
		dst->codes[dst->ncodes] = src->codes[i]; /* the bytes are shared */
		dst->codes[dst->ncodes++].buf->refs++;
		src->codes[i].buf->live += src->codes[i].end - src->codes[i].start;
	}
	img->generation++;
	return 0;
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
			end_space(img, rec->u.process.pid), rc = 0;
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
 * use_elf - check an opened ELF (from file `fd`, or memory when fd < 0)
 * against what the trace expects of f and take it: 0, or a negative code
 * with elf ended and fd closed (f untouched).
 */
static int use_elf(struct image_file *f, Elf *elf, int fd, const char *name)
{
	const void *id;
	ssize_t idlen;
	size_t size;
	char *raw;

	if (!elf || elf_kind(elf) != ELF_K_ELF || !(raw = elf_rawfile(elf, &size))) {
		if (elf)
			elf_end(elf);
		if (fd >= 0)
			close(fd);
		return -ITRACE_E_ELF;
	}
	if (f->buildid_len) {
		idlen = dwelf_elf_gnu_build_id(elf, &id);
		if (idlen != f->buildid_len || memcmp(id, f->buildid, f->buildid_len) != 0) {
			elf_end(elf);
			if (fd >= 0)
				close(fd);
			return -ITRACE_E_BUILDID;
		}
	}
	f->opened = strdup(name);
	if (!f->opened) {
		elf_end(elf);
		if (fd >= 0)
			close(fd);
		return -ITRACE_E_NOMEM;
	}
	f->fd = fd;
	f->elf = elf;
	f->data = (const uint8_t *)raw;
	f->size = size;
	return 0;
}

/*
 * Open `name` through libelf and compare its build-id with the expected
 * one.  Returns 0 and fills f, or a negative code (f untouched).
 */
static int try_open(struct image_file *f, const char *name)
{
	int fd = itrace_elf_open_fd(name);

	if (fd < 0)
		return errno == ENOEXEC ? -ITRACE_E_ELF : -ITRACE_E_IO;
	return use_elf(f, elf_begin(fd, ELF_C_READ_MMAP, NULL), fd, name);
}

int image_add_elf_memory(struct itrace_image *img, const struct itrace_mmap *m, const void *bytes,
			 size_t len)
{
	struct image_file *f;
	int i = get_file(img, m);

	if (i < 0)
		return i;
	f = &img->files[i];
	if (f->status != 1)
		return 0; /* resolved already */
	f->status = use_elf(f, elf_memory((char *)bytes, len), -1, f->path);
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
	return ranges_lookup(p->maps, p->nmaps, sizeof(*p->maps), addr);
}

/*
 * lookup_code - the CODE piece holding addr (returns 1 and fills loc), or
 * 0 after shrinking [loc->start, loc->end), the range of the mapping
 * around addr, to exclude the CODE pieces next to addr: callers may then
 * reuse the range for later addresses without a new lookup.
 */
static int lookup_code(const struct image_proc *p, uint64_t addr, struct itrace_image_loc *loc)
{
	size_t i = ranges_find(p->codes, p->ncodes, sizeof(*p->codes), addr);
	const struct image_code *k = i < p->ncodes ? &p->codes[i] : NULL;

	if (k && k->start <= addr) {
		loc->start = k->start;
		loc->end = k->end;
		loc->offset = addr - k->buf->addr;
		loc->path = "[code]";
		loc->bytes = k->buf->data + loc->offset;
		loc->avail = k->end - addr;
		loc->module = k->buf->module;
		return 1;
	}
	if (k && k->start < loc->end)
		loc->end = k->start;
	if (i > 0 && p->codes[i - 1].end > loc->start)
		loc->start = p->codes[i - 1].end;
	return 0;
}

/* proc_lookup - itrace_image_lookup() in space p (NULL: none). */
static int proc_lookup(struct itrace_image *img, const struct image_proc *p, uint64_t addr,
		       struct itrace_image_loc *loc)
{
	const struct image_map *m;
	struct image_file *f;
	int rc;

	memset(loc, 0, sizeof(*loc));
	if (!p)
		return -ITRACE_E_NOENT;
	m = find_map(p, addr);
	if (m) {
		loc->start = m->start;
		loc->end = m->end;
	} else {
		loc->start = 0;
		loc->end = UINT64_MAX;
	}
	if (lookup_code(p, addr, loc))
		return 0;
	if (!m) {
		memset(loc, 0, sizeof(*loc));
		return -ITRACE_E_NOENT;
	}
	loc->offset = m->pgoff + (addr - m->start);
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

int itrace_image_lookup(struct itrace_image *img, uint32_t pid, uint64_t addr,
			struct itrace_image_loc *loc)
{
	if (!img || !loc)
		return -ITRACE_E_INVAL;
	return proc_lookup(img, find_proc(img, pid), addr, loc);
}

/* ---- Address spaces by number (for the analysis) --------------------- */

void image_keep_spaces(struct itrace_image *img)
{
	img->keep_spaces = 1;
}

uint32_t image_space(const struct itrace_image *img, uint32_t pid)
{
	size_t i = proc_index(img, pid);

	return i < img->nprocs && img->procs[i]->pid == pid ? img->procs[i]->space : 0;
}

static const struct image_proc *space_proc(const struct itrace_image *img, uint32_t space)
{
	return space && space <= img->nspaces ? img->spaces[space - 1] : NULL;
}

int image_space_lookup(struct itrace_image *img, uint32_t space, uint64_t addr,
		       struct itrace_image_loc *loc)
{
	return proc_lookup(img, space_proc(img, space), addr, loc);
}

/* map_view - what the image knows of mapping m without opening its file. */
static void map_view(const struct itrace_image *img, const struct image_map *m,
		     struct image_mapping_view *v)
{
	const struct image_file *f = &img->files[m->file];

	memset(v, 0, sizeof(*v));
	v->start = m->start;
	v->end = m->end;
	v->pgoff = m->pgoff;
	v->path = f->path;
	v->buildid = f->buildid;
	v->buildid_len = f->buildid_len;
	v->name_id = (uint32_t)m->file + 1;
	v->module = f->module;
}

int image_mapping_find(const struct itrace_image *img, uint32_t space, uint64_t addr,
		       struct image_mapping_view *v)
{
	const struct image_proc *p = space_proc(img, space);
	const struct image_map *m = p ? find_map(p, addr) : NULL;

	if (!m)
		return -ITRACE_E_NOENT;
	map_view(img, m, v);
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
	map_view(img, m, v);
	f = &img->files[m->file];
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
