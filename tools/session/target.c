/*
 * target.c - resolve FUNC arguments (syntax in target.h) to addresses.
 *
 * Invariants: one error line per failure, naming the argument; a match is
 * exact on the name (and on the module when one is given).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "target.h"
#include "tools/report/say.h"

#define TARGET_SUGGEST_LEN 128 /* longer names get no "did you mean" */

struct spec {
	char module[64];
	char name[256];
	uint64_t off;
};

static int parse_off(const char *p, uint64_t *off)
{
	char *end;

	if (!*p)
		return -EINVAL;
	errno = 0;
	*off = strtoull(p, &end, 0);
	return errno || *end ? -EINVAL : 0;
}

static int parse_spec(const char *arg, struct spec *s)
{
	const char *colon = strchr(arg, ':'), *name = arg, *plus;
	size_t len;

	memset(s, 0, sizeof(*s));
	if (colon) {
		if (colon == arg || (size_t)(colon - arg) >= sizeof(s->module))
			return -EINVAL;
		memcpy(s->module, arg, colon - arg);
		name = colon + 1;
	}
	plus = strchr(name, '+');
	len = plus ? (size_t)(plus - name) : strlen(name);
	if (!len || len >= sizeof(s->name))
		return -EINVAL;
	memcpy(s->name, name, len);
	return plus ? parse_off(plus + 1, &s->off) : 0;
}

void target_symname(const struct ksym *s, char *buf, size_t size)
{
	if (s->module[0])
		snprintf(buf, size, "%s:%s", s->module, s->name);
	else
		snprintf(buf, size, "%s", s->name);
}

static int by_address(const struct symtab *t, const char *arg,
		      struct target *out, FILE *err)
{
	uint64_t a;

	if (parse_off(arg, &a))
		goto bad;
	out->sym = symtab_containing(t, a);
	if (!out->sym) {
		say_to(err, "%s: address is in no kernel function\n", arg);
		return -ENOENT;
	}
	out->addr = a;
	out->off = a - out->sym->addr;
	return 0;
bad:
	say_to(err, "%s: not an address\n", arg);
	return -EINVAL;
}

static int matches(const struct ksym *k, const struct spec *s)
{
	return !strcmp(k->name, s->name) &&
	       (!s->module[0] || !strcmp(k->module, s->module));
}

static void list_candidates(const struct symtab *t, const char *arg,
			    const struct spec *s, unsigned int n, FILE *err)
{
	char name[320];
	size_t i;

	say_to(err,
	       "%s: ambiguous: %u functions have this name; name "
	       "one by address or as module:name:\n",
	       arg, n);
	for (i = 0; i < t->n; i++) {
		if (!matches(&t->s[i], s))
			continue;
		target_symname(&t->s[i], name, sizeof(name));
		say_to(err, "  0x%016" PRIx64 "  %s\n", t->s[i].addr, name);
	}
}

/* Edit distance of @a and @b (insertions, deletions, substitutions and
 * swaps of neighbours), or a number past @max once it must exceed @max. */
static unsigned int distance(const char *a, const char *b, unsigned int max)
{
	unsigned int d[3][TARGET_SUGGEST_LEN + 1], i, j;
	size_t la = strlen(a), lb = strlen(b);

	if (la > TARGET_SUGGEST_LEN || lb > TARGET_SUGGEST_LEN ||
	    (la > lb ? la - lb : lb - la) > max)
		return max + 1;
	for (j = 0; j <= lb; j++)
		d[0][j] = j;
	for (i = 1; i <= la; i++) {
		unsigned int *c = d[i % 3], *p = d[(i + 2) % 3],
			     *pp = d[(i + 1) % 3], low = c[0] = i;

		for (j = 1; j <= lb; j++) {
			unsigned int v = p[j - 1] + (a[i - 1] != b[j - 1]);

			if (p[j] + 1 < v)
				v = p[j] + 1;
			if (c[j - 1] + 1 < v)
				v = c[j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] &&
			    a[i - 2] == b[j - 1] && pp[j - 2] + 1 < v)
				v = pp[j - 2] + 1;
			c[j] = v;
			if (v < low)
				low = v;
		}
		if (low > max)
			return max + 1;
	}
	return d[la % 3][lb];
}

/* "; did you mean A, B?" for the (at most three) closest function names
 * to the unknown @name: 1 edit for names of up to 4 characters, else 2. */
static void did_you_mean(const struct symtab *t, const struct spec *s,
			 char *out, size_t size)
{
	const char *best[3] = {NULL, NULL, NULL};
	unsigned int dist[3], max = strlen(s->name) <= 4 ? 1 : 2, k, n = 0;
	size_t i, used;

	for (i = 0; i < t->n; i++) {
		const char *nm = t->s[i].name;
		unsigned int d;

		if (s->module[0] && strcmp(t->s[i].module, s->module))
			continue;
		d = distance(s->name, nm, max);
		if (d > max)
			continue;
		for (k = 0; k < n && strcmp(best[k], nm); k++)
			;
		if (k < n) /* an alias or a second module's: once */
			continue;
		for (k = n < 3 ? n++ : 3; k > 0 && dist[k - 1] > d; k--)
			if (k < 3) {
				best[k] = best[k - 1];
				dist[k] = dist[k - 1];
			}
		if (k < 3) {
			best[k] = nm;
			dist[k] = d;
		}
	}
	out[0] = 0;
	for (k = 0, used = 0; k < n && used < size; k++) {
		int w = snprintf(out + used, size - used, "%s%s",
				 k ? ", " : "; did you mean ", best[k]);

		if (w < 0)
			break;
		used += (size_t)w;
	}
	if (n && used + 1 < size)
		strcat(out, "?");
}

static int by_name(const struct symtab *t, const char *arg,
		   const struct spec *s, struct target *out, FILE *err)
{
	const struct ksym *found = NULL;
	unsigned int n = 0;
	size_t i;

	for (i = 0; i < t->n; i++)
		if (matches(&t->s[i], s) &&
		    (!found || found->addr != t->s[i].addr)) {
			found = &t->s[i];
			n++;
		}
	if (!n) {
		char hint[512];

		did_you_mean(t, s, hint, sizeof(hint));
		say_to(err, "%s: no such kernel function%s%s\n", arg,
		       s->module[0] ? " in that module" : "", hint);
		return -ENOENT;
	}
	if (n > 1) {
		list_candidates(t, arg, s, n, err);
		return -ENOTUNIQ;
	}
	if (found->addr + s->off >= found->end) {
		say_to(err,
		       "%s: offset past the end of %s (%" PRIu64 " bytes)\n",
		       arg, found->name, found->end - found->addr);
		return -ERANGE;
	}
	out->sym = found;
	out->off = s->off;
	out->addr = found->addr + s->off;
	return 0;
}

int target_resolve(const struct symtab *t, const char *arg, struct target *out,
		   FILE *err)
{
	struct spec s;

	memset(out, 0, sizeof(*out));
	if (!strncmp(arg, "0x", 2) || !strncmp(arg, "0X", 2))
		return by_address(t, arg, out, err);
	if (parse_spec(arg, &s)) {
		say_to(err,
		       "%s: expected name, module:name, name+0xOFF "
		       "or 0xADDRESS\n",
		       arg);
		return -EINVAL;
	}
	return by_name(t, arg, &s, out, err);
}

void target_did_you_mean(const struct symtab *t, const char *arg, char *out,
			 size_t size)
{
	struct spec s;

	out[0] = 0;
	if (!parse_spec(arg, &s) && strlen(s.name) < TARGET_SUGGEST_LEN)
		did_you_mean(t, &s, out, size);
}
