/*
 * collect_writer.h - open the trace writer the same way in every backend:
 * output rule (-o, "-" = stdout, no binary on a terminal), level, file
 * flags and the standard metadata every itrace-collect trace carries.
 */
#ifndef ITRACE_COLLECT_WRITER_H
#define ITRACE_COLLECT_WRITER_H

#include <sys/types.h>

#include "backend.h"
#include "itrace.h"

/*
 * collect_writer_open - create opts->output and write its header.
 * Metadata: cmdline, pid, host, kernel, collector ("itrace-collect"),
 * backend, version, start_time (UTC, ISO 8601), level, aslr,
 * backend_reason (opts->backend_reason, when set); then the
 * `n_extra` entries of `extra` (e.g. "singleblock=no").  `flags` are the
 * ITRACE_FF_* header flags.  Returns 0 with *wp set, or -1 after printing
 * the error.
 */
int collect_writer_open(const struct collect_options *opts, const char *backend, pid_t pid,
			uint32_t flags, const struct itrace_meta *extra, size_t n_extra,
			struct itrace_writer **wp);

/*
 * collect_writer_open_target - the same for a program of another
 * architecture: ELF machine `machine`, byte order `endian` (1 little,
 * 2 big) in the header instead of x86-64.
 */
int collect_writer_open_target(const struct collect_options *opts, const char *backend, pid_t pid,
			       uint16_t machine, uint8_t endian, uint32_t flags,
			       const struct itrace_meta *extra, size_t n_extra,
			       struct itrace_writer **wp);

/*
 * collect_writer_create - the writer of opts->output with options `wo`,
 * for a backend that makes its own options: under --handler, with -o
 * none, one that writes to /dev/null; and the handlers started on it
 * (collect_handlers.h).  Returns 0 with *wp set, a negative ITRACE_E_*
 * code (nothing printed), or 1 after printing a handler's failure.
 */
int collect_writer_create(const struct collect_options *opts, struct itrace_writer_options *wo,
			  struct itrace_writer **wp);

/*
 * A collector writes what it traced at least once a second, so that a
 * collector killed with SIGKILL loses at most the last second and the
 * reader recovers everything before it: the trace takes its final name at
 * the first chunk written (until then the previous file stays), chunks end
 * after COLLECT_FLUSH_MS (itrace_writer_tick), and a backend's loop ticks
 * the writer whenever it wakes up.  The ticker wakes a loop blocked in a
 * wait (waitpid, read of a pipe) every COLLECT_TICK_MS with a SIGALRM that
 * interrupts it (EINTR), so the flush also happens while the traced
 * program sleeps, and a closed output pipe is noticed within a second.
 */
#define COLLECT_FLUSH_MS 500
#define COLLECT_TICK_MS 250

/* collect_ticker_start - SIGALRM every COLLECT_TICK_MS (not inherited by
 * children); collect_ticker_stop - no more. */
void collect_ticker_start(void);
void collect_ticker_stop(void);

/*
 * collect_warn_unprivileged - the program `path` is set-user-ID or
 * set-group-ID but runs traced as `euid`/`egid`, without the privileges
 * its mode grants (`why`: who withholds them): say so on stderr, since it
 * may fail or behave otherwise than untraced.  Nothing when it runs with
 * them (a privileged tracer) or has none to get.
 */
void collect_warn_unprivileged(const char *path, uid_t euid, gid_t egid, const char *why);

/*
 * collect_process_ids - the effective uid and gid of process `pid`
 * (/proc/PID/status).  Returns 0, or -1 if they cannot be read.
 */
int collect_process_ids(pid_t pid, uid_t *euid, gid_t *egid);

/*
 * collect_final_end - the footer's end reason for a program that ended
 * as `end` (COMPLETE: *status = exit code; CRASHED: *status = signal),
 * given what `w` recorded: NOT_TRIGGERED (*status = code, or -signal)
 * when a window or scope was asked for (--start, --start-addr, --only)
 * and nothing of it ran (ITRACE.md 7.3).  Other ends are returned as is.
 */
int collect_final_end(const struct collect_options *opts, struct itrace_writer *w, int end,
		      int *status);

/*
 * collect_print_summary - the end-of-run line on stderr (unless -q):
 * records, bytes, time, steps per second; and, even with -q, a warning
 * when nothing of the window or scope ran.
 */
void collect_print_summary(const struct collect_options *opts, const struct collect_result *res);

#endif
