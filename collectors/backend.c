/*
 * backend.c - what itrace-collect gives every backend (backend.h): the
 * interrupt flag its signal handlers set, the signal actions a child gets
 * back before exec, and the options an emulating backend must refuse.
 * Kept apart from itrace-collect's main (collectors/main/), which uses the
 * backends: the backends use this file, never main.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "backend.h"

volatile sig_atomic_t collect_interrupted;

static void on_interrupt(int signo)
{
	collect_interrupted = signo;
}

/* The signals itrace-collect handles itself, and their original actions. */
static const int own_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE};
static struct sigaction saved_actions[sizeof(own_signals) / sizeof(own_signals[0])];

/* SIGINT/SIGTERM end the trace cleanly; no SA_RESTART so waits return EINTR. */
void collect_install_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(own_signals) / sizeof(own_signals[0]); i++) {
		sa.sa_handler = own_signals[i] == SIGPIPE ? SIG_IGN : on_interrupt;
		sigaction(own_signals[i], &sa, &saved_actions[i]);
	}
}

int collect_refuse_emulated(const struct collect_options *o, const char *backend,
			    const char *emulator, char *err, size_t errlen)
{
	if (o->attach_pid)
		snprintf(err, errlen, "%s cannot attach to a running process (-p); start the "
				      "program under itrace-collect, or use --backend ptrace", emulator);
	else if (o->remote)
		snprintf(err, errlen, "--remote needs --backend gdb");
	else if (o->follow_fork)
		snprintf(err, errlen, "--follow-fork is not supported by the %s backend (forked "
				      "children run untraced)", backend);
	else if (o->aslr)
		snprintf(err, errlen, "--aslr cannot be honoured: %s lays the program out itself, "
				      "at the same addresses every run", emulator);
	else
		return 0;
	return -1;
}

void collect_restore_signals(void)
{
	for (size_t i = 0; i < sizeof(own_signals) / sizeof(own_signals[0]); i++)
		sigaction(own_signals[i], &saved_actions[i], NULL);
}
