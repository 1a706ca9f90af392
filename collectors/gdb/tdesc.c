/*
 * tdesc.c - target descriptions (see tdesc.h), parsed with libxml2.
 */
#include "tdesc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

#define TDESC_MAX_DEPTH 4
#define TDESC_MAX_REGS 4096

struct tdesc_builder {
	struct tdesc *td;
	size_t cap;
	unsigned next_regnum;
	tdesc_fetch_fn fetch;
	void *ctx;
	char *err;
	size_t errlen;
};

static int add_reg(struct tdesc_builder *b, const char *name, unsigned bitsize, unsigned regnum)
{
	struct tdesc *td = b->td;
	struct tdesc_reg *reg;

	if (td->n == b->cap) {
		size_t cap = b->cap ? 2 * b->cap : 64;
		struct tdesc_reg *p;

		if (cap > TDESC_MAX_REGS) {
			snprintf(b->err, b->errlen, "target description has too many registers");
			return -1;
		}
		p = realloc(td->regs, cap * sizeof(*p));
		if (!p) {
			snprintf(b->err, b->errlen, "out of memory");
			return -1;
		}
		td->regs = p;
		b->cap = cap;
	}
	reg = &td->regs[td->n++];
	memset(reg, 0, sizeof(*reg));
	snprintf(reg->name, sizeof(reg->name), "%s", name);
	reg->bitsize = bitsize;
	reg->regnum = regnum;
	return 0;
}

static unsigned long attr_ulong(xmlNode *node, const char *attr, unsigned long dflt, int *present)
{
	xmlChar *v = xmlGetProp(node, (const xmlChar *)attr);
	unsigned long n = dflt;

	if (present)
		*present = v != NULL;
	if (v) {
		n = strtoul((const char *)v, NULL, 0);
		xmlFree(v);
	}
	return n;
}

static int parse_doc(struct tdesc_builder *b, const char *xml, size_t len, int depth);

static int on_reg(struct tdesc_builder *b, xmlNode *node)
{
	xmlChar *name = xmlGetProp(node, (const xmlChar *)"name");
	unsigned long bitsize = attr_ulong(node, "bitsize", 0, NULL);
	int has_regnum;
	unsigned long regnum = attr_ulong(node, "regnum", b->next_regnum, &has_regnum);
	int rc;

	if (!name || bitsize == 0 || bitsize % 8) {
		xmlFree(name);
		snprintf(b->err, b->errlen, "target description has a register without "
			 "name or with a bit size that is not whole bytes");
		return -1;
	}
	rc = add_reg(b, (const char *)name, (unsigned)bitsize, (unsigned)regnum);
	b->next_regnum = (unsigned)regnum + 1;
	xmlFree(name);
	return rc;
}

static int on_include(struct tdesc_builder *b, xmlNode *node, int depth)
{
	xmlChar *href = xmlGetProp(node, (const xmlChar *)"href");
	char *sub;
	int rc;

	if (!href)
		return 0;
	if (depth >= TDESC_MAX_DEPTH || !b->fetch) {
		snprintf(b->err, b->errlen, "target description includes '%s' too deep", href);
		xmlFree(href);
		return -1;
	}
	sub = b->fetch(b->ctx, (const char *)href);
	if (!sub) {
		snprintf(b->err, b->errlen, "the gdb stub cannot send '%s' of its target "
			 "description", href);
		xmlFree(href);
		return -1;
	}
	xmlFree(href);
	rc = parse_doc(b, sub, strlen(sub), depth + 1);
	free(sub);
	return rc;
}

static int walk(struct tdesc_builder *b, xmlNode *node, int depth)
{
	for (; node; node = node->next) {
		const char *name = (const char *)node->name;
		int rc = 0;

		if (node->type != XML_ELEMENT_NODE)
			continue;
		if (strcmp(name, "reg") == 0) {
			rc = on_reg(b, node);
		} else if (strcmp(name, "include") == 0 || strcmp(name, "xi:include") == 0) {
			rc = on_include(b, node, depth);
		} else if (strcmp(name, "architecture") == 0 && !b->td->arch[0]) {
			xmlChar *text = xmlNodeGetContent(node);

			if (text)
				snprintf(b->td->arch, sizeof(b->td->arch), "%s", (const char *)text);
			xmlFree(text);
		} else {
			rc = walk(b, node->children, depth);
		}
		if (rc < 0)
			return rc;
	}
	return 0;
}

static int parse_doc(struct tdesc_builder *b, const char *xml, size_t len, int depth)
{
	/* No network, no DTD loading: the stub's gdb-target.dtd is not needed. */
	xmlDoc *doc = xmlReadMemory(xml, (int)len, "target.xml", NULL,
				    XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
	int rc;

	if (!doc) {
		snprintf(b->err, b->errlen, "the gdb stub's target description is not valid XML");
		return -1;
	}
	rc = walk(b, xmlDocGetRootElement(doc), depth);
	xmlFreeDoc(doc);
	return rc;
}

static int by_regnum(const void *a, const void *b)
{
	const struct tdesc_reg *x = a, *y = b;

	return (x->regnum > y->regnum) - (x->regnum < y->regnum);
}

/* layout - sort by regnum and give each register its 'g' packet offset. */
static void layout(struct tdesc *td)
{
	size_t off = 0;

	qsort(td->regs, td->n, sizeof(td->regs[0]), by_regnum);
	for (size_t i = 0; i < td->n; i++) {
		td->regs[i].offset = off;
		off += td->regs[i].bitsize / 8;
	}
}

int tdesc_parse(const char *xml, size_t len, tdesc_fetch_fn fetch, void *ctx, struct tdesc *td,
		char *err, size_t errlen)
{
	struct tdesc_builder b = {.td = td, .fetch = fetch, .ctx = ctx, .err = err,
				  .errlen = errlen};

	memset(td, 0, sizeof(*td));
	if (parse_doc(&b, xml, len, 0) < 0) {
		tdesc_free(td);
		return -1;
	}
	if (td->n == 0) {
		snprintf(err, errlen, "the gdb stub's target description lists no registers");
		tdesc_free(td);
		return -1;
	}
	layout(td);
	return 0;
}

/* ---- Built-in layouts ------------------------------------------------------ */

struct reg_run {
	const char *fmt; /* printf format with %u, or a plain name */
	unsigned count, bitsize;
};

/* gdb's powerpc:common64 layout (rs6000-tdep, powerpc-64l.xml). */
static const struct reg_run ppc64_regs[] = {
	{"r%u", 32, 64}, {"f%u", 32, 64}, {"pc", 1, 64}, {"msr", 1, 64}, {"cr", 1, 32},
	{"lr", 1, 64},	 {"ctr", 1, 64},  {"xer", 1, 32}, {"fpscr", 1, 32}, {NULL, 0, 0},
};

/* gdb's i386:x86-64 core layout (amd64-tdep, 64bit-core.xml). */
static const struct reg_run x86_64_regs[] = {
	{"rax", 1, 64}, {"rbx", 1, 64}, {"rcx", 1, 64}, {"rdx", 1, 64}, {"rsi", 1, 64},
	{"rdi", 1, 64}, {"rbp", 1, 64}, {"rsp", 1, 64}, {"r%u", 8, 64},	 {"rip", 1, 64},
	{"eflags", 1, 32}, {"cs", 1, 32}, {"ss", 1, 32}, {"ds", 1, 32},	 {"es", 1, 32},
	{"fs", 1, 32},	{"gs", 1, 32},	{NULL, 0, 0},
};

int tdesc_fallback(const char *arch, struct tdesc *td)
{
	const struct reg_run *runs;
	struct tdesc_builder b = {.td = td};
	char err[64], name[32];
	unsigned regnum = 0, first;

	if (strcmp(arch, "ppc64") == 0)
		runs = ppc64_regs;
	else if (strcmp(arch, "x86-64") == 0)
		runs = x86_64_regs;
	else
		return -1;
	memset(td, 0, sizeof(*td));
	b.err = err;
	b.errlen = sizeof(err);
	snprintf(td->arch, sizeof(td->arch), "%s", runs == ppc64_regs ? "powerpc:common64"
								       : "i386:x86-64");
	for (; runs->fmt; runs++) {
		/* x86-64's r8..r15 are numbered from 8. */
		first = strcmp(runs->fmt, "r%u") == 0 && runs->count == 8 ? 8 : 0;
		for (unsigned i = 0; i < runs->count; i++) {
			if (runs->count > 1)
				snprintf(name, sizeof(name), runs->fmt, first + i);
			else
				snprintf(name, sizeof(name), "%s", runs->fmt);
			if (add_reg(&b, name, runs->bitsize, regnum++) < 0) {
				tdesc_free(td);
				return -1;
			}
		}
	}
	layout(td);
	return 0;
}

const struct tdesc_reg *tdesc_find(const struct tdesc *td, const char *name)
{
	for (size_t i = 0; i < td->n; i++)
		if (strcmp(td->regs[i].name, name) == 0)
			return &td->regs[i];
	return NULL;
}

void tdesc_free(struct tdesc *td)
{
	free(td->regs);
	td->regs = NULL;
	td->n = 0;
}
