/* cli_trace.c - what tools say about the traces they read (see cli.h). */
#include <errno.h>
#include <string.h>

#include "cli.h"
#include "itrace.h"

struct itrace_reader *cli_open_trace(const char *path)
{
	struct itrace_reader *r;
	char why[256];
	int rc = itrace_reader_open_report(path, &r, why, sizeof(why));

	if (rc == 0)
		return r;
	if (rc == -ITRACE_E_IO)
		cli_error("cannot open '%s': %s", path, strerror(errno));
	else if (why[0])
		cli_error("cannot read '%s': %s", path, why);
	else
		cli_error("cannot read '%s': %s", path, itrace_errstr(rc));
	return NULL;
}

int cli_warn_incomplete(const struct itrace_reader *r, const char *name)
{
	struct itrace_footer f;
	const struct itrace_footer *fp = itrace_reader_footer(r, &f) == 0 ? &f : NULL;
	char why[256];

	if (itrace_footer_is_complete(fp))
		return 1;
	if (*itrace_reader_error(r))
		return 0; /* damage: the tool has said so */
	cli_warn("'%s' is not complete: %s", strcmp(name, "-") == 0 ? "stdin" : name,
		 itrace_footer_describe(fp, why, sizeof(why)));
	return 0;
}
