/*
 * qtrace_dump.c - `qtrace-conv --dump FILE.qt`: one line per instruction,
 * through libqtrace's reader.  Fields are key=value so tests and scripts
 * can pick them; the disassembly (libitrace's decoder)
 * comes last, after '#'.
 *
 *   # qtrace version=0x07010000 iar=0x10000000 comment="..."
 *   iar=0x10000000 insn=0x48000100 branch=uncond taken term=0x08 next=0x10000100	# b 0x10000100
 */
#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "itrace.h"
#include "itrace_code.h"
#include "qtrace.h"

int qtrace_dump(const char *path, int verbose);

static void print_header(const struct qtrace_header *h)
{
	printf("# qtrace");
	if (h->has_version)
		printf(" version=0x%08" PRIx32, h->version);
	if (h->has_magic)
		printf(" magic=0x%08" PRIx32, h->magic);
	if (h->has_iar)
		printf(" iar=0x%" PRIx64, h->first_iar);
	if (h->comment)
		printf(" comment=\"%s\"", h->comment);
	printf("\n");
}

/* disassemble - the POWER text of the word(s), a prefixed pair as one
 * instruction; the decoder takes the bytes (here little-endian). */
static void disassemble(struct itrace_decoder *d, const struct qtrace_record *rec, char *buf,
			size_t cap)
{
	uint8_t bytes[8];

	if (!d) {
		buf[0] = '\0';
		return;
	}
	for (int i = 0; i < 4; i++) {
		bytes[i] = (uint8_t)(rec->insn >> (8 * i));
		bytes[4 + i] = (uint8_t)(rec->suffix >> (8 * i));
	}
	if (itrace_decoder_text(d, bytes, rec->len == 8 ? 8 : 4, rec->iar, buf, cap) < 0) {
		if (rec->len == 8)
			snprintf(buf, cap, ".long 0x%08" PRIx32 ", 0x%08" PRIx32, rec->insn, rec->suffix);
		else
			snprintf(buf, cap, ".long 0x%08" PRIx32, rec->insn);
	}
}

static void print_record(struct itrace_decoder *d, const struct qtrace_record *rec, int verbose)
{
	char text[128];

	printf("iar=0x%" PRIx64 " insn=0x%08" PRIx32, rec->iar, rec->insn);
	if (rec->len == 8)
		printf(" suffix=0x%08" PRIx32, rec->suffix);
	if (rec->has_data_addr)
		printf(" data=0x%" PRIx64, rec->data_addr);
	if (rec->is_branch)
		printf(" branch=%s %s", rec->conditional ? "cond" : "uncond",
		       rec->taken ? "taken" : "not-taken");
	if (rec->has_term)
		printf(" term=0x%02x", rec->term_code);
	if (rec->next_iar != rec->iar + rec->len)
		printf(" next=0x%" PRIx64, rec->next_iar);
	if (verbose)
		printf(" offset=%" PRIu64, rec->offset);
	disassemble(d, rec, text, sizeof(text));
	printf("\t# %s\n", text);
}

int qtrace_dump(const char *path, int verbose)
{
	struct itrace_decoder *d = NULL;
	struct qtrace_reader *r;
	struct qtrace_record rec;
	uint64_t n = 0;
	int rc;

	rc = qtrace_reader_open(path, &r);
	if (rc < 0) {
		cli_error("cannot read '%s': %s", path,
			  rc == -QTRACE_E_IO ? strerror(errno) : qtrace_errstr(rc));
		return CLI_EXIT_BAD_INPUT;
	}
	if (itrace_decoder_alloc(EM_PPC64, 1, &d) < 0)
		d = NULL; /* records are still printed, without text */
	print_header(qtrace_reader_header(r));
	while ((rc = qtrace_reader_next(r, &rec)) == 0) {
		print_record(d, &rec, verbose);
		n++;
	}
	printf("# %" PRIu64 " instructions\n", n);
	if (fflush(stdout) != 0) {
		cli_error("cannot write the dump: %s", strerror(errno));
		rc = -QTRACE_E_IO;
	} else if (rc < 0) {
		cli_error("'%s': %s", path, qtrace_reader_error(r));
	}
	itrace_decoder_free(d);
	qtrace_reader_close(r);
	return rc < 0 ? CLI_EXIT_BAD_INPUT : 0;
}
