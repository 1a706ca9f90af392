/*
 * fuzz_readback.h - for the fuzz targets of the collectors' converters:
 * the trace they wrote to a memory file reads back without an error.
 */
#ifndef FUZZ_READBACK_H
#define FUZZ_READBACK_H

#include <stdlib.h>
#include <sys/types.h>
#include <unistd.h>

#include "itrace.h"

/* fuzz_read_back - every record of the trace in fd (file_len bytes from
 * offset 0) reads without an error, up to a bound on the work per input;
 * abort() otherwise.  The copy is exactly the file's size, so that ASan
 * sees a read past its end. */
static inline void fuzz_read_back(int fd, off_t file_len)
{
	struct itrace_reader *r;
	struct itrace_record rec;
	uint8_t *file = malloc(file_len ? (size_t)file_len : 1);
	int rc, n = 0;

	if (!file || pread(fd, file, (size_t)file_len, 0) != file_len ||
	    itrace_reader_open_mem(file, (size_t)file_len, &r) < 0)
		abort();
	while ((rc = itrace_reader_next(r, &rec, sizeof(rec))) == 0 && n++ < 65536)
		;
	if (rc < 0)
		abort();
	itrace_reader_close(r);
	free(file);
}

#endif
