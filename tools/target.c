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
		fprintf(err, "kjit: %s: address is in no kernel function\n",
			arg);
		return -ENOENT;
	}
	out->addr = a;
	out->off = a - out->sym->addr;
	return 0;
bad:
	fprintf(err, "kjit: %s: not an address\n", arg);
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

	fprintf(err,
		"kjit: %s: ambiguous: %u functions have this name; name "
		"one by address or as module:name:\n",
		arg, n);
	for (i = 0; i < t->n; i++) {
		if (!matches(&t->s[i], s))
			continue;
		target_symname(&t->s[i], name, sizeof(name));
		fprintf(err, "kjit:   0x%016" PRIx64 "  %s\n", t->s[i].addr,
			name);
	}
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
		fprintf(err, "kjit: %s: no such kernel function%s\n", arg,
			s->module[0] ? " in that module" : "");
		return -ENOENT;
	}
	if (n > 1) {
		list_candidates(t, arg, s, n, err);
		return -ENOTUNIQ;
	}
	if (found->addr + s->off >= found->end) {
		fprintf(err,
			"kjit: %s: offset past the end of %s (%" PRIu64
			" bytes)\n",
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
		fprintf(err,
			"kjit: %s: expected name, module:name, name+0xOFF "
			"or 0xADDRESS\n",
			arg);
		return -EINVAL;
	}
	return by_name(t, arg, &s, out, err);
}
