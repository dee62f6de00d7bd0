/*
 * test_filter_chunks.c - host tests of tools/kernel/filter_chunks.c, the
 * split of ftrace's function list into chunks of set_ftrace_filter globs.
 * The oracle here is ftrace's own glob rule, written again: "p*" matches
 * the names that begin with p, a glob without "*" the name itself. Every
 * name must be matched by exactly one glob of one chunk, and each chunk
 * must match at most the limit.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tools/kernel/filter_chunks.h"
#include "check.h"

static int glob_matches(const char *glob, size_t len, const char *name)
{
	if (len && glob[len - 1] == '*')
		return !strncmp(glob, name, len - 1);
	return strlen(name) == len && !strncmp(glob, name, len);
}

/* How many globs of all chunks match @name; *@chunk_of: the last chunk. */
static int matches(const struct filter_chunks *c, const char *name,
		   size_t *chunk_of)
{
	const char *l, *e;
	size_t i;
	int n = 0;

	for (i = 0; i < c->n; i++)
		for (l = c->text[i]; *l; l = e + 1) {
			e = strchr(l, '\n');
			if (!e)
				return -1; /* every glob ends its line */
			if (glob_matches(l, (size_t)(e - l), name)) {
				n++;
				*chunk_of = i;
			}
		}
	return n;
}

/* Checks the plan of @names (n of them) with @max; @label names it. A
 * chunk may match up to @limit: one exact name listed @limit times. */
static void plan_ok(const char *label, char **names, size_t n, size_t max,
		    size_t limit)
{
	struct filter_chunks c;
	size_t i, *per, chunk = 0;
	char *avail, why[256], *p;
	size_t len = 0;
	int ok = 1;

	for (i = 0; i < n; i++)
		len += strlen(names[i]) + 16;
	avail = p = malloc(len + 1);
	for (i = 0; i < n; i++) /* a module's functions carry " [mod]" */
		p += sprintf(p, "%s%s\n", names[i], i % 7 ? "" : " [ext4]");
	*p = 0;
	if (filter_chunks_plan(avail, max, &c)) {
		check(label, 0, "plan failed");
		free(avail);
		return;
	}
	per = calloc(c.n + 1, sizeof(*per));
	snprintf(why, sizeof(why), "ok");
	for (i = 0; i < n && ok; i++) {
		int m = matches(&c, names[i], &chunk);

		if (m != 1) {
			snprintf(why, sizeof(why), "%s matched by %d globs",
				 names[i], m);
			ok = 0;
		} else
			per[chunk]++;
	}
	for (i = 0; i < c.n && ok; i++)
		if (per[i] > limit || per[i] != c.names[i]) {
			snprintf(why, sizeof(why),
				 "chunk %zu matches %zu (says %zu, max %zu)", i,
				 per[i], c.names[i], max);
			ok = 0;
		}
	if (ok && c.total != n) {
		snprintf(why, sizeof(why), "total %zu of %zu", c.total, n);
		ok = 0;
	}
	check(label, ok, why);
	free(per);
	filter_chunks_free(&c);
	free(avail);
}

static char *dup_name(const char *fmt, unsigned int i)
{
	char buf[64];

	snprintf(buf, sizeof(buf), fmt, i);
	return strdup(buf);
}

/* A kernel-like list: a big "__" family, names that are prefixes of
 * others ("a", "ab", "abc"), duplicates (static functions of the same
 * name), single letters, digits. */
static void kernel_like(void)
{
	static const char *fixed[] = {"a",  "ab", "abc", "abc", "abc", "b",
				      "_",  "__", "x",	 "x1",	"x1.cold"};
	size_t n = 0, i, cap = 30000;
	char **names = calloc(cap, sizeof(*names));

	for (i = 0; i < sizeof(fixed) / sizeof(*fixed); i++)
		names[n++] = strdup(fixed[i]);
	for (i = 0; i < 9000; i++)
		names[n++] = dup_name("__x64_sys_call%u", (unsigned int)i);
	for (i = 0; i < 6000; i++)
		names[n++] = dup_name("ext4_fn%u", (unsigned int)i % 5000);
	for (i = 0; i < 4000; i++)
		names[n++] = dup_name("%u_digits", (unsigned int)i);
	for (i = 0; i < 3000; i++)
		names[n++] = dup_name("vfs_%x", (unsigned int)i * 2654435761u);
	plan_ok("kernel_like_2048", names, n, 2048, 2048);
	plan_ok("kernel_like_100", names, n, 100, 100);
	plan_ok("kernel_like_1", names, n, 1, 3); /* "abc" three times */
	plan_ok("kernel_like_all", names, n, 1000000, 1000000);
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

static void negated(void)
{
	char *neg = filter_chunks_negated("ab*\nx\n__x64_sys_c*\n");

	check("negated", neg && !strcmp(neg, "!ab*\n!x\n!__x64_sys_c*\n"),
	      neg ? neg : "NULL");
	free(neg);
}

/* ftrace lists weak functions the linker dropped as
 * "__ftrace_invalid_address___N", which no filter takes in: not counted. */
static void invalid_names(void)
{
	struct filter_chunks c;
	int rc = filter_chunks_plan("vfs_read\n__ftrace_invalid_address___64\n"
				    "__ftrace_invalid_address___64\nvfs_write\n",
				    10, &c);

	check("invalid_not_counted", !rc && c.total == 2, "counted");
	if (!rc)
		filter_chunks_free(&c);
}

static void empty(void)
{
	struct filter_chunks c;

	check("empty_list", filter_chunks_plan("\n\n", 10, &c) != 0,
	      "a list without names planned");
}

int main(void)
{
	area = "tool.filter_chunks";
	kernel_like();
	negated();
	invalid_names();
	empty();
	return failures != 0;
}
