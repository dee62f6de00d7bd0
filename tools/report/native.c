/*
 * native.c - native runs per function in plain words (see native.h).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kmod/kjit_refusals.h"
#include "format.h"
#include "names.h"
#include "native.h"
#include "tools/kernel/sysfiles.h"

#define FB_REFUSED 2

/* Why, by enum kjit_fallback; [FB_FTRACE_SITE] is built from the holder,
 * [FB_REFUSED] is told apart (native_words). */
static const char *const why_text[SESSION_FALLBACKS] = {
    "entered in NMI context",
    "entered while kjit's dispatcher was busy on that CPU",
    NULL,
    "the code cache was full (--cache-kb raises it)",
    NULL,
    "entered where RCU was not watching (idle)",
    "the block map was full (--max-blocks raises it)",
    "the block map was still growing on that CPU (its next chunk had not "
    "come)",
    "called by a task past exit_notify() (a dying task never enters the "
    "cache)",
};

/* A refusal is counted when the dispatcher meets the block, once per CPU
 * where it lasts (its exits are then linked to the original code), not
 * per run: said as a fact with its count, never as "ran Nx". */
static const char refused_words[] =
    "runs natively from blocks kjit.ko does not translate";

uint64_t native_total(const struct sess_func *f)
{
	uint64_t t = 0;
	unsigned int r;

	for (r = 0; f->native_known && r < SESSION_FALLBACKS; r++)
		t += f->native[r];
	return t;
}

/* Native runs counted as runs: every reason but a refusal. */
static uint64_t runs(const struct sess_func *f)
{
	return native_total(f) - (f->native_known ? f->native[FB_REFUSED] : 0);
}

static const char *why_one(const struct sess_func *f, unsigned int r, char *buf,
			   size_t size)
{
	if (r != FB_FTRACE_SITE)
		return why_text[r];
	if (f->native_holder[0])
		snprintf(buf, size, "its ftrace site was held by %s",
			 f->native_holder);
	else
		snprintf(buf, size,
			 "its ftrace site was in use (a Kprobe, a tracer, "
			 "livepatch or a BPF trampoline; gone when kjit "
			 "looked)");
	return buf;
}

/* Reasons in the order they are told: the ftrace site first. */
static const unsigned int told[] = {FB_FTRACE_SITE, 3, 6, 7, 8, 0, 1, 5};
#define N_TOLD (sizeof(told) / sizeof(told[0]))

/* The runs' reasons: one alone, or "20x WHY; 3x WHY". */
static size_t runs_why(const struct sess_func *f, char *buf, size_t size)
{
	unsigned int i, n = 0, one = 0;
	size_t len = 0;
	char w[160];

	for (i = 0; i < N_TOLD; i++)
		if (f->native[told[i]]) {
			n++;
			one = told[i];
		}
	if (n == 1)
		return (size_t)snprintf(buf, size, "%s",
					why_one(f, one, w, sizeof(w)));
	for (i = 0; i < N_TOLD && len < size; i++)
		if (f->native[told[i]])
			len += (size_t)snprintf(
			    buf + len, size - len, "%s%" PRIu64 "x %s",
			    len ? "; " : "", f->native[told[i]],
			    why_one(f, told[i], w, sizeof(w)));
	return len;
}

static void refused_part(const struct sess_func *f, char *buf, size_t size)
{
	snprintf(buf, size,
		 "%s (%" PRIu64 " refusal%s; kjit stat names the "
		 "reasons)",
		 refused_words, f->native[FB_REFUSED],
		 f->native[FB_REFUSED] == 1 ? "" : "s");
}

const char *native_why(const struct sess_func *f, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = 0;
	if (!f->native_known)
		return buf;
	if (runs(f))
		len = runs_why(f, buf, size);
	if (f->native[FB_REFUSED] && len + 2 < size)
		refused_part(f, buf + len + (len ? 2 : 0),
			     size - len - (len ? 2 : 0));
	if (f->native[FB_REFUSED] && len && len + 2 < size)
		memcpy(buf + len, "; ", 2);
	return buf;
}

const char *native_words(const struct sess_func *f, char *buf, size_t size)
{
	char why[512], ref[160];
	size_t len = 0;

	buf[0] = 0;
	if (runs(f)) {
		runs_why(f, why, sizeof(why));
		len = (size_t)snprintf(
		    buf, size, "ran natively %" PRIu64 "x: %s", runs(f), why);
	}
	if (native_total(f) != runs(f) && len < size) {
		refused_part(f, ref, sizeof(ref));
		snprintf(buf + len, size - len, "%s%s", len ? "; " : "", ref);
	}
	return buf;
}

const char *native_leave_words(const struct sess_func *f,
			       const struct sess_stats *st, char *buf,
			       size_t size)
{
	static const char *const at[] = {KJIT_LEAVE_AT};
	static const char *const from[] = {KJIT_LEAVE_FROM};
	unsigned int k;

	buf[0] = 0;
	for (k = 0; f->calls && k < sizeof(from) / sizeof(*from); k++) {
		if (strcmp(f->name, from[k]))
			continue;
		if (!st->exit_tail)
			snprintf(buf, size,
				 "the rest after its call of %s runs natively "
				 "on every call (%" PRIu64 " calls): a dying "
				 "task leaves the cache there (exit_notify and "
				 "its last steps)",
				 at[k], f->calls);
		else if (st->exit_tail_left)
			snprintf(buf, size,
				 "the rest after its call of %s ran natively "
				 "for %" PRIu64 " dying task(s): no slot was "
				 "free in the table of dying tasks (%d at "
				 "once)",
				 at[k], st->exit_tail_left,
				 sess_exit_tail_max(st));
	}
	return buf;
}

static int any_known(const struct session *s)
{
	unsigned int i;

	for (i = 0; i < s->n_funcs; i++)
		if (s->funcs[i].native_known)
			return 1;
	return 0;
}

/* What the session's totals have beyond the functions' counts. */
static uint64_t other(const struct session *s, unsigned int r)
{
	uint64_t sum = 0;
	unsigned int i;

	for (i = 0; i < s->n_funcs; i++)
		sum += s->funcs[i].native_known ? s->funcs[i].native[r] : 0;
	return s->st.fallback[r] > sum ? s->st.fallback[r] - sum : 0;
}

/* " (nmi 2, nested 1)" of the reasons with a count in @v. */
static void by_reason(const uint64_t *v, FILE *out)
{
	unsigned int r, first = 1;

	for (r = 0; r < SESSION_FALLBACKS; r++) {
		if (!v[r])
			continue;
		fprintf(out, "%s%s %" PRIu64, first ? " (" : ", ",
			fallback_key(r), v[r]);
		first = 0;
	}
	if (!first)
		fputc(')', out);
}

void native_print_other(const struct session *s, const char *prefix, FILE *out)
{
	uint64_t v[SESSION_FALLBACKS], t = 0;
	unsigned int r;
	int known = any_known(s);

	for (r = 0; r < SESSION_FALLBACKS; r++)
		t += v[r] = known ? other(s, r) : s->st.fallback[r];
	if (!t)
		return;
	if (known) {
		fprintf(out, "%salso %" PRIu64 " dispatcher entr%s", prefix, t,
			t == 1 ? "y" : "ies");
		by_reason(v, out);
		fprintf(out, " ran natively at code the module ties to no "
			     "function above\n");
	} else {
		fprintf(out,
			"%s%" PRIu64 " run%s went native instead of "
			"through the cache",
			prefix, t, t == 1 ? "" : "s");
		by_reason(v, out);
		fprintf(out, "; which functions is not in this file (an older "
			     "kjit recorded it)\n");
	}
}

void native_json(const struct sess_func *f, FILE *out)
{
	char why[512];
	unsigned int r;

	if (!f->native_known) {
		fprintf(out, "\"native\": null");
		return;
	}
	fprintf(out, "\"native\": {\"total\": %" PRIu64, native_total(f));
	for (r = 0; r < SESSION_FALLBACKS; r++)
		fprintf(out, ", \"%s\": %" PRIu64, fallback_key(r),
			f->native[r]);
	fprintf(out, ", \"holder\": ");
	json_string(out, f->native_holder);
	fprintf(out, ", \"why\": ");
	json_string(out, native_why(f, why, sizeof(why)));
	fprintf(out, "}");
}

void native_json_other(const struct session *s, FILE *out)
{
	unsigned int r;
	int known = any_known(s);

	fprintf(out, "\"native_other\": {");
	for (r = 0; r < SESSION_FALLBACKS; r++)
		fprintf(out, "%s\"%s\": %" PRIu64, r ? ", " : "",
			fallback_key(r),
			known ? other(s, r) : s->st.fallback[r]);
	fprintf(out, "}");
}

int native_warning(const struct session *s, const char *who, char *buf,
		   size_t size)
{
	unsigned int i, n = 0, nref = 0, shown = 0;
	uint64_t rest = 0, t;
	char why[512];
	size_t len;

	for (i = 0; i < s->n_funcs; i++) {
		n += runs(&s->funcs[i]) != 0;
		nref += native_total(&s->funcs[i]) != runs(&s->funcs[i]);
	}
	for (i = 0; i < SESSION_FALLBACKS; i++)
		rest += any_known(s) ? other(s, i) : s->st.fallback[i];
	buf[0] = 0;
	if (!n && !nref && !rest)
		return 0;
	len = (size_t)snprintf(buf, size,
			       "%s: warning: code ran natively "
			       "instead of from the cache, uncounted:",
			       who);
	for (i = 0; i < s->n_funcs && len < size; i++) {
		t = runs(&s->funcs[i]);
		if (!t)
			continue;
		if (shown++ == 3) {
			len += (size_t)snprintf(buf + len, size - len,
						", %u more", n - 3);
			break;
		}
		runs_why(&s->funcs[i], why, sizeof(why));
		len += (size_t)snprintf(
		    buf + len, size - len, "%s %s %" PRIu64 "x (%s)",
		    shown > 1 ? "," : "", s->funcs[i].name, t, why);
	}
	for (i = 0, shown = 0; nref && i < s->n_funcs && len < size; i++) {
		if (native_total(&s->funcs[i]) == runs(&s->funcs[i]))
			continue;
		if (shown++ == 3) {
			len += (size_t)snprintf(buf + len, size - len,
						", %u more", nref - 3);
			break;
		}
		len += (size_t)snprintf(buf + len, size - len, "%s %s",
					shown > 1 ? ","
					: n ? "; from blocks kjit.ko does "
					      "not translate in"
					    : " from blocks kjit.ko "
					      "does not translate in",
					s->funcs[i].name);
	}
	if (rest && len < size)
		len += (size_t)snprintf(buf + len, size - len,
					"%s %" PRIu64 " dispatcher entr%s tied "
					"to no function",
					n || nref ? ";" : "", rest,
					rest == 1 ? "y" : "ies");
	if (len < size)
		snprintf(buf + len, size - len,
			 "; kjit report says why per function");
	return n + nref ? (int)(n + nref) : 1;
}

/* The name kallsyms and tracefs use: "pipe_read" for "pipe_read",
 * "mod:f" and "f [mod]". */
static void base_name(const char *name, char *out, size_t size)
{
	const char *c = strchr(name, ':');

	snprintf(out, size, "%s", c ? c + 1 : name);
	out[strcspn(out, " ")] = 0;
}

/* kprobes/list: "ADDR  k  NAME+0xOFF  [MOD] [FLAGS]": a Kprobe through
 * ftrace at the start of @name (its site: +0, or +4 behind endbr64). */
static const char *kprobe_holder(const char *name)
{
	const char *p = sysfile_debug("kprobes/list");
	char line[512], want[KJIT_NAME_MAX + 8];
	const char *holder = NULL;
	FILE *f = p ? fopen(p, "r") : NULL;
	size_t wl;

	if (!f)
		return NULL;
	wl = (size_t)snprintf(want, sizeof(want), " %s+0x", name);
	while (!holder && fgets(line, sizeof(line), f)) {
		char *at = strstr(line, want);
		unsigned long off;

		if (!at || !strstr(line, "[FTRACE]") ||
		    strstr(line, "[DISABLED]") || strstr(line, "[GONE]") ||
		    sscanf(at + wl, "%lx", &off) != 1 || off > 4)
			continue;
		holder = strstr(line, "  r  ") ? "a kretprobe" : "a Kprobe";
	}
	fclose(f);
	return holder;
}

/* enabled_functions: "NAME (N) R I D\ttramp: ... (HANDLER+0x0/0x..)". */
static void name_holder(const char *flags, const char *rest, char *out,
			size_t size)
{
	if (strstr(flags, " I"))
		snprintf(out, size,
			 "an IPMODIFY ftrace user (livepatch or the like)");
	else if (strstr(flags, " D"))
		snprintf(out, size,
			 "a direct call (a BPF trampoline or the like)");
	else if (strstr(rest, "kprobe"))
		snprintf(out, size, "a Kprobe");
	else if (strstr(rest, "graph"))
		snprintf(out, size, "the function_graph tracer");
	else if (strstr(rest, "function_trace"))
		snprintf(out, size, "the function tracer");
	else
		snprintf(out, size, "an ftrace user");
}

static int ftrace_holder(const char *name, char *out, size_t size)
{
	const char *p = sysfile_tracing("enabled_functions");
	FILE *f = p ? fopen(p, "r") : NULL;
	size_t nl = strlen(name);
	char line[1024], *tab;
	int found = 0;

	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f)) {
		if (strncmp(line, name, nl) || line[nl] != ' ')
			continue;
		found = 1;
		line[strcspn(line, "\n")] = 0;
		tab = strchr(line, '\t');
		if (tab)
			*tab++ = 0;
		name_holder(line + nl, tab ? tab : "", out, size);
	}
	fclose(f);
	return found;
}

void native_find_holders(struct session *s)
{
	char name[KJIT_NAME_MAX];
	unsigned int i;

	for (i = 0; i < s->n_funcs; i++) {
		struct sess_func *f = &s->funcs[i];
		const char *k;

		if (!f->native_known || !f->native[FB_FTRACE_SITE] ||
		    f->native_holder[0])
			continue;
		base_name(f->name, name, sizeof(name));
		k = kprobe_holder(name);
		if (k)
			snprintf(f->native_holder, sizeof(f->native_holder),
				 "%s", k);
		else
			ftrace_holder(name, f->native_holder,
				      sizeof(f->native_holder));
	}
}
