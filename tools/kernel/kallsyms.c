/*
 * kallsyms.c - name -> address through /proc/kallsyms.
 *
 * Only text symbols (type t/T) count. Module symbols carry "[module]" after
 * the name; `module:name` selects one of them.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "kallsyms.h"
#include "tools/report/say.h"

struct ksym_line {
	uint64_t addr;
	char type;
	char name[256];
	char module[64];
};

static int parse_line(const char *line, struct ksym_line *s)
{
	s->module[0] = 0;
	if (sscanf(line, "%" SCNx64 " %c %255s [%63[^]]]", &s->addr, &s->type,
		   s->name, s->module) < 3)
		return -1;
	return 0;
}

static int is_text(char type)
{
	return type == 't' || type == 'T';
}

static int matches(const struct ksym_line *s, const char *module,
		   const char *name)
{
	if (!is_text(s->type) || strcmp(s->name, name))
		return 0;
	return !module || !strcmp(s->module, module);
}

static void split_module(const char *want, char *modbuf, size_t size,
			 const char **module, const char **name)
{
	const char *colon = strchr(want, ':');

	*module = NULL;
	*name = want;
	if (!colon || (size_t)(colon - want) >= size)
		return;
	memcpy(modbuf, want, colon - want);
	modbuf[colon - want] = 0;
	*module = modbuf;
	*name = colon + 1;
}

int kallsyms_lookup(const char *path, const char *want, uint64_t *addr)
{
	char line[512], modbuf[64];
	const char *name, *module;
	struct ksym_line s;
	uint64_t first = 0;
	int found = 0, zero = 0;
	FILE *f;

	split_module(want, modbuf, sizeof(modbuf), &module, &name);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (parse_line(line, &s) || !matches(&s, module, name))
			continue;
		if (++found == 1) {
			first = s.addr;
		} else {
			if (found == 2)
				say("'%s' is ambiguous; "
				    "candidates:\n  0x%" PRIx64 "\n",
				    want, first);
			fprintf(stderr, "  0x%" PRIx64 "%s%s\n", s.addr,
				s.module[0] ? " " : "", s.module);
		}
		zero |= s.addr == 0;
	}
	fclose(f);
	if (!found)
		return -ENOENT;
	if (zero)
		return -EPERM;
	*addr = first;
	return found == 1 ? 0 : -ENOTUNIQ;
}
