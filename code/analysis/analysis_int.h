/*
 * analysis_int.h - what the driver (analysis_run.c) uses of the engine
 * (analysis.c) beyond itrace_analysis_*.  Internal to libitrace-code.
 */
#ifndef ITRACE_ANALYSIS_INT_H
#define ITRACE_ANALYSIS_INT_H

#include "itrace_code.h"

/*
 * analysis_alloc_on - itrace_analysis_alloc() on image `img` (kept by the
 * caller until the analysis is finished or freed) instead of an image of
 * its own (img NULL): itrace_analysis_add() feeds it the MMAP, CODE and
 * PROCESS records, and the analysis reads code and mappings from it; the
 * caller may share it (a symbolizer on it).  It is made to keep the spaces
 * that end (image_keep_spaces()).
 */
int analysis_alloc_on(const struct itrace_analysis_options *opts, struct itrace_image *img,
		      struct itrace_analysis **ap);

/*
 * analysis_add_module_functions - add every function with debug info of
 * each module that ran code (itrace_symbolizer_functions() on `sym`),
 * before analysis_add_unexecuted(): ITRACE_RUN_ALL_FUNCTIONS.  0 or a
 * negative code.
 */
int analysis_add_module_functions(struct itrace_analysis *a, struct itrace_symbolizer *sym);

/*
 * analysis_add_unexecuted - before finishing, add the instructions of
 * every function with a size that never ran, count 0, decoded from the
 * function's start.  While a function is swept *sweep points at it (NULL
 * otherwise): the symbolizer callback may take its name and range from
 * there.  0 or a negative code.
 */
int analysis_add_unexecuted(struct itrace_analysis *a, const struct itrace_analysis_function **sweep);

/* analysis_set_run_error - what itrace_analysis_run_error() says. */
void analysis_set_run_error(struct itrace_analysis *a, const char *msg);

#endif
