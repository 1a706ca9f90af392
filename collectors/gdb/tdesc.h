/*
 * tdesc.h - register layout of a gdb stub's target.
 *
 * The stub describes its registers in target.xml (qXfer:features:read),
 * possibly spread over included files.  Registers are numbered in document
 * order, a regnum attribute restarting the count; the 'g' packet holds them
 * in regnum order, each in target byte order, as far as the stub sends.
 * Stubs without a description get a per-architecture table instead.
 */
#ifndef ITRACE_GDB_TDESC_H
#define ITRACE_GDB_TDESC_H

#include <stddef.h>
#include <stdint.h>

struct tdesc_reg {
	char name[32];
	unsigned bitsize;
	unsigned regnum;
	size_t offset; /* byte offset in the 'g' packet */
};

struct tdesc {
	char arch[64];		/* <architecture>, e.g. "powerpc:common64" */
	struct tdesc_reg *regs; /* sorted by regnum */
	size_t n;
};

/* Fetches an included description by name; returns malloc'd XML or NULL. */
typedef char *(*tdesc_fetch_fn)(void *ctx, const char *annex);

/*
 * tdesc_parse - build the layout from `xml`, following xi:include through
 * `fetch` (at most a few levels deep).  Returns 0, or -1 with a message in
 * err (not XML, no registers, an include that cannot be read).
 */
int tdesc_parse(const char *xml, size_t len, tdesc_fetch_fn fetch, void *ctx, struct tdesc *td,
		char *err, size_t errlen);

/*
 * tdesc_fallback - the built-in layout of `arch` ("ppc64" or "x86-64"),
 * the one gdb itself assumes for these targets.  Returns 0 or -1 if there
 * is no table for it.
 */
int tdesc_fallback(const char *arch, struct tdesc *td);

/* tdesc_find - the register called `name`, or NULL. */
const struct tdesc_reg *tdesc_find(const struct tdesc *td, const char *name);

/* tdesc_free - release the registers; the struct itself is the caller's. */
void tdesc_free(struct tdesc *td);

#endif
