/*
 * fuzz_image.c - libFuzzer target: any bytes as an ELF file mapped by an
 * MMAP record.  The image's ELF handling (libelf on the bytes, the GNU
 * build-id note, the program headers that give the load bias, the bytes
 * a lookup hands out, the symbol tables) must cope with a hostile file:
 * no crash, no read past what it reports.  The first 16 bytes of the
 * input place the mapping (start, length, file offset) and choose a
 * build-id to expect; the rest is the file, read from memory.
 */
#include <gelf.h>
#include <libelf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "image_int.h"
#include "itrace.h"
#include "itrace_code.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint64_t le(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < n; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct itrace_image_options o;
	struct itrace_image *img;
	struct itrace_mmap m;
	struct itrace_elf_symbol sym;
	struct image_mapping_view v;
	volatile uint8_t sink = 0;
	uint8_t *file;
	Elf *elf;

	if (size < 16)
		return 0;
	/* libelf may convert data in place: a copy, not the fuzzer's input */
	file = malloc(size - 16 + 1);
	if (!file)
		return 0;
	memcpy(file, data + 16, size - 16);
	memset(&m, 0, sizeof(m));
	m.pid = 1;
	m.start = le(data, 4) << 12;
	m.len = (le(data + 4, 2) + 1) << 12;
	m.pgoff = le(data + 6, 2) << 12;
	m.path = "fuzz.elf";
	m.path_len = 8;
	m.buildid_len = data[8] & 1 ? 20 : 0; /* expect a build-id: the note is parsed */
	memcpy(m.buildid, data + 9, 7);
	itrace_image_options_init(&o);
	if (itrace_image_alloc(&o, &img) < 0) {
		free(file);
		return 0;
	}
	if (image_add_elf_memory(img, &m, file, size - 16) == 0 &&
	    itrace_image_add_mmap(img, &m) == 0) {
		for (uint64_t a = m.start; a < m.start + m.len; a += m.len / 8 + 1) {
			struct itrace_image_loc loc;

			if (itrace_image_lookup(img, 1, a, &loc) == 0 && loc.avail)
				sink ^= loc.bytes[0] ^ loc.bytes[loc.avail - 1];
		}
		if (image_mapping_at(img, 1, 0, &v) == 0)
			sink ^= (uint8_t)v.bias;
	}
	itrace_image_free(img);
	elf = elf_memory((char *)file, size - 16);
	if (elf) {
		elf_find_symbol(elf, "main", &sym);
		elf_end(elf);
	}
	free(file);
	(void)sink;
	return 0;
}
