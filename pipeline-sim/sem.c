/* sem.c - instruction semantics from libitrace's decoder (see sem.h). */
#include "sem.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

#define POOL_CHUNK 4096

struct sim_semtab {
	int arch;
	struct itrace_decoder *dec;
	/* open addressing: address -> sem; entries point into the pool */
	struct sim_sem **slots;
	size_t nslots, used;
	struct sim_sem **chunks;
	size_t nchunks, count, undecoded, undecodable;
};

static void add_reg(uint8_t *list, uint8_t *n, unsigned max, unsigned id)
{
	if (id == ITRACE_REG_NONE)
		return;
	for (unsigned i = 0; i < *n; i++)
		if (list[i] == id)
			return;
	if (*n < max)
		list[(*n)++] = (uint8_t)id;
}

/* ---- table ------------------------------------------------------------- */

struct sim_semtab *sim_semtab_open(int arch)
{
	struct sim_semtab *t = calloc(1, sizeof(*t));
	int rc;

	if (!t)
		return NULL;
	t->arch = arch;
	if (arch == SIM_ARCH_X86_64)
		rc = itrace_decoder_alloc(EM_X86_64, ELFDATA2LSB, &t->dec);
	else
		rc = itrace_decoder_alloc(EM_PPC64, arch == SIM_ARCH_PPC64LE ? ELFDATA2LSB : ELFDATA2MSB,
					  &t->dec);
	t->nslots = 1 << 12;
	t->slots = calloc(t->nslots, sizeof(*t->slots));
	if (rc < 0 || !t->slots) {
		sim_semtab_close(t);
		return NULL;
	}
	return t;
}

void sim_semtab_close(struct sim_semtab *t)
{
	if (!t)
		return;
	itrace_decoder_free(t->dec);
	for (size_t i = 0; i < t->nchunks; i++)
		free(t->chunks[i]);
	free(t->chunks);
	free(t->slots);
	free(t);
}

void sim_semtab_reset(struct sim_semtab *t)
{
	/* entries keep statistics that start at 0 (fill keeps them) */
	for (size_t i = 0; i < t->count; i += POOL_CHUNK) {
		size_t n = t->count - i < POOL_CHUNK ? t->count - i : POOL_CHUNK;

		memset(t->chunks[i / POOL_CHUNK], 0, n * sizeof(struct sim_sem));
	}
	memset(t->slots, 0, t->nslots * sizeof(*t->slots));
	t->used = 0;
	t->count = 0;
	t->undecoded = 0;
	t->undecodable = 0;
}

size_t sim_semtab_count(const struct sim_semtab *t)
{
	return t->count;
}

size_t sim_semtab_undecoded(const struct sim_semtab *t)
{
	return t->undecoded;
}

size_t sim_semtab_undecodable(const struct sim_semtab *t)
{
	return t->undecodable;
}

struct sim_sem *sim_semtab_at(struct sim_semtab *t, size_t id)
{
	return &t->chunks[id / POOL_CHUNK][id % POOL_CHUNK];
}

static size_t slot_of(uint64_t addr, size_t mask)
{
	return (size_t)((addr * 0x9e3779b97f4a7c15ull) >> 20) & mask;
}

static int grow_slots(struct sim_semtab *t)
{
	size_t n = t->nslots * 2;
	struct sim_sem **s = calloc(n, sizeof(*s));

	if (!s)
		return -1;
	for (size_t i = 0; i < t->nslots; i++) {
		struct sim_sem *e = t->slots[i];

		if (e) {
			size_t j = slot_of(e->addr, n - 1);

			while (s[j])
				j = (j + 1) & (n - 1);
			s[j] = e;
		}
	}
	free(t->slots);
	t->slots = s;
	t->nslots = n;
	return 0;
}

/* new_entry - the next free entry of the pool (zeroed: a chunk comes from
 * calloc, and sim_semtab_reset clears the entries it hands back). */
static struct sim_sem *new_entry(struct sim_semtab *t)
{
	if (t->count / POOL_CHUNK == t->nchunks) {
		struct sim_sem **c = realloc(t->chunks, (t->nchunks + 1) * sizeof(*c));

		if (!c)
			return NULL;
		t->chunks = c;
		c[t->nchunks] = calloc(POOL_CHUNK, sizeof(struct sim_sem));
		if (!c[t->nchunks])
			return NULL;
		t->nchunks++;
	}
	return &t->chunks[t->count / POOL_CHUNK][t->count % POOL_CHUNK];
}

/* fill - decode into an entry, keeping its id and statistics. */
static void fill(struct sim_semtab *t, struct sim_sem *s, uint64_t addr, unsigned len,
		 const uint8_t *bytes)
{
	if (bytes) {
		sim_sem_decode(t, s, addr, bytes, len);
		return;
	}
	s->addr = addr;
	s->len = (uint8_t)len;
	s->cls = SIM_CLS_INT_ALU;
	s->flags = SIM_SEM_UNDECODED;
	s->nsrc = s->ndst = s->naddr = 0;
	s->uop = 0;
	s->has_bytes = 0;
	memset(&s->info, 0, sizeof(s->info));
	snprintf(s->text, sizeof(s->text), "(no bytes)");
}

/* count_entry - keep the no-bytes and undecodable totals (dir +1/-1). */
static void count_entry(struct sim_semtab *t, const struct sim_sem *s, int dir)
{
	if (s->flags & SIM_SEM_UNDECODED)
		t->undecoded += (size_t)dir;
	if (s->flags & SIM_SEM_UNDECODABLE)
		t->undecodable += (size_t)dir;
}

struct sim_sem *sim_semtab_find(struct sim_semtab *t, uint64_t addr)
{
	size_t mask = t->nslots - 1;
	size_t i = slot_of(addr, mask);
	struct sim_sem *s;

	while ((s = t->slots[i]) != NULL) {
		if (s->addr == addr)
			return s;
		i = (i + 1) & mask;
	}
	return NULL;
}

struct sim_sem *sim_semtab_get(struct sim_semtab *t, uint64_t addr, unsigned len,
			       const uint8_t *bytes)
{
	size_t mask = t->nslots - 1;
	size_t i = slot_of(addr, mask);
	struct sim_sem *s;

	while ((s = t->slots[i]) != NULL) {
		if (s->addr == addr) {
			/* self-modifying or reused code: decode again in place */
			if (bytes && (!s->has_bytes || s->len != len || memcmp(s->bytes, bytes, len))) {
				count_entry(t, s, -1);
				fill(t, s, addr, len, bytes);
				count_entry(t, s, 1);
			}
			return s;
		}
		i = (i + 1) & mask;
	}
	s = new_entry(t);
	if (!s)
		return NULL;
	s->id = (uint32_t)t->count;
	fill(t, s, addr, len, bytes);
	count_entry(t, s, 1);
	t->count++;
	t->slots[i] = s;
	if (++t->used * 2 > t->nslots && grow_slots(t))
		return NULL;
	return s;
}

/* ---- From the decoder's answer ----------------------------------------- */

static int uses_vector_registers(const struct itrace_insn_info *in)
{
	if (in->vec_bits)
		return 1;
	for (unsigned i = 0; i < in->nread; i++)
		if (in->read[i] >= ITRACE_REG_VEC(0) && in->read[i] <= ITRACE_REG_VEC(63))
			return 1;
	for (unsigned i = 0; i < in->nwrite; i++)
		if (in->write[i] >= ITRACE_REG_VEC(0) && in->write[i] <= ITRACE_REG_VEC(63))
			return 1;
	return 0;
}

/* sim_class - the simulator's port class of a decoded instruction. */
static uint8_t sim_class(const struct itrace_insn_info *in, uint16_t flags)
{
	switch (in->cls) {
	case ITRACE_CLASS_NOP:
		return SIM_CLS_NOP;
	case ITRACE_CLASS_MOVE:
		return uses_vector_registers(in) ? SIM_CLS_VEC : SIM_CLS_INT_ALU;
	case ITRACE_CLASS_LOAD:
		return SIM_CLS_LOAD;
	case ITRACE_CLASS_STORE:
		return SIM_CLS_STORE;
	case ITRACE_CLASS_INT_MUL:
		return SIM_CLS_INT_MUL;
	case ITRACE_CLASS_INT_DIV:
		return SIM_CLS_INT_DIV;
	case ITRACE_CLASS_BRANCH:
		return SIM_CLS_BRANCH;
	case ITRACE_CLASS_FP_ADD:
		return SIM_CLS_FP_ADD;
	case ITRACE_CLASS_FP_MUL:
		return SIM_CLS_FP_MUL;
	case ITRACE_CLASS_FP_FMA:
		return SIM_CLS_FP_FMA;
	case ITRACE_CLASS_FP_DIV:
	case ITRACE_CLASS_FP_SQRT:
		return SIM_CLS_FP_DIV;
	case ITRACE_CLASS_VEC_MUL:
		return SIM_CLS_VEC_MUL;
	case ITRACE_CLASS_VEC_SHUFFLE:
		return SIM_CLS_VEC_SHUFFLE;
	case ITRACE_CLASS_VEC_ALU:
	case ITRACE_CLASS_CRYPTO:
	case ITRACE_CLASS_MATRIX:
		return SIM_CLS_VEC;
	case ITRACE_CLASS_STRING:
		return (flags & SIM_SEM_LOAD) ? SIM_CLS_LOAD : SIM_CLS_STORE;
	case ITRACE_CLASS_ATOMIC:
		/* POWER larx/stcx. are a load and a store; locked x86
		 * read-modify-writes drain the store buffer: serialising */
		if (in->attrs & ITRACE_ATTR_LOAD_RESERVE)
			return SIM_CLS_LOAD;
		if (in->attrs & ITRACE_ATTR_STORE_COND)
			return SIM_CLS_STORE;
		return SIM_CLS_SYS;
	case ITRACE_CLASS_FENCE:
	case ITRACE_CLASS_SYSTEM:
		return SIM_CLS_SYS;
	default:
		return SIM_CLS_INT_ALU;
	}
}

static int reads(const struct itrace_insn_info *in, unsigned reg)
{
	for (unsigned i = 0; i < in->nread; i++)
		if (in->read[i] == reg)
			return 1;
	return 0;
}

/* Branch flags from the kind; POWER's conditional blr/bctr are COND
 * kinds that go through LR/CTR without an encoded target. */
static uint16_t branch_flags(const struct itrace_insn_info *in)
{
	int indirect_cond = in->d.kind == ITRACE_BRANCH_COND && !(in->d.flags & ITRACE_DECODED_HAS_TARGET);

	switch (in->d.kind) {
	case ITRACE_BRANCH_COND:
		if (indirect_cond && reads(in, ITRACE_REG_LR))
			return SIM_SEM_BRANCH | SIM_SEM_COND | SIM_SEM_RET;
		return SIM_SEM_BRANCH | SIM_SEM_COND | (indirect_cond ? SIM_SEM_INDIRECT : 0);
	case ITRACE_BRANCH_UNCOND:
		return SIM_SEM_BRANCH;
	case ITRACE_BRANCH_CALL:
		return SIM_SEM_BRANCH | SIM_SEM_CALL;
	case ITRACE_BRANCH_INDIRECT_CALL:
		return SIM_SEM_BRANCH | SIM_SEM_CALL | SIM_SEM_INDIRECT;
	case ITRACE_BRANCH_RETURN:
		return SIM_SEM_BRANCH | SIM_SEM_RET;
	case ITRACE_BRANCH_INDIRECT:
		return SIM_SEM_BRANCH | SIM_SEM_INDIRECT;
	default:
		return 0; /* not a branch, or a system call (serialising) */
	}
}

/* uop_facts - what a micro-op model needs beyond class and registers. */
static uint16_t uop_facts(const struct itrace_insn_info *in, uint16_t flags)
{
	uint16_t u = 0;

	if (in->attrs & ITRACE_ATTR_REG_MOVE)
		u |= SIM_UOP_MOVE;
	if (in->attrs & ITRACE_ATTR_ZERO_IDIOM)
		u |= SIM_UOP_ZERO;
	if (in->attrs & ITRACE_ATTR_ADD_IMM)
		u |= SIM_UOP_ADD_IMM;
	if (in->attrs & ITRACE_ATTR_FUSIBLE)
		u |= SIM_UOP_FUSIBLE;
	if ((flags & SIM_SEM_LOAD) && uses_vector_registers(in))
		u |= SIM_UOP_VEC_LOAD;
	if ((flags & SIM_SEM_STORE) && uses_vector_registers(in))
		u |= SIM_UOP_VEC_STORE;
	if (in->op_bits && in->op_bits <= 32)
		u |= SIM_UOP_NARROW;
	if (in->d.flags & ITRACE_DECODED_REP)
		u |= SIM_UOP_REP;
	return u;
}

static void from_info(struct sim_sem *s, const struct itrace_insn_info *in)
{
	uint16_t flags = branch_flags(in);

	for (unsigned i = 0; i < in->nmem; i++) {
		if (in->mem[i].flags & ITRACE_MEMOP_READ)
			flags |= SIM_SEM_LOAD;
		if (in->mem[i].flags & ITRACE_MEMOP_WRITE)
			flags |= SIM_SEM_STORE;
	}
	if (in->cls == ITRACE_CLASS_NOP)
		flags &= (uint16_t)~(SIM_SEM_LOAD | SIM_SEM_STORE);
	s->flags = flags;
	s->cls = sim_class(in, flags);
	s->uop = uop_facts(in, flags);
	for (unsigned i = 0; i < in->nmem; i++) {
		add_reg(s->addr_src, &s->naddr, SIM_SEM_MAX_ADDR, in->mem[i].base);
		if (!(in->mem[i].flags & ITRACE_MEMOP_LEN_REG))
			add_reg(s->addr_src, &s->naddr, SIM_SEM_MAX_ADDR, in->mem[i].index);
	}
	/* a zero or ones idiom does not wait for its sources */
	if (!(in->attrs & (ITRACE_ATTR_ZERO_IDIOM | ITRACE_ATTR_ONES_IDIOM)))
		for (unsigned i = 0; i < in->nread; i++)
			add_reg(s->src, &s->nsrc, SIM_SEM_MAX_SRC, in->read[i]);
	for (unsigned i = 0; i < in->nwrite; i++) {
		/* the stack engine renames the rsp updates of push/pop/call/ret */
		if ((in->attrs & ITRACE_ATTR_STACK) && in->write[i] == ITRACE_REG_X86_RSP)
			continue;
		add_reg(s->dst, &s->ndst, SIM_SEM_MAX_DST, in->write[i]);
	}
}

int sim_sem_decode(struct sim_semtab *t, struct sim_sem *s, uint64_t addr, const uint8_t *bytes,
		   unsigned len)
{
	s->addr = addr;
	s->len = (uint8_t)len;
	s->flags = 0;
	s->nsrc = s->ndst = s->naddr = 0;
	s->uop = 0;
	s->has_bytes = 1;
	memcpy(s->bytes, bytes, len > 16 ? 16 : len);
	/* the trace's length is the instruction's: decode no further */
	if (itrace_decoder_info(t->dec, bytes, len, addr, &s->info) < 0 || s->info.d.len != len) {
		memset(&s->info, 0, sizeof(s->info));
		s->cls = SIM_CLS_NOP;
		s->flags = SIM_SEM_UNDECODABLE;
		snprintf(s->text, sizeof(s->text), "(undecodable)");
		return -1;
	}
	if (itrace_decoder_text(t->dec, bytes, len, addr, s->text, sizeof(s->text)) < 0)
		s->text[0] = '\0';
	from_info(s, &s->info);
	return 0;
}

/* ---- Undecodable instructions ------------------------------------------- */

static int by_count_desc(const void *a, const void *b)
{
	const struct sim_sem *const *x = a, *const *y = b;

	return (*x)->count < (*y)->count ? 1 : (*x)->count > (*y)->count ? -1 : 0;
}

void sim_semtab_report_undecodable(const struct sim_semtab *t, FILE *out, const char *prog, int top)
{
	struct sim_sem **v;
	uint64_t dyn = 0;
	size_t k = 0;

	if (!t->undecodable)
		return;
	v = malloc(t->undecodable * sizeof(*v));
	for (size_t i = 0; i < t->count; i++) {
		struct sim_sem *s = &t->chunks[i / POOL_CHUNK][i % POOL_CHUNK];

		if (!(s->flags & SIM_SEM_UNDECODABLE))
			continue;
		dyn += s->count;
		if (v && k < t->undecodable)
			v[k++] = s;
	}
	fprintf(out, "%s: warning: %llu executions of %zu instructions whose bytes do not decode "
		     "were left out of the simulation\n",
		prog, (unsigned long long)dyn, t->undecodable);
	if (!v)
		return;
	qsort(v, k, sizeof(*v), by_count_desc);
	for (size_t i = 0; i < k && i < (size_t)top; i++) {
		fprintf(out, "%s:   0x%llx:", prog, (unsigned long long)v[i]->addr);
		for (unsigned b = 0; b < v[i]->len && b < sizeof(v[i]->bytes); b++)
			fprintf(out, " %02x", v[i]->bytes[b]);
		fprintf(out, "  (%llu times)\n", (unsigned long long)v[i]->count);
	}
	free(v);
}
