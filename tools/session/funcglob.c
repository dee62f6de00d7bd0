/* funcglob.c - FUNC patterns (see funcglob.h). */
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>
#include "kmod/kjit_refusals.h"
#include "funcglob.h"

int funcglob_is(const char *word)
{
	return strpbrk(word, "*?[") != NULL;
}

int funcglob_match(const struct ksym *s, const char *pat)
{
	const char *colon = strchr(pat, ':');
	char mod[64];
	size_t n;

	if (!colon)
		return !fnmatch(pat, s->name, 0);
	n = (size_t)(colon - pat);
	if (n >= sizeof(mod))
		return 0;
	memcpy(mod, pat, n);
	mod[n] = 0;
	return !fnmatch(mod, s->module[0] ? s->module : "vmlinux", 0) &&
	       !fnmatch(colon + 1, s->name, 0);
}

/* MODULE of a MODULE:GLOB @pat when it matches no module in @t (nor
 * vmlinux), copied into @mod; else NULL (and for a plain GLOB). */
static const char *absent_module(const struct symtab *t, const char *pat,
				 char *mod, size_t size)
{
	const char *colon = strchr(pat, ':');
	size_t n, i;

	if (!colon || (n = (size_t)(colon - pat)) >= size)
		return NULL;
	memcpy(mod, pat, n);
	mod[n] = 0;
	if (!fnmatch(mod, "vmlinux", 0))
		return NULL;
	for (i = 0; i < t->n; i++)
		if (t->s[i].module[0] && !fnmatch(mod, t->s[i].module, 0))
			return NULL;
	return mod;
}

int funcglob_say_absent_module(FILE *err, const char *who,
			       const struct symtab *t, const char *pat)
{
	char mod[64];

	if (!absent_module(t, pat, mod, sizeof(mod)))
		return 0;
	fprintf(err,
		"kjit %s: '%s': no module %s is loaded (lsmod lists them)\n",
		who, pat, mod);
	return 1;
}

int funcglob_listable(const struct ksym *s)
{
	/* the names kjit.ko gives translated blocks while attached
	 * (kmod/symbols.c: "vfs_read+0x293"): code, but not functions */
	if (!strcmp(s->module, "kjit_pool"))
		return 0;
	if (!strncmp(s->name, KJIT_PADDING_PREFIX,
		     sizeof(KJIT_PADDING_PREFIX) - 1))
		return 0;
	return strncmp(s->name, "__", 2) || strstr(s->name, "_text_") == NULL;
}
