/*
 * hostile_gen - write valid itrace files built to make readers spend as
 * much memory or time as the format lets a small file ask for, for the
 * fault-injection tests (tests/e2e/fault_*.sh) and bench/mmap_pairs.sh.
 * Every record is well-formed: a tool must cope without a crash, without
 * allocating more than the data behind it and in time linear in it.
 *
 *   hostile_gen code-same OUT N        N CODE records of 1 MiB at one address,
 *                                      each followed by an instruction there
 *   hostile_gen code-spread OUT N      the same at N different addresses
 *   hostile_gen mmap-pairs OUT N ELF   N times: ELF's first executable
 *                                      segment mapped at a new address, one
 *                                      turn of its loop run there, the
 *                                      range mapped over by an anonymous
 *                                      mapping (what munmap + mmap leave);
 *                                      ELF is tests/data/fill_loop
 *   hostile_gen threads OUT N          N threads, one instruction each
 *
 * Traces are x86-64, instruction level, zstd-compressed: 1 MiB of CODE
 * bytes costs a few dozen bytes of file.
 */
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "itrace.h"
#include "itrace_code.h"

#define CODE_LEN (1u << 20)
#define CODE_BASE 0x7f0000000000ull

static struct itrace_writer *w;

static void die(const char *what, int rc)
{
	fprintf(stderr, "hostile_gen: %s: %s\n", what, itrace_errstr(rc));
	exit(1);
}

static void put(const struct itrace_record *rec)
{
	int rc = itrace_writer_write(w, rec);

	if (rc < 0)
		die("write", rc);
}

static void thread_switch(uint32_t tid, uint32_t pid)
{
	struct itrace_record r = { .type = ITRACE_REC_THREAD };

	r.u.thread.event = ITRACE_THREAD_SWITCH;
	r.u.thread.tid = tid;
	r.u.thread.pid = pid;
	put(&r);
}

static void insn(uint64_t addr, unsigned len)
{
	int rc = itrace_writer_insn(w, addr, len, NULL);

	if (rc < 0)
		die("write", rc);
}

static void code_records(unsigned long n, int spread)
{
	uint8_t *nops = malloc(CODE_LEN);
	struct itrace_record r = { .type = ITRACE_REC_CODE };

	if (!nops)
		die("code", -ITRACE_E_NOMEM);
	memset(nops, 0x90, CODE_LEN);
	thread_switch(1, 1);
	for (unsigned long i = 0; i < n; i++) {
		r.u.code.addr = CODE_BASE + (spread ? (uint64_t)i * CODE_LEN : 0);
		r.u.code.bytes = nops;
		r.u.code.len = CODE_LEN;
		put(&r);
		insn(r.u.code.addr + (i % 1000), 1);
	}
	free(nops);
}

/* The first executable PT_LOAD of `path`: where it maps and its offset. */
static void exec_segment(const char *path, uint64_t *vaddr, uint64_t *len, uint64_t *off)
{
	int fd = open(path, O_RDONLY);
	Elf *e;
	size_t n;

	elf_version(EV_CURRENT);
	e = fd >= 0 ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
	if (!e || elf_getphdrnum(e, &n) != 0)
		die(path, -ITRACE_E_ELF);
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD && (ph.p_flags & PF_X)) {
			*vaddr = ph.p_vaddr & ~0xfffull;
			*off = ph.p_offset & ~0xfffull;
			*len = (ph.p_vaddr + ph.p_memsz - *vaddr + 0xfff) & ~0xfffull;
			elf_end(e);
			close(fd);
			return;
		}
	}
	die(path, -ITRACE_E_NOENT);
}

/* The length of the instruction at file offset `off` of `path`. */
static unsigned insn_len(const char *path, uint64_t off)
{
	uint8_t buf[16];
	struct itrace_decoder *d;
	struct itrace_decoded dec;
	int fd = open(path, O_RDONLY);

	if (fd < 0 || pread(fd, buf, sizeof(buf), (off_t)off) != (ssize_t)sizeof(buf))
		die(path, -ITRACE_E_IO);
	close(fd);
	if (itrace_decoder_alloc(62, 1, &d) < 0 || itrace_decoder_decode(d, buf, sizeof(buf), 0, &dec) < 0)
		die(path, -ITRACE_E_DECODE);
	itrace_decoder_free(d);
	return dec.len;
}

/*
 * One turn of the test program's loop (tests/data/fill_loop.S): call func
 * at loop_top, func's add and ret, then dec and jnz back to loop_top.
 */
struct turn {
	uint64_t addr[5];
	unsigned len[5];
};

static void loop_turn(const char *elf, uint64_t vaddr, uint64_t off, struct turn *t)
{
	struct itrace_elf_symbol top, func;

	if (itrace_elf_find_symbol(elf, "loop_top", &top) < 0 ||
	    itrace_elf_find_symbol(elf, "func", &func) < 0)
		die("loop_top/func (give tests/data/fill_loop)", -ITRACE_E_NOENT);
	t->addr[0] = top.vaddr;
	t->addr[1] = func.vaddr;
	t->len[0] = insn_len(elf, top.vaddr - vaddr + off);
	t->len[1] = insn_len(elf, func.vaddr - vaddr + off);
	t->addr[2] = func.vaddr + t->len[1];
	t->len[2] = insn_len(elf, t->addr[2] - vaddr + off);
	t->addr[3] = top.vaddr + t->len[0];
	t->len[3] = insn_len(elf, t->addr[3] - vaddr + off);
	t->addr[4] = t->addr[3] + t->len[3];
	t->len[4] = insn_len(elf, t->addr[4] - vaddr + off);
}

static void mmap_pairs(unsigned long n, const char *elf)
{
	struct itrace_record file = { .type = ITRACE_REC_MMAP }, anon = { .type = ITRACE_REC_MMAP };
	uint64_t vaddr, len, off;
	struct turn t;
	int id;

	exec_segment(elf, &vaddr, &len, &off);
	loop_turn(elf, vaddr, off, &t);
	file.u.mmap.pid = anon.u.mmap.pid = 1;
	file.u.mmap.start = anon.u.mmap.start = vaddr;
	file.u.mmap.len = anon.u.mmap.len = len;
	file.u.mmap.pgoff = off;
	file.u.mmap.prot = 5;
	file.u.mmap.path = elf;
	file.u.mmap.path_len = strlen(elf);
	id = itrace_elf_build_id(elf, file.u.mmap.buildid, sizeof(file.u.mmap.buildid));
	file.u.mmap.buildid_len = id > 0 ? (uint8_t)id : 0;
	anon.u.mmap.prot = 3;
	anon.u.mmap.path = "";
	thread_switch(1, 1);
	for (unsigned long i = 0; i < n; i++) {
		/* a new place each time, as mmap without MAP_FIXED may choose:
		 * new instructions to decode and symbolize, at a new bias */
		uint64_t shift = (uint64_t)i * (len + 0x1000);

		file.u.mmap.start = anon.u.mmap.start = vaddr + shift;
		put(&file);
		for (int k = 0; k < 5; k++)
			insn(t.addr[k] + shift, t.len[k]);
		put(&anon);
	}
}

static void threads(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++) {
		thread_switch((uint32_t)(1000 + i), 1000);
		insn(0x401000, 1);
	}
}

int main(int argc, char **argv)
{
	struct itrace_writer_options o;
	unsigned long n;
	int rc;

	if (argc < 4 || (strcmp(argv[1], "mmap-pairs") == 0 && argc < 5)) {
		fprintf(stderr, "usage: hostile_gen code-same|code-spread|mmap-pairs|threads OUT N [ELF]\n");
		return 2;
	}
	n = strtoul(argv[3], NULL, 0);
	itrace_writer_options_init(&o);
	o.zstd_level = 19; /* as small as a hostile file would be */
	if ((rc = itrace_writer_open(argv[2], &o, &w)) < 0)
		die(argv[2], rc);
	if (strcmp(argv[1], "code-same") == 0)
		code_records(n, 0);
	else if (strcmp(argv[1], "code-spread") == 0)
		code_records(n, 1);
	else if (strcmp(argv[1], "mmap-pairs") == 0)
		mmap_pairs(n, argv[4]);
	else if (strcmp(argv[1], "threads") == 0)
		threads(n);
	else
		die(argv[1], -ITRACE_E_INVAL);
	if ((rc = itrace_writer_close(w, ITRACE_END_COMPLETE, 0)) < 0)
		die("close", rc);
	return 0;
}
