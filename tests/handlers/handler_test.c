/*
 * handler_test.c - handlers for tests/e2e/handler_run.sh and the bench,
 * one per -DKIND (tools/module.mk builds each as $(BUILD)/tests/handlers/KIND.so):
 *
 *   keep_every  keeps every Nth instruction (ARGS = N) with its MEM
 *               records, drops every other instruction; other records kept
 *   keep_mem    keeps the instructions that access memory (ITRACE_HANDLER_MEM)
 *   nothing     drops every record (the bench's "keeps nothing")
 *   size0, huge, newer, newer_zero, older, nocb, abi2, notable, getter:
 *               tables the loader must refuse or accept (see the test)
 *   crash       dereferences NULL at the 1000th instruction
 *   garbage     returns 7 from its insn callback
 *   badstart    refuses its argument in start
 */
#include "itrace_handler.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define STR_(x) #x
#define STR(x) STR_(x)

__attribute__((unused)) static int keep(void *data, const struct itrace_record *rec, struct itrace_handler_ctx *ctx)
{
	(void)data, (void)rec, (void)ctx;
	return ITRACE_HANDLER_KEEP;
}

#if defined(KIND_keep_every)
static unsigned long every_n, seen;
static int s_start(struct itrace_handler_ctx *ctx, const char *args, void **data)
{
	char *end;

	every_n = strtoul(args, &end, 10);
	if (!*args || *end || every_n == 0) {
		itrace_handler_set_error(ctx, "keep_every needs a count, not '%s'", args);
		return -ITRACE_E_INVAL;
	}
	*data = NULL;
	return 0;
}
static int s_insn(void *data, const struct itrace_handler_insn *in, struct itrace_handler_ctx *ctx)
{
	(void)data, (void)in, (void)ctx;
	return ++seen % every_n == 0 ? ITRACE_HANDLER_KEEP : ITRACE_HANDLER_DROP;
}
const struct itrace_handler itrace_handler = {
	.size = sizeof(struct itrace_handler), .abi = ITRACE_HANDLER_ABI, .name = "keep_every",
	.start = s_start, .insn = s_insn, .mmap = keep,
};
#elif defined(KIND_keep_mem)
/* keeps the instructions that access memory, with their MEM records (its
 * insn callback gets them: ITRACE_HANDLER_MEM), and checks each access
 * against what it was given */
static int s_insn(void *data, const struct itrace_handler_insn *in, struct itrace_handler_ctx *ctx)
{
	(void)data;
	for (size_t i = 0; i < in->nmem; i++)
		if (in->mem[i].size == 0) {
			itrace_handler_set_error(ctx, "access %zu of size 0", i);
			return -ITRACE_E_INTERNAL;
		}
	return in->nmem ? ITRACE_HANDLER_KEEP : ITRACE_HANDLER_DROP;
}
const struct itrace_handler itrace_handler = {
	.size = sizeof(struct itrace_handler), .abi = ITRACE_HANDLER_ABI,
	.flags = ITRACE_HANDLER_MEM, .name = "keep_mem", .insn = s_insn,
};
#elif defined(KIND_nothing)
static int drop(void *data, const struct itrace_record *rec, struct itrace_handler_ctx *ctx)
{
	(void)data, (void)rec, (void)ctx;
	return ITRACE_HANDLER_DROP;
}
static int drop_insn(void *data, const struct itrace_handler_insn *in, struct itrace_handler_ctx *ctx)
{
	(void)data, (void)in, (void)ctx;
	return ITRACE_HANDLER_DROP;
}
const struct itrace_handler itrace_handler = {
	.size = sizeof(struct itrace_handler), .abi = ITRACE_HANDLER_ABI,
	.flags = ITRACE_HANDLER_SHARD_SAFE, .name = "nothing",
	.insn = drop_insn, .branch = drop, .mmap = drop, .thread = drop, .process = drop,
	.syscall = drop, .signal = drop, .trace_ctl = drop, .gap = drop, .lost = drop, .other = drop,
};
#elif defined(KIND_crash) || defined(KIND_garbage)
static unsigned long seen;
static int s_insn(void *data, const struct itrace_handler_insn *in, struct itrace_handler_ctx *ctx)
{
	(void)data, (void)in, (void)ctx;
	if (++seen < 1000)
		return ITRACE_HANDLER_KEEP;
#ifdef KIND_crash
	return *(volatile int *)(uintptr_t)(seen - 1000); /* NULL */
#else
	return 7;
#endif
}
const struct itrace_handler itrace_handler = {
	.size = sizeof(struct itrace_handler), .abi = ITRACE_HANDLER_ABI, .name = STR(KIND),
	.insn = s_insn,
};
#elif defined(KIND_badstart)
static int s_start(struct itrace_handler_ctx *ctx, const char *args, void **data)
{
	(void)data;
	itrace_handler_set_error(ctx, "unknown argument '%s'", args);
	return -ITRACE_E_INVAL;
}
const struct itrace_handler itrace_handler = {
	.size = sizeof(struct itrace_handler), .abi = ITRACE_HANDLER_ABI, .name = "badstart",
	.start = s_start,
};
#elif defined(KIND_size0)
const struct itrace_handler itrace_handler = { .size = 0, .abi = ITRACE_HANDLER_ABI, .other = keep };
#elif defined(KIND_huge)
const struct itrace_handler itrace_handler = { .size = (size_t)1 << 40, .abi = ITRACE_HANDLER_ABI,
					       .other = keep };
#elif defined(KIND_newer) || defined(KIND_newer_zero)
/* a table of a later header: one more callback at its end */
struct newer {
	struct itrace_handler t;
	void *future;
};
const struct newer itrace_handler = {
	.t = { .size = sizeof(struct newer), .abi = ITRACE_HANDLER_ABI, .name = STR(KIND), .other = keep },
#ifdef KIND_newer
	.future = (void *)keep,
#endif
};
#elif defined(KIND_older)
/* a table of an earlier header that ended before `insn` */
static int older_stop(void *data, struct itrace_handler_ctx *ctx)
{
	(void)data, (void)ctx;
	return 0;
}
const struct itrace_handler itrace_handler = {
	.size = offsetof(struct itrace_handler, insn), .abi = ITRACE_HANDLER_ABI, .name = "older",
	.stop = older_stop,
	.other = keep, /* beyond its size: never read */
};
#elif defined(KIND_nocb)
const struct itrace_handler itrace_handler = { .size = sizeof(struct itrace_handler),
					       .abi = ITRACE_HANDLER_ABI, .name = "nocb" };
#elif defined(KIND_abi2)
const struct itrace_handler itrace_handler = { .size = sizeof(struct itrace_handler), .abi = 2,
					       .name = "abi2", .other = keep };
#elif defined(KIND_notable)
int itrace_handler_table_misspelt(void);
int itrace_handler_table_misspelt(void) { return 0; }
#elif defined(KIND_getter)
static const struct itrace_handler table = { .size = sizeof(struct itrace_handler),
					     .abi = ITRACE_HANDLER_ABI, .name = "getter", .other = keep };
const struct itrace_handler *itrace_handler_get(void);
const struct itrace_handler *itrace_handler_get(void) { return &table; }
#else
#error "define KIND_<kind>"
#endif
