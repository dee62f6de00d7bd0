/*
 * test_target.c - host tests of symbol loading and FUNC resolution
 * (tools/kernel/symtab.c, tools/session/target.c) against the captured-style
 * fixture tests/tool/fixtures/sysroot/proc/kallsyms: names, module:name,
 * offsets, addresses, ambiguity (with the candidates listed), unknown names,
 * data symbols, function ends, and kptr_restrict's zero addresses.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tools/kernel/symtab.h"
#include "tools/session/target.h"
#include "check.h"

static struct symtab t;

static int resolve(const char *spec, struct target *r, char **msg)
{
	struct capture c;
	int rc = target_resolve(&t, spec, r, capture_begin(&c));

	*msg = strdup(capture_end(&c));
	free(c.buf);
	return rc;
}

static int count(const char *s, const char *sub)
{
	int n = 0;

	for (; (s = strstr(s, sub)); s++)
		n++;
	return n;
}

static void ok(const char *name, const char *spec, uint64_t addr, uint64_t off,
	       const char *sym)
{
	struct target r;
	char *msg;
	int rc = resolve(spec, &r, &msg);

	check(name,
	      !rc && r.addr == addr && r.off == off &&
		  !strcmp(r.sym->name, sym) && !*msg,
	      msg[0] ? msg : spec);
	free(msg);
}

static void bad(const char *name, const char *spec, int err, const char *text)
{
	struct target r;
	char *msg;
	int rc = resolve(spec, &r, &msg);

	check(name,
	      rc == err && strstr(msg, text) && !strncmp(msg, "kjit: ", 6),
	      msg);
	free(msg);
}

static void restricted(void)
{
	char path[] = "/tmp/kjit-kallsyms-XXXXXX";
	struct symtab z;
	int fd = mkstemp(path), rc;

	if (fd < 0 || write(fd, "0000000000000000 T vfs_read\n", 28) != 28) {
		check("restricted", 0, "cannot write a temp file");
		return;
	}
	close(fd);
	rc = symtab_load(&z, path);
	check("restricted", rc == -EPERM && !z.s,
	      "zero addresses must be -EPERM");
	unlink(path);
	check("no_file", symtab_load(&z, "/nonexistent/kallsyms") == -ENOENT,
	      "missing file");
}

int main(void)
{
	const struct ksym *s;
	struct target r;
	char *msg;
	int rc;

	area = "tool.target";
	rc = symtab_load(&t, FIXTURES "/sysroot/proc/kallsyms");
	check("load", !rc && t.n == 30, "30 text symbols expected");
	if (rc)
		return 1;
	s = symtab_containing(&t, 0xffffffff81001010ull);
	check("containing",
	      s && !strcmp(s->name, "vfs_read") &&
		  s->end == 0xffffffff81001300ull,
	      "vfs_read ends where ksys_read starts");
	check("containing_none", !symtab_containing(&t, 0x1000),
	      "low address in no function");
	check("section_bound",
	      symtab_addr(&t, "__entry_text_start") == 0xffffffff81a00000ull,
	      "__entry_text_start");

	ok("plain", "vfs_read", 0xffffffff81001000ull, 0, "vfs_read");
	ok("offset", "vfs_read+0x10", 0xffffffff81001010ull, 0x10, "vfs_read");
	ok("module_name", "mymod:pipe_helper", 0xffffffffc0001000ull, 0,
	   "pipe_helper");
	ok("module_offset", "othermod:pipe_helper+8", 0xffffffffc0002008ull, 8,
	   "pipe_helper");
	ok("address", "0xffffffff81001310", 0xffffffff81001310ull, 0x10,
	   "ksys_read");
	ok("alias", "_text", 0xffffffff81000000ull, 0, "_text");

	rc = resolve("dup_static", &r, &msg);
	check("ambiguous",
	      rc == -ENOTUNIQ && strstr(msg, "ambiguous: 2 functions") &&
		  count(msg, "kjit:   0xffffffff8100") == 2 &&
		  strstr(msg, "0xffffffff81001400") &&
		  strstr(msg, "0xffffffff81001600"),
	      msg);
	free(msg);
	rc = resolve("pipe_helper", &r, &msg);
	check("ambiguous_modules",
	      rc == -ENOTUNIQ && strstr(msg, "mymod:pipe_helper") &&
		  strstr(msg, "othermod:pipe_helper"),
	      msg);
	free(msg);
	bad("unknown", "no_such_fn", -ENOENT,
	    "no_such_fn: no such kernel function");
	bad("data_symbol", "some_data", -ENOENT, "no such kernel function");
	bad("did_you_mean", "vfs_raed", -ENOENT,
	    "kjit: vfs_raed: no such kernel function; did you mean "
	    "vfs_read?\n");
	bad("did_you_mean_two", "ksys_red", -ENOENT, "did you mean ksys_read");
	bad("did_you_mean_none", "zzzzzzzz", -ENOENT,
	    "kjit: zzzzzzzz: no such kernel function\n");
	bad("unknown_module", "nomod:vfs_read", -ENOENT,
	    "no such kernel function in that module");
	bad("offset_past_end", "vfs_read+0x300", -ERANGE,
	    "offset past the end of vfs_read");
	bad("bad_offset", "vfs_read+zz", -EINVAL, "expected name, module:name");
	bad("empty_module", ":vfs_read", -EINVAL, "expected name");
	bad("address_nowhere", "0x10", -ENOENT,
	    "address is in no kernel function");
	bad("bad_address", "0xzz", -EINVAL, "not an address");
	restricted();
	symtab_free(&t);
	return failures ? 1 : 0;
}
