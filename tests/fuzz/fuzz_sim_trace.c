/*
 * fuzz_sim_trace.c - libFuzzer target for pipeline-sim: any bytes as an
 * itrace file, replayed through the default core and every report (text,
 * JSON, timeline, Kanata).  Nothing may crash, hang or read out of bounds,
 * whatever the instructions, lengths, addresses and MEM records are.
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sim_core_cfg cfg;
	struct sim_input *in;
	struct sim_semtab *t;
	struct sim_core core;
	const struct sim_dyn *d;
	char err[512];
	FILE *out;

	sim_config_init(&cfg);
	if (sim_config_load(&cfg, SIM_DEFAULT_PRESET, err, sizeof(err)) ||
	    sim_config_validate(&cfg, err, sizeof(err)))
		abort();
	if (sim_input_open_mem(data, size, &in, err, sizeof(err)))
		return 0;
	t = sim_semtab_open(sim_input_arch(in));
	if (!t || sim_core_init(&core, &cfg, 64))
		abort();
	for (unsigned n = 0; n < 200000 && sim_input_next(in, &d) == 0; n++) {
		struct sim_sem *s = sim_input_sem(in, t, d);

		if (!s)
			abort();
		sim_core_step(&core, s, d);
	}
	out = fopen("/dev/null", "w");
	if (out) {
		struct sim_report rep = { "fuzz", &core, t, in, 5, 0 };

		sim_report_text(out, &rep);
		sim_report_json(out, &rep);
		sim_report_timeline(out, &rep, 64);
		sim_report_kanata(out, &rep);
		fclose(out);
	}
	sim_core_free(&core);
	sim_semtab_close(t);
	sim_input_close(in);
	return 0;
}
