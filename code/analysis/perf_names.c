/*
 * perf_names.c - perf's branch types (itrace_code.h, "perf's branch
 * types"): the ids and names perf's SQLite export gives its branch_types
 * table (tools/perf/util/db-export.c), and which one each itrace branch
 * kind is.  itrace-sqlite writes the table; hot-branch views (itrace-sqlite,
 * the Python package) name a branch's type with them.
 */
#include <stddef.h>

#include "itrace_code.h"

/* PERF_IP_FLAG_* (perf's util/event.h) */
enum {
	PERF_IP_BRANCH = 1,
	PERF_IP_CALL = 2,
	PERF_IP_RETURN = 4,
	PERF_IP_CONDITIONAL = 8,
	PERF_IP_SYSCALLRET = 16,
	PERF_IP_ASYNC = 32,
	PERF_IP_INTERRUPT = 64,
	PERF_IP_TX_ABORT = 128,
	PERF_IP_TRACE_BEGIN = 256,
	PERF_IP_TRACE_END = 512,
};

enum {
	PERF_BR_NONE = 0,
	PERF_BR_JUMP = PERF_IP_BRANCH,
	PERF_BR_CALL = PERF_IP_BRANCH | PERF_IP_CALL,
	PERF_BR_RETURN = PERF_IP_BRANCH | PERF_IP_RETURN,
	PERF_BR_COND = PERF_IP_BRANCH | PERF_IP_CONDITIONAL,
	PERF_BR_SYSCALL = PERF_IP_BRANCH | PERF_IP_CALL | PERF_IP_SYSCALLRET,
	PERF_BR_SYSRET = PERF_IP_BRANCH | PERF_IP_RETURN | PERF_IP_SYSCALLRET,
	PERF_BR_ASYNC = PERF_IP_BRANCH | PERF_IP_ASYNC,
	PERF_BR_SWINT = PERF_IP_BRANCH | PERF_IP_CALL | PERF_IP_INTERRUPT,
	PERF_BR_IRET = PERF_IP_BRANCH | PERF_IP_RETURN | PERF_IP_INTERRUPT,
	PERF_BR_HWINT = PERF_IP_BRANCH | PERF_IP_CALL | PERF_IP_ASYNC | PERF_IP_INTERRUPT,
	PERF_BR_TX_ABORT = PERF_IP_BRANCH | PERF_IP_TX_ABORT,
	PERF_BR_TRACE_BEGIN = PERF_IP_BRANCH | PERF_IP_TRACE_BEGIN,
	PERF_BR_TRACE_END = PERF_IP_BRANCH | PERF_IP_TRACE_END,
};

/* In the order perf's db-export.c lists them. */
static const struct {
	int id;
	const char *name;
} perf_branch_types[] = {
	{PERF_BR_NONE, "no branch"},
	{PERF_BR_CALL, "call"},
	{PERF_BR_RETURN, "return"},
	{PERF_BR_COND, "conditional jump"},
	{PERF_BR_JUMP, "unconditional jump"},
	{PERF_BR_SWINT, "software interrupt"},
	{PERF_BR_IRET, "return from interrupt"},
	{PERF_BR_SYSCALL, "system call"},
	{PERF_BR_SYSRET, "return from system call"},
	{PERF_BR_ASYNC, "asynchronous branch"},
	{PERF_BR_HWINT, "hardware interrupt"},
	{PERF_BR_TX_ABORT, "transaction abort"},
	{PERF_BR_TRACE_BEGIN, "trace begin"},
	{PERF_BR_TRACE_END, "trace end"},
};

int itrace_analysis_perf_branch_type(int kind)
{
	switch (kind) {
	case ITRACE_BRANCH_COND: return PERF_BR_COND;
	case ITRACE_BRANCH_UNCOND:
	case ITRACE_BRANCH_INDIRECT: return PERF_BR_JUMP;
	case ITRACE_BRANCH_CALL:
	case ITRACE_BRANCH_INDIRECT_CALL: return PERF_BR_CALL;
	case ITRACE_BRANCH_RETURN: return PERF_BR_RETURN;
	case ITRACE_BRANCH_SYSCALL: return PERF_BR_SYSCALL;
	case ITRACE_BRANCH_INTERRUPT: return PERF_BR_ASYNC; /* signal delivery */
	case ITRACE_BRANCH_SIGRETURN: return PERF_BR_SYSRET; /* rt_sigreturn */
	default: return PERF_BR_NONE;
	}
}

const char *itrace_analysis_perf_branch_type_at(size_t i, int *id)
{
	if (i >= sizeof(perf_branch_types) / sizeof(perf_branch_types[0]))
		return NULL;
	if (id)
		*id = perf_branch_types[i].id;
	return perf_branch_types[i].name;
}

const char *itrace_analysis_perf_branch_type_name(int id)
{
	for (size_t i = 0; i < sizeof(perf_branch_types) / sizeof(perf_branch_types[0]); i++)
		if (perf_branch_types[i].id == id)
			return perf_branch_types[i].name;
	return NULL;
}
