/*
 * policy_parse.c - the trigger language of policy.h, parsed (hosted C:
 * itrace-collect only; the backends' other halves get the parsed spec).
 */
#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy.h"

static int fail(struct policy_error *err, size_t column, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct policy_error *err, size_t column, const char *fmt, ...)
{
	va_list ap;

	err->column = column;
	va_start(ap, fmt);
	vsnprintf(err->message, sizeof(err->message), fmt, ap);
	va_end(ap);
	return -1;
}

/* A decimal or 0x hex number at s[*pos], no sign: its value, *pos past it. */
static int parse_u64(const char *s, size_t *pos, uint64_t *out, struct policy_error *err,
		     const char *what)
{
	const char *start = s + *pos;
	char *end;
	int base = 10;

	if (start[0] == '0' && (start[1] == 'x' || start[1] == 'X'))
		base = 16;
	if (!(base == 16 ? isxdigit((unsigned char)start[2]) : isdigit((unsigned char)start[0])))
		return fail(err, *pos, "expected %s (a decimal or 0x hex number)", what);
	errno = 0;
	*out = strtoull(start, &end, base);
	if (errno == ERANGE)
		return fail(err, *pos, "%s out of range (at most 64 bits)", what);
	*pos += (size_t)(end - start);
	return 0;
}

static int is_name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '.' || c == '$' || c == ':' || c == '@' || c == '*' || c == '?' ||
	       c == '[' || c == ']' || c == '~' || c == '-' || c == '+' || c == '/';
}

/* A function name or glob at text[*pos] up to '#', ' ' or the end. */
static int parse_name(const char *text, size_t *pos, char *out, struct policy_error *err)
{
	size_t start = *pos, n;

	while (text[*pos] && text[*pos] != '#' && text[*pos] != ' ') {
		if (!is_name_char(text[*pos]))
			return fail(err, *pos, "unexpected '%c' in a function name", text[*pos]);
		(*pos)++;
	}
	n = *pos - start;
	if (n == 0)
		return fail(err, start, "expected a function name");
	if (n >= POLICY_NAME_MAX)
		return fail(err, start, "name longer than %d characters", POLICY_NAME_MAX - 1);
	memcpy(out, text + start, n);
	out[n] = '\0';
	return 0;
}

static const struct {
	const char *text;
	int op;
} ops[] = {
	{"==", POLICY_OP_EQ}, {"!=", POLICY_OP_NE}, {"<=", POLICY_OP_LE},
	{">=", POLICY_OP_GE}, {"<", POLICY_OP_LT},  {">", POLICY_OP_GT},
};

/* " if argK OP VALUE" at text[*pos] (at the space). */
static int parse_cond(const char *text, size_t *pos, struct policy_event *ev,
		      struct policy_error *err)
{
	size_t p = *pos, k;
	uint64_t idx;

	while (text[p] == ' ')
		p++;
	if (strncmp(text + p, "if ", 3) != 0)
		return fail(err, p, "expected 'if argK OP VALUE' after the event");
	p += 3;
	while (text[p] == ' ')
		p++;
	if (strncmp(text + p, "arg", 3) != 0)
		return fail(err, p, "expected argK (K = 0..5)");
	k = p;
	p += 3;
	if (parse_u64(text, &p, &idx, err, "an argument index"))
		return -1;
	if (idx >= POLICY_NARGS)
		return fail(err, k, "argument index %llu out of range (0..%d)",
			    (unsigned long long)idx, POLICY_NARGS - 1);
	while (text[p] == ' ')
		p++;
	ev->cond_op = POLICY_OP_NONE;
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		if (strncmp(text + p, ops[i].text, strlen(ops[i].text)) == 0) {
			ev->cond_op = (uint8_t)ops[i].op;
			p += strlen(ops[i].text);
			break;
		}
	}
	if (ev->cond_op == POLICY_OP_NONE)
		return fail(err, p, "expected a comparison (== != < <= > >=)");
	while (text[p] == ' ')
		p++;
	ev->cond_arg = (uint8_t)idx;
	if (parse_u64(text, &p, &ev->cond_value, err, "a value"))
		return -1;
	*pos = p;
	return 0;
}

static int parse_signal(const char *text, size_t pos, struct policy_event *ev,
			struct policy_error *err)
{
	const char *name = text + pos;

	if (strncmp(name, "SIG", 3) == 0)
		name += 3;
	for (int s = 1; s < NSIG; s++) {
		const char *abbrev = sigabbrev_np(s);

		if (abbrev && strcmp(abbrev, name) == 0) {
			ev->signo = s;
			return 0;
		}
	}
	return fail(err, pos, "unknown signal '%s' (a name like SIGUSR1 or USR1)", text + pos);
}

static int parse_addr(const char *text, size_t pos, struct policy_event *ev,
		      struct policy_error *err)
{
	size_t start = pos;

	if (strncmp(text + pos, "0x", 2) != 0 && strncmp(text + pos, "0X", 2) != 0)
		return fail(err, pos, "expected a 0x hex address");
	if (parse_u64(text, &pos, &ev->addr, err, "an address"))
		return -1;
	if (text[pos] == '@') {
		size_t n = strlen(text + pos + 1);

		if (n == 0)
			return fail(err, pos + 1, "expected a module after '@'");
		if (n >= POLICY_NAME_MAX)
			return fail(err, pos + 1, "module name too long");
		memcpy(ev->name, text + pos + 1, n + 1);
		return 0;
	}
	if (text[pos] != '\0' && text[pos] != ' ')
		return fail(err, pos, "unexpected '%c' after the address", text[pos]);
	(void)start;
	return 0;
}

/* The part after FUNC, ret:FUNC or addr:A: nothing, or a condition. */
static int parse_tail(const char *text, size_t pos, struct policy_event *ev,
		      struct policy_error *err)
{
	if (text[pos] == '\0')
		return 0;
	if (parse_cond(text, &pos, ev, err))
		return -1;
	while (text[pos] == ' ')
		pos++;
	if (text[pos] != '\0')
		return fail(err, pos, "unexpected text after the condition");
	return 0;
}

int policy_parse_event(const char *text, struct policy_event *ev, struct policy_error *err)
{
	size_t pos = 0;

	memset(ev, 0, sizeof(*ev));
	memset(err, 0, sizeof(*err));
	if (text[0] == '\0')
		return fail(err, 0, "empty event");
	if (strncmp(text, "insns:", 6) == 0) {
		ev->kind = POLICY_EV_INSNS;
		pos = 6;
		if (parse_u64(text, &pos, &ev->insns, err, "an instruction count"))
			return -1;
		if (text[pos] != '\0')
			return fail(err, pos, "unexpected text after the instruction count");
		return 0;
	}
	if (strncmp(text, "signal:", 7) == 0) {
		ev->kind = POLICY_EV_SIGNAL;
		return parse_signal(text, 7, ev, err);
	}
	if (strncmp(text, "addr:", 5) == 0) {
		size_t end;

		ev->kind = POLICY_EV_ADDR;
		end = strcspn(text, " ");
		{
			char head[POLICY_NAME_MAX + 32];

			if (end >= sizeof(head))
				return fail(err, 5, "address too long");
			memcpy(head, text, end);
			head[end] = '\0';
			if (parse_addr(head, 5, ev, err))
				return -1;
		}
		return parse_tail(text, end, ev, err);
	}
	if (strncmp(text, "ret:", 4) == 0) {
		ev->kind = POLICY_EV_RET;
		pos = 4;
	} else {
		ev->kind = POLICY_EV_FUNC;
	}
	if (parse_name(text, &pos, ev->name, err))
		return -1;
	ev->is_glob = strpbrk(ev->name, "*?[") != NULL;
	if (text[pos] == '#') {
		size_t at = ++pos;

		if (parse_u64(text, &pos, &ev->nth, err, "an entry number after '#'"))
			return -1;
		if (ev->nth == 0)
			return fail(err, at, "entries are counted from 1 (#1 is the first)");
	}
	if (text[pos] != '\0' && text[pos] != ' ')
		return fail(err, pos, "unexpected '%c'", text[pos]);
	return parse_tail(text, pos, ev, err);
}

const char *policy_option_name(int option)
{
	switch (option) {
	case POLICY_OPT_START: return "--start";
	case POLICY_OPT_STOP: return "--stop";
	case POLICY_OPT_FOR: return "--for";
	default: return "--every";
	}
}

/* --for insns:N and --every insns:P: a count of at least 1. */
static int parse_count_option(const char *arg, uint64_t *out, struct policy_error *err)
{
	struct policy_event ev;

	if (strncmp(arg, "insns:", 6) != 0) {
		memset(err, 0, sizeof(*err));
		return fail(err, 0, "expected insns:N");
	}
	if (policy_parse_event(arg, &ev, err))
		return -1;
	if (ev.insns == 0)
		return fail(err, 6, "the count must be at least 1");
	*out = ev.insns;
	return 0;
}

int policy_add_option(struct policy_spec *spec, int option, const char *arg,
		      struct policy_error *err)
{
	struct policy_event *list;
	uint32_t *n;

	if (option == POLICY_OPT_FOR)
		return parse_count_option(arg, &spec->for_insns, err);
	if (option == POLICY_OPT_EVERY)
		return parse_count_option(arg, &spec->every_insns, err);
	list = option == POLICY_OPT_STOP ? spec->stop : spec->start;
	n = option == POLICY_OPT_STOP ? &spec->nstop : &spec->nstart;
	if (*n == POLICY_MAX_EVENTS) {
		memset(err, 0, sizeof(*err));
		return fail(err, 0, "more than %d %s options", POLICY_MAX_EVENTS,
			    policy_option_name(option));
	}
	if (policy_parse_event(arg, &list[*n], err))
		return -1;
	if (option == POLICY_OPT_STOP && list[*n].kind == POLICY_EV_INSNS && list[*n].insns == 0)
		return fail(err, 6, "the count must be at least 1");
	(*n)++;
	return 0;
}

int policy_check(const struct policy_spec *spec, int *option, struct policy_error *err)
{
	memset(err, 0, sizeof(*err));
	if (spec->every_insns) {
		*option = POLICY_OPT_EVERY;
		if (!spec->for_insns)
			return fail(err, 0, "needs --for insns:L, the length of each window");
		if (spec->for_insns >= spec->every_insns)
			return fail(err, 0, "the window (--for insns:%llu) must be shorter than "
					    "the period",
				    (unsigned long long)spec->for_insns);
		if (spec->nstop)
			return fail(err, 0, "cannot be combined with --stop");
		if (spec->nstart > 1 || (spec->nstart && spec->start[0].kind != POLICY_EV_INSNS))
			return fail(err, 0, "starts from --start insns:N only");
	}
	return 0;
}

char *policy_format_error(int option, const char *arg, const struct policy_error *err, char *buf,
			  size_t len)
{
	/* the caret goes under arg[column]: after "  --start '" */
	int lead = snprintf(buf, len, "%s '%s': %s at column %zu\n  %s '%s'\n",
			    policy_option_name(option), arg, err->message, err->column + 1,
			    policy_option_name(option), arg);
	size_t used, col = 2 + strlen(policy_option_name(option)) + 2 + err->column;

	if (lead < 0 || (size_t)lead >= len)
		return buf;
	used = (size_t)lead;
	for (size_t i = 0; i < col && used + 2 < len; i++)
		buf[used++] = ' ';
	if (used + 1 < len)
		buf[used++] = '^';
	buf[used] = '\0';
	return buf;
}

static const char *op_text(int op)
{
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (ops[i].op == op)
			return ops[i].text;
	return "?";
}

char *policy_event_text(const struct policy_event *ev, char *buf, size_t len)
{
	int n = 0;

	switch (ev->kind) {
	case POLICY_EV_INSNS:
		snprintf(buf, len, "insns:%llu", (unsigned long long)ev->insns);
		return buf;
	case POLICY_EV_SIGNAL:
		snprintf(buf, len, "signal:SIG%s", sigabbrev_np(ev->signo) ? sigabbrev_np(ev->signo) : "?");
		return buf;
	case POLICY_EV_ADDR:
		n = snprintf(buf, len, "addr:0x%llx%s%s", (unsigned long long)ev->addr,
			     ev->name[0] ? "@" : "", ev->name);
		break;
	default:
		n = snprintf(buf, len, "%s%s", ev->kind == POLICY_EV_RET ? "ret:" : "", ev->name);
		if (ev->nth && n >= 0 && (size_t)n < len)
			n += snprintf(buf + n, len - (size_t)n, "#%llu", (unsigned long long)ev->nth);
	}
	if (ev->cond_op && n >= 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, " if arg%u%s%llu", ev->cond_arg,
			 op_text(ev->cond_op), (unsigned long long)ev->cond_value);
	return buf;
}

static int legacy_event(const struct policy_event *ev)
{
	return (ev->kind == POLICY_EV_FUNC && !ev->is_glob && !ev->nth) ||
	       (ev->kind == POLICY_EV_ADDR && !ev->name[0]) ? ev->cond_op == POLICY_OP_NONE : 0;
}

int policy_is_legacy(const struct policy_spec *spec)
{
	if (spec->nstart > 1 || spec->nstop > 1 || spec->for_insns || spec->every_insns)
		return 0;
	return (!spec->nstart || legacy_event(&spec->start[0])) &&
	       (!spec->nstop || legacy_event(&spec->stop[0]));
}
