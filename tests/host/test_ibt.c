/* test_ibt.c - indirect branch tracking (CONFIG_X86_KERNEL_IBT): the
 * layout facts of jit/arch_x86.h - where a function's __fentry__ site is
 * behind an endbr64 or the seal the kernel writes over one.
 */
#include <stdio.h>
#include "jit/arch_x86.h"
#include "tests/host/kjit_test.h"

static int unhex(const char *s, u8 *b)
{
	int n = 0;
	unsigned v;

	for (; *s; s++) {
		if (*s == ' ')
			continue;
		sscanf(s, "%2x", &v);
		b[n++] = (u8)v;
		s++;
	}
	return n;
}

/* kx86_fentry_offset and friends on both forms of an IBT function start
 * and on starts that are neither. */
static void test_arch_facts(void)
{
	static const struct {
		const char *name, *hex;
		unsigned n, off;
		bool endbr64, endbr;
	} cases[] = {
	    {"jit.ibt.fentry_offset.endbr64", "f30f1efa e800000000", 9, 4, true,
	     true},
	    {"jit.ibt.fentry_offset.sealed", "660f1f00 0f1f440000", 9, 4, false,
	     true},
	    {"jit.ibt.fentry_offset.nop5", "0f1f440000", 5, 0, false, false},
	    {"jit.ibt.fentry_offset.call", "e800000000", 5, 0, false, false},
	    /* endbr32 starts no 64-bit function; the kernel's nopw 0(%rax) */
	    {"jit.ibt.fentry_offset.endbr32", "f30f1efb", 4, 0, false, false},
	    {"jit.ibt.fentry_offset.nopw", "660f1f440000", 6, 0, false, false},
	    {"jit.ibt.fentry_offset.short", "f30f1efa", 3, 0, false, false},
	};
	u8 b[16];
	unsigned i;

	for (i = 0; i < KJIT_ARRAY_SIZE(cases); i++) {
		unhex(cases[i].hex, b);
		kt_check(cases[i].name,
			 kx86_fentry_offset(b, cases[i].n) == cases[i].off &&
			     kx86_is_endbr64(b, cases[i].n) ==
				 cases[i].endbr64 &&
			     kx86_is_endbr(b, cases[i].n) == cases[i].endbr,
			 "offset %u want %u, endbr64 %d, endbr %d",
			 kx86_fentry_offset(b, cases[i].n), cases[i].off,
			 kx86_is_endbr64(b, cases[i].n),
			 kx86_is_endbr(b, cases[i].n));
	}
}

int main(void)
{
	test_arch_facts();
	return kt_exit();
}
