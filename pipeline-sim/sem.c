/* sem.c - capstone-based instruction semantics (see sem.h). */
#include "sem.h"

#include <capstone/capstone.h>
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define POOL_CHUNK 4096

struct sim_semtab {
	int arch;
	csh cs;
	cs_insn *insn;
	/* register id -> canonical id (0 = ignored, e.g. the program counter) */
	uint8_t canon[1024];
	char canon_names[SIM_MAX_REGS][16];
	int ncanon;
	/* open addressing: address -> sem; entries point into the pool */
	struct sim_sem **slots;
	size_t nslots, used;
	struct sim_sem **chunks;
	size_t nchunks, count, undecoded;
};

/* ---- canonical registers ------------------------------------------------ */

/* x86_family - fold "eax", "ax", "al", "ah" onto "rax", "r8d" onto "r8",
 * "xmm3"/"ymm3"/"zmm3" onto "v3"; "" for registers that carry no
 * dependency we model (instruction pointer). */
static void x86_family(const char *name, char *out, size_t outlen)
{
	static const char *const legacy[][5] = {
		{ "rax", "eax", "ax", "al", "ah" }, { "rbx", "ebx", "bx", "bl", "bh" },
		{ "rcx", "ecx", "cx", "cl", "ch" }, { "rdx", "edx", "dx", "dl", "dh" },
		{ "rsi", "esi", "si", "sil", NULL }, { "rdi", "edi", "di", "dil", NULL },
		{ "rbp", "ebp", "bp", "bpl", NULL }, { "rsp", "esp", "sp", "spl", NULL },
	};
	size_t n = strlen(name);

	if (!strcmp(name, "rip") || !strcmp(name, "eip") || !strcmp(name, "ip")) {
		out[0] = '\0';
		return;
	}
	for (size_t i = 0; i < sizeof(legacy) / sizeof(legacy[0]); i++)
		for (int j = 0; j < 5 && legacy[i][j]; j++)
			if (!strcmp(name, legacy[i][j])) {
				snprintf(out, outlen, "%s", legacy[i][0]);
				return;
			}
	if (name[0] == 'r' && isdigit((unsigned char)name[1])) {
		/* r8, r8d, r8w, r8b */
		size_t k = 1;

		while (isdigit((unsigned char)name[k]))
			k++;
		snprintf(out, outlen, "%.*s", (int)k, name);
		return;
	}
	if (n > 3 && (!strncmp(name, "xmm", 3) || !strncmp(name, "ymm", 3) || !strncmp(name, "zmm", 3))) {
		snprintf(out, outlen, "v%s", name + 3);
		return;
	}
	snprintf(out, outlen, "%s", name);
}

/* ppc_family - VSX registers vs0-31 overlay f0-31 and vs32-63 overlay v0-31. */
static void ppc_family(const char *name, char *out, size_t outlen)
{
	if (!strcmp(name, "pc") || !strcmp(name, "nia")) {
		out[0] = '\0';
		return;
	}
	if (!strncmp(name, "vs", 2) && isdigit((unsigned char)name[2])) {
		int n = atoi(name + 2);

		snprintf(out, outlen, n < 32 ? "f%d" : "v%d", n < 32 ? n : n - 32);
		return;
	}
	snprintf(out, outlen, "%s", name);
}

static int canon_id(struct sim_semtab *t, unsigned reg)
{
	char fam[16];
	const char *name;

	if (reg == 0 || reg >= sizeof(t->canon))
		return 0;
	if (t->canon[reg])
		return t->canon[reg] == 255 ? 0 : t->canon[reg];
	name = cs_reg_name(t->cs, reg);
	if (!name)
		return 0;
	if (t->arch == SIM_ARCH_X86_64)
		x86_family(name, fam, sizeof(fam));
	else
		ppc_family(name, fam, sizeof(fam));
	if (!fam[0]) {
		t->canon[reg] = 255;
		return 0;
	}
	for (int i = 1; i < t->ncanon; i++)
		if (!strcmp(t->canon_names[i], fam)) {
			t->canon[reg] = (uint8_t)i;
			return i;
		}
	if (t->ncanon >= 254) {
		t->canon[reg] = 255;
		return 0;
	}
	snprintf(t->canon_names[t->ncanon], sizeof(t->canon_names[0]), "%s", fam);
	t->canon[reg] = (uint8_t)t->ncanon;
	return t->ncanon++;
}

static void add_reg(uint8_t *list, uint8_t *n, unsigned max, int id)
{
	if (id <= 0)
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
	cs_err err;

	if (!t)
		return NULL;
	t->arch = arch;
	t->ncanon = 1; /* 0 means "no register" */
	if (arch == SIM_ARCH_X86_64)
		err = cs_open(CS_ARCH_X86, CS_MODE_64, &t->cs);
	else
		err = cs_open(CS_ARCH_PPC,
			      CS_MODE_64 | (arch == SIM_ARCH_PPC64LE ? CS_MODE_LITTLE_ENDIAN : CS_MODE_BIG_ENDIAN),
			      &t->cs);
	if (err != CS_ERR_OK) {
		free(t);
		return NULL;
	}
	cs_option(t->cs, CS_OPT_DETAIL, CS_OPT_ON);
	t->insn = cs_malloc(t->cs);
	t->nslots = 1 << 12;
	t->slots = calloc(t->nslots, sizeof(*t->slots));
	if (!t->insn || !t->slots) {
		sim_semtab_close(t);
		return NULL;
	}
	return t;
}

void sim_semtab_close(struct sim_semtab *t)
{
	if (!t)
		return;
	if (t->insn)
		cs_free(t->insn, 1);
	cs_close(&t->cs);
	for (size_t i = 0; i < t->nchunks; i++)
		free(t->chunks[i]);
	free(t->chunks);
	free(t->slots);
	free(t);
}

size_t sim_semtab_count(const struct sim_semtab *t)
{
	return t->count;
}

size_t sim_semtab_undecoded(const struct sim_semtab *t)
{
	return t->undecoded;
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

static struct sim_sem *new_entry(struct sim_semtab *t)
{
	if (t->count % POOL_CHUNK == 0) {
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
	s->nsrc = s->ndst = 0;
	s->has_bytes = 0;
	snprintf(s->text, sizeof(s->text), "(no bytes)");
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
				if (!s->has_bytes && (s->flags & SIM_SEM_UNDECODED))
					t->undecoded--;
				fill(t, s, addr, len, bytes);
				if (s->flags & SIM_SEM_UNDECODED)
					t->undecoded++;
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
	if (s->flags & SIM_SEM_UNDECODED)
		t->undecoded++;
	t->count++;
	t->slots[i] = s;
	if (++t->used * 2 > t->nslots && grow_slots(t))
		return NULL;
	return s;
}

/* ---- x86 --------------------------------------------------------------- */

static int has_group(const cs_insn *in, unsigned g)
{
	for (unsigned i = 0; i < in->detail->groups_count; i++)
		if (in->detail->groups[i] == g)
			return 1;
	return 0;
}

static int starts(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* fp_class - a vector/FP arithmetic mnemonic by what it computes. */
static int fp_class(const char *m)
{
	if (strstr(m, "div") || strstr(m, "sqrt"))
		return SIM_CLS_FP_DIV;
	if (strstr(m, "fma") || strstr(m, "fnma") || strstr(m, "fms") || strstr(m, "mul"))
		return SIM_CLS_FP_MUL;
	if (strstr(m, "add") || strstr(m, "sub") || strstr(m, "cmp") || strstr(m, "min") ||
	    strstr(m, "max") || strstr(m, "cvt"))
		return SIM_CLS_FP_ADD;
	return SIM_CLS_VEC;
}

static int x86_uses_vector(const cs_x86 *x)
{
	for (unsigned i = 0; i < x->op_count; i++) {
		if (x->operands[i].type == X86_OP_REG) {
			unsigned r = x->operands[i].reg;

			if ((r >= X86_REG_XMM0 && r <= X86_REG_XMM31) ||
			    (r >= X86_REG_YMM0 && r <= X86_REG_YMM31) ||
			    (r >= X86_REG_ZMM0 && r <= X86_REG_ZMM31) ||
			    (r >= X86_REG_ST0 && r <= X86_REG_ST7))
				return 1;
		}
	}
	return 0;
}

static int is_move(const char *m)
{
	return starts(m, "mov") || starts(m, "vmov") || starts(m, "push") || starts(m, "pop") ||
	       starts(m, "lods") || starts(m, "stos") || starts(m, "vbroadcast") ||
	       starts(m, "vpbroadcast") || starts(m, "lddqu") || starts(m, "vlddqu");
}

static void x86_decode(struct sim_semtab *t, struct sim_sem *s, const cs_insn *in)
{
	const cs_x86 *x = &in->detail->x86;
	const char *m = in->mnemonic;
	int vector = x86_uses_vector(x);
	int zero_idiom = 0;
	cs_regs rr, ww;
	uint8_t nr = 0, nw = 0;

	/* memory direction from the operands' access bits */
	if (in->id != X86_INS_LEA && in->id != X86_INS_NOP) {
		for (unsigned i = 0; i < x->op_count; i++) {
			const cs_x86_op *op = &x->operands[i];

			if (op->type != X86_OP_MEM)
				continue;
			if (op->access & CS_AC_READ)
				s->flags |= SIM_SEM_LOAD;
			if (op->access & CS_AC_WRITE)
				s->flags |= SIM_SEM_STORE;
			if (!op->access)
				s->flags |= SIM_SEM_LOAD;
		}
	}
	/* class */
	if (has_group(in, CS_GRP_CALL) || has_group(in, CS_GRP_RET) || has_group(in, CS_GRP_JUMP)) {
		s->cls = SIM_CLS_BRANCH;
		s->flags |= SIM_SEM_BRANCH;
		if (has_group(in, CS_GRP_CALL)) {
			s->flags |= SIM_SEM_CALL | SIM_SEM_STORE;
		} else if (has_group(in, CS_GRP_RET)) {
			s->flags |= SIM_SEM_RET | SIM_SEM_LOAD;
		} else if (in->id != X86_INS_JMP && in->id != X86_INS_LJMP) {
			s->flags |= SIM_SEM_COND;
		}
		if ((s->flags & (SIM_SEM_CALL | SIM_SEM_RET)) != SIM_SEM_RET && x->op_count &&
		    x->operands[0].type != X86_OP_IMM)
			s->flags |= SIM_SEM_INDIRECT;
	} else if (in->id == X86_INS_SYSCALL || in->id == X86_INS_CPUID || in->id == X86_INS_LFENCE ||
		   in->id == X86_INS_MFENCE || in->id == X86_INS_SFENCE || in->id == X86_INS_RDTSC ||
		   in->id == X86_INS_RDTSCP || in->id == X86_INS_INT || in->id == X86_INS_SYSENTER ||
		   x->prefix[0] == X86_PREFIX_LOCK ||
		   (in->id == X86_INS_XCHG && (s->flags & SIM_SEM_LOAD))) {
		s->cls = SIM_CLS_SYS;
	} else if (in->id == X86_INS_NOP || in->id == X86_INS_ENDBR64 || in->id == X86_INS_PAUSE ||
		   in->id == X86_INS_PREFETCHT0 || in->id == X86_INS_PREFETCHNTA) {
		s->cls = SIM_CLS_NOP;
		s->flags &= (uint8_t)~(SIM_SEM_LOAD | SIM_SEM_STORE);
	} else if (is_move(m) && (s->flags & (SIM_SEM_LOAD | SIM_SEM_STORE))) {
		s->cls = (s->flags & SIM_SEM_LOAD) ? SIM_CLS_LOAD : SIM_CLS_STORE;
	} else if (vector) {
		s->cls = (uint8_t)fp_class(m);
	} else if (in->id == X86_INS_MUL || in->id == X86_INS_IMUL || in->id == X86_INS_MULX) {
		s->cls = SIM_CLS_INT_MUL;
	} else if (in->id == X86_INS_DIV || in->id == X86_INS_IDIV) {
		s->cls = SIM_CLS_INT_DIV;
	} else if (s->flags == SIM_SEM_STORE && is_move(m)) {
		s->cls = SIM_CLS_STORE;
	} else {
		s->cls = SIM_CLS_INT_ALU;
	}
	/* xor r,r / sub r,r / pxor x,x: the result does not depend on r */
	if (x->op_count == 2 && x->operands[0].type == X86_OP_REG &&
	    x->operands[1].type == X86_OP_REG && x->operands[0].reg == x->operands[1].reg &&
	    (in->id == X86_INS_XOR || in->id == X86_INS_SUB || in->id == X86_INS_PXOR ||
	     in->id == X86_INS_XORPS || in->id == X86_INS_XORPD))
		zero_idiom = 1;

	if (cs_regs_access(t->cs, in, rr, &nr, ww, &nw) != CS_ERR_OK)
		nr = nw = 0;
	if (!zero_idiom)
		for (unsigned i = 0; i < nr; i++)
			add_reg(s->src, &s->nsrc, SIM_SEM_MAX_SRC, canon_id(t, rr[i]));
	for (unsigned i = 0; i < nw; i++) {
		/* the stack engine renames rsp updates of push/pop/call/ret */
		if (ww[i] == X86_REG_RSP &&
		    (starts(m, "push") || starts(m, "pop") || (s->flags & (SIM_SEM_CALL | SIM_SEM_RET))))
			continue;
		add_reg(s->dst, &s->ndst, SIM_SEM_MAX_DST, canon_id(t, ww[i]));
	}
}

/* ---- POWER ------------------------------------------------------------- */

static int ppc_is_load(const char *m)
{
	if (m[0] != 'l' || !strcmp(m, "li") || !strcmp(m, "lis") || !strcmp(m, "la") ||
	    starts(m, "lnia"))
		return 0;
	return 1;
}

static void ppc_branch(struct sim_sem *s, const char *m)
{
	size_t n = strlen(m);
	int link = 0;
	char base[32];

	snprintf(base, sizeof(base), "%s", m);
	n = strlen(base);
	while (n && (base[n - 1] == '+' || base[n - 1] == '-'))
		base[--n] = '\0';
	s->cls = SIM_CLS_BRANCH;
	s->flags |= SIM_SEM_BRANCH;
	if (n >= 2 && !strcmp(base + n - 2, "lr")) {
		s->flags |= SIM_SEM_RET;
	} else if (n >= 3 && !strcmp(base + n - 3, "ctr")) {
		s->flags |= SIM_SEM_INDIRECT;
	} else if (n >= 4 && !strcmp(base + n - 4, "ctrl")) {
		s->flags |= SIM_SEM_INDIRECT;
		link = 1;
	} else if (n >= 3 && !strcmp(base + n - 3, "lrl")) {
		s->flags |= SIM_SEM_INDIRECT;
		link = 1;
	} else if (base[n - 1] == 'l' || (n >= 2 && !strcmp(base + n - 2, "la"))) {
		link = 1;
	}
	if (link)
		s->flags = (uint8_t)((s->flags & ~SIM_SEM_RET) | SIM_SEM_CALL);
	if (strcmp(base, "b") && strcmp(base, "ba") && strcmp(base, "bl") && strcmp(base, "bla") &&
	    strcmp(base, "blr") && strcmp(base, "bctr") && strcmp(base, "bctrl") && strcmp(base, "blrl"))
		s->flags |= SIM_SEM_COND;
}

static void ppc_decode(struct sim_semtab *t, struct sim_sem *s, const cs_insn *in)
{
	const cs_ppc *p = &in->detail->ppc;
	const char *m = in->mnemonic;
	int first_reg_is_dst = 1;

	if (m[0] == 'b' && strcmp(m, "bpermd") && strncmp(m, "brinc", 5)) {
		ppc_branch(s, m);
		first_reg_is_dst = 0;
	} else if (starts(m, "st")) {
		s->cls = SIM_CLS_STORE;
		s->flags |= SIM_SEM_STORE;
		first_reg_is_dst = 0;
	} else if (ppc_is_load(m)) {
		s->cls = SIM_CLS_LOAD;
		s->flags |= SIM_SEM_LOAD;
	} else if (!strcmp(m, "sc") || strstr(m, "sync") || !strcmp(m, "eieio") || starts(m, "mtspr") ||
		   starts(m, "mfspr") || starts(m, "mtmsr")) {
		s->cls = SIM_CLS_SYS;
	} else if (!strcmp(m, "nop") || starts(m, "dcbt") || starts(m, "icbt")) {
		s->cls = SIM_CLS_NOP; /* nops and prefetch hints */
		first_reg_is_dst = 0;
	} else if (starts(m, "mul")) {
		s->cls = SIM_CLS_INT_MUL;
	} else if (starts(m, "div") || starts(m, "mod")) {
		s->cls = SIM_CLS_INT_DIV;
	} else if (m[0] == 'f' || m[0] == 'x' || m[0] == 'v') {
		s->cls = (uint8_t)fp_class(m);
	} else {
		s->cls = SIM_CLS_INT_ALU;
	}
	/* moves to special registers (mtctr, mtlr, mtcrf), cache operations
	 * and traps only read their register operands */
	if (starts(m, "mt") || starts(m, "dcb") || starts(m, "icb") || starts(m, "tw") || starts(m, "td"))
		first_reg_is_dst = 0;
	/* compares write a CR field first; stores and branches only read */
	for (unsigned i = 0; i < p->op_count; i++) {
		const cs_ppc_op *op = &p->operands[i];

		if (op->type == PPC_OP_REG) {
			if (first_reg_is_dst && s->ndst == 0)
				add_reg(s->dst, &s->ndst, SIM_SEM_MAX_DST, canon_id(t, op->reg));
			else
				add_reg(s->src, &s->nsrc, SIM_SEM_MAX_SRC, canon_id(t, op->reg));
		} else if (op->type == PPC_OP_MEM) {
			add_reg(s->src, &s->nsrc, SIM_SEM_MAX_SRC, canon_id(t, op->mem.base));
		}
	}
	for (unsigned i = 0; i < in->detail->regs_read_count; i++)
		add_reg(s->src, &s->nsrc, SIM_SEM_MAX_SRC, canon_id(t, in->detail->regs_read[i]));
	for (unsigned i = 0; i < in->detail->regs_write_count; i++)
		add_reg(s->dst, &s->ndst, SIM_SEM_MAX_DST, canon_id(t, in->detail->regs_write[i]));
	/* record forms ("add.") also set cr0 */
	if (m[strlen(m) - 1] == '.')
		add_reg(s->dst, &s->ndst, SIM_SEM_MAX_DST, canon_id(t, PPC_REG_CR0));
}

int sim_sem_decode(struct sim_semtab *t, struct sim_sem *s, uint64_t addr, const uint8_t *bytes,
		   unsigned len)
{
	const uint8_t *code = bytes;
	size_t size = len;
	uint64_t a = addr;

	s->addr = addr;
	s->len = (uint8_t)len;
	s->flags = 0;
	s->nsrc = s->ndst = 0;
	s->has_bytes = 1;
	memcpy(s->bytes, bytes, len > 16 ? 16 : len);
	if (!cs_disasm_iter(t->cs, &code, &size, &a, t->insn)) {
		s->cls = SIM_CLS_INT_ALU;
		s->flags = SIM_SEM_UNDECODED;
		snprintf(s->text, sizeof(s->text), "(bad)");
		return -1;
	}
	/* "mnemonic operands", cut to the field */
	{
		size_t o = 0;
		const char *parts[3] = { t->insn->mnemonic, t->insn->op_str[0] ? " " : "", t->insn->op_str };

		for (int k = 0; k < 3; k++)
			for (const char *p = parts[k]; *p && o + 1 < sizeof(s->text); p++)
				s->text[o++] = *p;
		s->text[o] = '\0';
	}
	if (t->arch == SIM_ARCH_X86_64)
		x86_decode(t, s, t->insn);
	else
		ppc_decode(t, s, t->insn);
	return 0;
}
