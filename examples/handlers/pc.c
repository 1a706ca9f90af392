/*
 * pc.c - print the address of every executed instruction, one per line,
 * as 0x%lx: the seed's example of a handler (itrace_handler.h).
 *
 *   cc -shared -fPIC -o pc.so pc.c $(pkg-config --cflags itrace-code)
 *   itrace-run ./pc.so trace.itr            (to standard output)
 *   itrace-run ./pc.so:pcs trace.itr        (to the stream "pcs")
 *
 * It keeps every record, and is shard-safe: it prints per record, so the
 * pieces of a trace run in parallel (itrace-run -j N) print, concatenated
 * in order, what one run prints.
 */
#include <itrace_handler.h>

#include <inttypes.h>
#include <stdio.h>

static int pc_start(struct itrace_handler_ctx *ctx, const char *args, void **data)
{
	FILE *fp = itrace_handler_stream_open(ctx, *args ? args : "-");

	*data = fp;
	return fp ? 0 : -ITRACE_E_IO;
}

static int pc_insn(void *data, const struct itrace_handler_insn *in, struct itrace_handler_ctx *ctx)
{
	(void)ctx;
	fprintf(data, "0x%" PRIx64 "\n", in->rec->u.insn.addr);
	return ITRACE_HANDLER_KEEP;
}

const struct itrace_handler itrace_handler = {
	.size = sizeof(struct itrace_handler),
	.abi = ITRACE_HANDLER_ABI,
	.flags = ITRACE_HANDLER_SHARD_SAFE,
	.name = "pc",
	.start = pc_start,
	.insn = pc_insn,
};
