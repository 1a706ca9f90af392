/* names.c - error strings, record and enum names, how a trace ended, the
 * library version. */
#include <elf.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "itrace.h"

static const char *const error_text[ITRACE_E_MAX_] = {
	[ITRACE_OK] = "success",
	[ITRACE_E_NOMEM] = "out of memory",
	[ITRACE_E_IO] = "input/output error",
	[ITRACE_E_INVAL] = "invalid argument",
	[ITRACE_E_BADMAGIC] = "not an itrace file (bad magic)",
	[ITRACE_E_VERSION] = "unsupported itrace format version or feature",
	[ITRACE_E_TRUNCATED] = "trace is truncated",
	[ITRACE_E_CORRUPT] = "trace is corrupt",
	[ITRACE_E_NOTSUP] = "not supported",
	[ITRACE_E_NOENT] = "not found",
	[ITRACE_E_ELF] = "ELF/DWARF error",
	[ITRACE_E_DECODE] = "instruction cannot be decoded",
	[ITRACE_E_BUILDID] = "build-id does not match the trace",
	[ITRACE_E_STATE] = "operation not valid in this state",
	[ITRACE_E_INTERNAL] = "internal error in libitrace",
	[ITRACE_E_NOFOOTER] = "trace ends without a footer (writer was interrupted)",
};

const char *itrace_errstr(int code)
{
	if (code < 0)
		code = -code;
	if (code >= ITRACE_E_MAX_ || !error_text[code])
		return "unknown error";
	return error_text[code];
}

const char *itrace_version(void)
{
	return ITRACE_VERSION_STRING;
}

int itrace_version_number(void)
{
	return ITRACE_VERSION_NUMBER;
}

const char *itrace_rec_type_name(int type)
{
	static const char *const names[] = {
		[ITRACE_REC_BRANCH] = "BRANCH",	    [ITRACE_REC_INSN] = "INSN",
		[ITRACE_REC_MEM] = "MEM",	    [ITRACE_REC_MMAP] = "MMAP",
		[ITRACE_REC_CODE] = "CODE",	    [ITRACE_REC_THREAD] = "THREAD",
		[ITRACE_REC_PROCESS] = "PROCESS",   [ITRACE_REC_SYSCALL] = "SYSCALL",
		[ITRACE_REC_SIGNAL] = "SIGNAL",	    [ITRACE_REC_TIMESTAMP] = "TIMESTAMP",
		[ITRACE_REC_TRACE_CTL] = "TRACE_CTL", [ITRACE_REC_LOST] = "LOST",
		[ITRACE_REC_GAP] = "GAP",
	};

	if (type > 0 && type < (int)(sizeof(names) / sizeof(names[0])) && names[type])
		return names[type];
	return "UNKNOWN";
}

const char *itrace_branch_kind_name(int kind)
{
	static const char *const names[] = {
		"cond", "uncond", "call", "return", "indirect",
		"indirect-call", "syscall", "interrupt", "sigreturn", "unknown",
	};

	if (kind >= 0 && kind < (int)(sizeof(names) / sizeof(names[0])))
		return names[kind];
	return "invalid";
}

const char *itrace_gap_reason_name(int reason)
{
	static const char *const names[] = {
		[ITRACE_GAP_NO_MAPPING] = "no-mapping",
		[ITRACE_GAP_BUILDID] = "buildid-mismatch",
		[ITRACE_GAP_NO_BINARY] = "no-binary",
		[ITRACE_GAP_UNDECODABLE] = "undecodable",
		[ITRACE_GAP_BRANCH_NOT_REACHED] = "branch-not-reached",
		[ITRACE_GAP_LOST_INPUT] = "lost-input",
		[ITRACE_GAP_CORRUPT_CHUNK] = "corrupt-chunk",
		[ITRACE_GAP_TRACE_OFF] = "trace-off",
	};

	if (reason > 0 && reason < (int)(sizeof(names) / sizeof(names[0])) && names[reason])
		return names[reason];
	return "other";
}

const char *itrace_lost_reason_name(int reason)
{
	static const char *const names[] = {
		[ITRACE_LOST_OVERFLOW] = "overflow",
		[ITRACE_LOST_UNTRACEABLE] = "untraceable",
		[ITRACE_LOST_DECODE] = "decode",
		[ITRACE_LOST_CORRUPT] = "corrupt",
		[ITRACE_LOST_OTHER] = "other",
	};

	if (reason > 0 && reason < (int)(sizeof(names) / sizeof(names[0])) && names[reason])
		return names[reason];
	return "other";
}

/* Name `i` of a table of n names whose entry 0 is unused; "?" outside. */
static const char *event_word(const char *const *names, int n, int i)
{
	return i > 0 && i < n ? names[i] : "?";
}

const char *itrace_thread_event_name(int event)
{
	static const char *const names[] = {
		[ITRACE_THREAD_CREATE] = "create", [ITRACE_THREAD_SWITCH] = "switch",
		[ITRACE_THREAD_EXIT] = "exit",	   [ITRACE_THREAD_NAME] = "name",
	};

	return event_word(names, (int)(sizeof(names) / sizeof(names[0])), event);
}

const char *itrace_process_event_name(int event)
{
	static const char *const names[] = {
		[ITRACE_PROCESS_START] = "start", [ITRACE_PROCESS_FORK] = "fork",
		[ITRACE_PROCESS_EXEC] = "exec",	  [ITRACE_PROCESS_EXIT] = "exit",
	};

	return event_word(names, (int)(sizeof(names) / sizeof(names[0])), event);
}

const char *itrace_ctl_reason_name(int reason)
{
	static const char *const names[] = {
		[ITRACE_CTL_START] = "start",	[ITRACE_CTL_TRIGGER] = "trigger",
		[ITRACE_CTL_ATTACH] = "attach", [ITRACE_CTL_DETACH] = "detach",
		[ITRACE_CTL_SCOPE] = "scope",
	};

	return event_word(names, (int)(sizeof(names) / sizeof(names[0])), reason);
}

const char *itrace_lost_unit_name(int unit)
{
	static const char *const names[] = {
		[ITRACE_UNIT_RECORDS] = "records", [ITRACE_UNIT_BRANCHES] = "branches",
		[ITRACE_UNIT_INSNS] = "insns",	   [ITRACE_UNIT_BYTES] = "bytes",
	};

	return event_word(names, (int)(sizeof(names) / sizeof(names[0])), unit);
}

/* The names itrace-dump's "arch:" line has always printed (its e2e
 * expectations), by ELF e_machine. */
const char *itrace_machine_name(unsigned machine, unsigned endian)
{
	switch (machine) {
	case EM_X86_64: return "x86-64";
	case EM_386: return "i386";
	case EM_PPC64: return endian == 1 ? "ppc64le" : "ppc64";
	case EM_PPC: return "ppc";
	case EM_AARCH64: return "aarch64";
	default: return "unknown";
	}
}

/* ---- How a trace ended (ITRACE.md 7.3, 7.4) -------------------------------- */

const char *itrace_end_reason_name(int reason)
{
	static const char *const names[] = {
		[ITRACE_END_COMPLETE] = "complete",
		[ITRACE_END_INTERRUPTED] = "interrupted",
		[ITRACE_END_CRASHED] = "target crashed",
		[ITRACE_END_ERROR] = "collector error",
		[ITRACE_END_DETACHED] = "detached",
		[ITRACE_END_NOT_TRIGGERED] = "start never triggered",
	};

	if (reason > 0 && reason < (int)(sizeof(names) / sizeof(names[0])))
		return names[reason];
	return NULL;
}

int itrace_footer_is_complete(const struct itrace_footer *f)
{
	return f && (f->end_reason == ITRACE_END_COMPLETE || f->end_reason == ITRACE_END_CRASHED) &&
	       f->lost_count == 0 && f->gap_count == 0 && f->insn_count + f->branch_count > 0;
}

/* Append printf-style text at *used, never past len. */
static void append(char *buf, size_t len, size_t *used, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*used + 1 >= len)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf + *used, len - *used, fmt, ap);
	va_end(ap);
	if (n > 0)
		*used += (size_t)n < len - *used ? (size_t)n : len - *used - 1;
}

/* "exited with status N" or "was killed by signal N" (status < 0: -signo). */
static void append_program_end(char *buf, size_t len, size_t *used, int status)
{
	if (status < 0)
		append(buf, len, used, "the program was killed by signal %d", -status);
	else
		append(buf, len, used, "the program exited with status %d", status);
}

const char *itrace_footer_describe(const struct itrace_footer *f, char *buf, size_t len)
{
	size_t used = 0;

	if (!buf || len == 0)
		return buf;
	buf[0] = '\0';
	if (!f) {
		append(buf, len, &used, "truncated: no footer (the writer was killed, or the file was cut)");
		return buf;
	}
	switch (f->end_reason) {
	case ITRACE_END_COMPLETE: /* the exit code, whatever its sign (7.3) */
		append(buf, len, &used, "the program exited with status %d", f->end_status);
		break;
	case ITRACE_END_CRASHED: /* the signal number, whatever its value (7.3) */
		append(buf, len, &used, "the program was killed by signal %d", f->end_status);
		break;
	case ITRACE_END_INTERRUPTED:
		append(buf, len, &used, "the collector was interrupted by signal %d", f->end_status);
		break;
	case ITRACE_END_ERROR:
		append(buf, len, &used, "the collector failed: %s", strerror(f->end_status));
		break;
	case ITRACE_END_DETACHED:
		append(buf, len, &used, "the collector detached; the program went on untraced");
		break;
	case ITRACE_END_NOT_TRIGGERED:
		append(buf, len, &used, "the start trigger never fired, nothing of the requested "
					"window or scope ran (");
		append_program_end(buf, len, &used, f->end_status);
		append(buf, len, &used, ")");
		break;
	default:
		append(buf, len, &used, "the end is unknown (reason %d)", f->end_reason);
		break;
	}
	if (f->lost_count)
		append(buf, len, &used, "; %llu lost (LOST records)", (unsigned long long)f->lost_count);
	if (f->gap_count)
		append(buf, len, &used, "; %llu gap%s", (unsigned long long)f->gap_count,
		       f->gap_count == 1 ? "" : "s");
	if (f->insn_count + f->branch_count == 0)
		append(buf, len, &used, "; nothing recorded");
	return buf;
}

const char *itrace_feature_name(unsigned bit)
{
	switch (bit < 32 ? 1u << bit : 0) {
	case ITRACE_FEAT_BLOCK: return "BLOCK";
	case ITRACE_FEAT_BRANCH_SEQ: return "BRANCH_SEQ";
	default: return NULL;
	}
}
