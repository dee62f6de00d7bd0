/* format.h - a session as text for people, JSON or CSV (`kjit report`).
 *
 * JSON schema (version 1, documented in docs/usage.md):
 *   { "kjit_report": 1, "source": "live"|"file", "kernel", "boot_id",
 *     "time", "command", "attached",
 *     "functions": [ { "name", "start", "end", "size", "calls",
 *                      "executions", "blocks_run", "deep", "static_blocks",
 *                      "covered", "coverage" } ],
 *     "blocks": [ { "function", "offset", "address", "count", "len",
 *                   "insns", "cpus" } ],
 *     "stats": { "translated", ..., "deep", "deep_funcs",
 *                "deep_over_budget", "fallback": {..}, "refused": {..},
 *                "limits": {..} (tools/report/limits.h) } }
 * Addresses are strings "0x..." (JSON numbers lose 64-bit precision);
 * unknown static_blocks/covered/coverage are null.
 * CSV: one header line, then one row per block:
 *   function,offset,address,count,len,insns,cpus
 *
 * Invariants: --sort and --top apply to the block list in every format;
 * output depends only on the session and the options (testable on a host).
 */
#ifndef KJIT_TOOL_FORMAT_H
#define KJIT_TOOL_FORMAT_H

#include <stdio.h>
#include "disasm.h"
#include "tools/kernel/kcore.h"
#include "tools/session/session.h"

enum report_sort { SORT_COUNT, SORT_ADDR, SORT_FUNC };
enum report_fmt { FMT_TEXT, FMT_JSON, FMT_CSV };

struct report_opts {
	enum report_sort sort;
	unsigned int top; /* 0: every block */
	enum report_fmt fmt;
	const char *source; /* for the text header: "live session" or a path */
	struct kcore *kc;   /* text --top: the code of functions stored without
			     * theirs (the running kernel's), or NULL ... */
	const char *no_disasm;		/* ... and why not */
	const struct disasm_syms *syms; /* names in it, or NULL */
	int uncovered; /* --uncovered: the static blocks that never ran */
	/* --uncovered in text: appends where FUNC+OFF is in the source
	 * (" file:line"), or nothing; NULL: no source lines */
	void (*where)(void *ctx, const char *func, uint64_t off, FILE *out);
	void *where_ctx;
};

/* Parses "count|addr|func"; -1 if none. */
int report_sort_parse(const char *s);

void report_print(const struct session *s, const struct report_opts *o,
		  FILE *out);

/* JSON string literal (quotes and escapes) of @s. */
void json_string(FILE *out, const char *s);

/* The session's statistics and limits as the JSON report's "stats" member
 * (`  "stats": {...}` and a newline; `kjit stat --json` too). */
void json_stats(FILE *out, const struct sess_stats *st);

#endif
