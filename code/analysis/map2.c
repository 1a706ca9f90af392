/*
 * map2.c - the out-of-line part of map2 (map2.h): growing and freeing.
 */
#include "map2.h"

#include <stdlib.h>

int map2_rehash(struct map2 *m)
{
	struct map2 old = *m, nm = {0};
	size_t i;

	nm.cap = old.cap ? old.cap * 2 : 8; /* small: every thread has one */
	nm.k1 = malloc(nm.cap * sizeof(*nm.k1));
	nm.k2 = malloc(nm.cap * sizeof(*nm.k2));
	nm.val = calloc(nm.cap, sizeof(*nm.val));
	if (!nm.k1 || !nm.k2 || !nm.val) {
		free(nm.k1);
		free(nm.k2);
		free(nm.val);
		return -ITRACE_E_NOMEM;
	}
	for (i = 0; i < old.cap; i++) {
		if (old.val[i]) {
			uint32_t *s = map2_slot(&nm, old.k1[i], old.k2[i]);
			size_t at = (size_t)(s - nm.val);

			*s = old.val[i];
			nm.k1[at] = old.k1[i];
			nm.k2[at] = old.k2[i];
			nm.n++;
		}
	}
	free(old.k1);
	free(old.k2);
	free(old.val);
	*m = nm;
	return 0;
}

void map2_free(struct map2 *m)
{
	free(m->k1);
	free(m->k2);
	free(m->val);
	memset(m, 0, sizeof(*m));
}
