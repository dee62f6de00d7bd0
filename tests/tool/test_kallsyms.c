/*
 * test_kallsyms.c - host tests of the tool's /proc/kallsyms lookup against a
 * small captured-style file: plain names, module:name, ambiguous static
 * names, unknown names, non-text symbols and kptr_restrict's zero addresses.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "tools/kernel/kallsyms.h"

static int failures;

static void check(const char *name, int ok, const char *detail)
{
	printf("KJIT-RESULT %s tool.kallsyms.%s%s%s\n", ok ? "PASS" : "FAIL",
	       name, ok ? "" : " ", ok ? "" : detail);
	failures += !ok;
}

static const char *write_file(const char *text)
{
	static char path[64];
	FILE *f;
	int fd;

	snprintf(path, sizeof(path), "/tmp/kjit-kallsyms-XXXXXX");
	fd = mkstemp(path);
	if (fd < 0)
		return NULL;
	f = fdopen(fd, "w");
	fputs(text, f);
	fclose(f);
	return path;
}

static const char sample[] = "ffffffff81000000 T _stext\n"
			     "ffffffff81234560 T vfs_read\n"
			     "ffffffff81300000 t dup_static\n"
			     "ffffffff81400000 t dup_static\n"
			     "ffffffff82000000 D some_data\n"
			     "ffffffffc0001000 t pipe_helper\t[mymod]\n"
			     "ffffffffc0002000 t pipe_helper\t[othermod]\n";

int main(void)
{
	const char *path = write_file(sample);
	uint64_t a = 0;
	int err;

	if (!path) {
		printf("KJIT-RESULT FAIL tool.kallsyms.setup cannot write a "
		       "temp file\n");
		return 1;
	}
	err = kallsyms_lookup(path, "vfs_read", &a);
	check("plain", !err && a == 0xffffffff81234560ull, "vfs_read");
	err = kallsyms_lookup(path, "dup_static", &a);
	check("ambiguous", err == -ENOTUNIQ, "dup_static must be ambiguous");
	err = kallsyms_lookup(path, "no_such_fn", &a);
	check("unknown", err == -ENOENT, "no_such_fn must be -ENOENT");
	err = kallsyms_lookup(path, "some_data", &a);
	check("not_text", err == -ENOENT, "data symbols are not functions");
	err = kallsyms_lookup(path, "othermod:pipe_helper", &a);
	check("module_name", !err && a == 0xffffffffc0002000ull,
	      "othermod:pipe_helper");
	err = kallsyms_lookup(path, "pipe_helper", &a);
	check("module_ambiguous", err == -ENOTUNIQ,
	      "pipe_helper in two modules");
	unlink(path);

	path = write_file("0000000000000000 T vfs_read\n");
	if (!path)
		return 1;
	err = kallsyms_lookup(path, "vfs_read", &a);
	check("restricted", err == -EPERM, "zero addresses mean kptr_restrict");
	unlink(path);
	err = kallsyms_lookup("/nonexistent/kallsyms", "vfs_read", &a);
	check("no_file", err == -ENOENT, "missing file");
	return failures ? 1 : 0;
}
