/*
 * batch.h - columns of trace records, in C (no Python): the batch reader
 * behind Trace.batches() and the Arrow C stream interface behind
 * __arrow_c_stream__ (arrow_stream.c).  Internal to the Python package.
 */
#ifndef ITRACE_PY_BATCH_H
#define ITRACE_PY_BATCH_H

#include <stddef.h>
#include <stdint.h>

#include "itrace.h"

/* The columns, by id (batch_column_name gives the names Python uses). */
enum batch_column {
	COL_TYPE, COL_TID, COL_PID, COL_TIME_NS, COL_CHUNK, COL_ADDR, COL_LEN,
	COL_SIZE, COL_STORE, COL_SRC, COL_DST, COL_KIND, COL_TAKEN,
	BATCH_NCOLS
};

/* batch_column_by_name - the id of column `name`, or -1. */
int batch_column_by_name(const char *name);
/* batch_column_name - the name of column `c`. */
const char *batch_column_name(int c);
/* batch_column_names - every name, separated by ", " (for messages). */
const char *batch_column_names(void);
/* batch_column_format - its struct-module format: 'B', 'I' or 'Q'. */
char batch_column_format(int c);
/* batch_column_arrow_format - its Arrow C data interface format: "C", "I", "L". */
const char *batch_column_arrow_format(int c);

/* One batch: n rows of ncols columns; data[i] is malloc'd and belongs to
 * the caller (who frees it, or hands it on). */
struct batch {
	size_t n, ncols;
	int cols[BATCH_NCOLS];
	void *data[BATCH_NCOLS];
};

struct batch_reader;

/*
 * batch_reader_new - batches of the records of reader r (taken over: freed
 * with the batch reader) whose type is in the bit set types[2], with the
 * columns cols[0..ncols), at most `size` rows each.  NULL: no memory.
 */
struct batch_reader *batch_reader_new(struct itrace_reader *r, const uint64_t *types,
				      const int *cols, size_t ncols, size_t size);
/* batch_reader_free - NULL is a no-op. */
void batch_reader_free(struct batch_reader *b);
/*
 * batch_reader_fill - the next batch into *out.  Returns 0 with out->n
 * rows (0: the end); a negative code when the reader met damage: out->n
 * then holds the rows before it (possibly 0), and the next call returns
 * the code with no rows if out->n was not 0 (every complete record is
 * delivered first, then the error, as itrace_reader_next does).  Out of
 * memory: -ITRACE_E_NOMEM.
 */
int batch_reader_fill(struct batch_reader *b, struct batch *out);
/* batch_reader_error - the reader's message for the last damage. */
const char *batch_reader_error(const struct batch_reader *b);
/* batch_reader_clear_error - the damage was reported: read on (after a
 * corrupt chunk the reader resynchronises; else it is at its end). */
void batch_reader_clear_error(struct batch_reader *b);
/* batch_reader_reader - the reader (footer, after the end). */
struct itrace_reader *batch_reader_reader(struct batch_reader *b);

/* The Arrow C stream interface ("The Arrow C stream interface", Apache
 * Arrow's specification), a struct the consumer calls. */
struct ArrowArrayStream;
/* arrow_stream_new - a stream over batch reader b (taken over). */
struct ArrowArrayStream *arrow_stream_new(struct batch_reader *b);
/* arrow_stream_free - release the stream unless a consumer moved it out
 * (its release is then NULL), and free the struct.  NULL is a no-op. */
void arrow_stream_free(struct ArrowArrayStream *s);

#endif
