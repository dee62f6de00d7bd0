/* predicate.c - parse and print `--if` expressions (see predicate.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "predicate.h"

static const struct {
	const char *text;
	unsigned char op;
} ops[] = {
    /* two-character ones first: "<=" is not "<" then "=" */
    {"==", KJIT_PRED_EQ}, {"!=", KJIT_PRED_NE}, {"<=", KJIT_PRED_LE},
    {">=", KJIT_PRED_GE}, {"<", KJIT_PRED_LT},	{">", KJIT_PRED_GT},
    {"&", KJIT_PRED_ANY},
};

static const char *op_text(unsigned char op)
{
	size_t i;

	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (ops[i].op == op)
			return ops[i].text;
	return "?";
}

static int fail(char *why, size_t n, const char *msg)
{
	snprintf(why, n, "%s", msg);
	return -1;
}

static const char *skip_blanks(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

/* VALUE at @s (to its end) in @bits into *@v. */
static int parse_value(const char *s, unsigned bits, unsigned long long *v,
		       char *why, size_t n)
{
	int neg = *s == '-';
	char *end;

	s = skip_blanks(s + neg);
	if (!*s || *s == '-' || *s == '+')
		return fail(why, n, "no VALUE after the operator");
	errno = 0;
	*v = strtoull(s, &end, 0);
	end = (char *)skip_blanks(end);
	if (errno || *end)
		return fail(why, n, "VALUE is not a number up to 2^64 - 1");
	if (bits == 32 && (neg ? *v > 0x80000000ull : *v > 0xffffffffull))
		return fail(why, n, "VALUE does not fit the 32 bits compared");
	if (neg && bits == 64 && *v > 0x8000000000000000ull)
		return fail(why, n, "VALUE is below -2^63");
	if (neg)
		*v = -*v;
	if (bits == 32)
		*v &= 0xffffffffull;
	return 0;
}

int pred_parse(const char *s, struct tool_pred *out, char *why, size_t n)
{
	const char *colon = strchr(s, ':'), *a;
	unsigned long long v;
	size_t i, len;
	char *end;
	long arg;

	memset(out, 0, sizeof(*out));
	if (!colon || colon == s)
		return fail(why, n, "expected FUNC:argN OP VALUE");
	len = (size_t)(colon - s);
	if (len >= sizeof(out->func))
		return fail(why, n, "FUNC is too long");
	memcpy(out->func, s, len);
	a = skip_blanks(colon + 1);
	if (strncmp(a, "arg", 3) || a[3] < '0' || a[3] > '9')
		return fail(why, n, "expected argN (N 0..5) after FUNC:");
	arg = strtol(a + 3, &end, 10);
	if (arg < 0 || arg >= KJIT_PRED_ARGS)
		return fail(why, n, "only arg0..arg5 are passed in registers");
	out->p.arg = (unsigned char)arg;
	out->p.bits = 64;
	if (!strncmp(end, ".32", 3)) {
		out->p.bits = 32;
		end += 3;
	} else if (!strncmp(end, ".64", 3)) {
		end += 3;
	}
	a = skip_blanks(end);
	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (!strncmp(a, ops[i].text, strlen(ops[i].text)))
			break;
	if (i == sizeof(ops) / sizeof(ops[0]))
		return fail(why, n,
			    "expected one of == != < <= > >= & after argN");
	out->p.op = ops[i].op;
	if (parse_value(skip_blanks(a + strlen(ops[i].text)), out->p.bits, &v,
			why, n))
		return -1;
	out->p.value = v;
	return 0;
}

void pred_format(const struct tool_pred *p, char *buf, size_t n)
{
	snprintf(buf, n,
		 p->p.op == KJIT_PRED_ANY ? "%s:arg%u%s %s %#llx"
					  : "%s:arg%u%s %s %llu",
		 p->func, p->p.arg, p->p.bits == 32 ? ".32" : "",
		 op_text(p->p.op), (unsigned long long)p->p.value);
}

void pred_append_scope(const struct tool_pred *p, int first, char *buf,
		       size_t n)
{
	size_t used = strlen(buf);
	char text[200];

	pred_format(p, text, sizeof(text));
	if (used < n)
		snprintf(buf + used, n - used, "%s%s",
			 first ? "; only when " : ", ", text);
}
