/*
 * fill_testutil.h - helpers shared by the fill unit tests (decoder, image,
 * symbolizer, fill): where the built test programs are, and MMAP records
 * that place a static test program where the kernel would.
 */
#ifndef FILL_TESTUTIL_H
#define FILL_TESTUTIL_H

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "itrace.h"
#include "itrace_code.h"

/* Absolute path of built test program `name` (static buffer per call site). */
static inline void test_prog_path(const char *name, char *buf, size_t cap)
{
	const char *build = getenv("ITRACE_BUILD");
	char rel[PATH_MAX];

	snprintf(rel, sizeof(rel), "%s/tests/data/%s", build ? build : "build", name);
	if (!realpath(rel, buf))
		snprintf(buf, cap, "%s", rel);
}

/*
 * An MMAP record for the page-aligned file range holding `sym` in a
 * -no-pie static program: start = vaddr - (offset - pgoff).
 */
static inline int test_text_mmap(const char *path, const char *sym, uint64_t len,
				 struct itrace_mmap *m)
{
	struct itrace_elf_symbol s;
	int rc = itrace_elf_find_symbol(path, sym, &s);

	if (rc < 0)
		return rc;
	memset(m, 0, sizeof(*m));
	m->pgoff = s.offset & ~0xfffull;
	m->start = s.vaddr - (s.offset - m->pgoff);
	m->len = len;
	m->pid = 100;
	m->prot = 5;
	m->path = path;
	m->path_len = strlen(path);
	rc = itrace_elf_build_id(path, m->buildid, sizeof(m->buildid));
	if (rc < 0)
		return rc;
	m->buildid_len = (uint8_t)rc;
	return 0;
}

#endif
