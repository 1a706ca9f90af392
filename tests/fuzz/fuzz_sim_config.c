/*
 * fuzz_sim_config.c - libFuzzer target for pipeline-sim's core
 * description parser: any text, parsed on top of the default preset and
 * validated; whatever validates must set up a core that runs.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "core.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct sim_core_cfg preset;
	static int ready;
	struct sim_core_cfg cfg;
	struct sim_core core;
	char err[512];
	char *text = malloc(size + 1);

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if (!ready) { /* the preset, parsed once: inputs start from a copy */
		sim_config_init(&preset);
		if (sim_config_load(&preset, SIM_DEFAULT_PRESET, err, sizeof(err)))
			abort();
		ready = 1;
	}
	cfg = preset;
	if (sim_config_parse(&cfg, text, "fuzz", err, sizeof(err)) == 0 &&
	    sim_config_validate(&cfg, err, sizeof(err)) == 0 &&
	    cfg.l1d.size <= (1u << 20) && cfg.l2.size <= (1u << 20) && cfg.llc.size <= (4u << 20) &&
	    cfg.l1i.size <= (1u << 20) && cfg.bpred_bits <= 16) {
		/* small enough to build quickly: it must set up and free cleanly */
		if (sim_core_init(&core, &cfg, 0))
			abort();
		sim_core_free(&core);
	}
	free(text);
	return 0;
}
