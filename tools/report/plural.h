/* plural.h - English plurals for counts in messages ("1 function",
 * "2 functions"): printf("%u function%s", n, plural_s(n)). */
#ifndef KJIT_TOOL_PLURAL_H
#define KJIT_TOOL_PLURAL_H

static inline const char *plural_s(unsigned long long n)
{
	return n == 1 ? "" : "s";
}

#endif
