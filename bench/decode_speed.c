/*
 * decode_speed - instructions decoded per second on this machine's libc
 * .text, decoding linearly from its start: libitrace's decoder against
 * capstone 4 (what libitrace used before), on the same bytes in the same
 * run.  Rounds time the two back to back (CPU time: the machine is
 * shared); each figure is the median round.
 *
 *   decode_vs_capstone        itrace_decoder_decode (length, branch kind,
 *                             target: what itrace-fill asks) vs capstone
 *                             with detail on, as the old decoder ran it
 *   decode_info_vs_capstone   itrace_decoder_info (also class, registers,
 *                             memory operands) vs the same capstone pass
 *
 * usage: decode_speed [ELF] [ROUNDS]   (default: the libc it runs with)
 */
#include <capstone/capstone.h>
#include <elf.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "itrace.h"
#include "itrace_code.h"

struct text {
	const uint8_t *bytes;
	size_t size;
	uint64_t addr;
};

static int find_libc(struct dl_phdr_info *info, size_t size, void *out)
{
	(void)size;
	if (info->dlpi_name && strstr(info->dlpi_name, "/libc.so")) {
		snprintf(out, 4096, "%s", info->dlpi_name);
		return 1;
	}
	return 0;
}

static int load_text(const char *path, struct text *t)
{
	int fd = open(path, O_RDONLY);
	Elf *e;
	Elf_Scn *scn = NULL;
	size_t shstr;

	if (fd < 0 || elf_version(EV_CURRENT) == EV_NONE || !(e = elf_begin(fd, ELF_C_READ, NULL)) ||
	    elf_getshdrstrndx(e, &shstr) < 0)
		return -1;
	while ((scn = elf_nextscn(e, scn)) != NULL) {
		GElf_Shdr sh;
		Elf_Data *d;
		const char *name;

		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(e, shstr, sh.sh_name)) ||
		    strcmp(name, ".text"))
			continue;
		d = elf_getdata(scn, NULL);
		if (!d)
			return -1;
		t->bytes = d->d_buf;
		t->size = d->d_size;
		t->addr = sh.sh_addr;
		return 0; /* e and fd stay open: the data lives in them */
	}
	return -1;
}

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Each pass decodes linearly; a byte nobody decodes is stepped over. */
static size_t pass_capstone(csh cs, cs_insn *ci, const struct text *t)
{
	const uint8_t *p = t->bytes;
	size_t n = t->size, count = 0;
	uint64_t a = t->addr;

	while (n) {
		if (cs_disasm_iter(cs, &p, &n, &a, ci))
			count++;
		else
			p++, n--, a++;
	}
	return count;
}

static size_t pass_decode(struct itrace_decoder *d, const struct text *t)
{
	size_t off = 0, count = 0;
	struct itrace_decoded di;

	while (off < t->size) {
		if (itrace_decoder_decode(d, t->bytes + off, t->size - off, t->addr + off, &di) == 0) {
			off += di.len;
			count++;
		} else {
			off++;
		}
	}
	return count;
}

static size_t pass_info(struct itrace_decoder *d, const struct text *t)
{
	size_t off = 0, count = 0;
	struct itrace_insn_info in;

	while (off < t->size) {
		if (itrace_decoder_info(d, t->bytes + off, t->size - off, t->addr + off, &in) == 0) {
			off += in.d.len;
			count++;
		} else {
			off++;
		}
	}
	return count;
}

static int by_ratio(const void *a, const void *b)
{
	const double *x = a, *y = b;

	return (x[0] > y[0]) - (x[0] < y[0]);
}

/* report NAME ROUNDS [ratio, ours_s, base_s]... */
static void report(const char *name, const char *target, double (*r)[3], int rounds, size_t ours_n,
		   size_t base_n, const char *path)
{
	const double *m;

	qsort(r, (size_t)rounds, sizeof(r[0]), by_ratio);
	m = r[rounds / 2];
	printf("%-24s %.1f Minsn/s  %.1f Minsn/s  ratio %.1f  (%s)  [median of %d rounds "
	       "(%.1f-%.1f), %s .text: %zu insns (capstone %zu), CPU time]\n",
	       name, ours_n / m[1] / 1e6, base_n / m[2] / 1e6, m[0], target, rounds, r[0][0],
	       r[rounds - 1][0], path, ours_n, base_n);
}

int main(int argc, char **argv)
{
	char path[4096] = "";
	struct text t;
	struct itrace_decoder *d;
	csh cs;
	cs_insn *ci;
	int rounds = argc > 2 ? atoi(argv[2]) : 7;
	double (*fast)[3], (*full)[3];
	size_t n_cs = 0, n_dec = 0, n_info = 0;

	if (argc > 1)
		snprintf(path, sizeof(path), "%s", argv[1]);
	else
		dl_iterate_phdr(find_libc, path);
	if (!path[0] || load_text(path, &t) < 0) {
		fprintf(stderr, "decode_speed: cannot read the .text of '%s'\n", path);
		return 1;
	}
	if (rounds < 1)
		rounds = 1;
	if (itrace_decoder_alloc(EM_X86_64, ELFDATA2LSB, &d) < 0 ||
	    cs_open(CS_ARCH_X86, CS_MODE_64, &cs) != CS_ERR_OK) {
		fprintf(stderr, "decode_speed: cannot open the decoders\n");
		return 1;
	}
	cs_option(cs, CS_OPT_DETAIL, CS_OPT_ON);
	ci = cs_malloc(cs);
	fast = calloc((size_t)rounds, sizeof(*fast));
	full = calloc((size_t)rounds, sizeof(*full));
	if (!ci || !fast || !full)
		return 1;
	for (int i = 0; i < rounds; i++) {
		double t0 = cpu_now(), t1, t2, t3;

		n_cs = pass_capstone(cs, ci, &t);
		t1 = cpu_now();
		n_dec = pass_decode(d, &t);
		t2 = cpu_now();
		n_info = pass_info(d, &t);
		t3 = cpu_now();
		/* rate ratio: instructions per second, each side its own count */
		fast[i][1] = t2 - t1;
		fast[i][2] = t1 - t0;
		fast[i][0] = (n_dec / fast[i][1]) / (n_cs / fast[i][2]);
		full[i][1] = t3 - t2;
		full[i][2] = t1 - t0;
		full[i][0] = (n_info / full[i][1]) / (n_cs / full[i][2]);
	}
	report("decode_vs_capstone", "target 5", fast, rounds, n_dec, n_cs, path);
	report("decode_info_vs_capstone", "no target: the full answer", full, rounds, n_info, n_cs, path);
	cs_free(ci, 1);
	cs_close(&cs);
	itrace_decoder_free(d);
	free(fast);
	free(full);
	return 0;
}
