/*
 * host.h - the machine pipeline-sim runs on: which core preset models it
 * (from CPUID vendor, family and model), and a cycle clock for
 * microbenchmarks where no performance counters can be read (wall time
 * calibrated by a dependent imul chain: 3 cycles per imul r64 on every
 * x86-64 core of the last decade, AMD Zen 1-5 and Intel since Sandy
 * Bridge, per Agner Fog's instruction tables and uops.info).
 */
#ifndef SIM_HOST_H
#define SIM_HOST_H

#include <stddef.h>
#include <stdint.h>

struct sim_host {
	char vendor[13];  /* "AuthenticAMD", "GenuineIntel"; "" off x86 */
	char brand[49];	  /* CPUID brand string */
	unsigned family;  /* CPUID family (extended family added) */
	unsigned model;	  /* CPUID model (extended model added) */
};

/* sim_host_signature - the display family and model of CPUID leaf 1's
 * EAX (extended family added from family 0Fh, extended model for families
 * 06h and 0Fh up). */
void sim_host_signature(unsigned eax, unsigned *family, unsigned *model);

/* sim_host_identify - fill *h from CPUID; -1 when not an x86-64 host. */
int sim_host_identify(struct sim_host *h);

/*
 * sim_host_preset - the bundled preset that models host *h.  *exact is 1
 * when the preset is the host's own microarchitecture, 0 when it is only
 * the nearest one (then `why` says which core it is and why the preset
 * was taken); NULL when no preset comes near (another architecture).
 */
const char *sim_host_preset(const struct sim_host *h, int *exact, char *why, size_t len);

/*
 * sim_host_cache - the data (or unified) cache of `level` (1, 2, 3) as the
 * hardware reports it: Linux's sysfs cache/index* of cpu0, else CPUID's
 * deterministic cache parameters (leaf 4, AMD 8000001Dh).  Returns 0 with
 * its size in bytes, its ways and *from ("sysfs", "CPUID"), or -1 when
 * neither says.  A VM reports what its hypervisor says, which need not be
 * what the process gets (calibrate.c measures that).
 */
int sim_host_cache(int level, uint64_t *size, unsigned *ways, const char **from);

/* sim_host_cpuid_cache - the same from CPUID alone (what sim_host_cache
 * falls back to without sysfs); -1 off x86-64 or when CPUID does not say. */
int sim_host_cpuid_cache(int level, uint64_t *size, unsigned *ways);

/*
 * sim_host_ns_per_cycle - nanoseconds per core cycle, the best of `runs`
 * timings of a dependent imul chain (3 cycles each); 0 off x86-64.
 */
double sim_host_ns_per_cycle(int runs);

/*
 * sim_host_chase_ring - link the cache lines of buf[0..size) into one
 * random cycle (each line's first word points at the next line), so that
 * a pointer chase through it defeats prefetchers.  `seed` picks the
 * order.  Returns 0, or -1 when out of memory.
 */
int sim_host_chase_ring(char *buf, size_t size, uint64_t seed);

/*
 * sim_host_best_cycles - core cycles per iteration of fn(iters, arg), the
 * best of `runs` timings after one untimed warm-up call; `gap_ms` apart
 * (0: back to back), so that the best can come from a quiet moment of a
 * shared machine.  The best timing is turned into cycles by the best of
 * short imul clock timings between the runs, so that the clock frequency
 * of those moments (a VM's moves with the load on its host) cancels out.
 * 0 off x86-64.
 */
double sim_host_best_cycles(void (*fn)(uint64_t iters, void *arg), void *arg, uint64_t iters, int runs,
			    unsigned gap_ms);

/* sim_host_now_ns - a monotonic clock in nanoseconds. */
uint64_t sim_host_now_ns(void);

#endif
