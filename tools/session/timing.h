/* timing.h - a timed session's per-function time (attach/record --time;
 * kmod/timing.h) as the tool keeps it: read live through KJIT_IOC_TIME or
 * from kjit.data.
 *
 * Invariants: f[] is sorted by function index and holds only functions
 * with calls; times are TSC cycles (tsc_khz converts them: ns = cycles *
 * 10^6 / tsc_khz); hist[b] counts calls of 2^(b-1) <= cycles < 2^b;
 * p[] is sorted by node, and a node's parent is in it or a root.
 */
#ifndef KJIT_TOOL_TIMING_H
#define KJIT_TOOL_TIMING_H

#include <stdint.h>
#include <stdio.h>
#include "kmod/kjit_ioctl.h"

struct sess_tfunc {
	unsigned int func; /* index into the session's funcs[] */
	uint64_t calls, incl, excl, virt;
	uint64_t hist[KJIT_TIME_BUCKETS];
};

/* A node of the calling context tree: the call path of its caller
 * (parent; KJIT_TPATH_NONE: a root call), then function func. */
struct sess_tpath {
	unsigned int node, parent, func;
	uint64_t calls, incl, excl;
};

struct sess_time {
	uint64_t tsc_khz, untimed, lost;
	unsigned int recs, recs_used, max_fid;
	struct sess_tfunc *f;
	unsigned int n;
	/* call paths (report --folded), sorted by node */
	struct sess_tpath *p;
	unsigned int n_p, paths, paths_used;
	uint64_t paths_full;
};

/* The timing of the session on @fd into *@out (NULL when it is not
 * timed), for its first @n_funcs functions. 0, or -errno. */
int timing_read_device(int fd, unsigned int n_funcs, struct sess_time **out);
void timing_free(struct sess_time *t);
/* kjit.data lines: "timing TSC_KHZ UNTIMED LOST RECS USED MAX_FID", then per
 * function "tfunc FUNC CALLS INCL EXCL VIRT" and its nonzero buckets
 * "thist FUNC BUCKET COUNT"; then "tpaths ROOM USED FULL" and per
 * node "tpath NODE PARENT FUNC CALLS INCL EXCL" (PARENT "-": a root). */
void timing_write(const struct sess_time *t, FILE *f);
/* One such line into *@t; 0, 1 if not one of them, -1 if malformed. */
int timing_parse_line(const char *line, struct sess_time **t);
/* The node @node of @t's paths, or NULL. */
const struct sess_tpath *timing_path(const struct sess_time *t,
				     unsigned int node);
/* Cycles to ns at the session's rate. */
double timing_ns(const struct sess_time *t, uint64_t cycles);
/* The histogram's upper bound in cycles under which a share @q (0..1) of
 * @tf's calls fall (2^b of the bucket that reaches it). */
uint64_t timing_quantile(const struct sess_tfunc *tf, double q);

#endif
