/* srcline.c - FUNC+OFF to file:line and the inline chain, with elfutils'
 * libdwfl/libdw on one debug file reported offline (no DWARF parsing here:
 * dwfl_module_getsrc for the line table, dwarf_getscopes for the inlined
 * subroutines around an address). See srcline.h. */
#include "srcline.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct srcline {
	Dwfl *dwfl;
	Dwfl_Module *mod;
};

static const Dwfl_Callbacks offline_cb = {
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

struct srcline *srcline_open(const char *path, char *why, size_t size)
{
	struct srcline *s;
	Dwarf_Addr bias;

	if (access(path, R_OK)) {
		snprintf(why, size, "%s: %s", path, strerror(errno));
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		snprintf(why, size, "out of memory");
		return NULL;
	}
	s->dwfl = dwfl_begin(&offline_cb);
	if (s->dwfl)
		s->mod = dwfl_report_offline(s->dwfl, "debug", path, -1);
	if (!s->mod) {
		snprintf(why, size, "%s: not an ELF file libdw can read (%s)",
			 path, dwfl_errmsg(-1));
		srcline_close(s);
		return NULL;
	}
	dwfl_report_end(s->dwfl, NULL, NULL);
	if (!dwfl_module_getdwarf(s->mod, &bias)) {
		snprintf(why, size, "%s: no DWARF debug info (%s)", path,
			 dwfl_errmsg(-1));
		srcline_close(s);
		return NULL;
	}
	return s;
}

void srcline_close(struct srcline *s)
{
	if (!s)
		return;
	if (s->dwfl)
		dwfl_end(s->dwfl);
	free(s);
}

uint64_t srcline_addr(struct srcline *s, const char *func, uint64_t off)
{
	int i, n = dwfl_module_getsymtab(s->mod);
	GElf_Sym sym;
	GElf_Addr addr;
	const char *name, *colon = strchr(func, ':');

	if (colon) /* a module's function as kjit names it: MOD:func */
		func = colon + 1;
	for (i = 1; i < n; i++) {
		name = dwfl_module_getsym_info(s->mod, i, &sym, &addr, NULL,
					       NULL, NULL);
		if (name && GELF_ST_TYPE(sym.st_info) == STT_FUNC &&
		    sym.st_shndx != SHN_UNDEF && !strcmp(name, func))
			return addr + off;
	}
	return 0;
}

/* The CU's file table entry @idx (DW_AT_call_file), or "??". */
static const char *cu_file(Dwarf_Die *cu, Dwarf_Word idx)
{
	Dwarf_Files *files;
	size_t n;
	const char *f;

	if (dwarf_getsrcfiles(cu, &files, &n) || idx >= n)
		return "??";
	f = dwarf_filesrc(files, idx, NULL, NULL);
	return f ? f : "??";
}

static int is_func_scope(Dwarf_Die *d)
{
	int t = dwarf_tag(d);

	return t == DW_TAG_subprogram || t == DW_TAG_inlined_subroutine;
}

int srcline_frames(struct srcline *s, uint64_t addr, struct srcframe *fr,
		   int max)
{
	Dwfl_Line *l = dwfl_module_getsrc(s->mod, addr);
	Dwarf_Die *cu, *scopes = NULL, inner;
	Dwarf_Attribute at;
	Dwarf_Word w;
	Dwarf_Addr bias;
	int i, n, k = 0, line;

	if (!l || max < 1)
		return 0;
	fr[0].file = dwfl_lineinfo(l, NULL, &line, NULL, NULL, NULL);
	fr[0].line = line;
	fr[0].func = "??";
	if (!fr[0].file)
		return 0;
	cu = dwfl_module_addrdie(s->mod, addr, &bias);
	/* dwarf_getscopes follows an inlined copy into its abstract
	 * definition; the DIE tree's parents of the innermost scope give
	 * the call-site chain instead (as eu-addr2line -i does). */
	n = cu ? dwarf_getscopes(cu, addr - bias, &scopes) : 0;
	if (n > 0) {
		inner = scopes[0];
		free(scopes);
		scopes = NULL;
		n = dwarf_getscopes_die(&inner, &scopes);
	}
	for (i = 0; i < n; i++) {
		if (!is_func_scope(&scopes[i]))
			continue;
		fr[k].func = dwarf_diename(&scopes[i]) ?: "??";
		if (dwarf_tag(&scopes[i]) != DW_TAG_inlined_subroutine ||
		    k + 1 >= max)
			break;
		/* the caller's frame: the call site of this inlined copy */
		k++;
		fr[k].func = "??";
		fr[k].file = dwarf_formudata(dwarf_attr(&scopes[i],
							DW_AT_call_file, &at),
					     &w)
				 ? "??"
				 : cu_file(cu, w);
		fr[k].line = dwarf_formudata(dwarf_attr(&scopes[i],
							DW_AT_call_line, &at),
					     &w)
				 ? 0
				 : (int)w;
	}
	free(scopes);
	return k + 1;
}

static int add_row(struct srcrow *rows, int n, int max, const char *file,
		   int line)
{
	int i;

	for (i = 0; i < n; i++)
		if (rows[i].line == line && !strcmp(rows[i].file, file))
			return n;
	if (n < max) {
		rows[n].file = file;
		rows[n].line = line;
		n++;
	}
	return n;
}

int srcline_rows(struct srcline *s, uint64_t addr, uint64_t len,
		 struct srcrow *rows, int max)
{
	Dwfl_Line *l = dwfl_module_getsrc(s->mod, addr);
	Dwarf_Die *cu;
	Dwarf_Lines *lines;
	Dwarf_Addr bias, a;
	size_t i, nl;
	const char *f;
	int n = 0, line;
	bool end;

	if (!l)
		return 0;
	f = dwfl_lineinfo(l, NULL, &line, NULL, NULL, NULL);
	if (f && line > 0)
		n = add_row(rows, n, max, f, line);
	cu = dwfl_module_addrdie(s->mod, addr, &bias);
	if (!cu || dwarf_getsrclines(cu, &lines, &nl))
		return n;
	for (i = 0; i < nl; i++) {
		Dwarf_Line *r = dwarf_onesrcline(lines, i);

		if (!r || dwarf_lineaddr(r, &a) || dwarf_lineendsequence(r, &end) ||
		    end)
			continue;
		a += bias;
		if (a <= addr || a >= addr + len)
			continue;
		f = dwarf_linesrc(r, NULL, NULL);
		if (f && !dwarf_lineno(r, &line) && line > 0)
			n = add_row(rows, n, max, f, line);
	}
	return n;
}

int srcline_code(struct srcline *s, uint64_t addr, uint8_t *buf, size_t len)
{
	Dwarf_Addr off = addr, bias;
	Elf_Scn *scn = dwfl_module_address_section(s->mod, &off, &bias);
	Elf_Data *d = scn ? elf_getdata(scn, NULL) : NULL;

	if (!d || !d->d_buf || off + len > d->d_size)
		return -1;
	memcpy(buf, (const uint8_t *)d->d_buf + off, len);
	return 0;
}
