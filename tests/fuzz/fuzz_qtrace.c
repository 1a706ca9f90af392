/*
 * fuzz_qtrace.c - libFuzzer target for libqtrace.
 *   1. Any bytes as a qtrace file: the reader must never crash, hang or
 *      over-read, and must stop (EOF or error) within the input.
 *   2. The same bytes as a list of instructions (address step, word,
 *      branch code, data address): what the writer accepts, the reader
 *      must give back field for field.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "qtrace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void read_any(const uint8_t *data, size_t size)
{
	struct qtrace_reader *r;
	struct qtrace_record rec;
	size_t guard = 0;

	if (qtrace_reader_open_mem(data, size, &r) < 0)
		return;
	while (qtrace_reader_next(r, &rec) == 0)
		if (++guard > size || rec.offset >= size)
			abort(); /* every record consumes at least 6 bytes */
	qtrace_reader_close(r);
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

#define MAX_INSNS 256
#define SPEC_BYTES 10 /* step, word, code, data */

static const uint8_t term_codes[4] = {QTRACE_TERM_NONE, QTRACE_TERM_COND, QTRACE_TERM_UNCOND,
				      QTRACE_TERM_EXCEPTION};

/* spec - instruction i from 10 input bytes; addresses walk forward or jump. */
static void spec(const uint8_t *p, uint64_t *addr, struct qtrace_insn *in)
{
	uint8_t step = p[0];

	*addr = (step & 0x80) ? 0x10000000u + 4u * (step & 0x7f) : *addr + 4 * (step & 3);
	memset(in, 0, sizeof(*in));
	in->addr = *addr;
	in->insn = get32(p + 1);
	in->len = 4;
	if (qtrace_power_is_prefix(in->insn)) {
		in->len = 8;
		in->suffix = (uint32_t)p[9] << 16;
	}
	in->term_code = term_codes[p[5] & 3];
	in->has_data_addr = p[5] & 4;
	in->data_addr = get32(p + 6);
}

static void check_same(const struct qtrace_insn *in, const struct qtrace_record *rec,
		       uint64_t next)
{
	if (rec->iar != in->addr || rec->insn != in->insn || rec->len != in->len ||
	    (in->len == 8 && rec->suffix != in->suffix) || rec->next_iar != next ||
	    rec->has_data_addr != !!in->has_data_addr ||
	    (in->has_data_addr && rec->data_addr != in->data_addr))
		abort();
	if (in->term_code && (!rec->has_term || rec->term_code != in->term_code))
		abort();
}

static void roundtrip(const uint8_t *data, size_t size)
{
	static struct qtrace_insn kept[MAX_INSNS];
	struct qtrace_writer *w;
	struct qtrace_reader *r;
	struct qtrace_record rec;
	uint64_t addr = 0x10000000;
	size_t n = 0;
	off_t len;
	uint8_t *buf;
	int fd = memfd_create("qt", 0);

	if (fd < 0 || qtrace_writer_open_fd(fd, "fuzz", &w) < 0)
		abort();
	for (size_t i = 0; i + SPEC_BYTES <= size && n < MAX_INSNS; i += SPEC_BYTES) {
		struct qtrace_insn in;

		spec(data + i, &addr, &in);
		if (qtrace_writer_add(w, &in) == 0)
			kept[n++] = in;
	}
	if (qtrace_writer_close(w) < 0)
		abort();
	len = lseek(fd, 0, SEEK_END);
	buf = malloc((size_t)len + 1);
	if (!buf || pread(fd, buf, (size_t)len, 0) != len ||
	    qtrace_reader_open_mem(buf, (size_t)len, &r) < 0)
		abort();
	for (size_t i = 0; i < n; i++) {
		uint64_t next = i + 1 < n ? kept[i + 1].addr : kept[i].addr + kept[i].len;

		if (qtrace_reader_next(r, &rec) != 0)
			abort();
		check_same(&kept[i], &rec, next);
	}
	if (qtrace_reader_next(r, &rec) != QTRACE_EOF)
		abort();
	qtrace_reader_close(r);
	free(buf);
	close(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	read_any(data, size);
	roundtrip(data, size);
	return 0;
}
