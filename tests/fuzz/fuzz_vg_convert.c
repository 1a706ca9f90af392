/*
 * fuzz_vg_convert.c - libFuzzer target: any bytes as the word stream the
 * itrace Valgrind tool sends itrace-collect (collectors/valgrind/vg_wire.h).
 * The converter must never crash or over-read on words its tool never
 * writes: it turns them into records or says the stream is corrupt.  And
 * whatever the writer accepted from it must read back without an error:
 * the converter must not make a trace the reader refuses.
 *
 * Input: byte 0 chooses the writer's form (bit 0: BLOCK records as the
 * backend writes them, else INSN_RUN + MEM; bit 1: --start/--stop scope
 * (only_active); bit 2: branch level; bit 3: BRANCH_SEQ records, as the
 * backend writes them at branch level), byte 1 where the words are cut in
 * two calls (a record cut at a buffer's end waits for the next call, as
 * with the tool's slots); the rest are 64-bit words in host order.  The
 * trace goes to a memory file made once and is read back from memory.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz_readback.h"
#include "itrace.h"
#include "vg_convert.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	struct itrace_writer_options o;
	struct itrace_writer *w;
	struct vg_convert c;
	uint64_t *words;
	size_t n, cut, used = 0, used2 = 0;
	off_t file_len;
	int rc;

	if (size < 2)
		return 0;
	if (fd < 0 && (fd = memfd_create("fuzz-vg", 0)) < 0)
		abort();
	if (lseek(fd, 0, SEEK_SET) < 0)
		abort();
	n = (size - 2) / 8;
	/* exactly n words, so that ASan sees a read past the end */
	words = malloc(n ? n * 8 : 1);
	if (!words)
		abort();
	memcpy(words, data + 2, n * 8);
	cut = n ? data[1] % (n + 1) : 0;

	itrace_writer_options_init(&o);
	o.compression = ITRACE_COMPRESS_NONE;
	o.chunk_bytes = 4096;
	o.flags = ITRACE_FF_MEM;
	o.features = (data[0] & 1 ? ITRACE_FEAT_BLOCK : 0) |
		     ((data[0] >> 3) & 1 ? ITRACE_FEAT_BRANCH_SEQ : 0);
	if (data[0] & 4) {
		o.level = ITRACE_LEVEL_BRANCH;
		o.flags = 0;
	}
	if (itrace_writer_open_fd(fd, &o, &w) < 0)
		abort();
	vg_convert_init(&c, w, (data[0] >> 1) & 1);
	rc = vg_convert_words(&c, words, cut, &used);
	if (rc == 0)
		rc = vg_convert_words(&c, words + used, n - used, &used2);
	if (rc == 0)
		rc = vg_convert_finish(&c, 0);
	vg_convert_free(&c);
	if (itrace_writer_close(w, rc == 0 ? ITRACE_END_COMPLETE : ITRACE_END_ERROR, 0) < 0)
		abort();
	if ((file_len = lseek(fd, 0, SEEK_CUR)) < 0)
		abort();
	fuzz_read_back(fd, file_len);
	free(words);
	return 0;
}
