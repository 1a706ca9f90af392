/*
 * input.h - executed instructions from an itrace file (instruction level,
 * with MEM records) or a qtrace file, one struct sim_dyn at a time, each
 * with the address executed next (one record of look-ahead) so that the
 * core knows branch outcomes.  Instruction bytes come from the INSN
 * records when they carry them, else from the image (MMAP/CODE records ->
 * ELF files) of libitrace.
 */
#ifndef SIM_INPUT_H
#define SIM_INPUT_H

#include <stddef.h>
#include <stdint.h>

#include "itrace.h"
#include "itrace_code.h"
#include "sem.h"
#include "sim.h"

enum sim_format { SIM_FMT_AUTO, SIM_FMT_ITRACE, SIM_FMT_QTRACE };

struct sim_input;

/*
 * sim_input_open - open `path` ("-" = stdin, itrace only) as `format`.
 * Returns 0, or -1 with a one-line message in err.
 */
int sim_input_open(const char *path, int format, const char *sysroot, struct sim_input **ip,
		   char *err, size_t errlen);
/* sim_input_open_mem - an itrace file in memory (fuzzing, tests); no
 * image: instructions without bytes stay undecoded, no symbols. */
int sim_input_open_mem(const void *buf, size_t len, struct sim_input **ip, char *err, size_t errlen);
void sim_input_close(struct sim_input *in);
/* sim_input_reopen_mem - *ip (of sim_input_open_mem) on another trace in
 * memory, as sim_input_open_mem would open it, keeping its reader's and
 * its own buffers (callers that simulate many short traces: the fuzz
 * target).  Returns 0, or -1 with a message in err and *ip NULL (freed). */
int sim_input_reopen_mem(struct sim_input **ip, const void *buf, size_t len, char *err, size_t errlen);

/*
 * sim_input_add_elf - map the loadable segments of ELF file `path` at
 * their link addresses plus `bias` (0 for a static, non-PIE executable),
 * for traces without MMAP records (qtrace, synthetic): code bytes and
 * symbols then come from it.  Returns 0, or -1 with a message in err.
 */
int sim_input_add_elf(struct sim_input *in, const char *path, uint64_t bias, char *err, size_t errlen);

/* sim_input_arch - enum sim_arch of the trace. */
int sim_input_arch(const struct sim_input *in);

/*
 * sim_input_next - the next executed instruction, in *d (valid until the
 * call after next: the input alternates two buffers).  Returns 0, 1 at the
 * end, -1 on damage (every instruction before it has been delivered;
 * sim_input_error() says what).
 */
int sim_input_next(struct sim_input *in, const struct sim_dyn **d);
const char *sim_input_error(const struct sim_input *in);

/*
 * sim_input_damage - the first corrupt chunk the reader skipped (its
 * message, with the file offset), or NULL when none was: reading goes on
 * after such damage, so sim_input_next() does not return -1 for it, but
 * the simulation lacks the skipped instructions (stats: corrupt,
 * chunks_lost).
 */
const char *sim_input_damage(const struct sim_input *in);

/*
 * sim_input_code - bytes of the instruction at addr in process pid from
 * the image; NULL when unknown.  *avail receives the readable count.
 */
const uint8_t *sim_input_code(struct sim_input *in, uint32_t pid, uint64_t addr, size_t *avail);

/*
 * sim_input_sem - the cached semantics of d's instruction in t: decoded
 * from the record's bytes, or from the image on first sight.  NULL only
 * when out of memory.
 */
struct sim_sem *sim_input_sem(struct sim_input *in, struct sim_semtab *t, const struct sim_dyn *d);

/* sim_input_symbol - symbol (and source line) of addr; 0 or -1. */
int sim_input_symbol(struct sim_input *in, uint32_t pid, uint64_t addr, int with_line,
		     struct itrace_symbol *out);

/* sim_input_has_mem - the trace records data addresses (MEM records). */
int sim_input_has_mem(const struct sim_input *in);

/* sim_input_total - instructions in the trace when its footer says, else 0. */
uint64_t sim_input_total(const struct sim_input *in);

/* sim_input_itrace_read - the itrace reader once read to its end (so its
 * footer is known, for cli_warn_incomplete), else NULL (qtrace input, or
 * the simulation stopped early). */
const struct itrace_reader *sim_input_itrace_read(const struct sim_input *in);

/* sim_input_symbol_problem - the first module whose symbols could not be
 * read (missing file, build-id mismatch), as a message; NULL if none. */
const char *sim_input_symbol_problem(const struct sim_input *in);

/* Statistics: records skipped because they were not usable. */
struct sim_input_stats {
	uint64_t gaps, lost, mems_dropped, branch_records;
	uint64_t corrupt;     /* damage reports of the reader (corrupt chunks) */
	uint64_t chunks_lost; /* chunks the reader skipped (its GAP records) */
};
void sim_input_stats(const struct sim_input *in, struct sim_input_stats *st);

#endif
