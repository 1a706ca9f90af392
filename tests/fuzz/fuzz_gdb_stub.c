/*
 * fuzz_gdb_stub.c - libFuzzer target: any bytes as what a gdb stub sends.
 * The gdb backend's protocol code (collectors/gdb: packet framing,
 * checksums, run-length and escapes, no-ack negotiation, qXfer, stop
 * replies, the XML target description, 'g' and 'm' replies) talks to a
 * connection that replays the input (rsp_open_mem): it must never crash,
 * hang or grow without bound, whatever the stub says.  The first byte
 * picks the machine of the program (x86-64 or ppc64) for the fallback
 * register layouts.
 */
#include <elf.h>
#include <stdint.h>
#include <stdlib.h>

#include "../../collectors/gdb/gdb_target.h"
#include "../../collectors/gdb/rsp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gdb_target t;
	struct gdb_stop st;
	struct rsp *rsp;
	uint8_t code[64];
	uint64_t v;

	if (size < 1)
		return 0;
	rsp = rsp_open_mem(data + 1, size - 1);
	if (!rsp)
		return 0;
	if (gdb_target_attach(&t, rsp, data[0] & 1 ? EM_PPC64 : EM_X86_64, 0, &st) == 0) {
		for (int i = 0; i < 4 && gdb_target_read_regs(&t) == 0; i++) {
			gdb_target_code(&t, t.vals[0], code, sizeof(code));
			gdb_target_read_u64(&t, t.vals[0] + 8, &v);
			if (gdb_target_resume(&t, i & 1, 0, 0, &st) < 0)
				break;
		}
	}
	gdb_target_close(&t); /* closes rsp; after a failed attach too */
	return 0;
}
