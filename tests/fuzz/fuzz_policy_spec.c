/*
 * fuzz_policy_spec.c - libFuzzer target for the trigger language's
 * parser (collectors/policy/policy_parse.c) and the state machine it
 * feeds.  The input is lines; the first byte of each, modulo 4, is the
 * option (enum policy_option: --start, --stop, --for, --every), the rest
 * its argument.  What parses must write back as text that parses to the
 * same event; an error's message must be formattable; a spec that passes
 * policy_check must drive the state machine without breaking its
 * contract (policy_on_insns never fires before policy_insns_left said).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "policy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_round_trip(const struct policy_event *ev)
{
	struct policy_event again;
	struct policy_error err;
	char text[POLICY_NAME_MAX + 128];

	policy_event_text(ev, text, sizeof(text));
	if (policy_parse_event(text, &again, &err) != 0 || memcmp(ev, &again, sizeof(again)) != 0)
		abort();
}

static void drive(const struct policy_spec *spec, const uint8_t *data, size_t size)
{
	struct policy_proc p;
	struct policy_thread t;
	uint64_t args[POLICY_NARGS] = {0};

	policy_proc_init(&p, spec);
	policy_thread_init(&p, &t);
	for (size_t i = 0; i < size; i++) {
		uint64_t left = policy_insns_left(&p, &t);
		struct policy_fire f;

		args[i % POLICY_NARGS] = data[i];
		switch (data[i] & 3) {
		case 0:
			f = policy_on_entry(&p, &t, data[i] >> 7, (data[i] >> 2) & 15, args,
					    0x10000 - 8 * (uint64_t)(data[i] & 0x1c));
			break;
		case 1: f = policy_on_sp(&p, &t, 0x10000 - 8 * (uint64_t)(data[i] >> 4)); break;
		case 2: f = policy_on_signal(&p, &t, data[i] >> 3); break;
		default: {
			uint64_t n = data[i] >> 2;

			if (left != POLICY_NONE && n > left)
				n = left;
			f = policy_on_insns(&p, &t, n);
			if (f.action && left != POLICY_NONE && n != left)
				abort(); /* a boundary where none was announced */
		}
		}
		if (f.action != 0 && f.action != 1 && f.action != -1)
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct policy_spec *spec = calloc(1, sizeof(*spec));
	char *text = malloc(size + 1), *line, *next;
	struct policy_error err;
	char msg[1024];
	int opt, ok = 1;

	if (!spec || !text) {
		free(spec);
		free(text);
		return 0;
	}
	memcpy(text, data, size);
	text[size] = '\0';
	for (line = text; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		opt = (unsigned char)line[0] & 3;
		if (line[1] == '\0')
			continue;
		if (policy_add_option(spec, opt, line + 1, &err) != 0) {
			policy_format_error(opt, line + 1, &err, msg, sizeof(msg));
			if (err.column > strlen(line + 1))
				abort(); /* points outside the spec */
			ok = 0;
			continue;
		}
		if (opt == POLICY_OPT_START)
			check_round_trip(&spec->start[spec->nstart - 1]);
		else if (opt == POLICY_OPT_STOP)
			check_round_trip(&spec->stop[spec->nstop - 1]);
	}
	if (ok && policy_check(spec, &opt, &err) == 0)
		drive(spec, data, size);
	free(text);
	free(spec);
	return 0;
}
