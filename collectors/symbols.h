/*
 * symbols.h - find a function's run-time address by name, through the
 * ELF symbol tables (.symtab, else .dynsym) of the executable and the
 * shared libraries mapped into a process (libelf), adding each file's
 * load bias taken from /proc/PID/maps.
 */
#ifndef ITRACE_COLLECT_SYMBOLS_H
#define ITRACE_COLLECT_SYMBOLS_H

#include <stdint.h>
#include <sys/types.h>

/*
 * symbols_lookup - address of function `name` in process `pid`.  The
 * executable is searched first, then the libraries in map order; the
 * first defined STT_FUNC symbol wins (.symtab before .dynsym).
 * Returns 0 with *addr set, -ITRACE_E_NOENT if no mapped file defines
 * it, -ITRACE_E_IO if /proc/PID/maps cannot be read.
 */
int symbols_lookup(pid_t pid, const char *name, uint64_t *addr);

/*
 * symbols_fixed_address - the address of function `name` in ELF file
 * `path` when the file is a position-dependent executable (ET_EXEC), so
 * that the address is known before it runs.  Returns 0, -ITRACE_E_NOENT,
 * or -ITRACE_E_ELF (not readable ELF, or not ET_EXEC).
 */
int symbols_fixed_address(const char *path, const char *name, uint64_t *addr);

/*
 * symbols_file_offset - file offset of the first byte of function `name`
 * in ELF file `path` (st_value translated through the PT_LOAD segment
 * holding it), which /proc/PID/maps then turns into an address.
 * Returns 0, -ITRACE_E_NOENT, or -ITRACE_E_ELF if the file is not
 * readable ELF.
 */
int symbols_file_offset(const char *path, const char *name, uint64_t *offset);

/*
 * symbols_functions_in - run-time addresses of every function defined in
 * the ELF files mapped executable inside [lo, hi) of process `pid`
 * (.symtab, else .dynsym), of every function with unwind information
 * (the FDEs of .eh_frame_hdr: a stripped file has them), and of the
 * landing pads of their exception tables (where unwinding resumes in a
 * function), the ways into that code other than returns.  *addrs is
 * malloc'd (caller frees), *n its length; an address may appear twice.
 * Returns 0, -ITRACE_E_IO, -ITRACE_E_NOMEM.
 */
int symbols_functions_in(pid_t pid, uint64_t lo, uint64_t hi, uint64_t **addrs, size_t *n);

/*
 * symbols_defined_in - does one of the ELF files `paths[0..n)` define
 * function `name` (.symtab, else .dynsym)?  Returns 1 or 0.
 */
int symbols_defined_in(const char *const *paths, size_t n, const char *name);

/*
 * symbols_error_missing - the one error line every backend prints for a
 * trigger (`opt`: "--start", "--stop") naming a function no mapped file
 * defines.
 */
void symbols_error_missing(const char *opt, const char *func);

#endif
