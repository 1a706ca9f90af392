/*
 * real_fixedtime_lib.c - libreal_fixedtime.so, preloaded to make a program
 * that seeds randomness from the clock repeatable: time() always says
 * 2001-09-09T01:46:40Z.  libxml2 seeds its hash tables' randomisation
 * with time(NULL), so two runs of xmllint in different seconds execute
 * differently; with this preloaded (in every run alike: plain, each
 * backend, each oracle) they do not.
 */
#include <time.h>

time_t time(time_t *t)
{
	if (t)
		*t = 1000000000;
	return 1000000000;
}
