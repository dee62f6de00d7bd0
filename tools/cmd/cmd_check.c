/*
 * cmd_check.c - `kjit check [--modules DIR]`: what kjit can do on the
 * running kernel and what stops it, each refusal with its fix
 * (tools/kernel/kcheck.h has the checks). Output:
 *
 *   kjit check: RELEASE
 *     ok    modules    kjit and kjit_pool are loaded ...
 *     no    kallsyms   addresses hidden from this user (kptr_restrict=2)
 *                      fix: sysctl kernel.kptr_restrict=1, and run kjit as root
 *   kjit check: N thing(s) stop kjit here   |   nothing stops kjit here
 *
 * Exit status 1 when something stops kjit.
 */
#include <stdio.h>
#include <string.h>
#include "commands.h"
#include "tools/kernel/kcheck.h"
#include "tools/report/plural.h"

int cmd_check(int argc, char **argv)
{
	const char *modules_dir = NULL;
	struct kcheck c;
	int i, no;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--modules") && i + 1 < argc)
			modules_dir = argv[++i];
		else {
			fprintf(stderr, "usage: kjit check [--modules DIR]\n");
			return 2;
		}
	}
	no = kcheck_run(&c, modules_dir);
	printf("kjit check: %s\n", c.release);
	for (i = 0; i < c.n; i++) {
		const struct kcheck_item *it = &c.item[i];

		printf("  %-5s %-10s %s\n", kcheck_status_name(it->status),
		       it->subject, it->text);
		if (it->fix[0])
			printf("  %-5s %-10s fix: %s\n", "", "", it->fix);
	}
	if (no)
		printf("kjit check: %d thing%s stop%s kjit here\n", no,
		       plural_s(no), no == 1 ? "s" : "");
	else
		printf("kjit check: nothing stops kjit here\n");
	return no ? 1 : 0;
}
