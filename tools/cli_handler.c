/* cli_handler.c - what itrace-run and itrace-collect --handler share of
 * driving a handler chain (cli.h). */
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "itrace_handler.h"

struct itrace_handler_chain *cli_handler_chain(const struct itrace_handler_chain_options *o,
					       char *const *specs, int n)
{
	struct itrace_handler_chain *c;

	if (itrace_handler_chain_alloc(o, &c) < 0) {
		cli_error("out of memory");
		return NULL;
	}
	for (int i = 0; i < n; i++)
		if (itrace_handler_chain_load(c, specs[i]) < 0) {
			cli_error("%s", itrace_handler_chain_error(c));
			itrace_handler_chain_free(c);
			return NULL;
		}
	return c;
}

void cli_handler_catch_faults(void (*fn)(int), int flags)
{
	static const int sigs[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL };
	static char altstack[64 * 1024];
	stack_t ss = { .ss_sp = altstack, .ss_size = sizeof(altstack) };
	struct sigaction sa;

	sigaltstack(&ss, NULL);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = fn;
	sa.sa_flags = SA_ONSTACK | flags;
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);
}

/* put - write(2) of a string, async-signal-safe */
static void put(const char *s)
{
	ssize_t n = (ssize_t)strlen(s);

	while (n > 0) {
		ssize_t w = write(2, s, (size_t)n);

		if (w <= 0)
			return;
		s += w;
		n -= w;
	}
}

static void put_u64(uint64_t v)
{
	char buf[24], *p = buf + sizeof(buf) - 1;

	*p = '\0';
	do
		*--p = (char)('0' + v % 10);
	while ((v /= 10) != 0);
	put(p);
}

void cli_handler_crashed(int sig, const char *who, uint64_t index, const char *tail)
{
	put(cli_progname());
	put(": handler '");
	put(who);
	put("' crashed (");
	put(sig == SIGSEGV ? "SIGSEGV" : sig == SIGBUS ? "SIGBUS" : sig == SIGFPE ? "SIGFPE" : "SIGILL");
	put(") at record ");
	put_u64(index);
	put("; ");
	put(tail);
	put("\n");
}
