/*
 * symtab.c - load /proc/kallsyms into a sorted table of text symbols.
 *
 * Invariants: see symtab.h. Loading reads the file once, in large reads,
 * into one buffer, and parses it in place (names point into it): on a
 * 6.12 kernel (160k symbols) every kjit attach and record reads it, and
 * under TCG a sscanf() and two strdup()s a line cost about as much as the
 * kernel's making of the file. Lookups are binary searches except
 * symtab_addr (linear, for the few section bounds).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "symtab.h"

/* Append a symbol; @name and @module point into the table's buffer. */
static int add_symbol(struct symtab *t, size_t *cap, uint64_t addr,
		      char *name, char *module)
{
	struct ksym *s;

	if (t->n == *cap) {
		*cap = *cap ? *cap * 2 : 65536;
		s = realloc(t->s, *cap * sizeof(*s));
		if (!s)
			return -ENOMEM;
		t->s = s;
	}
	s = &t->s[t->n++];
	s->addr = addr;
	s->end = 0;
	s->name = name;
	s->module = module;
	return 0;
}

static int by_addr(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Sort by address: kallsyms lists vmlinux in address order and the
 * modules after it, so only the tail after the sorted head is sorted, then
 * merged with it. 0 or -ENOMEM. */
static int sort_symbols(struct symtab *t)
{
	size_t head = 1, i = 0, j, k = 0;
	struct ksym *m;

	while (head < t->n && by_addr(&t->s[head - 1], &t->s[head]) <= 0)
		head++;
	if (head >= t->n)
		return 0;
	qsort(t->s + head, t->n - head, sizeof(*t->s), by_addr);
	m = malloc(t->n * sizeof(*m));
	if (!m)
		return -ENOMEM;
	for (j = head; i < head && j < t->n;)
		m[k++] = by_addr(&t->s[j], &t->s[i]) < 0 ? t->s[j++] : t->s[i++];
	while (i < head)
		m[k++] = t->s[i++];
	while (j < t->n)
		m[k++] = t->s[j++];
	free(t->s);
	t->s = m;
	return 0;
}

/* end = next higher address, capped. */
static void set_ends(struct symtab *t)
{
	size_t i, j = 0;

	for (i = 0; i < t->n; i++) {
		if (j <= i)
			j = i + 1;
		while (j < t->n && t->s[j].addr == t->s[i].addr)
			j++;
		t->s[i].end = j < t->n ? t->s[j].addr : t->s[i].addr + 1;
		if (t->s[i].end - t->s[i].addr > SYMTAB_MAX_SIZE)
			t->s[i].end = t->s[i].addr + SYMTAB_MAX_SIZE;
	}
}

/* The whole of @path in one NUL-terminated buffer (its size unknown
 * beforehand: /proc files say 0), into t->buf. 0 or -errno. */
static int read_all(struct symtab *t, const char *path)
{
	size_t cap = 1 << 20, len = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC), err = 0;
	char *b = malloc(cap), *nb;
	ssize_t n;

	if (fd < 0 || !b) {
		err = fd < 0 ? -errno : -ENOMEM;
		goto out;
	}
	for (;;) {
		if (cap - len < (1 << 16)) {
			nb = realloc(b, cap * 2);
			if (!nb) {
				err = -ENOMEM;
				goto out;
			}
			b = nb, cap *= 2;
		}
		n = read(fd, b + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = -errno;
			goto out;
		}
		if (!n)
			break;
		len += (size_t)n;
	}
	b[len] = 0;
	t->buf = b;
	b = NULL;
out:
	if (fd >= 0)
		close(fd);
	free(b);
	return err;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* One line at *@p, "ADDR TYPE NAME[\t[MODULE]]\n": its fields, NUL-ended
 * in place; *@p moves to the next line. 0, or -1 for a line of another
 * shape (skipped). */
static int parse_line(char **p, uint64_t *addr, char *type, char **name,
		      char **module)
{
	char *s = *p, *e = strchr(s, '\n');
	int h, digits = 0;

	if (e)
		*e = 0, *p = e + 1;
	else
		*p = s + strlen(s);
	for (*addr = 0; (h = hexval(*s)) >= 0; s++, digits++)
		*addr = *addr << 4 | (uint64_t)h;
	if (!digits || *s != ' ' || !s[1] || s[2] != ' ' || !s[3])
		return -1;
	*type = s[1];
	*name = s += 3;
	while (*s && *s != '\t' && *s != ' ')
		s++;
	*module = s; /* "" */
	if (!*s)
		return 0;
	*s++ = 0;
	while (*s == '\t' || *s == ' ')
		s++;
	if (*s == '[' && (e = strchr(s, ']'))) {
		*e = 0;
		*module = s + 1;
	} else {
		*module = s + strlen(s);
	}
	return 0;
}

static int parse_file(struct symtab *t)
{
	char *p = t->buf, *name, *module, type;
	size_t cap = 0;
	uint64_t addr;
	int zero = 0, err;

	while (*p) {
		if (parse_line(&p, &addr, &type, &name, &module))
			continue;
		if (!strcmp(name, "__start___jump_table"))
			t->jump_table[0] = addr;
		else if (!strcmp(name, "__stop___jump_table"))
			t->jump_table[1] = addr;
		if (type != 't' && type != 'T')
			continue;
		zero += addr == 0;
		err = add_symbol(t, &cap, addr, name, module);
		if (err)
			return err;
	}
	t->restricted = t->n && (size_t)zero == t->n;
	return 0;
}

int symtab_load(struct symtab *t, const char *path)
{
	int err;

	memset(t, 0, sizeof(*t));
	err = read_all(t, path);
	if (!err)
		err = parse_file(t);
	if (!err && t->restricted)
		err = -EPERM;
	if (err) {
		symtab_free(t);
		return err;
	}
	err = sort_symbols(t);
	if (err) {
		symtab_free(t);
		return err;
	}
	set_ends(t);
	return 0;
}

void symtab_free(struct symtab *t)
{
	free(t->s);
	free(t->buf);
	memset(t, 0, sizeof(*t));
}

const struct ksym *symtab_containing(const struct symtab *t, uint64_t addr)
{
	size_t lo = 0, hi = t->n;

	while (lo < hi) { /* first symbol with s.addr > addr */
		size_t mid = lo + (hi - lo) / 2;

		if (t->s[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || addr >= t->s[lo - 1].end)
		return NULL;
	return &t->s[lo - 1];
}

uint64_t symtab_addr(const struct symtab *t, const char *name)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		if (!strcmp(t->s[i].name, name))
			return t->s[i].addr;
	return 0;
}
