/*
 * ptrace_step.c - what the ptrace backend does at each stop of a thread:
 * commit the instruction it just executed (INSN + MEM, or BRANCH, plus
 * SYSCALL), then decide how it runs next (step, step silently, or full
 * speed to a breakpoint) and decode the next instruction.
 *
 * An instruction is decoded BEFORE it executes (its memory operands need
 * the registers of that moment) but only written at the next stop, once
 * we know it really executed: a signal can arrive between two steps, and
 * then the instruction at the stop address has not run yet.
 */
#include <elf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "emit.h"
#include "itrace_format.h"
#include "ptrace_internal.h"

/* Decoded instructions, direct-mapped by address, tagged with the
 * address space's code_id: a hit skips both the memory read and decoding. */
#define DCACHE_BITS 13
#define DCACHE_SIZE (1u << DCACHE_BITS)

struct dcache_entry {
	uint64_t addr;
	uint32_t code_id;
	struct itrace_insn_info in;
	uint8_t bytes[ITRACE_INSN_MAX_LEN];
};

static struct dcache_entry *dcache;

int pt_step_init(struct pt_session *s)
{
	if (itrace_decoder_alloc(EM_X86_64, ELFDATA2LSB, &s->dec) < 0)
		return -1;
	dcache = calloc(DCACHE_SIZE, sizeof(*dcache));
	return dcache ? 0 : -1;
}

void pt_step_fini(struct pt_session *s)
{
	free(dcache);
	dcache = NULL;
	itrace_decoder_free(s->dec);
	s->dec = NULL;
}


/* Read up to len bytes; a read crossing into an unmapped page returns the
 * part before it.  Returns the byte count, 0 if nothing is readable. */
int pt_read_mem(struct pt_process *p, uint64_t addr, void *buf, size_t len)
{
	ssize_t n = pread(p->mem_fd, buf, len, (off_t)addr);
	size_t to_page_end = 4096 - (addr & 4095);

	if (n < 0 && to_page_end < len)
		n = pread(p->mem_fd, buf, to_page_end, (off_t)addr);
	return n < 0 ? 0 : (int)n;
}

/* Registers as libitrace's decoder indexes them (x86-64 encoding order). */
void pt_regs_to_itrace(const struct user_regs_struct *r, struct itrace_regs *a)
{
	memset(a, 0, sizeof(*a));
	a->gpr[0] = r->rax, a->gpr[1] = r->rcx, a->gpr[2] = r->rdx, a->gpr[3] = r->rbx;
	a->gpr[4] = r->rsp, a->gpr[5] = r->rbp, a->gpr[6] = r->rsi, a->gpr[7] = r->rdi;
	a->gpr[8] = r->r8, a->gpr[9] = r->r9, a->gpr[10] = r->r10, a->gpr[11] = r->r11;
	a->gpr[12] = r->r12, a->gpr[13] = r->r13, a->gpr[14] = r->r14, a->gpr[15] = r->r15;
	a->fs_base = r->fs_base, a->gs_base = r->gs_base;
	a->flags = r->eflags;
}

/* The instruction at addr, as the program sees it (our int3s hidden). */
static const struct dcache_entry *decode_at(struct pt_session *s, struct pt_process *p, uint64_t addr)
{
	struct dcache_entry *e = &dcache[(addr ^ (addr >> DCACHE_BITS)) & (DCACHE_SIZE - 1)];
	int n;

	if (e->addr == addr && e->code_id == p->code_id)
		return e;
	n = pt_read_mem(p, addr, e->bytes, sizeof(e->bytes));
	e->code_id = 0;
	if (n <= 0)
		return NULL;
	pt_bp_overlay(p, addr, e->bytes, (size_t)n);
	if (itrace_decoder_info(s->dec, e->bytes, (size_t)n, addr, &e->in) < 0)
		return NULL;
	e->addr = addr;
	e->code_id = p->code_id;
	return e;
}

/*
 * branch_kind - the kind the trace records for the instruction: the
 * decoder's, except that a trap instruction (int3, int n) is no system
 * call but raises a signal, an INTERRUPT; PT_NOT_BRANCH otherwise.
 */
static int branch_kind(const struct itrace_insn_info *in)
{
	if (in->d.kind == ITRACE_INSN_NOT_BRANCH)
		return PT_NOT_BRANCH;
	if (in->d.flags & ITRACE_DECODED_TRAP)
		return ITRACE_BRANCH_INTERRUPT;
	return in->d.kind;
}

static int is_syscall(const struct itrace_insn_info *in)
{
	return in->d.kind == ITRACE_BRANCH_SYSCALL && !(in->d.flags & ITRACE_DECODED_TRAP);
}

static void fill_pending(struct pt_session *s, struct pt_thread *t, const struct dcache_entry *e)
{
	struct pt_pending *pd = &t->pending;
	const struct user_regs_struct *r = &t->regs;

	pd->addr = e->addr;
	pd->is_block = 0;
	pd->len = e->in.d.len;
	memcpy(pd->bytes, e->bytes, e->in.d.len);
	pd->kind = (int8_t)branch_kind(&e->in);
	pd->is_syscall = (uint8_t)is_syscall(&e->in);
	pd->is_trap = (e->in.attrs & ITRACE_ATTR_TRAP) || pd->is_syscall;
	pd->is_rep_string = (e->in.d.flags & ITRACE_DECODED_REP) != 0;
	pd->nmem = 0;
	if (pd->is_rep_string) {
		pd->rep_in = e->in;
		pt_regs_to_itrace(r, &pd->rep_before);
	}
	if (s->opts->level == ITRACE_LEVEL_INSN && t->mode == PT_MODE_STEP) {
		struct itrace_regs ar;

		pt_regs_to_itrace(r, &ar);
		pd->nmem = itrace_insn_mem_accesses(&e->in, &ar, pd->mem, PT_MAX_ACCESSES);
	}
	if (pd->is_syscall) {
		pd->sys_nr = r->rax;
		pd->sys_args[0] = r->rdi, pd->sys_args[1] = r->rsi, pd->sys_args[2] = r->rdx;
		pd->sys_args[3] = r->r10, pd->sys_args[4] = r->r8, pd->sys_args[5] = r->r9;
	}
	t->has_pending = 1;
}

/* The decoder cannot decode it (or the bytes cannot be read): keep the
 * bytes; the length is learnt from where the step ends. */
static void fill_undecoded(struct pt_session *s, struct pt_thread *t)
{
	struct pt_pending *pd = &t->pending;

	memset(pd, 0, sizeof(*pd));
	pd->addr = t->regs.rip;
	pd->kind = PT_NOT_BRANCH;
	pt_read_mem(t->proc, pd->addr, pd->bytes, ITRACE_INSN_MAX_LEN);
	t->has_pending = 1;
	s->undecoded++;
}

/* Length of an undecoded instruction from the next pc; 0 if it jumped. */
static int learn_length(struct pt_pending *pd, uint64_t rip)
{
	if (pd->len == 0 && rip > pd->addr && rip - pd->addr <= ITRACE_INSN_MAX_LEN)
		pd->len = (uint8_t)(rip - pd->addr);
	return pd->len;
}

static void write_lost_insn(struct pt_session *s, struct pt_thread *t)
{
	pt_switch_to(s, t);
	PT_EMIT(s, emit_lost, ITRACE_LOST_DECODE, ITRACE_UNIT_INSNS, 1);
}

static void write_syscall(struct pt_session *s, const struct pt_pending *pd, int dir, int64_t ret)
{
	if (dir == ITRACE_SYSCALL_ENTER)
		PT_EMIT(s, emit_syscall_enter, pd->sys_nr, 6, pd->sys_args);
	else
		PT_EMIT(s, emit_syscall_exit, pd->sys_nr, ret);
}

void pt_emit_branch(struct pt_session *s, struct pt_thread *t, uint64_t from, uint64_t to,
			unsigned kind, unsigned flags)
{
	if (s->ring_on) {
		emit_branch(pt_ring(s, t), from, to, kind, flags); /* the ring takes every branch */
		return;
	}
	pt_switch_to(s, t);
	pt_check_io(s, emit_branch(&s->out, from, to, kind, flags));
}

/*
 * rep_final_check - the step of a rep string instruction left it after the
 * iteration that ran its count out: the processor does not test the count
 * again, but the trace records that test, as the instruction's last entry
 * (ITRACE.md 6.5.2).
 */
static int rep_final_check(const struct pt_thread *t, uint64_t rip)
{
	const struct pt_pending *pd = &t->pending;
	struct itrace_regs after;

	if (!pd->is_rep_string || rip != pd->addr + pd->len)
		return 0;
	pt_regs_to_itrace(&t->regs, &after);
	return itrace_insn_rep_final_check(&pd->rep_in, &pd->rep_before, &after);
}

/* Branch level: the branch (if any) the pending instruction made. */
static void commit_branch(struct pt_session *s, struct pt_thread *t, uint64_t rip)
{
	const struct pt_pending *pd = &t->pending;
	uint64_t next = pd->addr + pd->len;

	if (pd->is_rep_string && (rip == pd->addr || rep_final_check(t, rip))) {
		/* another entry follows, an iteration or the final check of
		 * the count: the loop's branch to itself (ITRACE.md 6.5.2) */
		pt_emit_branch(s, t, pd->addr, pd->addr, ITRACE_BRANCH_COND, ITRACE_BRANCH_TAKEN);
		return;
	}
	if (pd->kind == PT_NOT_BRANCH || pd->kind == ITRACE_BRANCH_SYSCALL ||
	    pd->kind == ITRACE_BRANCH_INTERRUPT) {
		/* straight-line unless the kernel sent it elsewhere (sigreturn) */
		if (rip != next && rip != pd->addr)
			pt_emit_branch(s, t, pd->addr, rip,
				    pd->is_syscall && pd->sys_nr == SYS_rt_sigreturn
					    ? ITRACE_BRANCH_SIGRETURN
					    : (unsigned)(pd->kind < 0 ? ITRACE_BRANCH_UNKNOWN : pd->kind),
				    ITRACE_BRANCH_TAKEN);
		return;
	}
	if (pd->kind == ITRACE_BRANCH_COND)
		pt_emit_branch(s, t, pd->addr, rip, ITRACE_BRANCH_COND,
			    rip != next ? ITRACE_BRANCH_TAKEN : 0);
	else
		pt_emit_branch(s, t, pd->addr, rip, (unsigned)pd->kind, ITRACE_BRANCH_TAKEN);
}

/* Insn level: INSN and its MEMs.  A step of a rep-prefixed string
 * instruction is one iteration: one INSN each, and one more without MEM
 * for the final check of a count that ran out (ITRACE.md 6.5.2). */
static void commit_insn(struct pt_session *s, struct pt_thread *t, uint64_t rip)
{
	const struct pt_pending *pd = &t->pending;
	const uint8_t *bytes = s->opts->insn_bytes ? pd->bytes : NULL;
	int rc;

	pt_switch_to(s, t);
	/* without bytes, sequential instructions pack into runs (ITRACE.md) */
	rc = emit_insn(&s->out, pd->addr, pd->len, bytes);
	for (int i = 0; rc >= 0 && i < pd->nmem; i++)
		rc = emit_mem(&s->out, pd->mem[i].addr, pd->mem[i].size,
			      pd->mem[i].store ? ITRACE_MEM_STORE : 0);
	if (rc >= 0 && rep_final_check(t, rip))
		rc = emit_insn(&s->out, pd->addr, pd->len, bytes);
	if (rc < 0)
		pt_fail_io(s, rc);
}

static int changes_code_mappings(uint64_t nr)
{
	return nr == SYS_mmap || nr == SYS_munmap || nr == SYS_mprotect || nr == SYS_mremap;
}

/* Target of a direct branch, 0 for indirect ones. */
static uint64_t direct_target(const struct itrace_insn_info *in)
{
	return (in->d.flags & ITRACE_DECODED_HAS_TARGET) ? in->d.target : 0;
}

/*
 * A block step ran from `start` to `rip`: walk the code in between.
 * Conditional branches passed on the way were not taken; the block ends
 * with the taken branch that led to rip, or without one when a signal
 * or a syscall cut it short (pc reaches rip).
 */
static void commit_block(struct pt_session *s, struct pt_thread *t, uint64_t start, uint64_t rip)
{
	uint64_t pc = start;

	for (int n = 0; n < 65536; n++) {
		const struct dcache_entry *e;
		int kind;

		if (pc == rip && n > 0)
			return;
		e = decode_at(s, t->proc, pc);
		if (!e) {
			write_lost_insn(s, t);
			return;
		}
		if (n == 0 && pc == rip && (e->in.d.flags & ITRACE_DECODED_REP))
			return; /* a rep iteration (a trap came before the next insn) */
		kind = branch_kind(&e->in);
		if (kind == ITRACE_BRANCH_COND && direct_target(&e->in) != rip) {
			pt_emit_branch(s, t, pc, pc + e->in.d.len, ITRACE_BRANCH_COND, 0);
		} else if (kind != PT_NOT_BRANCH && kind != ITRACE_BRANCH_SYSCALL &&
			   kind != ITRACE_BRANCH_INTERRUPT) {
			pt_emit_branch(s, t, pc, rip, (unsigned)kind, ITRACE_BRANCH_TAKEN);
			return;
		}
		pc += e->in.d.len;
	}
	write_lost_insn(s, t); /* a block longer than any real one: give up */
}

/*
 * Can the next stretch run as one block?  Not if a syscall, trap or
 * undecodable instruction lies on the fall-through path before the first
 * unconditional branch: those are single-stepped (syscall records, the
 * SIGTRAP-handler precautions) as at insn level.
 */
static int block_is_plain(struct pt_session *s, struct pt_process *p, uint64_t pc)
{
	for (int n = 0; n < 256; n++) {
		const struct dcache_entry *e = decode_at(s, p, pc);
		int kind;

		if (!e || pt_bp_find(p, pc))
			return 0;
		kind = branch_kind(&e->in);
		if (kind == ITRACE_BRANCH_SYSCALL || kind == ITRACE_BRANCH_INTERRUPT ||
		    (e->in.attrs & ITRACE_ATTR_TRAP) ||
		    (e->in.d.flags & ITRACE_DECODED_REP)) /* each iteration is a step */
			return 0;
		if (kind != PT_NOT_BRANCH && kind != ITRACE_BRANCH_COND)
			return 1;
		pc += e->in.d.len;
	}
	return 0;
}

static int is_jump(int kind)
{
	return kind == ITRACE_BRANCH_COND || kind == ITRACE_BRANCH_UNCOND ||
	       kind == ITRACE_BRANCH_INDIRECT || kind == ITRACE_BRANCH_CALL ||
	       kind == ITRACE_BRANCH_INDIRECT_CALL || kind == ITRACE_BRANCH_RETURN;
}

static void guard_return_site(struct pt_process *p, uint64_t ret);

/* The pending instruction's records, if it ran.  Returns the entries it
 * makes in the trace, which the policy counts as instructions: 1, or 2
 * for a rep string's iteration that ends with the final check of its
 * count (ITRACE.md 6.5.2), 0 if it did not run (a block step is never
 * used while the policy counts). */
static int commit_pending(struct pt_session *s, struct pt_thread *t, int how)
{
	const struct pt_pending *pd = &t->pending;
	uint64_t rip = t->regs.rip;
	int returned = how == PT_COMMIT_STEP || how == PT_COMMIT_STOP;

	if (!t->has_pending)
		return 0;
	if (pd->is_block) {
		t->has_pending = 0;
		/* a stop other than the block trap at its start: nothing ran */
		if (t->mode == PT_MODE_STEP && (how == PT_COMMIT_STEP || (how == PT_COMMIT_STOP && rip != pd->addr)))
			commit_block(s, t, pd->addr, rip);
		return 0;
	}
	/* Still on it: after a step trap it ran if it repeats (rep string) or
	 * jumps to itself; otherwise a signal, or the kernel's trap at a
	 * syscall exit, stopped the thread before it. */
	if (returned && rip == pd->addr &&
	    !(how == PT_COMMIT_STEP && (pd->is_rep_string || is_jump(pd->kind)))) {
		t->has_pending = 0;
		return 0;
	}
	t->has_pending = 0;
	t->last_kind = pd->kind;
	if (!learn_length(&t->pending, rip)) {
		if (t->mode == PT_MODE_STEP && !s->ring_on)
			write_lost_insn(s, t);
		return 1;
	}
	if (pd->is_syscall && returned && changes_code_mappings(pd->sys_nr))
		pt_code_changed(s, t->proc);
	if (t->mode == PT_MODE_SILENT)
		return 1 + (returned && rep_final_check(t, rip));
	/* the module's last call: where its return address lies (leave_scope) */
	if (returned && (pd->kind == ITRACE_BRANCH_CALL || pd->kind == ITRACE_BRANCH_INDIRECT_CALL)) {
		t->call_ret = pd->addr + pd->len;
		t->call_slot = t->regs.rsp;
		guard_return_site(t->proc, t->call_ret);
	} else if (pd->kind == ITRACE_BRANCH_RETURN && t->regs.rsp > t->call_slot) {
		t->call_slot = 0; /* that call is over */
	}
	if (s->opts->level == ITRACE_LEVEL_INSN)
		commit_insn(s, t, returned ? rip : 0);
	else if (returned)
		commit_branch(s, t, rip);
	if (pd->is_syscall && !s->ring_on) {
		pt_switch_to(s, t);
		write_syscall(s, pd, ITRACE_SYSCALL_ENTER, 0);
		if (returned)
			write_syscall(s, pd, ITRACE_SYSCALL_EXIT, (int64_t)t->regs.rax);
	}
	return 1 + (returned && rep_final_check(t, rip));
}


void pt_commit(struct pt_session *s, struct pt_thread *t, int how)
{
	struct pt_process *p = t->proc;
	int entries = commit_pending(s, t, how);

	if (!entries)
		return;
	t->entry_taken = 0; /* the instruction at a trigger ran: a new arrival counts */
	if (!s->use_triggers || !p->triggers_armed)
		return;
	/* (a rep's final check falling just past a --for boundary stays in
	 * the window: its record is written with the iteration's) */
	for (int i = 0; i < entries; i++)
		pt_policy_fire(s, t, policy_on_insns(&p->pol, &t->pol, 1), t->regs.rip);
}

/* ---- scope (--only) and triggers -------------------------------------- */

static int in_scope(const struct pt_process *p, uint64_t addr)
{
	return p->only_hi == 0 || (addr >= p->only_lo && addr < p->only_hi);
}

/*
 * --only: a call of the module returns to `ret`, which is then a way back
 * into the module from excluded code, whichever frame it comes from: the
 * return itself, a longjmp to a setjmp that returned there, an unwinder
 * resuming there.  A breakpoint marks it for as long as the module is
 * mapped (an existing one, maybe lifted for a step, only gains the role).
 */
static void guard_return_site(struct pt_process *p, uint64_t ret)
{
	struct pt_bp *bp;

	if (!p->only_hi || !in_scope(p, ret))
		return;
	bp = pt_bp_find(p, ret);
	if (bp)
		bp->kinds |= PT_BP_SCOPE;
	else
		pt_bp_add(p, ret, PT_BP_SCOPE);
}

/* Do the bytes before `ret` end with a call (e8 rel32, or ff /2)? */
static int follows_call(struct pt_process *p, uint64_t ret)
{
	uint8_t b[8];

	if (ret < 8 || pt_read_mem(p, ret - 8, b, 8) != 8)
		return 0;
	if (b[3] == 0xe8)
		return 1;
	for (int len = 2; len <= 7; len++)
		if (b[8 - len] == 0xff && ((b[8 - len + 1] >> 3) & 7) == 2)
			return 1;
	return 0;
}

static void drop_return(struct pt_thread *t, int i)
{
	struct pt_bp *bp = pt_bp_find(t->proc, t->returns[i].addr);

	if (bp && bp->returners && --bp->returners == 0)
		pt_bp_drop_kind(t->proc, bp->addr, PT_BP_RETURN);
	t->returns[i] = t->returns[--t->nreturns];
}

void pt_drop_returns(struct pt_thread *t)
{
	while (t->nreturns)
		drop_return(t, t->nreturns - 1);
}

/* Remember a return into the module at ret, reached with rsp. */
static int push_return(struct pt_thread *t, uint64_t ret, uint64_t rsp)
{
	if (t->nreturns == PT_RETURNS_MAX)
		drop_return(t, 0); /* the outermost is the least likely to come */
	if (pt_bp_add(t->proc, ret, PT_BP_RETURN) != 0)
		return -1;
	pt_bp_find(t->proc, ret)->returners++;
	t->returns[t->nreturns++] = (struct pt_return){ret, rsp};
	return 0;
}

/* Is an outer frame of the module guarded by a return breakpoint? */
static int outer_return_guarded(const struct pt_thread *t)
{
	for (int i = 0; i < t->nreturns; i++)
		if (t->returns[i].rsp > t->regs.rsp)
			return 1;
	return 0;
}

/*
 * The return address of the module's last call, if the thread is still
 * inside that call: its stack slot is at most two words above rsp (a PLT
 * stub and the lazy-binding PLT0 push one each before they jump out) and
 * still holds it.  Returns it, or 0.
 */
static uint64_t pending_call_return(struct pt_thread *t)
{
	uint64_t ret = 0;

	if (!t->call_slot || t->call_slot < t->regs.rsp || t->call_slot - t->regs.rsp > 16 ||
	    pt_read_mem(t->proc, t->call_slot, &ret, 8) != 8 || ret != t->call_ret)
		return 0;
	return ret;
}

/* --only: the thread is outside the traced module.  Run at full speed
 * when every way back is guarded: it left by a call (its return address
 * gets a breakpoint), by a jump of a PLT stub or of lazy binding (the
 * return address of the call into the stub), or by a ret from the module
 * to excluded code whose own caller chain is guarded; calls into the
 * module hit its function-entry breakpoints.  Otherwise step silently; a
 * later branch may show the way back (the lazy binder jumping to the
 * function with the call's return address on top of the stack), never a
 * guess from whatever is on the stack. */
static void leave_scope(struct pt_session *s, struct pt_thread *t)
{
	struct pt_process *p = t->proc;
	int leaving = t->mode == PT_MODE_STEP;
	uint64_t ret = 0, slot = t->regs.rsp;

	if (leaving)
		pt_write_ctl(s, t, 0, ITRACE_CTL_SCOPE, t->regs.rip);
	t->mode = PT_MODE_SILENT;
	if (leaving && t->last_kind == ITRACE_BRANCH_RETURN && outer_return_guarded(t)) {
		t->mode = PT_MODE_CONT;
		return;
	}
	if ((ret = pending_call_return(t)) != 0 && (leaving || t->call_slot == t->regs.rsp)) {
		slot = t->call_slot; /* a PLT stub, or lazy binding done */
	} else if (!leaving || pt_read_mem(p, t->regs.rsp, &ret, 8) != 8 || !in_scope(p, ret) ||
		   !follows_call(p, ret)) {
		return; /* in excluded code, the top of the stack is anything */
	}
	if (push_return(t, ret, slot + 8) == 0)
		t->mode = PT_MODE_CONT;
}

/* The trigger window closed: full speed (or silent counting, if the
 * policy waits for an instruction count) until it opens again. */
static void tracing_off(struct pt_session *s, struct pt_thread *t, struct policy_fire f)
{
	pt_write_ctl_trigger(s, t, 0, t->regs.rip, f.by, f.index);
	t->in_window = 0;
	t->mode = pt_closed_mode(t);
	pt_drop_returns(t);
}

/* The window opened at addr (a trigger, or an instruction count). */
static void tracing_on(struct pt_session *s, struct pt_thread *t, uint64_t addr,
		       struct policy_fire f)
{
	if (t->mode == PT_MODE_CONT)
		pt_code_changed(s, t->proc); /* it ran unobserved: libraries may be new */
	t->mode = PT_MODE_STEP;
	t->in_window = 1;
	pt_write_ctl_trigger(s, t, 1, addr, f.by, f.index);
}

void pt_policy_fire(struct pt_session *s, struct pt_thread *t, struct policy_fire f, uint64_t addr)
{
	if (f.action > 0)
		tracing_on(s, t, addr, f);
	else if (f.action < 0)
		tracing_off(s, t, f);
}

/* Thread t is at addr, the beginning of one or more --start/--stop
 * events' code: each is counted and its condition checked on the
 * argument registers (x86-64 SysV: rdi rsi rdx rcx r8 r9).  The first
 * that changes the window says how. */
static struct policy_fire trigger_entries(struct pt_thread *t, uint64_t addr)
{
	struct pt_process *p = t->proc;
	const struct user_regs_struct *r = &t->regs;
	const uint64_t args[POLICY_NARGS] = {r->rdi, r->rsi, r->rdx, r->rcx, r->r8, r->r9};
	struct policy_fire f = {0, 0, 0};

	for (int i = 0; i < p->ntrig; i++) {
		struct policy_fire g;

		if (p->trig[i].addr != addr)
			continue;
		g = policy_on_entry(&p->pol, &t->pol, p->trig[i].is_stop, p->trig[i].index, args,
				    r->rsp);
		if (!f.action)
			f = g;
	}
	t->entry_taken = addr;
	return f;
}

/* A stepped thread is about to execute rip: has an activation ended
 * (its stack rose above the frame) or does a trigger begin here? */
static struct policy_fire check_policy(struct pt_thread *t)
{
	struct pt_process *p = t->proc;
	struct policy_fire f;

	if (!p->triggers_armed)
		return (struct policy_fire){0, 0, 0};
	f = policy_on_sp(&p->pol, &t->pol, t->regs.rsp);
	if (!f.action && t->entry_taken != t->regs.rip)
		f = trigger_entries(t, t->regs.rip);
	return f;
}

/* Mode changes decided from where a stepping thread now is. */
static void update_mode(struct pt_session *s, struct pt_thread *t)
{
	struct pt_process *p = t->proc;
	uint64_t rip = t->regs.rip;
	struct policy_fire f = s->use_triggers ? check_policy(t) : (struct policy_fire){0, 0, 0};

	if (!t->in_window) { /* counting silently towards an opening */
		pt_policy_fire(s, t, f, rip);
	} else if (t->mode == PT_MODE_STEP) {
		if (f.action < 0)
			tracing_off(s, t, f);
		else if (!in_scope(p, rip))
			leave_scope(s, t);
	} else if (t->mode == PT_MODE_SILENT) {
		if (f.action < 0) {
			tracing_off(s, t, f);
		} else if (in_scope(p, rip)) {
			t->mode = PT_MODE_STEP;
			pt_write_ctl(s, t, 1, ITRACE_CTL_SCOPE, rip);
		} else if (t->last_kind != PT_NOT_BRANCH) {
			leave_scope(s, t);
		}
	}
}

/* Back in the module with this stack: the frames of the returns the
 * thread waited for at or below it are done. */
static void drop_done_returns(struct pt_thread *t)
{
	for (int j = t->nreturns - 1; j >= 0; j--)
		if (t->returns[j].rsp <= t->regs.rsp)
			drop_return(t, j);
}

/* A return breakpoint of this thread, hit in the frame it guards? */
static int take_return(struct pt_thread *t, uint64_t addr)
{
	for (int i = t->nreturns - 1; i >= 0; i--) {
		if (t->returns[i].addr == addr && t->returns[i].rsp == t->regs.rsp) {
			drop_done_returns(t); /* this frame and every deeper one */
			return 1;
		}
	}
	return 0;
}

void pt_on_breakpoint(struct pt_session *s, struct pt_thread *t, struct pt_bp *bp)
{
	struct pt_process *p = t->proc;
	uint64_t addr = bp->addr;
	unsigned kinds = bp->kinds;

	if (t->mode != PT_MODE_CONT)
		return;
	if (t->in_window && (((kinds & PT_BP_RETURN) && take_return(t, addr)) ||
			     ((kinds & PT_BP_SCOPE) && p->only_hi))) {
		/* back in the traced module: by a return, a call, or unwinding
		 * (longjmp, an exception's landing pad) */
		drop_done_returns(t);
		t->mode = PT_MODE_STEP;
		pt_code_changed(s, p);
		pt_write_ctl(s, t, 1, ITRACE_CTL_SCOPE, addr);
	} else if (kinds & (PT_BP_START | PT_BP_STOP)) {
		/* counted whether or not it changes the window (FUNC#N); a
		 * --stop is reached here outside the module (--only) */
		pt_policy_fire(s, t, trigger_entries(t, addr), addr);
	}
}

/* The stretch that ran unstepped (SIGTRAP blocked with a handler) is
 * missing from the trace: a GAP says so, from where it began to here. */
static void write_trap_gap(struct pt_session *s, struct pt_thread *t)
{
	if (s->ring_on || !t->trap_gap_from)
		return;
	pt_switch_to(s, t);
	PT_EMIT(s, emit_gap, ITRACE_GAP_TRACE_OFF, t->trap_gap_from, t->regs.rip, 0);
	t->trap_gap_from = 0;
}

int pt_prepare_resume(struct pt_session *s, struct pt_thread *t)
{
	struct pt_process *p = t->proc;
	struct pt_bp *bp;
	const struct dcache_entry *e;

	if (t->reinsert_bp) {
		bp = pt_bp_find(p, t->reinsert_bp);
		if (bp)
			pt_bp_insert(p, bp);
		t->reinsert_bp = 0;
	}
	/* A new thread or followed child: where its first instruction is
	 * (itrace-fill needs it at branch level). */
	if (t->announce && t->mode == PT_MODE_STEP)
		pt_write_ctl(s, t, 1, ITRACE_CTL_START, t->regs.rip);
	t->announce = 0;
	if (t->mode != PT_MODE_CONT)
		update_mode(s, t);

	bp = pt_bp_find(p, t->regs.rip);
	if (bp && bp->inserted) {
		/* execute the original instruction: lift the int3 for one step */
		pt_bp_lift(p, bp);
		t->reinsert_bp = bp->addr;
	}
	if (t->mode == PT_MODE_CONT)
		return t->reinsert_bp || t->step_to_handler ? PTRACE_SINGLESTEP : PTRACE_CONT;
	if (t->trap_blocked) {
		if (!t->trap_gap && t->mode == PT_MODE_STEP) {
			pt_write_ctl(s, t, 0, ITRACE_CTL_SCOPE, t->regs.rip);
			t->trap_gap_from = t->regs.rip;
		}
		t->trap_gap = 1;
		t->has_pending = 0;
		return PTRACE_SYSCALL;
	}
	if (t->trap_gap && t->mode == PT_MODE_STEP)
		write_trap_gap(s, t);
	t->trap_gap = 0;
	s->steps++;
	if (s->blockstep && t->mode == PT_MODE_STEP && !t->reinsert_bp &&
	    block_is_plain(s, p, t->regs.rip)) {
		memset(&t->pending, 0, sizeof(t->pending));
		t->pending.addr = t->regs.rip;
		t->pending.kind = PT_NOT_BRANCH;
		t->pending.is_block = 1;
		t->pending.is_trap = 1; /* the program's own SIGTRAP may end it */
		t->has_pending = 1;
		return PTRACE_SINGLEBLOCK;
	}
	e = decode_at(s, p, t->regs.rip);
	if (e)
		fill_pending(s, t, e);
	else
		fill_undecoded(s, t);
	/* sigprocmask may block SIGTRAP: run it without a step trap */
	if (t->pending.is_syscall && t->pending.sys_nr == SYS_rt_sigprocmask)
		return PTRACE_SYSCALL;
	return PTRACE_SINGLESTEP;
}
