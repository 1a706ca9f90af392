/*
 * bts_probe.c - naming why a machine has no Intel BTS, from what
 * /proc/cpuinfo says.  Pure text handling, so the messages are tested
 * with synthetic cpuinfo on any machine.
 */
#include <stdio.h>
#include <string.h>

#include "bts.h"

/* Is `word` one of the space-separated words of `line`? */
static int has_word(const char *line, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = strstr(line, word); p; p = strstr(p + 1, word)) {
		int start = p == line || p[-1] == ' ' || p[-1] == '\t' || p[-1] == ':';
		int end = !p[n] || p[n] == ' ' || p[n] == '\n' || p[n] == '\t';
		if (start && end)
			return 1;
	}
	return 0;
}

void bts_cpu_facts_parse(FILE *f, struct bts_cpu_facts *c)
{
	char line[8192];

	memset(c, 0, sizeof *c);
	strcpy(c->vendor, "unknown");
	while (f && fgets(line, sizeof line, f)) {
		if (!strncmp(line, "vendor_id", 9)) {
			char *v = strchr(line, ':');
			if (!v || sscanf(v + 1, "%31s", c->vendor) != 1)
				strcpy(c->vendor, "unknown");
		} else if (!strncmp(line, "flags", 5)) {
			c->hypervisor = has_word(line, "hypervisor");
			c->pti = has_word(line, "pti");
			c->dtes64 = has_word(line, "dtes64");
			break; /* the first CPU tells */
		}
	}
}

void bts_cpu_facts(struct bts_cpu_facts *c)
{
	FILE *f = fopen("/proc/cpuinfo", "re");

	bts_cpu_facts_parse(f, c);
	if (f)
		fclose(f);
}

/* Why the intel_bts PMU is missing, as precisely as the machine tells. */
void bts_explain_missing_pmu(const struct bts_cpu_facts *c, char *buf, size_t len)
{
	if (strcmp(c->vendor, "GenuineIntel"))
		snprintf(buf, len, "the CPU is %s and BTS exists only on Intel CPUs%s", c->vendor,
			 c->hypervisor ? "; this is also a virtual machine" : "");
	else if (c->hypervisor)
		snprintf(buf, len, "this is a virtual machine (cpuinfo flag 'hypervisor') and hypervisors do not virtualise BTS");
	else if (c->pti)
		snprintf(buf, len, "page-table isolation is on (cpuinfo flag 'pti') and the kernel disables intel_bts under PTI; boot with pti=off to trade that protection for tracing");
	else if (!c->dtes64)
		snprintf(buf, len, "the CPU lacks the 64-bit debug store (no 'dtes64' flag)");
	else
		snprintf(buf, len, "the kernel registered no intel_bts PMU (a kernel without Intel perf support?)");
}
