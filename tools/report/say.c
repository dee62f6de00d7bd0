/*
 * say.c - the prefix of every message the tool prints (see say.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include "say.h"

static char who[64] = "kjit";

void say_set_command(const char *name)
{
	if (name)
		snprintf(who, sizeof(who), "kjit %s", name);
	else
		snprintf(who, sizeof(who), "kjit");
}

const char *say_who(void)
{
	return who;
}

static void vsay(FILE *f, const char *fmt, va_list ap)
{
	fprintf(f, "%s: ", who);
	vfprintf(f, fmt, ap);
}

void say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay(stderr, fmt, ap);
	va_end(ap);
}

void say_to(FILE *f, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay(f, fmt, ap);
	va_end(ap);
}
