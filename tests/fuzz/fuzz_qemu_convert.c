/*
 * fuzz_qemu_convert.c - libFuzzer target: any bytes as the slots the
 * itrace QEMU plugin hands itrace-collect (collectors/qemu/qemu_wire.h).
 * The converter must never crash or over-read on words its plugin never
 * writes: it turns them into records or says the stream is corrupt.  And
 * whatever the writer accepted from it must read back without an error.
 *
 * Input: byte 0 chooses the form (bit 0: BLOCK records as the backend
 * writes them, else INSN_RUN + MEM; bit 1: branch level; bit 2: a POWER
 * program, else x86-64), then slots, each a byte choosing its thread (0:
 * the block descriptions, else one of four threads), a byte with its
 * number of words, and the words (64-bit, host order).  The program is a
 * made-up ELF image of one executable page, as in test_qemu_convert.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz_readback.h"
#include "itrace.h"
#include "qemu_convert.h"

#define EXE_BASE 0x10000000ULL
#define PID 4242

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* feed - the slots of the input, in order, until one is refused. */
static int feed(struct qemu_conv *c, const uint8_t *p, const uint8_t *end)
{
	while (end - p >= 2) {
		uint32_t tid = p[0] ? PID + (uint32_t)(p[0] % 4) : 0;
		size_t n = p[1], avail = (size_t)(end - p - 2) / 8;
		struct qw_note note;
		uint64_t *w;
		int rc;

		p += 2;
		n = n < avail ? n : avail;
		/* exactly n words, so that ASan sees a read past the end */
		w = malloc(n ? n * 8 : 1);
		if (!w)
			abort();
		memcpy(w, p, n * 8);
		p += n * 8;
		note = (struct qw_note){ 0, (uint32_t)n, PID, tid };
		rc = qc_slot(c, &note, w, n);
		free(w);
		if (rc < 0)
			return rc;
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	struct itrace_writer_options o;
	struct itrace_writer *w;
	struct qemu_conv *c;
	struct qemu_elf exe;
	struct qc_options q;
	uint16_t machine;
	off_t file_len;
	int rc;

	if (size < 1)
		return 0;
	if (fd < 0 && (fd = memfd_create("fuzz-qemu", 0)) < 0)
		abort();
	if (lseek(fd, 0, SEEK_SET) < 0)
		abort();
	machine = data[0] & 4 ? 21 : 62; /* EM_PPC64, EM_X86_64 */
	itrace_writer_options_init(&o);
	o.machine = machine;
	o.compression = ITRACE_COMPRESS_NONE;
	o.chunk_bytes = 4096;
	o.level = data[0] & 2 ? ITRACE_LEVEL_BRANCH : ITRACE_LEVEL_INSN;
	o.features = data[0] & 1 ? ITRACE_FEAT_BLOCK : 0;
	if (itrace_writer_open_fd(fd, &o, &w) < 0)
		abort();
	memset(&exe, 0, sizeof(exe));
	exe.machine = machine;
	exe.endian = 1;
	exe.is64 = exe.is_exec = 1;
	exe.entry = EXE_BASE;
	exe.load[0] = (struct qemu_elf_load){ EXE_BASE, 0x1000, 0, PROT_READ | PROT_EXEC };
	exe.n_load = 1;
	memset(&q, 0, sizeof(q));
	q.level = o.level;
	q.exe = "/nonexistent/prog";
	q.exe_elf = &exe;
	q.interp = "";
	if (qc_alloc(&q, machine, 1, w, &c) < 0)
		abort();
	rc = feed(c, data + 1, data + size);
	if (rc == 0)
		rc = qc_finish(c, 0);
	qc_free(c);
	if (itrace_writer_close(w, rc == 0 ? ITRACE_END_COMPLETE : ITRACE_END_ERROR, 0) < 0)
		abort();
	if ((file_len = lseek(fd, 0, SEEK_CUR)) < 0)
		abort();
	fuzz_read_back(fd, file_len);
	return 0;
}
