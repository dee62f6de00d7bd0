/* vmlinux.c - ELF sections and embedded kallsyms of a vmlinux (vmlinux.h).
 *
 * kallsyms (relative offsets + ABSOLUTE_PERCPU) is found without symbols:
 * the token table holds the single digits "0".."9" as tokens 0x30..0x39
 * and is followed by 256 increasing u16 token offsets. The other tables
 * are where scripts/kallsyms.c puts them:
 *  - 6.1: kallsyms_relative_base (== address of .text) is followed by
 *    num_syms and the compressed names, and preceded by num_syms s32
 *    offsets;
 *  - 6.12: num_syms and the names come first, then the markers and the
 *    token tables, then (8-aligned) the num_syms s32 offsets and
 *    relative_base;
 *  - 7.2: num_syms, the names (4-aligned), markers, token tables, then the
 *    s32 offsets, each relative to its own place; no relative_base.
 * Every guess is checked (names decode to typed symbols; addresses come
 * out sorted).
 */
#define _GNU_SOURCE
#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "tests/host/vmlinux.h"

static u16 rd16(const u8 *p)
{
	u16 v;
	memcpy(&v, p, 2);
	return v;
}
static u32 rd32(const u8 *p)
{
	u32 v;
	memcpy(&v, p, 4);
	return v;
}
static u64 rd64(const u8 *p)
{
	u64 v;
	memcpy(&v, p, 8);
	return v;
}

static const Elf64_Shdr *section(const struct vml *v, const char *want)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)v->data;
	const Elf64_Shdr *sh = (const Elf64_Shdr *)(v->data + eh->e_shoff);
	const char *names =
	    (const char *)v->data + sh[eh->e_shstrndx].sh_offset;
	int i;

	for (i = 0; i < eh->e_shnum; i++)
		if (!strcmp(names + sh[i].sh_name, want))
			return &sh[i];
	return NULL;
}

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

static int cmp_fix(const void *a, const void *b)
{
	return cmp_u64(&((const struct vfixup *)a)->insn,
		       &((const struct vfixup *)b)->insn);
}

static void load_fixups(struct vml *v)
{
	const Elf64_Shdr *s = section(v, "__ex_table");
	size_t i, n;

	if (!s)
		return;
	n = s->sh_size /
	    12; /* struct exception_table_entry { int insn, fixup, data; } */
	v->fixups = calloc(n, sizeof(u64));
	v->fix = calloc(n, sizeof(*v->fix));
	for (i = 0; i < n; i++) {
		const u8 *e = v->data + s->sh_offset + i * 12;
		u64 at = s->sh_addr + i * 12;

		v->fix[i].insn = at + (s64)(s32)rd32(e);
		v->fix[i].fixup = at + 4 + (s64)(s32)rd32(e + 4);
		v->fix[i].data = rd32(e + 8);
	}
	qsort(v->fix, n, sizeof(*v->fix), cmp_fix);
	for (i = 0; i < n; i++)
		v->fixups[i] = v->fix[i].insn;
	v->n_fixups = n;
}

static int cmp_jump(const void *a, const void *b)
{
	return cmp_u64(&((const struct vjump *)a)->code,
		       &((const struct vjump *)b)->code);
}

/* The file's bytes at address @a, @len of them in one section, or NULL. */
static const u8 *bytes_at(const struct vml *v, u64 a, u64 len)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)v->data;
	const Elf64_Shdr *sh = (const Elf64_Shdr *)(v->data + eh->e_shoff);
	int i;

	for (i = 0; i < eh->e_shnum; i++)
		if (sh[i].sh_type == SHT_PROGBITS && sh[i].sh_addr <= a &&
		    a + len <= sh[i].sh_addr + sh[i].sh_size &&
		    sh[i].sh_offset + sh[i].sh_size <= v->size)
			return v->data + sh[i].sh_offset + (a - sh[i].sh_addr);
	return NULL;
}

/* The jump table (__start___jump_table .. __stop___jump_table, in
 * .rodata: Debian's vmlinux has no section of its own for it): struct
 * jump_entry { s32 code; s32 target; long key; }, each offset relative to
 * its own field (<linux/jump_label.h>, CONFIG_HAVE_ARCH_JUMP_LABEL_RELATIVE,
 * x86-64). Needs the symbols. */
static void load_jumps(struct vml *v)
{
	u64 start = vml_sym(v, "__start___jump_table");
	u64 stop = vml_sym(v, "__stop___jump_table");
	const u8 *tab;
	size_t i, n;

	if (!start || stop <= start ||
	    !(tab = bytes_at(v, start, stop - start)))
		return;
	n = (stop - start) / 16;
	v->jumps = calloc(n, sizeof(*v->jumps));
	if (!v->jumps)
		return;
	for (i = 0; i < n; i++) {
		const u8 *e = tab + i * 16;
		u64 at = start + i * 16;

		v->jumps[i].code = at + (s64)(s32)rd32(e);
		v->jumps[i].target = at + 4 + (s64)(s32)rd32(e + 4);
	}
	qsort(v->jumps, n, sizeof(*v->jumps), cmp_jump);
	v->n_jumps = n;
}

static int cmp_scall(const void *a, const void *b)
{
	return cmp_u64(&((const struct vscall *)a)->code,
		       &((const struct vscall *)b)->code);
}

/* The symbol at exactly @a (the first of several), or NULL. */
static const struct vsym *sym_at(const struct vml *v, u64 a)
{
	size_t lo = 0, hi = v->n_sym, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (v->sym[mid].addr < a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < v->n_sym && v->sym[lo].addr == a ? &v->sym[lo] : NULL;
}

static int cmp_sym_name(const void *a, const void *b)
{
	return strcmp((*(const struct vsym *const *)a)->name,
		      (*(const struct vsym *const *)b)->name);
}

/* __SCT__x for the key at @key (a symbol __SCK__x; kmod/sites.c
 * tramp_of_key), 0 if none. @tramps: the text symbols __SCT__*, sorted by
 * name. */
static u64 tramp_of_key(const struct vml *v, const struct vsym **tramps,
			size_t n, u64 key)
{
	const struct vsym *k, *w, **t;
	struct vsym want = {0, 'T', NULL};
	char name[256];

	for (k = sym_at(v, key); k && k < v->sym + v->n_sym && k->addr == key;
	     k++) {
		if (strncmp(k->name, "__SCK__", 7))
			continue;
		snprintf(name, sizeof(name), "__SCT__%s", k->name + 7);
		want.name = name;
		w = &want;
		t = bsearch(&w, tramps, n, sizeof(*tramps), cmp_sym_name);
		if (t)
			return (*t)->addr;
	}
	return 0;
}

/* The text symbols __SCT__*, sorted by name (n in *@n), or NULL. */
static const struct vsym **sct_syms(const struct vml *v, size_t *n)
{
	const struct vsym **t = calloc(v->n_sym + 1, sizeof(*t));
	size_t i;

	*n = 0;
	for (i = 0; t && i < v->n_sym; i++)
		if (strchr("tT", v->sym[i].type) &&
		    !strncmp(v->sym[i].name, "__SCT__", 7))
			t[(*n)++] = &v->sym[i];
	if (t)
		qsort(t, *n, sizeof(*t), cmp_sym_name);
	return t;
}

/* Inline static_call sites (__start_static_call_sites ..
 * __stop_static_call_sites): struct static_call_site { s32 addr; s32 key;
 * }, each relative to its own field, the key's low bits flags (1: a tail
 * call, 2: init text; <linux/static_call_types.h>). As kmod/sites.c reads
 * them at load. Needs the symbols. */
static void load_static_calls(struct vml *v)
{
	u64 start = vml_sym(v, "__start_static_call_sites");
	u64 stop = vml_sym(v, "__stop_static_call_sites");
	const struct vsym **tramps;
	const u8 *tab;
	size_t i, n, k = 0, nt;

	if (!start || stop <= start ||
	    !(tab = bytes_at(v, start, stop - start)))
		return;
	n = (stop - start) / 8;
	v->scalls = calloc(n, sizeof(*v->scalls));
	tramps = sct_syms(v, &nt);
	if (!v->scalls || !tramps) {
		free(tramps);
		return;
	}
	for (i = 0; i < n; i++) {
		const u8 *e = tab + i * 8;
		u64 at = start + i * 8;
		u64 key = at + 4 + (s64)(s32)rd32(e + 4);

		if (key & 2) /* init text: freed, never translated */
			continue;
		v->scalls[k].code = at + (s64)(s32)rd32(e);
		v->scalls[k].key = key & ~3ull;
		v->scalls[k].tail = key & 1;
		v->scalls[k].tramp = tramp_of_key(v, tramps, nt, key & ~3ull);
		k++;
	}
	free(tramps);
	qsort(v->scalls, k, sizeof(*v->scalls), cmp_scall);
	v->n_scalls = k;
}

/* token table start (and index position) */
static int find_tokens(const struct vml *v, size_t *table, size_t *index)
{
	static const char digits[] = "0\0"
				     "1\0"
				     "2\0"
				     "3\0"
				     "4\0"
				     "5\0"
				     "6\0"
				     "7\0"
				     "8\0"
				     "9";
	const u8 *p = v->data, *end = v->data + v->size;

	while ((p = memmem(p, end - p, digits, sizeof(digits))) != NULL) {
		size_t d = p - v->data, q;

		for (q = (d + 1) & ~1ul; q < d + 8192 && q + 512 < v->size;
		     q += 2) {
			const u8 *ix = v->data + q;
			size_t t;
			int k, ok = rd16(ix) == 0;

			for (k = 1; ok && k < 256; k++)
				ok = rd16(ix + 2 * k) > rd16(ix + 2 * k - 2);
			if (!ok || rd16(ix + 2 * 0x30) > d)
				continue;
			t = d - rd16(ix + 2 * 0x30);
			for (k = 1; ok && k < 256; k++)
				ok = v->data[t + rd16(ix + 2 * k) - 1] == 0;
			if (ok) {
				*table = t, *index = q;
				return 0;
			}
		}
		p++;
	}
	return -1;
}

/* expand one compressed name at @p into @out; returns bytes consumed */
static size_t expand(const struct vml *v, size_t p, size_t table, size_t index,
		     char *out, size_t outlen)
{
	size_t len = v->data[p++], o = 0, k;

	if (len & 0x80)
		len = (len & 0x7f) | ((size_t)v->data[p++] << 7);
	for (k = 0; k < len; k++) {
		const char *t = (const char *)v->data + table +
				rd16(v->data + index + 2 * v->data[p + k]);

		while (*t && o + 1 < outlen)
			out[o++] = *t++;
	}
	out[o] = 0;
	return (len > 127 ? 2 : 1) + len;
}

static void free_syms(struct vml *v, size_t n)
{
	size_t i;

	for (i = 0; v->sym && i < n; i++)
		free((char *)v->sym[i].name);
	free(v->sym);
	v->sym = NULL;
}

/* The address that file offset @off is loaded at (0: in no section). */
static u64 addr_of_offset(const struct vml *v, size_t off)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)v->data;
	const Elf64_Shdr *sh = (const Elf64_Shdr *)(v->data + eh->e_shoff);
	int i;

	for (i = 0; i < eh->e_shnum; i++)
		if (sh[i].sh_type == SHT_PROGBITS && sh[i].sh_offset <= off &&
		    off < sh[i].sh_offset + sh[i].sh_size)
			return sh[i].sh_addr + (off - sh[i].sh_offset);
	return 0;
}

/* Is kallsyms_markers ([0] = 0, [1] = @at256; 4- or 8-aligned) at @p? */
static int markers_at(const struct vml *v, size_t p, size_t at256)
{
	size_t a;

	for (a = (p + 3) & ~3ul; a <= ((p + 7) & ~7ul); a += 4)
		if (a + 8 <= v->size && rd32(v->data + a) == 0 &&
		    rd32(v->data + a + 4) == at256)
			return 1;
	return 0;
}

/* How the s32 offsets of kallsyms_offsets[] give addresses. */
enum koffs {
	KOFFS_ABS_PERCPU, /* >= 0: absolute; else .text - 1 - off (to 6.14) */
	KOFFS_PLACE,	  /* relative to the entry itself (7.2) */
};

/* Decode @n names from @names with their offsets at @offs: 0 if they all
 * decode to typed names, before the token table, in address order. */
static int try_syms(struct vml *v, u32 n, size_t names, size_t offs,
		    size_t table, size_t index, enum koffs how)
{
	u64 place = how == KOFFS_PLACE ? addr_of_offset(v, offs) : 0;
	char name[512];
	size_t p = names, i, at256 = 0;
	u64 prev = 0;
	int ok = 1;

	if (n < 1000 || n > 2000000 || offs + 4ul * n > v->size ||
	    (how == KOFFS_PLACE && !place))
		return -1;
	v->sym = calloc(n, sizeof(*v->sym));
	for (i = 0; ok && i < n; i++) {
		s32 off = (s32)rd32(v->data + offs + 4 * i);

		if (i == 256)
			at256 = p - names;
		p += expand(v, p, table, index, name, sizeof(name));
		v->sym[i].type = name[0];
		v->sym[i].name = strdup(name + 1);
		if (how == KOFFS_PLACE)
			v->sym[i].addr = place + 4 * i + (s64)off;
		else
			v->sym[i].addr = off >= 0 ? (u64)off
						  : v->text_addr - 1 - off;
		ok = p < table && name[0] > ' ' && v->sym[i].addr >= prev;
		prev = v->sym[i].addr;
	}
	/* with offsets that hold for any start, the names must be these:
	 * kallsyms_markers follows them, [0] = 0 and [1] = name 256's start */
	if (ok && how == KOFFS_PLACE)
		ok = at256 && markers_at(v, p, at256);
	if (ok) {
		v->n_sym = n;
		return 0;
	}
	free_syms(v, i);
	return -1;
}

/* 6.1: offsets, relative_base, num_syms, names ... token tables. */
static int kallsyms_61(struct vml *v, size_t table, size_t index)
{
	size_t rb;

	for (rb = table & ~7ul; rb >= 16; rb -= 8) {
		u32 n = rd32(v->data + rb + 8);

		if (rd64(v->data + rb) == v->text_addr && rb >= 4ul * n &&
		    !try_syms(v, n, rb + 16, rb - 4ul * n, table, index,
			      KOFFS_ABS_PERCPU))
			return 0;
	}
	return -1;
}

/* 6.12: num_syms, names, markers, token tables, offsets, relative_base. */
static int kallsyms_612(struct vml *v, size_t table, size_t index)
{
	size_t offs = (index + 512 + 7) & ~7ul, rb, ns;

	for (rb = offs + 4000; rb + 8 <= v->size && rb < offs + 8000008;
	     rb += 8) {
		if (rd64(v->data + rb) != v->text_addr)
			continue;
		/* n offsets, padded to 8: n = (rb - offs) / 4, or one less */
		for (ns = table & ~7ul; ns >= 8; ns -= 8) {
			u32 n = rd32(v->data + ns);

			if ((n == (rb - offs) / 4 ||
			     n + 1 == (rb - offs) / 4) &&
			    !try_syms(v, n, ns + 8, offs, table, index,
				      KOFFS_ABS_PERCPU))
				return 0;
		}
	}
	return -1;
}

/* 7.2: num_syms, the names right after it, markers, token tables,
 * offsets; no relative_base: each offset is relative to its own place in
 * the table (checked: 7.2's first lands on .text). */
static int kallsyms_72(struct vml *v, size_t table, size_t index)
{
	size_t offs = (index + 512 + 7) & ~7ul, ns;

	for (ns = table & ~3ul; ns >= 4; ns -= 4) {
		u32 n = rd32(v->data + ns);

		if (n >= 1000 && n <= 2000000 &&
		    !try_syms(v, n, ns + 4, offs, table, index, KOFFS_PLACE))
			return 0;
	}
	return -1;
}

static int load_kallsyms(struct vml *v, char *err, size_t errlen)
{
	size_t table, index;

	if (find_tokens(v, &table, &index)) {
		snprintf(err, errlen, "kallsyms token table not found");
		return -1;
	}
	if (!kallsyms_61(v, table, index) || !kallsyms_612(v, table, index) ||
	    !kallsyms_72(v, table, index))
		return 0;
	snprintf(err, errlen, "kallsyms tables not found");
	return -1;
}

int vml_open(struct vml *v, const char *path, char *err, size_t errlen)
{
	struct stat st;
	int fd = open(path, O_RDONLY);
	const Elf64_Shdr *text;

	memset(v, 0, sizeof(*v));
	if (fd < 0 || fstat(fd, &st)) {
		snprintf(err, errlen, "cannot open %s", path);
		return -1;
	}
	v->size = st.st_size;
	v->data = mmap(NULL, v->size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (v->data == MAP_FAILED || memcmp(v->data, ELFMAG, SELFMAG)) {
		snprintf(err, errlen, "%s is not an ELF file", path);
		return -1;
	}
	text = section(v, ".text");
	if (!text) {
		snprintf(err, errlen, "no .text");
		return -1;
	}
	v->text_addr = text->sh_addr;
	v->text_size = text->sh_size;
	v->text = v->data + text->sh_offset;
	load_fixups(v);
	if (load_kallsyms(v, err, errlen))
		return -1;
	load_jumps(v);
	load_static_calls(v);
	return 0;
}

u64 vml_sym(const struct vml *v, const char *name)
{
	size_t i;

	for (i = 0; i < v->n_sym; i++)
		if (!strcmp(v->sym[i].name, name))
			return v->sym[i].addr;
	return 0;
}

const u64 *vml_func_starts(const struct vml *v, size_t *n)
{
	u64 *starts = calloc(v->n_sym ? v->n_sym : 1, sizeof(*starts));
	size_t i;

	*n = 0;
	if (!starts)
		return NULL;
	for (i = 0; i < v->n_sym; i++) {
		u64 a = v->sym[i].addr;

		if (a < v->text_addr || a >= v->text_addr + v->text_size ||
		    (*n && starts[*n - 1] == a))
			continue;
		starts[(*n)++] = a;
	}
	return starts;
}

int vml_seen(u64 a)
{
	static u64 *tab;
	static const size_t n = 1u << 22;
	size_t i = (size_t)((a * 0x9e3779b97f4a7c15ull) >> 42);

	if (!tab)
		tab = calloc(n, sizeof(u64));
	for (;; i = (i + 1) & (n - 1)) {
		if (tab[i] == a)
			return 1;
		if (!tab[i]) {
			tab[i] = a;
			return 0;
		}
	}
}
