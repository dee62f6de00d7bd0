/* kjit_test.h - tiny reporting helpers shared by the host test programs.
 *
 * Every test case prints exactly one "KJIT-RESULT PASS|FAIL|SKIP name ..."
 * line; kt_exit() makes the program's status reflect any FAIL.
 */
#ifndef KJIT_TESTS_HOST_KJIT_TEST_H
#define KJIT_TESTS_HOST_KJIT_TEST_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static int kt_failed;

/* Bytes from hex text ("0f1f44 00", spaces ignored) into @b; returns how
 * many. */
static inline int kt_unhex(const char *s, unsigned char *b)
{
	int n = 0;
	unsigned v;

	while (*s) {
		if (*s == ' ') {
			s++;
			continue;
		}
		sscanf(s, "%2x", &v);
		b[n++] = (unsigned char)v;
		s += 2;
	}
	return n;
}

/* @n bytes of @b as hex text into @s (2n + 1 bytes). */
static inline void kt_hex(const unsigned char *b, unsigned n, char *s)
{
	unsigned i;

	for (i = 0; i < n; i++)
		sprintf(s + 2 * i, "%02x", b[i]);
	s[2 * n] = 0;
}

static inline void kt_result(const char *verdict, const char *name,
			     const char *fmt, ...)
{
	va_list ap;

	printf("KJIT-RESULT %s %s", verdict, name);
	if (fmt && *fmt) {
		putchar(' ');
		va_start(ap, fmt);
		vprintf(fmt, ap);
		va_end(ap);
	}
	putchar('\n');
	fflush(stdout);
	if (verdict[0] == 'F')
		kt_failed++;
}

#define kt_pass(name, ...) kt_result("PASS", name, __VA_ARGS__)
#define kt_fail(name, ...) kt_result("FAIL", name, __VA_ARGS__)
#define kt_skip(name, ...) kt_result("SKIP", name, __VA_ARGS__)
/* Report PASS if @ok, else FAIL with the message in @why. */
#define kt_check(name, ok, ...)                                                \
	do {                                                                   \
		if (ok)                                                        \
			kt_pass(name, "");                                     \
		else                                                           \
			kt_fail(name, __VA_ARGS__);                            \
	} while (0)

static inline int kt_exit(void)
{
	return kt_failed ? 1 : 0;
}

#endif
