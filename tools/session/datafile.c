/*
 * datafile.c - write and read kjit.data (format in datafile.h).
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "datafile.h"
#include "tools/report/names.h"
#include "oracle.h"
#include "split.h"
#include "timing.h"

struct stat_key {
	const char *key;
	size_t off;
};

#define SK(f)                                                                  \
	{                                                                      \
#f, offsetof(struct sess_stats, f)                             \
	}
static const struct stat_key stat_keys[] = {
    SK(translated),
    SK(links),
    SK(native_links),
    SK(exits_native),
    SK(dispatches),
    SK(lookup_hits),
    SK(predicted),
    SK(fixups_copied),
    SK(orc_entries),
    SK(pool_bytes),
    SK(pool_taken),
    SK(pool_empty),
    SK(translate_ns),
    SK(cache_bytes),
    SK(deep),
    SK(deep_funcs),
    SK(deep_over_budget),
    SK(watched),
    SK(patched),
    SK(patched_addr),
    SK(deep_max),
    SK(deep_over_funcs),
    SK(cache_kb),
    SK(max_blocks),
    SK(pcpu_slots),
    SK(pcpu_used),
    SK(pcpu_full),
    SK(blocks_cpu_max),
    SK(mem_bytes),
    SK(cache_bytes_cpu_max),
    SK(deep_held),
    SK(deep_growing),
    SK(pcpu_held),
    SK(pcpu_growing),
    SK(exit_tail),
    SK(exit_tail_max),
    SK(exit_tail_stayed),
    SK(exit_tail_left),
};
#define N_STAT_KEYS (sizeof(stat_keys) / sizeof(stat_keys[0]))

static uint64_t *stat_field(struct sess_stats *st, const char *key)
{
	unsigned int i;

	for (i = 0; i < N_STAT_KEYS; i++)
		if (!strcmp(stat_keys[i].key, key))
			return (uint64_t *)((char *)st + stat_keys[i].off);
	for (i = 0; i < SESSION_FALLBACKS; i++)
		if (!strncmp(key, "fallback.", 9) &&
		    !strcmp(key + 9, fallback_key(i)))
			return &st->fallback[i];
	for (i = 0; i < KJIT_R_COUNT; i++)
		if (!strncmp(key, "refused.", 8) &&
		    !strcmp(key + 8, kjit_reason_name((enum kjit_reason)i)))
			return &st->refused[i];
	return NULL;
}

static void write_stats(const struct sess_stats *st, FILE *f)
{
	unsigned int i;

	for (i = 0; i < N_STAT_KEYS; i++)
		fprintf(
		    f, "stat %s %" PRIu64 "\n", stat_keys[i].key,
		    *(const uint64_t *)((const char *)st + stat_keys[i].off));
	for (i = 0; i < SESSION_FALLBACKS; i++)
		fprintf(f, "stat fallback.%s %" PRIu64 "\n", fallback_key(i),
			st->fallback[i]);
	for (i = 1; i < KJIT_R_COUNT; i++)
		if (st->refused[i])
			fprintf(f, "stat refused.%s %" PRIu64 "\n",
				kjit_reason_name((enum kjit_reason)i),
				st->refused[i]);
}

/* Per-function native runs (native.h): "native_counts yes" says the
 * counts were recorded (absent ones are 0), then the non-zero ones. */
static void write_native(const struct session *s, FILE *f)
{
	unsigned int i, r;

	if (!s->n_funcs || !s->funcs[0].native_known)
		return;
	fprintf(f, "native_counts yes\n");
	for (i = 0; i < s->n_funcs; i++) {
		for (r = 0; r < SESSION_FALLBACKS; r++)
			if (s->funcs[i].native[r])
				fprintf(f, "native %u %s %" PRIu64 "\n", i,
					fallback_key(r), s->funcs[i].native[r]);
		if (s->funcs[i].native_holder[0])
			fprintf(f, "native_holder %u %s\n", i,
				s->funcs[i].native_holder);
	}
}

#define CODE_LINE 128 /* bytes of code per line */

/* The stored code (codeenv.h): the symbols, static-key sites and bytes. */
static void write_code(const struct session *s, FILE *f)
{
	unsigned int i, k;
	uint32_t off;

	for (i = 0; i < s->n_syms; i++)
		fprintf(f, "sym 0x%" PRIx64 " 0x%" PRIx64 " %s\n",
			s->syms[i].addr, s->syms[i].end, s->syms[i].name);
	for (i = 0; i < s->n_keysites; i++)
		fprintf(f, "keysite 0x%" PRIx64 " 0x%" PRIx64 "\n",
			s->keysites[i][0], s->keysites[i][1]);
	for (i = 0; i < s->n_funcs; i++) {
		const struct sess_func *fn = &s->funcs[i];

		for (off = 0; fn->code && off < fn->code_len;
		     off += CODE_LINE) {
			fprintf(f, "code %u 0x%x ", i, off);
			for (k = off; k < off + CODE_LINE && k < fn->code_len;
			     k++)
				fprintf(f, "%02x", fn->code[k]);
			fputc('\n', f);
		}
	}
}

int datafile_write(const struct session *s, FILE *f)
{
	unsigned int i;

	fprintf(f,
		"kjit-data %d\nkernel %s\nboot_id %s\ntime %s\ncommand %s\n"
		"scope %s\n",
		KJIT_DATA_VERSION, s->kernel, s->boot_id, s->time, s->command,
		session_scope(s));
	if (s->build_id[0])
		fprintf(f, "build_id %s\n", s->build_id);
	for (i = 0; i < s->n_mods; i++)
		fprintf(f, "module_build_id %s %s\n", s->mods[i].name,
			s->mods[i].build_id);
	write_stats(&s->st, f);
	for (i = 0; i < s->n_funcs; i++) {
		const struct sess_func *fn = &s->funcs[i];

		fprintf(f, "func 0x%" PRIx64 " 0x%" PRIx64 " %ld %ld %s\n",
			fn->start, fn->end, fn->static_blocks, fn->covered,
			fn->name);
	}
	for (i = 0; i < s->n_funcs; i++)
		if (s->funcs[i].deep)
			fprintf(f, "deep %u\n", i);
	for (i = 0; i < s->n_funcs; i++)
		fprintf(f, "entry %u 0x%" PRIx64 "\n", i, s->funcs[i].entry);
	write_native(s, f);
	write_code(s, f);
	for (i = 0; i < s->n_blocks; i++) {
		const struct sess_block *b = &s->blocks[i];

		fprintf(f, "block 0x%" PRIx64 " %u %" PRIu64 " %u %u %u %u\n",
			b->addr, b->func, b->count, b->len, b->insns, b->cpus,
			b->flags);
	}
	if (s->oracle)
		oracle_write(s->oracle, f);
	split_write(s->split, f);
	timing_write(s->timing, f);
	fprintf(f, "end\n");
	return ferror(f) ? -1 : 0;
}

static void copy_rest(char *dst, size_t size, const char *rest)
{
	snprintf(dst, size, "%s", rest);
	dst[strcspn(dst, "\n")] = 0;
}

/* "MOD HEX": a module's build-id; past SESSION_MODS they are dropped. */
static int add_module_build_id(struct session *s, const char *rest)
{
	struct sess_mod *m = &s->mods[s->n_mods];

	if (s->n_mods >= SESSION_MODS)
		return 0;
	if (sscanf(rest, "%63s %71s", m->name, m->build_id) != 2)
		return -1;
	s->n_mods++;
	return 0;
}

static int add_func(struct session *s, const char *rest)
{
	struct sess_func fn = {0}, *v;
	int used = 0;

	if (sscanf(rest, "%" SCNx64 " %" SCNx64 " %ld %ld %n", &fn.start,
		   &fn.end, &fn.static_blocks, &fn.covered, &used) < 4 ||
	    !used)
		return -1;
	copy_rest(fn.name, sizeof(fn.name), rest + used);
	/* Version 1 files have no entry lines; they were all written on
	 * kernels without IBT, where the entry block is at +5. */
	fn.entry = fn.start + 5;
	v = realloc(s->funcs, (s->n_funcs + 1) * sizeof(*v));
	if (!v)
		return -1;
	s->funcs = v;
	s->funcs[s->n_funcs++] = fn;
	return 0;
}

static int add_block(struct session *s, const char *rest, unsigned int *cap)
{
	struct sess_block b = {0}, *v;

	/* flags: absent in files of older kjit versions */
	if (sscanf(rest, "%" SCNx64 " %u %" SCNu64 " %u %u %u %u", &b.addr,
		   &b.func, &b.count, &b.len, &b.insns, &b.cpus,
		   &b.flags) < 6 ||
	    b.func >= s->n_funcs)
		return -1;
	if (s->n_blocks == *cap) {
		*cap = *cap ? 2 * *cap : 256;
		v = realloc(s->blocks, *cap * sizeof(*v));
		if (!v)
			return -1;
		s->blocks = v;
	}
	s->blocks[s->n_blocks++] = b;
	return 0;
}

static int mark_deep(struct session *s, const char *rest)
{
	unsigned int i;

	if (sscanf(rest, "%u", &i) != 1 || i >= s->n_funcs)
		return -1;
	s->funcs[i].deep = 1;
	return 0;
}

static int set_entry(struct session *s, const char *rest)
{
	unsigned int i;
	uint64_t a;

	if (sscanf(rest, "%u %" SCNx64, &i, &a) != 2 || i >= s->n_funcs)
		return -1;
	s->funcs[i].entry = a;
	return 0;
}

static int read_native(struct session *s, const char *key, const char *rest)
{
	char name[32];
	unsigned int i, r;
	uint64_t v;
	int used = 0;

	if (!strcmp(key, "native_counts")) {
		for (i = 0; i < s->n_funcs; i++)
			s->funcs[i].native_known = 1;
		return 0;
	}
	if (!strcmp(key, "native_holder")) {
		if (sscanf(rest, "%u %n", &i, &used) < 1 || !used ||
		    i >= s->n_funcs)
			return -1;
		copy_rest(s->funcs[i].native_holder,
			  sizeof(s->funcs[i].native_holder), rest + used);
		return 0;
	}
	if (sscanf(rest, "%u %31s %" SCNu64, &i, name, &v) != 3 ||
	    i >= s->n_funcs)
		return -1;
	for (r = 0; r < SESSION_FALLBACKS; r++)
		if (!strcmp(name, fallback_key(r)))
			s->funcs[i].native[r] = v;
	return 0; /* a reason this kjit does not know: skipped */
}

/* "FUNC OFF HEX": the next bytes of a function's code, in order. */
static int read_code(struct session *s, const char *rest)
{
	unsigned int i, off, k;
	struct sess_func *f;
	size_t n, len;
	uint8_t *v;
	int used = 0;

	if (sscanf(rest, "%u %x %n", &i, &off, &used) < 2 || !used ||
	    i >= s->n_funcs)
		return -1;
	f = &s->funcs[i];
	rest += used;
	len = strspn(rest, "0123456789abcdef");
	if (off != f->code_len || !len || len % 2 ||
	    (rest[len] && rest[len] != '\n'))
		return -1;
	n = len / 2;
	if (f->code_len + n > (f->end - f->start) + 4096)
		return -1;
	v = realloc(f->code, f->code_len + n);
	if (!v)
		return -1;
	f->code = v;
	for (k = 0; k < n; k++) {
		unsigned int b;

		sscanf(rest + 2 * k, "%2x", &b);
		f->code[f->code_len + k] = (uint8_t)b;
	}
	f->code_len += (uint32_t)n;
	return 0;
}

/* "sym ADDR END NAME", kept sorted by address as written. */
static int read_sym(struct session *s, const char *rest)
{
	struct sess_sym y, *v;
	int used = 0;

	if (sscanf(rest, "%" SCNx64 " %" SCNx64 " %n", &y.addr, &y.end, &used) <
		2 ||
	    !used || y.end <= y.addr ||
	    (s->n_syms && y.addr < s->syms[s->n_syms - 1].addr))
		return -1;
	copy_rest(y.name, sizeof(y.name), rest + used);
	if (!y.name[0] || strchr(y.name, ' '))
		return -1;
	v = realloc(s->syms, (s->n_syms + 1) * sizeof(*v));
	if (!v)
		return -1;
	s->syms = v;
	s->syms[s->n_syms++] = y;
	return 0;
}

static int read_keysite(struct session *s, const char *rest)
{
	uint64_t a, t, (*v)[2];

	if (sscanf(rest, "%" SCNx64 " %" SCNx64, &a, &t) != 2 ||
	    (s->n_keysites && a <= s->keysites[s->n_keysites - 1][0]))
		return -1;
	v = realloc(s->keysites, (s->n_keysites + 1) * sizeof(*v));
	if (!v)
		return -1;
	s->keysites = v;
	s->keysites[s->n_keysites][0] = a;
	s->keysites[s->n_keysites][1] = t;
	s->n_keysites++;
	return 0;
}

static int read_stat(struct session *s, const char *rest)
{
	char key[64];
	uint64_t v, *p;

	if (sscanf(rest, "%63s %" SCNu64, key, &v) != 2)
		return -1;
	p = stat_field(&s->st, key);
	if (p)
		*p = v;
	return 0;
}

/* An oracle_* line (the set is allocated on the first one). */
static int read_oracle(struct session *s, const char *key, const char *rest)
{
	if (!s->oracle)
		s->oracle = calloc(1, sizeof(*s->oracle));
	if (!s->oracle)
		return -1;
	return oracle_read_line(s->oracle, key, rest) < 0 ? -1 : 0;
}

/* One line: 1 at "end", 0 ok, -1 malformed. */
static int read_line(struct session *s, char *line, unsigned int *cap)
{
	char *rest = strchr(line, ' ');

	line[strcspn(line, "\n")] = 0;
	if (!strcmp(line, "end"))
		return 1;
	switch (split_parse_line(line, &s->split)) {
	case 0:
		return 0;
	case -1:
		return -1;
	}
	switch (timing_parse_line(line, &s->timing)) {
	case 0:
		return 0;
	case -1:
		return -1;
	}
	if (!rest)
		return 0;
	*rest++ = 0;
	if (!strcmp(line, "kernel"))
		copy_rest(s->kernel, sizeof(s->kernel), rest);
	else if (!strcmp(line, "boot_id"))
		copy_rest(s->boot_id, sizeof(s->boot_id), rest);
	else if (!strcmp(line, "build_id"))
		copy_rest(s->build_id, sizeof(s->build_id), rest);
	else if (!strcmp(line, "module_build_id"))
		return add_module_build_id(s, rest);
	else if (!strcmp(line, "time"))
		copy_rest(s->time, sizeof(s->time), rest);
	else if (!strcmp(line, "command"))
		copy_rest(s->command, sizeof(s->command), rest);
	else if (!strcmp(line, "scope"))
		copy_rest(s->scope, sizeof(s->scope), rest);
	else if (!strcmp(line, "stat"))
		return read_stat(s, rest);
	else if (!strcmp(line, "func"))
		return add_func(s, rest);
	else if (!strcmp(line, "deep"))
		return mark_deep(s, rest);
	else if (!strcmp(line, "entry"))
		return set_entry(s, rest);
	else if (!strcmp(line, "block"))
		return add_block(s, rest, cap);
	else if (!strncmp(line, "native", 6))
		return read_native(s, line, rest);
	else if (!strcmp(line, "code"))
		return read_code(s, rest);
	else if (!strcmp(line, "sym"))
		return read_sym(s, rest);
	else if (!strcmp(line, "keysite"))
		return read_keysite(s, rest);
	else if (!strncmp(line, "oracle", 6))
		return read_oracle(s, line, rest);
	return 0;
}

static int fail(struct session *s, char *why, size_t size, const char *msg,
		unsigned int line)
{
	if (line)
		snprintf(why, size, "%s at line %u", msg, line);
	else
		snprintf(why, size, "%s", msg);
	session_free(s);
	return -1;
}

int datafile_read(struct session *s, FILE *f, char *why, size_t size)
{
	static char line[2048];
	unsigned int cap = 0, n = 1;
	int version = 0, r = 0;

	memset(s, 0, sizeof(*s));
	if (!fgets(line, sizeof(line), f) ||
	    sscanf(line, "kjit-data %d", &version) != 1)
		return fail(s, why, size, "not a kjit data file", 0);
	if (version != KJIT_DATA_VERSION && version != 1) {
		snprintf(why, size,
			 "data format version %d; this kjit reads %d", version,
			 KJIT_DATA_VERSION);
		return -1;
	}
	while (r == 0 && fgets(line, sizeof(line), f)) {
		n++;
		if (!strchr(line, '\n') && feof(f) && strcmp(line, "end"))
			return fail(s, why, size,
				    "file is cut short (ends inside a line)",
				    n);
		r = read_line(s, line, &cap);
	}
	if (r < 0)
		return fail(s, why, size, "malformed record", n);
	if (r == 0)
		return fail(s, why, size, "file is cut short (no end record)",
			    0);
	session_derive(s);
	return 0;
}
