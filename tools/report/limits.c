/*
 * limits.c - a session's limits in plain words (see limits.h).
 */
#include <inttypes.h>
#include "codecache/cache.h" /* KJIT_GROW_AHEAD */
#include "kmod/kjit_ioctl.h" /* KJIT_EXIT_TAIL_MAX */
#include "limits.h"

#define FB_CODE_FULL 3 /* fallback "full" (names.c, enum kjit_fallback) */
#define FB_MAP_FULL  6 /* fallback "map_full" */
#define FB_GROWING   7 /* fallback "growing" */

/* "(limit 512 functions; --deep-max raises it)" into @buf. */
static const char *limit_words(char *buf, size_t size, uint64_t limit,
			       const char *unit, const char *option)
{
	if (limit)
		snprintf(buf, size, "(limit %" PRIu64 " %s; %s raises it)",
			 limit, unit, option);
	else
		snprintf(buf, size, "(limit unknown; %s raises it)", option);
	return buf;
}

static void deep_line(const struct sess_stats *st, const char *prefix,
		      FILE *out)
{
	char lim[96];

	limit_words(lim, sizeof(lim), st->deep_max, "functions", "--deep-max");
	if (!st->deep_over_funcs) /* older kjit: only the refusal count */
		fprintf(out,
			"%scallees were left to run natively %" PRIu64
			" time(s) because the deep table was full %s\n",
			prefix, st->deep_over_budget, lim);
	else
		fprintf(out,
			"%s%s%" PRIu64 " callee(s) ran natively because the "
			"deep table was full %s\n",
			prefix,
			st->deep_max && st->deep_over_funcs > st->deep_max
			    ? "at least "
			    : "",
			st->deep_over_funcs, lim);
}

unsigned int limits_hit(const struct sess_stats *st)
{
	return !!st->deep_over_budget + !!st->deep_growing +
	       !!st->fallback[FB_CODE_FULL] + !!st->fallback[FB_MAP_FULL] +
	       !!st->fallback[FB_GROWING] + !!st->pcpu_full +
	       !!st->pcpu_growing + !!st->exit_tail_left;
}

/* How full each table got, when nothing was turned away. */
static void room_line(const struct sess_stats *st, const char *prefix,
		      FILE *out)
{
	fprintf(out, "%snothing ran natively for lack of room (", prefix);
	if (st->deep)
		fprintf(out, "deep table %" PRIu64 "/%" PRIu64 " functions; ",
			st->deep_funcs, st->deep_max);
	fprintf(out,
		"fullest CPU: code cache %" PRIu64 "/%" PRIu64
		" KiB, block map %" PRIu64 "/%" PRIu64 " blocks",
		(st->cache_bytes_cpu_max + 1023) / 1024, st->cache_kb,
		st->blocks_cpu_max, st->max_blocks);
	if (st->pcpu_slots)
		fprintf(out, "; counters %" PRIu64 "/%" PRIu64, st->pcpu_used,
			st->pcpu_slots);
	fprintf(out, ")\n");
}

void limits_print(const struct sess_stats *st, const char *prefix, FILE *out)
{
	char lim[96];

	if (!limits_hit(st)) {
		room_line(st, prefix, out);
		return;
	}
	if (st->deep_over_budget)
		deep_line(st, prefix, out);
	if (st->deep_growing)
		fprintf(out,
			"%s%" PRIu64 " call(s) to callees ran natively while "
			"the deep table was growing (new callees came faster "
			"than its worker brought room; the limit, %" PRIu64
			" functions, was not reached)\n",
			prefix, st->deep_growing, st->deep_max);
	if (st->fallback[FB_CODE_FULL] && st->pool_empty)
		fprintf(out,
			"%s%" PRIu64 " block entries ran natively because the "
			"code pool was used up (limit %" PRIu64 " KiB in "
			"kjit_pool.ko for all CPUs; make module KJIT_POOL_MB=N "
			"raises it)\n",
			prefix, st->fallback[FB_CODE_FULL],
			st->pool_bytes / 1024);
	else if (st->fallback[FB_CODE_FULL])
		fprintf(out,
			"%s%" PRIu64 " block entries ran natively because the "
			"code cache was full %s\n",
			prefix, st->fallback[FB_CODE_FULL],
			limit_words(lim, sizeof(lim), st->cache_kb,
				    "KiB per CPU", "--cache-kb"));
	if (st->fallback[FB_MAP_FULL])
		fprintf(out,
			"%s%" PRIu64 " block entries ran natively because the "
			"block map was full %s\n",
			prefix, st->fallback[FB_MAP_FULL],
			limit_words(lim, sizeof(lim), st->max_blocks,
				    "blocks per CPU", "--max-blocks"));
	if (st->fallback[FB_GROWING])
		fprintf(out,
			"%s%" PRIu64 " block entries ran natively while the "
			"block map was growing (more than %u translations on "
			"one CPU before its worker brought room; the limit, "
			"%" PRIu64 " blocks per CPU, was not reached)\n",
			prefix, st->fallback[FB_GROWING], KJIT_GROW_AHEAD,
			st->max_blocks);
	if (st->pcpu_full)
		fprintf(out,
			"%s%" PRIu64 " block(s) counted with shared lock incq "
			"counters (exact, slower) because the per-CPU counter "
			"table was full %s\n",
			prefix, st->pcpu_full,
			limit_words(lim, sizeof(lim), st->pcpu_slots, "slots",
				    "--max-blocks"));
	if (st->pcpu_growing)
		fprintf(out,
			"%s%" PRIu64 " block translation(s) counted with "
			"shared lock incq counters (exact, slower) while the "
			"per-CPU counter table was growing (new blocks came "
			"faster than its worker brought memory; the limit, "
			"%" PRIu64 " slots, was not reached)\n",
			prefix, st->pcpu_growing, st->pcpu_slots);
	if (st->exit_tail_left)
		fprintf(out,
			"%s%" PRIu64 " dying task(s) ran the rest of do_exit() "
			"natively because the table of dying tasks was full "
			"(limit %d tasks at once; kjit.exit_tail_max sets it, "
			"up to %d)\n",
			prefix, st->exit_tail_left, sess_exit_tail_max(st),
			KJIT_EXIT_TAIL_MAX);
}

void limits_print_reserved(const struct sess_stats *st, const char *prefix,
			   FILE *out)
{
	fprintf(out, "%slimits: ", prefix);
	if (st->deep)
		fprintf(out, "deep table %" PRIu64 " functions, ",
			st->deep_max);
	fprintf(out,
		"code cache %" PRIu64 " KiB and block map %" PRIu64
		" blocks per CPU",
		st->cache_kb, st->max_blocks);
	if (st->pcpu_slots)
		fprintf(out, ", %" PRIu64 " counter slots", st->pcpu_slots);
	if (st->pool_bytes)
		fprintf(out, ", code pool %" PRIu64 " KiB for all CPUs",
			st->pool_bytes / 1024);
	fprintf(out, "; %.1f MiB reserved\n",
		(double)st->mem_bytes / (1024.0 * 1024.0));
}

void limits_json(const struct sess_stats *st, FILE *out)
{
	fprintf(out,
		"\"limits\": {\"deep_max\": %" PRIu64 ", \"cache_kb\": %" PRIu64
		", \"max_blocks\": %" PRIu64 ", \"pcpu_slots\": %" PRIu64
		", \"mem_bytes\": %" PRIu64 ", \"deep_over_funcs\": %" PRIu64
		", \"deep_over_budget\": %" PRIu64
		", \"code_cache_full\": %" PRIu64
		", \"block_map_full\": %" PRIu64
		", \"block_map_growing\": %" PRIu64 ", \"pcpu_full\": %" PRIu64
		", \"pool_bytes\": %" PRIu64 ", \"pool_empty\": %" PRIu64
		", \"deep_held\": %" PRIu64 ", \"deep_growing\": %" PRIu64
		", \"pcpu_held\": %" PRIu64 ", \"pcpu_growing\": %" PRIu64
		", \"exit_tail_left\": %" PRIu64 ", \"hit\": %u}",
		st->deep_max, st->cache_kb, st->max_blocks, st->pcpu_slots,
		st->mem_bytes, st->deep_over_funcs, st->deep_over_budget,
		st->fallback[FB_CODE_FULL], st->fallback[FB_MAP_FULL],
		st->fallback[FB_GROWING], st->pcpu_full, st->pool_bytes,
		st->pool_empty, st->deep_held, st->deep_growing, st->pcpu_held,
		st->pcpu_growing, st->exit_tail_left, limits_hit(st));
}
