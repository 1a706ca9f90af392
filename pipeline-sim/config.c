/* config.c - parse core descriptions (see config.h and cores/NAME.core). */
#include "config.h"

#include "cli.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const class_names[SIM_CLS_COUNT] = {
	"int_alu", "int_mul", "int_div", "branch", "load",    "store",	     "fp_add",
	"fp_mul",  "fp_div",  "vec",	 "nop",	   "sys",     "fp_fma",	     "vec_mul",
	"vec_shuffle", "vec_load", "vec_store",
};

const char *sim_class_name(int cls)
{
	return cls >= 0 && cls < SIM_CLS_COUNT ? class_names[cls] : NULL;
}

int sim_class_parent(int cls)
{
	switch (cls) {
	case SIM_CLS_FP_FMA: return SIM_CLS_FP_MUL;
	case SIM_CLS_VEC_MUL: return SIM_CLS_VEC;
	case SIM_CLS_VEC_SHUFFLE: return SIM_CLS_VEC;
	case SIM_CLS_VEC_LOAD: return SIM_CLS_LOAD;
	case SIM_CLS_VEC_STORE: return SIM_CLS_STORE;
	default: return -1;
	}
}

int sim_class_from_name(const char *name)
{
	for (int i = 0; i < SIM_CLS_COUNT; i++)
		if (strcmp(name, class_names[i]) == 0)
			return i;
	return -1;
}

void sim_config_init(struct sim_core_cfg *c)
{
	memset(c, 0, sizeof(*c));
	c->store_forward_latency = 1;
}

static int fail(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

/* parse_size - "32K", "1M", "64" into bytes/units (tools/cli.h). */
static int parse_size(const char *s, uint64_t *out)
{
	return cli_parse_size(s, out);
}

static int parse_uint(const char *s, unsigned *out)
{
	uint64_t v;

	if (parse_size(s, &v) || v > 0x7fffffffu)
		return -1;
	*out = (unsigned)v;
	return 0;
}

static int port_index(const struct sim_core_cfg *c, const char *name)
{
	for (int i = 0; i < c->nports; i++)
		if (strcmp(c->port_names[i], name) == 0)
			return i;
	return -1;
}

/* A value made of "k=v" words, split in place. */
struct kv_words {
	int n;
	char *key[16];
	char *val[16];
};

/* The kinds of execution unit: a class that needs more ports than it has
 * takes them from the other classes of its kind first. */
enum unit_kind { KIND_INT, KIND_LOAD, KIND_STORE, KIND_VEC };

static enum unit_kind kind_of(int cls)
{
	switch (cls) {
	case SIM_CLS_INT_ALU: case SIM_CLS_INT_MUL: case SIM_CLS_INT_DIV: case SIM_CLS_BRANCH:
	case SIM_CLS_NOP: case SIM_CLS_SYS:
		return KIND_INT;
	case SIM_CLS_LOAD: case SIM_CLS_VEC_LOAD:
		return KIND_LOAD;
	case SIM_CLS_STORE: case SIM_CLS_VEC_STORE:
		return KIND_STORE;
	default:
		return KIND_VEC;
	}
}

/* kind_ports - the ports of every class of cls's kind. */
static uint32_t kind_ports(const struct sim_core_cfg *c, int cls)
{
	uint32_t m = 0;

	for (int k = 0; k < SIM_CLS_COUNT; k++)
		if (kind_of(k) == kind_of(cls))
			m |= c->cls[k].port_mask;
	return m;
}

/* new_port - a port of cls's kind the description does not have yet
 * ("alu4", "ld3", ...); -1 when the model has no room for another. */
static int new_port(struct sim_core_cfg *c, int cls)
{
	static const char *const stem[] = { "alu", "ld", "st", "fp" };

	if (c->nports >= SIM_MAX_PORTS)
		return -1;
	for (int n = 0;; n++) {
		char name[16];

		snprintf(name, sizeof(name), "%s%d", stem[kind_of(cls)], n);
		if (port_index(c, name) < 0) {
			strcpy(c->port_names[c->nports], name);
			return c->nports++;
		}
	}
}

unsigned sim_config_set_port_count(struct sim_core_cfg *c, int cls, unsigned n)
{
	uint32_t m = c->cls[cls].port_mask, keep = 0, spare;

	for (unsigned i = 0; i < n && m; i++) { /* its own ports first */
		keep |= m & -m;
		m &= m - 1;
	}
	spare = kind_ports(c, cls) & ~keep;
	while ((unsigned)__builtin_popcount(keep) < n) {
		int p;

		if (spare) {
			keep |= spare & -spare;
			spare &= spare - 1;
			continue;
		}
		if ((p = new_port(c, cls)) < 0)
			break;
		keep |= 1u << p;
	}
	c->cls[cls].port_mask = keep;
	return (unsigned)__builtin_popcount(keep);
}

static int split_words(char *s, struct kv_words *w)
{
	w->n = 0;
	for (char *tok = strtok(s, " \t"); tok; tok = strtok(NULL, " \t")) {
		char *eq = strchr(tok, '=');

		if (!eq || w->n == 16)
			return -1;
		*eq = '\0';
		w->key[w->n] = tok;
		w->val[w->n] = eq + 1;
		w->n++;
	}
	return 0;
}

static int parse_ports(struct sim_core_cfg *c, char *value, char *err, size_t errlen)
{
	c->nports = 0;
	for (char *tok = strtok(value, " \t,"); tok; tok = strtok(NULL, " \t,")) {
		if (c->nports == SIM_MAX_PORTS)
			return fail(err, errlen, "more than %d ports", SIM_MAX_PORTS);
		if (strlen(tok) >= sizeof(c->port_names[0]))
			return fail(err, errlen, "port name '%s' too long", tok);
		strcpy(c->port_names[c->nports++], tok);
	}
	return 0;
}

static int parse_class(struct sim_core_cfg *c, const char *cname, char *value, char *err,
		       size_t errlen)
{
	int cls = sim_class_from_name(cname);
	struct kv_words w;
	struct sim_class_cfg cc = { 0, 1, 1, 0, 0 };

	if (cls < 0)
		return fail(err, errlen, "unknown instruction class '%s'", cname);
	if (split_words(value, &w))
		return fail(err, errlen, "class.%s: expected ports=... latency=N occupancy=N", cname);
	for (int i = 0; i < w.n; i++) {
		if (strcmp(w.key[i], "ports") == 0) {
			for (char *p = strtok(w.val[i], ","); p; p = strtok(NULL, ",")) {
				int idx = port_index(c, p);

				if (idx < 0)
					return fail(err, errlen, "class.%s: unknown port '%s' (declare it in ports =)", cname, p);
				cc.port_mask |= 1u << idx;
			}
		} else if (strcmp(w.key[i], "latency") == 0) {
			if (parse_uint(w.val[i], &cc.latency))
				return fail(err, errlen, "class.%s: bad latency '%s'", cname, w.val[i]);
		} else if (strcmp(w.key[i], "occupancy") == 0) {
			if (parse_uint(w.val[i], &cc.occupancy) || cc.occupancy == 0)
				return fail(err, errlen, "class.%s: bad occupancy '%s'", cname, w.val[i]);
		} else if (strcmp(w.key[i], "latency32") == 0) {
			if (parse_uint(w.val[i], &cc.latency32))
				return fail(err, errlen, "class.%s: bad latency32 '%s'", cname, w.val[i]);
		} else if (strcmp(w.key[i], "occupancy32") == 0) {
			if (parse_uint(w.val[i], &cc.occupancy32))
				return fail(err, errlen, "class.%s: bad occupancy32 '%s'", cname, w.val[i]);
		} else {
			return fail(err, errlen, "class.%s: unknown field '%s'", cname, w.key[i]);
		}
	}
	c->cls[cls] = cc;
	return 0;
}

static int parse_cache(struct sim_cache_cfg *cc, unsigned *fill, const char *cname, char *value,
		       char *err, size_t errlen)
{
	struct kv_words w;

	memset(cc, 0, sizeof(*cc));
	if (fill)
		*fill = 0; /* the line describes the level whole */
	if (strcmp(value, "none") == 0)
		return 0;
	if (split_words(value, &w))
		return fail(err, errlen, "%s: expected size=.. assoc=.. line=.. latency=.. [repl=lru|fifo|random] or none", cname);
	cc->enabled = 1;
	cc->repl = SIM_REPL_LRU;
	for (int i = 0; i < w.n; i++) {
		int bad = 0;

		if (strcmp(w.key[i], "size") == 0)
			bad = parse_size(w.val[i], &cc->size);
		else if (strcmp(w.key[i], "assoc") == 0)
			bad = parse_uint(w.val[i], &cc->assoc);
		else if (strcmp(w.key[i], "line") == 0)
			bad = parse_uint(w.val[i], &cc->line);
		else if (strcmp(w.key[i], "latency") == 0)
			bad = parse_uint(w.val[i], &cc->latency);
		else if (fill && strcmp(w.key[i], "fill") == 0)
			bad = parse_uint(w.val[i], fill) || *fill > 10000;
		else if (strcmp(w.key[i], "repl") == 0) {
			if (strcmp(w.val[i], "lru") == 0)
				cc->repl = SIM_REPL_LRU;
			else if (strcmp(w.val[i], "fifo") == 0)
				cc->repl = SIM_REPL_FIFO;
			else if (strcmp(w.val[i], "random") == 0)
				cc->repl = SIM_REPL_RANDOM;
			else
				bad = 1;
		} else
			return fail(err, errlen, "%s: unknown field '%s'", cname, w.key[i]);
		if (bad)
			return fail(err, errlen, "%s: bad %s '%s'", cname, w.key[i], w.val[i]);
	}
	return 0;
}

struct uint_key {
	const char *key;
	size_t off;
};

#define UK(f) { #f, offsetof(struct sim_core_cfg, f) }
static const struct uint_key uint_keys[] = {
	UK(fetch_width), UK(dispatch_width), UK(retire_width), UK(frontend_depth),
	UK(fetch_queue), UK(rob), UK(iq), UK(lq), UK(sq), UK(mispredict_penalty),
	UK(store_forward_latency), UK(bpred_bits), UK(ghist_bits), UK(btb_entries),
	UK(ras_entries), UK(mem_latency), UK(prefetch_degree), UK(macro_fusion),
	UK(move_elimination), UK(zero_idioms), UK(immediate_folding), UK(rep_startup),
	UK(rep_bytes_per_cycle), UK(store_port_bytes), UK(memory_renaming), UK(mem_fill),
	UK(taken_per_cycle),
};

/* apply - one key with its (trimmed, writable) value. */
static int apply(struct sim_core_cfg *c, const char *key, char *value, char *err, size_t errlen)
{
	for (size_t i = 0; i < sizeof(uint_keys) / sizeof(uint_keys[0]); i++) {
		if (strcmp(key, uint_keys[i].key) == 0) {
			unsigned *dst = (unsigned *)((char *)c + uint_keys[i].off);

			if (parse_uint(value, dst))
				return fail(err, errlen, "%s: bad number '%s'", key, value);
			return 0;
		}
	}
	if (strcmp(key, "name") == 0) {
		snprintf(c->name, sizeof(c->name), "%s", value);
		return 0;
	}
	if (strcmp(key, "model") == 0) {
		if (strcmp(value, "ooo") == 0)
			c->inorder = 0;
		else if (strcmp(value, "inorder") == 0)
			c->inorder = 1;
		else
			return fail(err, errlen, "model: expected ooo or inorder, not '%s'", value);
		return 0;
	}
	if (strcmp(key, "bpred") == 0) {
		if (strcmp(value, "bimodal") == 0)
			c->bpred = SIM_BP_BIMODAL;
		else if (strcmp(value, "gshare") == 0)
			c->bpred = SIM_BP_GSHARE;
		else if (strcmp(value, "tage") == 0)
			c->bpred = SIM_BP_TAGE;
		else
			return fail(err, errlen, "bpred: expected bimodal, gshare or tage, not '%s'", value);
		return 0;
	}
	if (strcmp(key, "prefetch") == 0) {
		if (strcmp(value, "none") == 0)
			c->prefetch = SIM_PF_NONE;
		else if (strcmp(value, "stride") == 0)
			c->prefetch = SIM_PF_STRIDE;
		else
			return fail(err, errlen, "prefetch: expected none or stride, not '%s'", value);
		return 0;
	}
	if (strcmp(key, "ports") == 0)
		return parse_ports(c, value, err, errlen);
	if (strncmp(key, "class.", 6) == 0)
		return parse_class(c, key + 6, value, err, errlen);
	if (strcmp(key, "l1i") == 0)
		return parse_cache(&c->l1i, NULL, key, value, err, errlen);
	if (strcmp(key, "l1d") == 0)
		return parse_cache(&c->l1d, NULL, key, value, err, errlen);
	if (strcmp(key, "l2") == 0)
		return parse_cache(&c->l2, &c->l2_fill, key, value, err, errlen);
	if (strcmp(key, "llc") == 0)
		return parse_cache(&c->llc, &c->llc_fill, key, value, err, errlen);
	return fail(err, errlen, "unknown key '%s'", key);
}

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

/* parse_line - "key = value" (comments already stripped); 0 or -1. */
static int parse_line(struct sim_core_cfg *c, char *line, char *err, size_t errlen)
{
	char *eq = strchr(line, '=');
	char *key, *value;

	if (!eq)
		return fail(err, errlen, "expected 'key = value'");
	*eq = '\0';
	key = trim(line);
	value = trim(eq + 1);
	if (!*key)
		return fail(err, errlen, "missing key before '='");
	return apply(c, key, value, err, errlen);
}

int sim_config_parse(struct sim_core_cfg *c, const char *text, const char *origin,
		     char *err, size_t errlen)
{
	char line[1024];
	int lineno = 0;

	while (*text) {
		const char *nl = strchr(text, '\n');
		size_t n = nl ? (size_t)(nl - text) : strlen(text);
		char *hash, *body;
		char msg[512];

		lineno++;
		if (n >= sizeof(line))
			return fail(err, errlen, "%s:%d: line too long", origin, lineno);
		memcpy(line, text, n);
		line[n] = '\0';
		text += n + (nl ? 1 : 0);
		hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		body = trim(line);
		if (!*body)
			continue;
		if (parse_line(c, body, msg, sizeof(msg)))
			return fail(err, errlen, "%s:%d: %s", origin, lineno, msg);
	}
	return 0;
}

int sim_config_set(struct sim_core_cfg *c, const char *kv, char *err, size_t errlen)
{
	char line[1024];
	char msg[512];

	if (strlen(kv) >= sizeof(line))
		return fail(err, errlen, "--set value too long");
	strcpy(line, kv);
	if (parse_line(c, line, msg, sizeof(msg)))
		return fail(err, errlen, "--set '%s': %s", kv, msg);
	return 0;
}

static int is_pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

static int check_cache(const struct sim_cache_cfg *cc, const char *name, char *err, size_t errlen)
{
	uint64_t sets;

	if (!cc->enabled)
		return 0;
	if (!is_pow2(cc->line) || cc->assoc == 0 || cc->size == 0)
		return fail(err, errlen, "%s: line must be a power of two and size, assoc non-zero", name);
	if (cc->size % ((uint64_t)cc->assoc * cc->line))
		return fail(err, errlen, "%s: size must be a multiple of assoc * line", name);
	sets = cc->size / ((uint64_t)cc->assoc * cc->line);
	if (!is_pow2(sets))
		return fail(err, errlen, "%s: number of sets (%llu) must be a power of two", name,
			    (unsigned long long)sets);
	if (cc->assoc > 64)
		return fail(err, errlen, "%s: associativity above 64 is not supported", name);
	return 0;
}

int sim_config_validate(struct sim_core_cfg *c, char *err, size_t errlen)
{
	for (int i = 0; i < SIM_CLS_COUNT; i++)
		if (!c->cls[i].port_mask && sim_class_parent(i) >= 0)
			c->cls[i] = c->cls[sim_class_parent(i)];
	if (!c->fetch_width || !c->dispatch_width || !c->retire_width)
		return fail(err, errlen, "fetch_width, dispatch_width and retire_width must be set");
	if (!c->rob || !c->iq || !c->lq || !c->sq || !c->fetch_queue)
		return fail(err, errlen, "rob, iq, lq, sq and fetch_queue must be set");
	if (c->rob > 4096 || c->iq > 4096 || c->lq > 4096 || c->sq > 4096 || c->fetch_queue > 4096)
		return fail(err, errlen, "queue sizes above 4096 are not supported");
	if (c->nports == 0)
		return fail(err, errlen, "no ports declared (ports = ...)");
	for (int i = 0; i < SIM_CLS_COUNT; i++) {
		if (i != SIM_CLS_NOP && !c->cls[i].port_mask)
			return fail(err, errlen, "class.%s is not configured", class_names[i]);
		if (c->cls[i].latency > 10000 || c->cls[i].occupancy > 1000 ||
		    c->cls[i].latency32 > 10000 || c->cls[i].occupancy32 > 1000)
			return fail(err, errlen, "class.%s: latency at most 10000, occupancy at most 1000",
				    class_names[i]);
	}
	if (c->bpred_bits < 4 || c->bpred_bits > 24 || c->ghist_bits > 64)
		return fail(err, errlen, "bpred_bits must be 4..24 and ghist_bits at most 64");
	if (!is_pow2(c->btb_entries) || c->btb_entries > (1u << 20) || c->ras_entries > 4096)
		return fail(err, errlen, "btb_entries must be a power of two up to 1M, ras_entries at most 4096");
	if (c->mem_latency > 100000 || c->frontend_depth > 1000 || c->mispredict_penalty > 10000)
		return fail(err, errlen, "mem_latency, frontend_depth or mispredict_penalty out of range");
	if (!c->l1i.enabled || !c->l1d.enabled)
		return fail(err, errlen, "l1i and l1d must be configured");
	if (c->l1i.size > (1ull << 30) || c->l1d.size > (1ull << 30) || c->l2.size > (1ull << 30) ||
	    c->llc.size > (1ull << 32))
		return fail(err, errlen, "cache sizes above 1 GiB (4 GiB for the LLC) are not supported");
	if (check_cache(&c->l1i, "l1i", err, errlen) || check_cache(&c->l1d, "l1d", err, errlen) ||
	    check_cache(&c->l2, "l2", err, errlen) || check_cache(&c->llc, "llc", err, errlen))
		return -1;
	if (!c->mem_latency)
		return fail(err, errlen, "mem_latency must be set");
	if (c->mem_fill > 10000)
		return fail(err, errlen, "mem_fill at most 10000");
	if (c->macro_fusion > 1 || c->move_elimination > 1 || c->zero_idioms > 1 ||
	    c->immediate_folding > 1 || c->memory_renaming > 1)
		return fail(err, errlen, "macro_fusion, move_elimination, zero_idioms, immediate_folding and "
					 "memory_renaming are 0 or 1");
	if (c->rep_startup > 10000 || c->rep_bytes_per_cycle > 4096 || c->store_port_bytes > 4096)
		return fail(err, errlen, "rep_startup at most 10000, rep_bytes_per_cycle at most 4096");
	if (c->taken_per_cycle > 16)
		return fail(err, errlen, "taken_per_cycle at most 16");
	if (c->prefetch != SIM_PF_NONE && (c->prefetch_degree == 0 || c->prefetch_degree > 16))
		return fail(err, errlen, "prefetch_degree must be 1..16 with prefetch = stride");
	return 0;
}

static char *read_file(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0, cap = 0;

	if (!f)
		return NULL;
	for (;;) {
		if (len + 4096 + 1 > cap) {
			char *nb;

			cap = cap ? cap * 2 : 8192;
			nb = realloc(buf, cap);
			if (!nb) {
				free(buf);
				fclose(f);
				errno = ENOMEM;
				return NULL;
			}
			buf = nb;
		}
		size_t n = fread(buf + len, 1, 4096, f);
		len += n;
		if (n < 4096)
			break;
	}
	if (ferror(f)) {
		free(buf);
		fclose(f);
		errno = EIO;
		return NULL;
	}
	fclose(f);
	buf[len] = '\0';
	return buf;
}

int sim_config_load(struct sim_core_cfg *c, const char *name_or_path, char *err, size_t errlen)
{
	char *text;
	int rc;

	for (size_t i = 0; i < sim_preset_count; i++)
		if (strcmp(sim_presets[i].name, name_or_path) == 0)
			return sim_config_parse(c, sim_presets[i].text, name_or_path, err, errlen);
	text = read_file(name_or_path);
	if (!text) {
		char names[256] = "";

		for (size_t i = 0; i < sim_preset_count; i++) {
			strncat(names, i ? ", " : "", sizeof(names) - strlen(names) - 1);
			strncat(names, sim_presets[i].name, sizeof(names) - strlen(names) - 1);
		}
		return fail(err, errlen, "cannot open core file '%s': %s (presets: %s)", name_or_path,
			    strerror(errno), names);
	}
	rc = sim_config_parse(c, text, name_or_path, err, errlen);
	free(text);
	return rc;
}

void sim_config_print(FILE *out, const struct sim_core_cfg *c)
{
	static const char *const bp[] = { "bimodal", "gshare", "tage" };
	static const char *const repl[] = { "lru", "fifo", "random" };
	const struct sim_cache_cfg *caches[4] = { &c->l1i, &c->l1d, &c->l2, &c->llc };
	const unsigned fills[4] = { 0, 0, c->l2_fill, c->llc_fill };
	static const char *const cnames[4] = { "l1i", "l1d", "l2", "llc" };

	fprintf(out, "name = %s\nmodel = %s\n", c->name, c->inorder ? "inorder" : "ooo");
	fprintf(out, "fetch_width = %u\ndispatch_width = %u\nretire_width = %u\n", c->fetch_width,
	       c->dispatch_width, c->retire_width);
	fprintf(out, "frontend_depth = %u\nfetch_queue = %u\nrob = %u\niq = %u\nlq = %u\nsq = %u\n",
	       c->frontend_depth, c->fetch_queue, c->rob, c->iq, c->lq, c->sq);
	if (c->taken_per_cycle)
		fprintf(out, "taken_per_cycle = %u\n", c->taken_per_cycle);
	fprintf(out, "mispredict_penalty = %u\nstore_forward_latency = %u\n", c->mispredict_penalty,
	       c->store_forward_latency);
	fprintf(out, "macro_fusion = %u\nmove_elimination = %u\nzero_idioms = %u\nimmediate_folding = %u\n",
		c->macro_fusion, c->move_elimination, c->zero_idioms, c->immediate_folding);
	fprintf(out, "memory_renaming = %u\n", c->memory_renaming);
	fprintf(out, "rep_startup = %u\nrep_bytes_per_cycle = %u\nstore_port_bytes = %u\nports =",
		c->rep_startup, c->rep_bytes_per_cycle, c->store_port_bytes);
	for (int p = 0; p < c->nports; p++)
		fprintf(out, " %s", c->port_names[p]);
	fprintf(out, "\n");
	for (int k = 0; k < SIM_CLS_COUNT; k++) {
		int first = 1;

		fprintf(out, "class.%s = ports=", sim_class_name(k));
		for (int p = 0; p < c->nports; p++)
			if (c->cls[k].port_mask & (1u << p)) {
				fprintf(out, "%s%s", first ? "" : ",", c->port_names[p]);
				first = 0;
			}
		fprintf(out, " latency=%u occupancy=%u", c->cls[k].latency, c->cls[k].occupancy);
		if (c->cls[k].latency32)
			fprintf(out, " latency32=%u", c->cls[k].latency32);
		if (c->cls[k].occupancy32)
			fprintf(out, " occupancy32=%u", c->cls[k].occupancy32);
		fprintf(out, "\n");
	}
	fprintf(out, "bpred = %s\nbpred_bits = %u\nghist_bits = %u\nbtb_entries = %u\nras_entries = %u\n",
	       bp[c->bpred], c->bpred_bits, c->ghist_bits, c->btb_entries, c->ras_entries);
	for (int i = 0; i < 4; i++) {
		if (!caches[i]->enabled) {
			fprintf(out, "%s = none\n", cnames[i]);
			continue;
		}
		fprintf(out, "%s = size=%llu assoc=%u line=%u latency=%u repl=%s", cnames[i],
			(unsigned long long)caches[i]->size, caches[i]->assoc, caches[i]->line,
			caches[i]->latency, repl[caches[i]->repl]);
		if (fills[i])
			fprintf(out, " fill=%u", fills[i]);
		fprintf(out, "\n");
	}
	fprintf(out, "mem_latency = %u\n", c->mem_latency);
	if (c->mem_fill)
		fprintf(out, "mem_fill = %u\n", c->mem_fill);
	fprintf(out, "prefetch = %s\n", c->prefetch == SIM_PF_STRIDE ? "stride" : "none");
	if (c->prefetch_degree)
		fprintf(out, "prefetch_degree = %u\n", c->prefetch_degree);
}
