/* input.c - itrace and qtrace input for the simulator (see input.h). */
#include "input.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <sys/mman.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "itrace_format.h"
#include "qtrace.h"
#include "sem.h"

struct sim_input {
	int format, arch;
	struct itrace_reader *ir;
	struct qtrace_reader *qr;
	struct itrace_image *img;
	struct itrace_symbolizer *sym;
	struct sim_dyn slot[2]; /* the one handed out, the one being read */
	struct sim_memref *mems[2]; /* each slot's accesses, as many as it has */
	size_t mem_cap[2];
	int cur_slot;	     /* slot[cur_slot]: waiting for its successor */
	int have_cur;
	int pending_error;   /* report after delivering `cur` */
	int done;
	char err[512];
	char damage[512];    /* the first corrupt chunk skipped, "" if none */
	struct sim_input_stats st;
	int has_elf; /* mappings added for pid 0 with --elf */
	char sym_err[600]; /* first module whose symbols could not be read */
};

/* The pid of mappings given on the command line (--elf). */
#define ELF_PID 0

static int fail(char *err, size_t errlen, const char *msg, const char *path, const char *why)
{
	snprintf(err, errlen, "%s '%s': %s", msg, path, why);
	return -1;
}

/* SNIFF_EMPTY: what sniff says of a file with no bytes at all */
#define SNIFF_EMPTY (-1)

/* sniff - the format of a regular file from its first bytes (the itrace
 * magic, format/ITRACE.md; qtrace has no magic of its own, so anything
 * else is tried as qtrace); SNIFF_EMPTY for an empty file. */
static int sniff(const char *path)
{
	unsigned char magic[8];
	FILE *f;
	size_t n;

	if (!strcmp(path, "-"))
		return SIM_FMT_ITRACE;
	f = fopen(path, "rb");
	if (!f)
		return SIM_FMT_ITRACE; /* let the reader report the error */
	n = fread(magic, 1, sizeof(magic), f);
	fclose(f);
	if (n == 0)
		return SNIFF_EMPTY;
	if (n == 8 && !memcmp(magic, "\x89ITR\r\n\x1a\n", 8))
		return SIM_FMT_ITRACE;
	return SIM_FMT_QTRACE;
}

/* check_header - the machine and level of an opened itrace file. */
static int check_header(struct sim_input *in, const char *path, char *err, size_t errlen)
{
	const struct itrace_header *h = itrace_reader_header(in->ir);

	if (h->machine == 62)
		in->arch = SIM_ARCH_X86_64;
	else if (h->machine == 21)
		in->arch = h->target_endian == 2 ? SIM_ARCH_PPC64BE : SIM_ARCH_PPC64LE;
	else {
		char why[64];

		snprintf(why, sizeof(why), "unsupported machine %u (x86-64 and ppc64 are)", h->machine);
		return fail(err, errlen, "cannot simulate", path, why);
	}
	if (h->level != ITRACE_LEVEL_INSN)
		return fail(err, errlen, "cannot simulate", path,
			    "branch-level trace; run itrace-fill on it first");
	return 0;
}

static int open_itrace(struct sim_input *in, const char *path, const char *sysroot, char *err,
		       size_t errlen)
{
	struct itrace_image_options io;
	int rc = itrace_reader_open(path, &in->ir);

	if (rc < 0)
		return fail(err, errlen, "cannot open", path,
			    rc == -ITRACE_E_IO ? strerror(errno) : itrace_errstr(rc));
	if (check_header(in, path, err, errlen))
		return -1;
	itrace_image_options_init(&io);
	io.sysroot = sysroot;
	if (itrace_image_alloc(&io, &in->img) < 0 || itrace_symbolizer_alloc(in->img, &in->sym) < 0)
		return fail(err, errlen, "cannot open", path, "out of memory");
	return 0;
}

int sim_input_open(const char *path, int format, const char *sysroot, struct sim_input **ip,
		   char *err, size_t errlen)
{
	struct sim_input *in = calloc(1, sizeof(*in));
	int rc;

	*ip = NULL;
	if (!in)
		return fail(err, errlen, "cannot open", path, "out of memory");
	in->format = format == SIM_FMT_AUTO ? sniff(path) : format;
	if (in->format == SNIFF_EMPTY) {
		rc = fail(err, errlen, "cannot open", path, "the file is empty (neither an itrace nor a qtrace trace)");
	} else if (in->format == SIM_FMT_ITRACE) {
		rc = open_itrace(in, path, sysroot, err, errlen);
	} else {
		int q = qtrace_reader_open(path, &in->qr);
		struct itrace_image_options io;

		in->arch = SIM_ARCH_PPC64LE;
		if (q < 0 && format == SIM_FMT_AUTO && q != -QTRACE_E_IO && q != -QTRACE_E_NOMEM) {
			/* the guess, not the user, said qtrace: say both were tried */
			char why[160];

			snprintf(why, sizeof(why), "neither an itrace file (no itrace magic) nor a qtrace file (%s)",
				 qtrace_errstr(q));
			rc = fail(err, errlen, "cannot open", path, why);
		} else {
			rc = q < 0 ? fail(err, errlen, "cannot open", path,
					  q == -QTRACE_E_IO ? strerror(errno) : qtrace_errstr(q))
				   : 0;
		}
		itrace_image_options_init(&io);
		io.sysroot = sysroot;
		if (!rc && (itrace_image_alloc(&io, &in->img) < 0 ||
			    itrace_symbolizer_alloc(in->img, &in->sym) < 0))
			rc = fail(err, errlen, "cannot open", path, "out of memory");
	}
	if (rc) {
		sim_input_close(in);
		return -1;
	}
	*ip = in;
	return 0;
}

/*
 * opened_mem - the end of sim_input_open_mem and sim_input_reopen_mem:
 * `rc` is their reader's, then the header is checked.  Returns 0 with *ip
 * set, or -1 with the message in err and `in` freed.
 */
static int opened_mem(struct sim_input *in, int rc, struct sim_input **ip, char *err,
		      size_t errlen)
{
	if (rc < 0 || check_header(in, "(memory)", err, errlen)) {
		if (rc < 0)
			fail(err, errlen, "cannot open", "(memory)", itrace_errstr(rc));
		sim_input_close(in);
		return -1;
	}
	*ip = in;
	return 0;
}

int sim_input_open_mem(const void *buf, size_t len, struct sim_input **ip, char *err, size_t errlen)
{
	struct sim_input *in = calloc(1, sizeof(*in));
	int rc;

	*ip = NULL;
	if (!in)
		return fail(err, errlen, "cannot open", "(memory)", "out of memory");
	in->format = SIM_FMT_ITRACE;
	rc = itrace_reader_open_mem(buf, len, &in->ir);
	return opened_mem(in, rc, ip, err, errlen);
}

int sim_input_reopen_mem(struct sim_input **ip, const void *buf, size_t len, char *err, size_t errlen)
{
	struct sim_input *in = *ip;
	struct itrace_reader *ir = in->ir;
	struct sim_memref *mems[2] = { in->mems[0], in->mems[1] };
	size_t mem_cap[2] = { in->mem_cap[0], in->mem_cap[1] };
	int rc;

	*ip = NULL;
	if (in->img || in->qr) { /* not one of sim_input_open_mem */
		sim_input_close(in);
		return sim_input_open_mem(buf, len, ip, err, errlen);
	}
	memset(in, 0, sizeof(*in));
	in->format = SIM_FMT_ITRACE;
	for (int k = 0; k < 2; k++) {
		in->mems[k] = mems[k];
		in->mem_cap[k] = mem_cap[k];
		in->slot[k].mem = mems[k];
	}
	rc = itrace_reader_reopen_mem(&ir, buf, len);
	in->ir = ir;
	return opened_mem(in, rc, ip, err, errlen);
}

void sim_input_close(struct sim_input *in)
{
	if (!in)
		return;
	itrace_symbolizer_free(in->sym);
	itrace_image_free(in->img);
	itrace_reader_close(in->ir);
	qtrace_reader_close(in->qr);
	free(in->mems[0]);
	free(in->mems[1]);
	free(in);
}

int sim_input_arch(const struct sim_input *in)
{
	return in->arch;
}

const char *sim_input_error(const struct sim_input *in)
{
	return in->err;
}

const char *sim_input_damage(const struct sim_input *in)
{
	return in->st.corrupt ? in->damage : NULL;
}

void sim_input_stats(const struct sim_input *in, struct sim_input_stats *st)
{
	*st = in->st;
}

#define CUR(in) (&(in)->slot[(in)->cur_slot])

/* emit - hand out the held instruction, with `next` as its successor;
 * the other slot receives the next one (no copying). */
static void emit(struct sim_input *in, const struct sim_dyn **d, uint64_t next)
{
	struct sim_dyn *c = CUR(in);

	c->next_addr = next;
	*d = c;
	in->cur_slot ^= 1;
	in->have_cur = 0;
}

static void start_insn(struct sim_input *in, const struct itrace_record *rec)
{
	struct sim_dyn *c = CUR(in);

	c->addr = rec->u.insn.addr;
	c->len = rec->u.insn.len;
	c->has_bytes = rec->u.insn.has_bytes;
	if (c->has_bytes)
		memcpy(c->bytes, rec->u.insn.bytes, rec->u.insn.len);
	c->nmem = 0;
	c->has_data_addr = 0;
	c->tid = rec->tid;
	c->pid = rec->pid;
	c->next_addr = 0;
	in->have_cur = 1;
}

/* add_mem - one more access of the held instruction; -1 out of memory. */
static int add_mem(struct sim_input *in, const struct itrace_mem *mem)
{
	int k = in->cur_slot;
	struct sim_memref *m;

	if (in->slot[k].nmem == in->mem_cap[k]) {
		size_t cap = in->mem_cap[k] ? 2 * in->mem_cap[k] : 8;

		if (cap > UINT32_MAX || !(m = realloc(in->mems[k], cap * sizeof(*m))))
			return -1;
		in->mems[k] = m;
		in->mem_cap[k] = cap;
		in->slot[k].mem = m;
	}
	m = &in->mems[k][in->slot[k].nmem++];
	m->addr = mem->addr;
	/* sizes beyond a page are no instruction's: bound the line walk */
	m->size = (uint32_t)(mem->size > SIM_MAX_ACCESS ? SIM_MAX_ACCESS : mem->size);
	m->store = (mem->flags & ITRACE_MEM_STORE) != 0;
	return 0;
}

static int next_itrace(struct sim_input *in, const struct sim_dyn **d)
{
	struct itrace_record rec;

	for (;;) {
		int rc;

		if (in->pending_error || in->done) {
			if (in->have_cur) {
				emit(in, d, 0);
				return 0;
			}
			return in->pending_error ? -1 : 1;
		}
		rc = itrace_reader_next(in->ir, &rec, sizeof(rec));
		if (rc == ITRACE_EOF) {
			in->done = 1;
			continue;
		}
		if (rc < 0) {
			const char *msg = itrace_reader_error(in->ir);

			if (rc == -ITRACE_E_CORRUPT) {
				/* the reader resynchronises with a GAP: go on, but
				 * the damage is reported at the end */
				if (!in->st.corrupt++)
					snprintf(in->damage, sizeof(in->damage), "%s",
						 msg && *msg ? msg : itrace_errstr(rc));
				continue;
			}
			snprintf(in->err, sizeof(in->err), "%s", msg && *msg ? msg : itrace_errstr(rc));
			in->pending_error = 1;
			continue;
		}
		switch (rec.type) {
		case ITRACE_REC_INSN:
			if (in->have_cur) {
				uint64_t next = rec.tid == CUR(in)->tid ? rec.u.insn.addr : 0;

				emit(in, d, next);
				start_insn(in, &rec);
				return 0;
			}
			start_insn(in, &rec);
			break;
		case ITRACE_REC_MEM:
			if (!in->have_cur) {
				in->st.mems_dropped++; /* no instruction to belong to */
			} else if (add_mem(in, &rec.u.mem) < 0) {
				snprintf(in->err, sizeof(in->err), "out of memory");
				in->pending_error = 1;
			}
			break;
		case ITRACE_REC_GAP:
		case ITRACE_REC_LOST:
			/* the successor is unknown across a hole */
			if (rec.type == ITRACE_REC_GAP)
				in->st.gaps++;
			else
				in->st.lost++;
			if (rec.type == ITRACE_REC_GAP && rec.u.gap.reason == ITRACE_GAP_CORRUPT_CHUNK)
				in->st.chunks_lost += rec.u.gap.count;
			if (in->have_cur) {
				emit(in, d, 0);
				return 0;
			}
			break;
		case ITRACE_REC_BRANCH:
			in->st.branch_records++;
			break;
		default:
			if (in->img && itrace_image_apply(in->img, &rec) < 0) {
				snprintf(in->err, sizeof(in->err), "out of memory");
				in->pending_error = 1;
			}
			break;
		}
	}
}

static int next_qtrace(struct sim_input *in, const struct sim_dyn **dp)
{
	struct sim_dyn *d = &in->slot[0];
	struct qtrace_record q;
	int rc;

	if (in->done)
		return in->pending_error ? -1 : 1;
	rc = qtrace_reader_next(in->qr, &q);
	if (rc == QTRACE_EOF) {
		in->done = 1;
		return 1;
	}
	if (rc < 0) {
		const char *msg = qtrace_reader_error(in->qr);

		snprintf(in->err, sizeof(in->err), "%s", msg && *msg ? msg : qtrace_errstr(rc));
		in->done = in->pending_error = 1;
		return -1;
	}
	memset(d, 0, sizeof(*d));
	d->addr = q.iar;
	d->next_addr = q.next_iar;
	d->len = q.len;
	d->has_bytes = 1;
	/* POWER words in the byte order capstone was opened with (LE) */
	for (int i = 0; i < 4; i++) {
		d->bytes[i] = (uint8_t)(q.insn >> (8 * i));
		d->bytes[4 + i] = (uint8_t)(q.suffix >> (8 * i));
	}
	d->has_data_addr = q.has_data_addr;
	d->data_addr = q.data_addr;
	*dp = d;
	return 0;
}

int sim_input_next(struct sim_input *in, const struct sim_dyn **d)
{
	return in->format == SIM_FMT_ITRACE ? next_itrace(in, d) : next_qtrace(in, d);
}

const uint8_t *sim_input_code(struct sim_input *in, uint32_t pid, uint64_t addr, size_t *avail)
{
	struct itrace_image_loc loc;

	if (!in->img)
		return NULL;
	/* the trace's own mappings first, then those given with --elf */
	if ((itrace_image_lookup(in->img, pid, addr, &loc) < 0 || !loc.bytes) &&
	    (!in->has_elf || pid == ELF_PID || itrace_image_lookup(in->img, ELF_PID, addr, &loc) < 0 ||
	     !loc.bytes))
		return NULL;
	*avail = loc.avail;
	return loc.bytes;
}

static int elf_segments(struct sim_input *in, Elf *e, const char *path, uint64_t bias, char *err,
			size_t errlen)
{
	size_t n;
	int added = 0;

	if (elf_kind(e) != ELF_K_ELF || elf_getphdrnum(e, &n) != 0)
		return fail(err, errlen, "cannot read", path, "not an ELF file");
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		struct itrace_mmap m;
		uint64_t start, pad;

		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD || !ph.p_filesz)
			continue;
		pad = ph.p_vaddr & 0xfff;
		if ((ph.p_offset & 0xfff) != pad)
			pad = 0; /* unaligned segment: map it as it is */
		start = ph.p_vaddr - pad + bias;
		memset(&m, 0, sizeof(m));
		m.start = start;
		m.len = ph.p_filesz + pad;
		m.pgoff = ph.p_offset - pad;
		m.pid = ELF_PID;
		m.prot = (uint8_t)(((ph.p_flags & PF_R) ? 1 : 0) | ((ph.p_flags & PF_W) ? 2 : 0) |
				   ((ph.p_flags & PF_X) ? 4 : 0));
		m.path = path;
		m.path_len = strlen(path);
		if (itrace_image_add_mmap(in->img, &m) < 0)
			return fail(err, errlen, "cannot map", path, "bad segment or out of memory");
		added++;
	}
	if (!added)
		return fail(err, errlen, "cannot map", path, "no loadable segment");
	return 0;
}

int sim_input_add_elf(struct sim_input *in, const char *path, uint64_t bias, char *err, size_t errlen)
{
	int fd, rc;
	Elf *e;

	if (!in->img)
		return fail(err, errlen, "cannot map", path, "this input has no image");
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return fail(err, errlen, "cannot open", path, strerror(errno));
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	rc = e ? elf_segments(in, e, path, bias, err, errlen) : fail(err, errlen, "cannot read", path, elf_errmsg(-1));
	elf_end(e);
	close(fd);
	if (!rc)
		in->has_elf = 1;
	return rc;
}

int sim_input_symbol(struct sim_input *in, uint32_t pid, uint64_t addr, int with_line,
		     struct itrace_symbol *out)
{
	unsigned what = ITRACE_SYM_NAME | (with_line ? ITRACE_SYM_LINE : 0);

	int rc;

	if (!in->sym)
		return -1;
	rc = itrace_symbolizer_lookup(in->sym, pid, addr, what, out);
	if (rc == 0 && out->name)
		return 0;
	if (rc < 0 && rc != -ITRACE_E_NOENT && !in->sym_err[0] && out->module)
		snprintf(in->sym_err, sizeof(in->sym_err), "no symbols from '%s': %s", out->module,
			 itrace_errstr(rc));
	if (in->has_elf && pid != ELF_PID && itrace_symbolizer_lookup(in->sym, ELF_PID, addr, what, out) == 0)
		return 0;
	return out->name ? 0 : -1;
}

int sim_input_has_mem(const struct sim_input *in)
{
	if (in->format != SIM_FMT_ITRACE)
		return 1;
	return (itrace_reader_header(in->ir)->flags & ITRACE_FF_MEM) != 0;
}

uint64_t sim_input_total(const struct sim_input *in)
{
	struct itrace_footer f;

	if (in->format != SIM_FMT_ITRACE || itrace_reader_footer(in->ir, &f) < 0)
		return 0;
	return f.insn_count;
}

const struct itrace_reader *sim_input_itrace_read(const struct sim_input *in)
{
	return in->format == SIM_FMT_ITRACE && in->done ? in->ir : NULL;
}

struct sim_sem *sim_input_sem(struct sim_input *in, struct sim_semtab *t, const struct sim_dyn *d)
{
	struct sim_sem *s;

	if (d->has_bytes) {
		s = sim_semtab_get(t, d->addr, d->len, d->bytes);
	} else {
		s = sim_semtab_find(t, d->addr);
		if (!s) {
			size_t avail = 0;
			const uint8_t *code = sim_input_code(in, d->pid, d->addr, &avail);

			s = sim_semtab_get(t, d->addr, d->len, code && avail >= d->len ? code : NULL);
		}
	}
	if (s && s->count == 0)
		s->pid = d->pid;
	return s;
}

const char *sim_input_symbol_problem(const struct sim_input *in)
{
	return in->sym_err[0] ? in->sym_err : NULL;
}
