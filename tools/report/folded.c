/*
 * folded.c - folded stacks of a timed session's call paths (see
 * folded.h).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "folded.h"
#include "say.h"
#include "tools/session/timing.h"

#define FOLDED_DEPTH 128 /* longer chains are cut at their root side */

/* The names of @p's chain, root first, joined by ';' into a new string. */
static char *chain(const struct session *s, const struct sess_time *t,
		   const struct sess_tpath *p)
{
	const struct sess_tpath *c[FOLDED_DEPTH];
	unsigned int n = 0, i;
	size_t len = 1;
	char *str;

	while (p && n < FOLDED_DEPTH) {
		c[n++] = p;
		len += strlen(s->funcs[p->func].name) + 1;
		p = p->parent == KJIT_TPATH_NONE ? NULL
						 : timing_path(t, p->parent);
	}
	if (p) /* cut, or a parent not read */
		len += sizeof("[deeper];");
	str = malloc(len);
	if (!str)
		return NULL;
	*str = 0;
	if (p)
		strcat(str, "[deeper];");
	for (i = n; i-- > 0;) {
		strcat(str, s->funcs[c[i]->func].name);
		if (i)
			strcat(str, ";");
	}
	return str;
}

struct folded_line {
	char *stack;
	uint64_t weight;
};

static int by_stack(const void *a, const void *b)
{
	return strcmp(((const struct folded_line *)a)->stack,
		      ((const struct folded_line *)b)->stack);
}

static uint64_t weight(const struct sess_time *t, uint64_t cycles)
{
	return t->tsc_khz ? (uint64_t)(timing_ns(t, cycles) + 0.5) : cycles;
}

int folded_print(const struct session *s, FILE *out)
{
	const struct sess_time *t = s->timing;
	struct folded_line *l;
	unsigned int i, n = 0;

	if (!t) {
		say("--folded needs a timed session: attach or record with "
		    "--time\n");
		return 1;
	}
	l = calloc(t->n_p + 1, sizeof(*l));
	if (!l)
		return 1;
	for (i = 0; i < t->n_p; i++) {
		if (!t->p[i].excl || t->p[i].func >= s->n_funcs)
			continue;
		l[n].stack = chain(s, t, &t->p[i]);
		l[n].weight = weight(t, t->p[i].excl);
		if (l[n].stack)
			n++;
	}
	qsort(l, n, sizeof(*l), by_stack);
	for (i = 0; i < n; i++) {
		fprintf(out, "%s %" PRIu64 "\n", l[i].stack, l[i].weight);
		free(l[i].stack);
	}
	free(l);
	if (t->paths_full)
		say("%" PRIu64 " call%s found no room for their path (kjit.ko's "
		    "time_paths): timed per function only\n",
		    t->paths_full, t->paths_full == 1 ? "" : "s");
	return 0;
}
