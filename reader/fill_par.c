/* fill_par.c - filling chunks in parallel (see fill_run.c). */
#include "fill_int.h"

int fill_parallel(struct itrace_filler *f, struct itrace_reader *r, const char *path,
		  itrace_fill_output_fn out, void *out_arg, struct itrace_fill_stats *st,
		  char *err, size_t errlen);

int fill_buffer_append(struct fill_buffer *b, const struct itrace_record *rec);

int fill_parallel(struct itrace_filler *f, struct itrace_reader *r, const char *path,
		  itrace_fill_output_fn out, void *out_arg, struct itrace_fill_stats *st,
		  char *err, size_t errlen)
{
	(void)f, (void)r, (void)path, (void)out, (void)out_arg, (void)st, (void)err, (void)errlen;
	return -ITRACE_E_NOTSUP;
}

int fill_buffer_append(struct fill_buffer *b, const struct itrace_record *rec)
{
	(void)b, (void)rec;
	return -ITRACE_E_INTERNAL;
}
