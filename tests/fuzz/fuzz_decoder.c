/*
 * fuzz_decoder.c - libFuzzer target: any bytes as instructions.  The first
 * byte picks the architecture (x86-64, ppc64le, ppc64 big-endian); the
 * rest is decoded linearly with every entry point of the decoder, which
 * must never crash or read past the bytes it was given, and must agree
 * with itself: the fast answer equals the full one, the text has the
 * same length, effective addresses come out for any register values.
 */
#include <elf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "itrace.h"
#include "itrace_code.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct { uint16_t machine; uint8_t endian; } arches[] = {
		{EM_X86_64, ELFDATA2LSB}, {EM_PPC64, ELFDATA2LSB}, {EM_PPC64, ELFDATA2MSB}};
	/* one decoder per architecture for the whole run (opening one
	 * builds its tables: most of the time of a small input) */
	static struct itrace_decoder *decoders[3];
	/* the bytes of each instruction go at the end of this heap block, so
	 * that ASan sees a read past them, without a malloc per instruction */
	static uint8_t *window;
	struct itrace_decoder *d;
	struct itrace_regs r;
	size_t off = 1;

	if (size < 2 || (!window && !(window = malloc(16))))
		return 0;
	if (!decoders[data[0] % 3] &&
	    itrace_decoder_alloc(arches[data[0] % 3].machine, arches[data[0] % 3].endian,
				 &decoders[data[0] % 3]) < 0)
		return 0;
	d = decoders[data[0] % 3];
	memset(&r, 0x5a, sizeof(r));
	while (off < size) {
		/* a copy of exactly the readable bytes, ending where the heap
		 * block ends: ASan sees over-reads */
		size_t n = size - off < 16 ? size - off : 16;
		uint8_t *b = window + 16 - n;
		struct itrace_decoded fast;
		struct itrace_insn_info in;
		struct itrace_mem_access acc[ITRACE_INSN_MAX_MEM * 2];
		char text[96];
		int rf, ri, rt;

		memcpy(b, data + off, n);
		rf = itrace_decoder_decode(d, b, n, 0x400000 + off, &fast);
		ri = itrace_decoder_info(d, b, n, 0x400000 + off, &in);
		rt = itrace_decoder_text(d, b, n, 0x400000 + off, text, sizeof(text));
		if (rf != ri || (rf == 0 && (fast.len != in.d.len || fast.kind != in.d.kind ||
					     fast.target != in.d.target || fast.flags != in.d.flags ||
					     rt != fast.len)))
			abort();
		if (ri == 0) {
			itrace_insn_mem_accesses(&in, &r, acc, (int)(sizeof(acc) / sizeof(acc[0])));
			for (unsigned i = 0; i < in.nread; i++)
				(void)itrace_decoder_reg_name(d, in.read[i]);
			(void)itrace_insn_class_name(in.cls);
		}
		off += rf == 0 ? fast.len : 1;
	}
	return 0;
}
