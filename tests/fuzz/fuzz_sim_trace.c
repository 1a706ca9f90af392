/*
 * fuzz_sim_trace.c - libFuzzer target for pipeline-sim: any bytes as an
 * itrace file, replayed through the default core and every report (text,
 * JSON, timeline, Kanata).  Nothing may crash, hang or read out of bounds,
 * whatever the instructions, lengths, addresses and MEM records are.
 * The first 1024 instructions of an input are simulated.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "config.h"
#include "core.h"
#include "input.h"
#include "report.h"
#include "sem.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * The core of every input: the default preset with small caches and
 * predictor tables (they are allocated and cleared per core: 4 MiB of
 * cache tags each time was most of the work), set up once, as is the
 * stream the reports go to.
 */
static const struct sim_core_cfg *fuzz_core_cfg(void)
{
	static const char *const small[] = { "l1i=size=4K assoc=2 line=64 latency=3",
					     "l1d=size=4K assoc=2 line=64 latency=4",
					     "l2=size=16K assoc=4 line=64 latency=12",
					     "llc=size=64K assoc=8 line=64 latency=40",
					     "bpred_bits=10", "btb_entries=256" };
	static struct sim_core_cfg cfg;
	static int ready;
	char err[512];

	if (ready)
		return &cfg;
	sim_config_init(&cfg);
	if (sim_config_load(&cfg, SIM_DEFAULT_PRESET, err, sizeof(err)))
		abort();
	for (size_t i = 0; i < sizeof(small) / sizeof(small[0]); i++)
		if (sim_config_set(&cfg, small[i], err, sizeof(err)))
			abort();
	if (sim_config_validate(&cfg, err, sizeof(err)))
		abort();
	ready = 1;
	return &cfg;
}

/* discard - a stream write that keeps nothing: the reports are formatted
 * in full, without a write(2) to /dev/null per buffer. */
static ssize_t discard(void *cookie, const char *buf, size_t n)
{
	(void)cookie;
	(void)buf;
	return (ssize_t)n;
}

/*
 * fuzz_table, fuzz_core - the instruction table of an architecture and
 * the core, made once and reset for each input (sim_semtab_reset,
 * sim_core_reset: the state of fresh ones, without the allocations, which
 * were a sixth of the time per input).
 */
static struct sim_semtab *fuzz_table(int arch)
{
	static struct sim_semtab *tabs[SIM_ARCH_PPC64BE + 1];

	if (arch < 0 || arch > SIM_ARCH_PPC64BE)
		abort();
	if (!tabs[arch] && !(tabs[arch] = sim_semtab_open(arch)))
		abort();
	sim_semtab_reset(tabs[arch]);
	return tabs[arch];
}

static struct sim_core *fuzz_core(void)
{
	static struct sim_core core;
	static int ready;

	if (!ready && sim_core_init(&core, fuzz_core_cfg(), 64))
		abort();
	if (ready)
		sim_core_reset(&core);
	ready = 1;
	return &core;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *out;
	static const cookie_io_functions_t sink = { .write = discard };
	/* kept open from input to input, reopened on each (its reader's
	 * 43 KB and decompression context were made per input) */
	static struct sim_input *in;
	struct sim_semtab *t;
	struct sim_core *core;
	const struct sim_dyn *d;
	char err[512];

	if (!out && !(out = fopencookie(NULL, "w", sink)))
		abort();
	if (in ? sim_input_reopen_mem(&in, data, size, err, sizeof(err))
	       : sim_input_open_mem(data, size, &in, err, sizeof(err)))
		return 0;
	t = fuzz_table(sim_input_arch(in));
	core = fuzz_core();
	for (unsigned n = 0; n < 1024 && sim_input_next(in, &d) == 0; n++) {
		struct sim_sem *s = sim_input_sem(in, t, d);

		if (!s)
			abort();
		sim_core_step(core, s, d);
	}
	{
		struct sim_report rep = { "fuzz", core, t, in, 5, 0 };

		sim_report_text(out, &rep);
		sim_report_json(out, &rep);
		sim_report_timeline(out, &rep, 64);
		sim_report_kanata(out, &rep);
	}
	return 0;
}
