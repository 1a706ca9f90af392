/*
 * decode_oracle.c - the decoder against binutils' objdump, instruction by
 * instruction (tests/real/decode_objdump.sh).
 *
 *   objdump -d -w FILE | decode-oracle FILE
 *   decode-oracle --trace TRACE.itr
 *
 * objdump disassembles each symbol linearly from its start.  For every
 * instruction it shows, libitrace's decoder, walking the same bytes
 * linearly from the same symbol start, must find an instruction at the
 * same address, of the same length, and for a direct branch the same
 * target; where objdump decodes an instruction the decoder must too.
 * Where objdump itself cannot decode ("(bad)", ".long", ".byte"), the
 * rest of that symbol is not compared.  Prints one summary line and up to
 * 10 disagreements; exits 0 when there are none.
 *
 * With --trace, every instruction an instruction-level trace executed is
 * decoded (once per address, code from the INSN bytes or the traced
 * files): each must decode, to the length the collector recorded (for
 * the valgrind backend that length comes from Valgrind's own decoder).
 */
#include <ctype.h>
#include <elf.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "itrace.h"
#include "itrace_code.h"

struct section {
	uint64_t addr, size;
	const uint8_t *bytes;
};

struct oracle {
	struct itrace_decoder *dec;
	Elf *elf;	  /* open while the section data is used */
	int fd;
	struct section *secs;
	size_t nsecs;
	uint64_t pc;	  /* our position in the current symbol */
	int walking;	  /* pc is valid: comparing this symbol */
	int zeros;	  /* objdump skipped zero bytes from pc ("...") */
	uint64_t insns, symbols, boundary, target, undecodable, skipped_syms;
	int shown;
};

static const struct section *section_at(const struct oracle *o, uint64_t addr)
{
	for (size_t i = 0; i < o->nsecs; i++)
		if (addr >= o->secs[i].addr && addr < o->secs[i].addr + o->secs[i].size)
			return &o->secs[i];
	return NULL;
}

static void report(struct oracle *o, const char *what, const char *line)
{
	if (o->shown++ < 10)
		printf("# %s: %s\n", what, line);
}

/* The executable sections' bytes, and the decoder for the file's machine. */
static int load(struct oracle *o, const char *path)
{
	int fd = open(path, O_RDONLY);
	Elf *e;
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;

	if (fd < 0) {
		perror(path);
		return -1;
	}
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	o->elf = e;
	o->fd = fd;
	if (!e || !gelf_getehdr(e, &eh)) {
		fprintf(stderr, "%s: not an ELF file\n", path);
		return -1;
	}
	if (itrace_decoder_alloc(eh.e_machine, eh.e_ident[EI_DATA], &o->dec) < 0) {
		fprintf(stderr, "%s: machine %u not supported\n", path, eh.e_machine);
		return -1;
	}
	while ((scn = elf_nextscn(e, scn)) != NULL) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS || !(sh.sh_flags & SHF_EXECINSTR))
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf)
			continue;
		o->secs = realloc(o->secs, (o->nsecs + 1) * sizeof(*o->secs));
		if (!o->secs)
			return -1;
		o->secs[o->nsecs++] = (struct section){sh.sh_addr, d->d_size, d->d_buf};
	}
	return 0; /* e and fd stay open: the section data points into them */
}

/*
 * objdump's direct target: the last operand when it is a bare hexadecimal
 * address, as in "call 1234 <f>", "beq cr7,1234 <f+0x8>" or "data16
 * data16 rex.W call 1234 <f>" (the prefixes are words of the mnemonic).
 * `text` is the mnemonic and operands.
 */
static int objdump_target(const char *text, uint64_t *target)
{
	char buf[256], *p, *end, *tok;
	const char *comma;

	snprintf(buf, sizeof(buf), "%s", text);
	buf[strcspn(buf, "<#\n")] = '\0';
	comma = strrchr(buf, ',');
	p = comma ? (char *)comma + 1 : buf;
	while ((end = p + strlen(p)) > p && end[-1] == ' ')
		end[-1] = '\0';
	tok = strrchr(p, ' ');
	if (!tok && !comma)
		return 0; /* no operand at all */
	tok = tok ? tok + 1 : p;
	if (!isxdigit((unsigned char)*tok))
		return 0;
	*target = strtoull(tok, &end, 16);
	return *end == '\0';
}

/* One objdump instruction line: "  addr:\tbytes\tmnemonic operands". */
static void instruction(struct oracle *o, char *line)
{
	char *tab1 = strchr(line, '\t'), *tab2, *mn;
	uint64_t addr = strtoull(line, NULL, 16), target;
	unsigned nbytes = 0;
	const struct section *s;
	struct itrace_decoded d;

	if (!tab1 || !o->walking)
		return;
	tab2 = strchr(tab1 + 1, '\t');
	for (char *p = tab1 + 1; *p && *p != '\t'; p++)
		if (isxdigit((unsigned char)p[0]) && isxdigit((unsigned char)p[1])) {
			nbytes++;
			p++;
		}
	mn = tab2 ? tab2 + 1 : NULL;
	if (!mn || !*mn || strstr(mn, "(bad)") || !strncmp(mn, ".long", 5) || !strncmp(mn, ".byte", 5) ||
	    !strncmp(mn, ".word", 5) || !strncmp(mn, ".short", 6)) {
		o->walking = 0; /* objdump cannot decode: the rest of the symbol is data */
		o->skipped_syms++;
		return;
	}
	line[strcspn(line, "\n")] = '\0';
	if (o->zeros) {
		/* objdump printed "..." for zero bytes it skipped */
		s = section_at(o, o->pc);
		for (uint64_t a = o->pc; s && a < addr && a < s->addr + s->size; a++)
			if (s->bytes[a - s->addr])
				s = NULL;
		if (s && addr > o->pc)
			o->pc = addr;
		o->zeros = 0;
	}
	if (addr != o->pc) {
		o->boundary++;
		report(o, "boundary (decoder expected an instruction elsewhere)", line);
		o->walking = 0;
		return;
	}
	s = section_at(o, addr);
	if (!s || itrace_decoder_decode(o->dec, s->bytes + (addr - s->addr), s->addr + s->size - addr,
					addr, &d) < 0) {
		o->undecodable++;
		report(o, "undecodable", line);
		o->walking = 0;
		return;
	}
	o->insns++;
	if (d.len == 1 && nbytes > 1 && s->bytes[addr - s->addr] == 0x9b) {
		/* objdump shows fwait + fnstcw as "fstcw" (likewise fstsw,
		 * fstenv, fsave, finit, fclex): two instructions to the CPU
		 * (Intel SDM, FSTCW: "an assembler mnemonic for an FWAIT
		 * instruction followed by an FNSTCW instruction") */
		struct itrace_decoded next;

		if (itrace_decoder_decode(o->dec, s->bytes + (addr + 1 - s->addr),
					  s->addr + s->size - addr - 1, addr + 1, &next) == 0) {
			o->insns++;
			d.len = (uint8_t)(1 + next.len);
		}
	}
	if (d.len != nbytes) {
		o->boundary++;
		report(o, "length", line);
		o->walking = 0;
		return;
	}
	o->pc = addr + d.len;
	if (d.flags & ITRACE_DECODED_HAS_TARGET) {
		if (!objdump_target(mn, &target) || target != d.target) {
			o->target++;
			report(o, "branch target", line);
		}
	} else if (d.kind != ITRACE_INSN_NOT_BRANCH && d.kind != ITRACE_BRANCH_SYSCALL &&
		   objdump_target(mn, &target)) {
		o->target++;
		report(o, "direct branch taken as indirect", line);
	}
}

/* ---- --trace ------------------------------------------------------------ */

struct seen {
	uint64_t *addr; /* open addressing; 0 = empty (no code at address 0) */
	size_t cap, n;
};

/* seen_add - 1 when addr is new (and remembers it), 0 when known. */
static int seen_add(struct seen *s, uint64_t addr)
{
	size_t i;

	if (s->n * 2 >= s->cap) {
		struct seen bigger = {calloc(s->cap ? 2 * s->cap : 4096, sizeof(uint64_t)),
				      s->cap ? 2 * s->cap : 4096, 0};

		if (!bigger.addr)
			return 1;
		for (size_t k = 0; k < s->cap; k++)
			if (s->addr[k])
				seen_add(&bigger, s->addr[k]);
		free(s->addr);
		*s = bigger;
	}
	for (i = (addr * 0x9e3779b97f4a7c15ull >> 20) & (s->cap - 1); s->addr[i]; i = (i + 1) & (s->cap - 1))
		if (s->addr[i] == addr)
			return 0;
	s->addr[i] = addr;
	s->n++;
	return 1;
}

static int check_trace(const char *path)
{
	struct itrace_reader *r;
	struct itrace_image *img = NULL;
	struct itrace_image_options io;
	struct itrace_decoder *dec;
	const struct itrace_header *h;
	struct itrace_record rec;
	struct seen seen = {0};
	uint64_t insns = 0, undecodable = 0, nobytes = 0, length = 0;
	int rc, shown = 0;

	rc = itrace_reader_open(path, &r);
	if (rc < 0) {
		fprintf(stderr, "%s: %s\n", path, itrace_errstr(rc));
		return 1;
	}
	h = itrace_reader_header(r);
	itrace_image_options_init(&io);
	if (itrace_decoder_alloc(h->machine, h->target_endian, &dec) < 0 || itrace_image_alloc(&io, &img) < 0) {
		fprintf(stderr, "%s: machine %u not supported\n", path, h->machine);
		return 1;
	}
	while ((rc = itrace_reader_next(r, &rec, sizeof(rec))) == 0) {
		const struct itrace_insn *in = &rec.u.insn;
		struct itrace_image_loc loc;
		struct itrace_decoded d;
		const uint8_t *code = in->bytes;
		size_t avail = in->len;

		if (rec.type == ITRACE_REC_MMAP || rec.type == ITRACE_REC_CODE || rec.type == ITRACE_REC_PROCESS)
			itrace_image_apply(img, &rec);
		if (rec.type != ITRACE_REC_INSN)
			continue;
		insns++;
		if (!seen_add(&seen, in->addr))
			continue;
		if (!in->has_bytes) {
			if (itrace_image_lookup(img, rec.pid, in->addr, &loc) < 0 || loc.avail < in->len) {
				nobytes++;
				continue;
			}
			code = loc.bytes;
			avail = loc.avail;
		}
		if (itrace_decoder_decode(dec, code, avail, in->addr, &d) < 0) {
			undecodable++;
			if (shown++ < 10) {
				printf("# undecodable at 0x%" PRIx64 ":", in->addr);
				for (unsigned i = 0; i < in->len; i++)
					printf(" %02x", code[i]);
				printf("\n");
			}
		} else if (d.len != in->len) {
			length++;
			if (shown++ < 10)
				printf("# 0x%" PRIx64 ": the trace says %u bytes, the decoder %u\n", in->addr,
				       in->len, d.len);
		}
	}
	printf("%s: %" PRIu64 " instructions (%zu addresses); %" PRIu64 " undecodable, %" PRIu64
	       " of another length, %" PRIu64 " without code%s\n",
	       path, insns, seen.n, undecodable, length, nobytes, rc < 0 ? "; the trace is damaged" : "");
	itrace_image_free(img);
	itrace_decoder_free(dec);
	itrace_reader_close(r);
	free(seen.addr);
	return insns > 0 && !undecodable && !length && !nobytes && rc >= 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
	struct oracle o;
	char line[4096];

	memset(&o, 0, sizeof(o));
	o.fd = -1;
	if (argc == 3 && !strcmp(argv[1], "--trace"))
		return check_trace(argv[2]);
	if (argc != 2) {
		fprintf(stderr, "usage: objdump -d -w FILE | decode-oracle FILE\n"
				"       decode-oracle --trace TRACE\n");
		return 2;
	}
	if (load(&o, argv[1]) < 0)
		return 1;
	while (fgets(line, sizeof(line), stdin)) {
		char *colon;

		/* "0000000000028c40 <name>:" starts a symbol */
		if (isxdigit((unsigned char)line[0]) && (colon = strstr(line, ">:")) != NULL) {
			o.pc = strtoull(line, NULL, 16);
			o.walking = 1;
			o.zeros = 0;
			o.symbols++;
			continue;
		}
		if (line[0] == ' ' && strchr(line, ':') && strchr(line, '\t'))
			instruction(&o, line);
		else if (!strcmp(line, "\t...\n") && o.walking)
			o.zeros = 1;
	}
	printf("%s: %" PRIu64 " instructions in %" PRIu64 " symbols; %" PRIu64
	       " boundary, %" PRIu64 " target disagreements, %" PRIu64 " undecodable (%" PRIu64
	       " symbols end in data)\n",
	       argv[1], o.insns, o.symbols, o.boundary, o.target, o.undecodable, o.skipped_syms);
	itrace_decoder_free(o.dec);
	free(o.secs);
	elf_end(o.elf);
	close(o.fd);
	return o.insns > 0 && !o.boundary && !o.target && !o.undecodable ? 0 : 1;
}
