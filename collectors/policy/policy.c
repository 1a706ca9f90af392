/*
 * policy.c - the window state machine of policy.h.
 *
 * Freestanding C11 on purpose: no libc call, no allocation, no global,
 * so that the Valgrind tool (which cannot use libc) and the QEMU plugin
 * compile this same file.  All state is in the caller's struct
 * policy_proc and struct policy_thread.
 */
#include "policy.h"

static const struct policy_fire nothing = {0, 0, 0};

static struct policy_fire fire(int action, int by, uint32_t index)
{
	struct policy_fire f = {action, by, index};

	return f;
}

static int cond_holds(const struct policy_event *ev, const uint64_t *args)
{
	uint64_t v;

	if (ev->cond_op == POLICY_OP_NONE)
		return 1;
	if (!args || ev->cond_arg >= POLICY_NARGS)
		return 0;
	v = args[ev->cond_arg];
	switch (ev->cond_op) {
	case POLICY_OP_EQ: return v == ev->cond_value;
	case POLICY_OP_NE: return v != ev->cond_value;
	case POLICY_OP_LT: return v < ev->cond_value;
	case POLICY_OP_LE: return v <= ev->cond_value;
	case POLICY_OP_GT: return v > ev->cond_value;
	case POLICY_OP_GE: return v >= ev->cond_value;
	default: return 0;
	}
}

int policy_counts_insns(const struct policy_spec *spec)
{
	if (spec->for_insns || spec->every_insns)
		return 1;
	for (uint32_t i = 0; i < spec->nstart; i++)
		if (spec->start[i].kind == POLICY_EV_INSNS)
			return 1;
	for (uint32_t i = 0; i < spec->nstop; i++)
		if (spec->stop[i].kind == POLICY_EV_INSNS)
			return 1;
	return 0;
}

void policy_proc_init(struct policy_proc *p, const struct policy_spec *spec)
{
	struct policy_proc z = {0};

	*p = z;
	p->spec = spec;
}

void policy_proc_fork(struct policy_proc *child, const struct policy_proc *parent)
{
	*child = *parent;
}

int policy_ever_opened(const struct policy_proc *p)
{
	return p->fired != 0;
}

/* A window closes only by an activation's return when nothing else was
 * asked to close it: --start FUNC alone traces while inside FUNC. */
static int activation_window(const struct policy_spec *spec)
{
	return spec->nstop == 0 && spec->for_insns == 0;
}

static struct policy_fire open_window(struct policy_proc *p, struct policy_thread *t, int by,
				      uint32_t index, uint64_t frame_sp)
{
	t->open = 1;
	t->opened_at = t->insns;
	t->frame_sp = frame_sp;
	p->fired++;
	return fire(1, by, index);
}

static struct policy_fire close_window(struct policy_thread *t, int by, uint32_t index)
{
	t->open = 0;
	t->frame_sp = 0;
	return fire(-1, by, index);
}

/* The first instruction count at or after the thread's where a window
 * opens by count (insns:N, --every); POLICY_NONE if none.  A boundary at
 * the current count that was taken already does not count again. */
static uint64_t next_open_at(const struct policy_proc *p, const struct policy_thread *t)
{
	const struct policy_spec *spec = p->spec;
	uint64_t now = t->insns, best = POLICY_NONE;
	int taken = t->done_at == now;

	if (spec->every_insns) {
		uint64_t base = spec->nstart ? spec->start[0].insns : 0, k, at;

		if (now <= base) {
			at = base;
		} else {
			k = (now - base + spec->every_insns - 1) / spec->every_insns;
			at = base + k * spec->every_insns;
		}
		if (at == now && taken)
			at += spec->every_insns;
		return at;
	}
	for (uint32_t i = 0; i < spec->nstart; i++) {
		uint64_t n = spec->start[i].insns;

		if (spec->start[i].kind != POLICY_EV_INSNS || n < now || (n == now && taken))
			continue;
		if (n < best)
			best = n;
	}
	return best;
}

/* The count at which the open window closes by count; POLICY_NONE if none. */
static uint64_t next_close_at(const struct policy_proc *p, const struct policy_thread *t)
{
	const struct policy_spec *spec = p->spec;
	uint64_t best = POLICY_NONE;

	if (spec->for_insns)
		best = t->opened_at + spec->for_insns;
	for (uint32_t i = 0; i < spec->nstop; i++)
		if (spec->stop[i].kind == POLICY_EV_INSNS && t->opened_at + spec->stop[i].insns < best)
			best = t->opened_at + spec->stop[i].insns;
	return best;
}

uint64_t policy_insns_left(const struct policy_proc *p, const struct policy_thread *t)
{
	uint64_t at = t->open ? next_close_at(p, t) : next_open_at(p, t);

	if (at == POLICY_NONE)
		return POLICY_NONE;
	return at > t->insns ? at - t->insns : 0;
}

/* Which start option opens at count `at` (for the record's `by`). */
static struct policy_fire open_by_count(struct policy_proc *p, struct policy_thread *t, uint64_t at)
{
	const struct policy_spec *spec = p->spec;

	if (spec->every_insns) {
		uint64_t base = spec->nstart ? spec->start[0].insns : 0;

		return open_window(p, t, at == base && spec->nstart ? POLICY_BY_START : POLICY_BY_EVERY,
				   0, 0);
	}
	for (uint32_t i = 0; i < spec->nstart; i++)
		if (spec->start[i].kind == POLICY_EV_INSNS && spec->start[i].insns == at)
			return open_window(p, t, POLICY_BY_START, i, 0);
	return nothing;
}

static struct policy_fire close_by_count(const struct policy_proc *p, struct policy_thread *t)
{
	const struct policy_spec *spec = p->spec;

	if (spec->for_insns && t->insns - t->opened_at >= spec->for_insns)
		return close_window(t, POLICY_BY_FOR, 0);
	for (uint32_t i = 0; i < spec->nstop; i++)
		if (spec->stop[i].kind == POLICY_EV_INSNS &&
		    t->insns - t->opened_at >= spec->stop[i].insns)
			return close_window(t, POLICY_BY_STOP, i);
	return nothing;
}

struct policy_fire policy_on_insns(struct policy_proc *p, struct policy_thread *t, uint64_t n)
{
	struct policy_fire f = nothing;
	uint64_t at;

	if (!policy_counts_insns(p->spec)) {
		t->insns += n;
		return nothing;
	}
	/* where the next boundary was before these n: reached or passed now */
	at = t->open ? next_close_at(p, t) : next_open_at(p, t);
	t->insns += n;
	if (at == POLICY_NONE || at > t->insns)
		return nothing;
	if (t->open)
		f = close_by_count(p, t);
	else
		f = open_by_count(p, t, at);
	t->done_at = t->insns;
	return f;
}

struct policy_fire policy_thread_init(struct policy_proc *p, struct policy_thread *t)
{
	struct policy_thread z = {0};

	*t = z;
	t->done_at = POLICY_NONE;
	if (p->spec->nstart == 0 && p->spec->every_insns == 0)
		return open_window(p, t, POLICY_BY_BEGIN, 0, 0);
	return policy_on_insns(p, t, 0); /* insns:0, or --every from 0 */
}

static void watch_return(struct policy_thread *t, int is_stop, uint32_t index, uint64_t sp)
{
	if (t->nret == POLICY_MAX_EVENTS) { /* the outermost is the least likely to come */
		for (uint32_t i = 1; i < t->nret; i++)
			t->ret[i - 1] = t->ret[i];
		t->nret--;
		t->ret_dropped++;
	}
	t->ret[t->nret].sp = sp;
	t->ret[t->nret].index = index;
	t->ret[t->nret].is_stop = (uint8_t)is_stop;
	t->nret++;
}

struct policy_fire policy_on_entry(struct policy_proc *p, struct policy_thread *t, int is_stop,
				   uint32_t index, const uint64_t *args, uint64_t sp)
{
	const struct policy_spec *spec = p->spec;
	const struct policy_event *ev;
	uint64_t *count;

	if (index >= (is_stop ? spec->nstop : spec->nstart))
		return nothing;
	ev = is_stop ? &spec->stop[index] : &spec->start[index];
	if (ev->kind != POLICY_EV_FUNC && ev->kind != POLICY_EV_ADDR && ev->kind != POLICY_EV_RET)
		return nothing;
	if (!cond_holds(ev, args))
		return nothing;
	count = is_stop ? &p->stop_entries[index] : &p->entries[index];
	++*count;
	if (ev->nth && *count != ev->nth)
		return nothing;
	if (ev->kind == POLICY_EV_RET) {
		watch_return(t, is_stop, index, sp);
		return nothing;
	}
	if (is_stop)
		return t->open ? close_window(t, POLICY_BY_STOP, index) : nothing;
	if (t->open)
		return nothing;
	return open_window(p, t, POLICY_BY_START, index, activation_window(spec) ? sp : 0);
}

struct policy_fire policy_on_sp(struct policy_proc *p, struct policy_thread *t, uint64_t sp)
{
	struct policy_fire f = nothing;

	/* ret: watches whose activation is over, innermost first */
	while (t->nret && sp > t->ret[t->nret - 1].sp) {
		struct policy_ret_watch w = t->ret[--t->nret];

		if (f.action)
			continue;
		if (w.is_stop && t->open)
			f = close_window(t, POLICY_BY_STOP, w.index);
		else if (!w.is_stop && !t->open)
			f = open_window(p, t, POLICY_BY_START, w.index, 0);
	}
	if (!f.action && t->open && t->frame_sp && sp > t->frame_sp)
		f = close_window(t, POLICY_BY_RETURN, 0);
	return f;
}

struct policy_fire policy_on_signal(struct policy_proc *p, struct policy_thread *t, int signo)
{
	const struct policy_spec *spec = p->spec;

	if (t->open) {
		for (uint32_t i = 0; i < spec->nstop; i++)
			if (spec->stop[i].kind == POLICY_EV_SIGNAL && spec->stop[i].signo == signo)
				return close_window(t, POLICY_BY_STOP, i);
		return nothing;
	}
	for (uint32_t i = 0; i < spec->nstart; i++)
		if (spec->start[i].kind == POLICY_EV_SIGNAL && spec->start[i].signo == signo)
			return open_window(p, t, POLICY_BY_START, i, 0);
	return nothing;
}
