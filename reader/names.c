/* names.c - error strings, record and enum names, the library version. */
#include "itrace.h"

static const char *const error_text[ITRACE_E_MAX_] = {
	[ITRACE_OK] = "success",
	[ITRACE_E_NOMEM] = "out of memory",
	[ITRACE_E_IO] = "input/output error",
	[ITRACE_E_INVAL] = "invalid argument",
	[ITRACE_E_BADMAGIC] = "not an itrace file (bad magic)",
	[ITRACE_E_VERSION] = "unsupported itrace format version",
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
