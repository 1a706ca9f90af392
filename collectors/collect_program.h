/*
 * collect_program.h - the program itrace-collect is asked to start: where
 * it is (as execvp would find it), what machine its code is for, and
 * whether it is set-user-ID.  Used by --backend auto and by the backends
 * that start programs.
 */
#ifndef ITRACE_COLLECT_PROGRAM_H
#define ITRACE_COLLECT_PROGRAM_H

#include <stddef.h>

/*
 * collect_resolve_program - the program `prog` as execvp would run it
 * (collect_find_in_path() in collect_paths.h),
 * into out[outlen].  Returns 0 or an errno (ENOENT, EACCES, EISDIR...).
 */
int collect_resolve_program(const char *prog, char *out, size_t outlen);

/*
 * collect_elf_machine - the ELF e_machine of the file at `path` (62 for
 * x86-64), 0 if it is not an ELF file (a #! script), -1 if it cannot be
 * read.  *endian gets the ELF EI_DATA (1 little, 2 big) when it is ELF.
 */
int collect_elf_machine(const char *path, int *endian);

/* collect_is_setid - is `path` set-user-ID or set-group-ID?  1 or 0. */
int collect_is_setid(const char *path);

#endif
