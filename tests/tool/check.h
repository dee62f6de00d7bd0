/* check.h - the KJIT-RESULT protocol for the tool's host tests (one line per
 * check, "KJIT-RESULT PASS|FAIL tool.<area>.<name> [why]"). */
#ifndef KJIT_TEST_TOOL_CHECK_H
#define KJIT_TEST_TOOL_CHECK_H

#include <stdio.h>

static int failures;
static const char *area = "tool";

static void check(const char *name, int ok, const char *why)
{
	printf("KJIT-RESULT %s %s.%s%s%s\n", ok ? "PASS" : "FAIL", area, name,
	       ok ? "" : " ", ok ? "" : why);
	failures += !ok;
}

/* Output written to a memory stream, for comparing with expected text. */
struct capture {
	char *buf;
	size_t len;
	FILE *f;
};

static inline FILE *capture_begin(struct capture *c)
{
	c->buf = NULL;
	c->len = 0;
	c->f = open_memstream(&c->buf, &c->len);
	return c->f;
}

static inline const char *capture_end(struct capture *c)
{
	fclose(c->f);
	return c->buf ? c->buf : "";
}

#endif
