/*
 * session.c - a session's results from /dev/kjit, plus what the tool
 * derives from them (per-function totals, static coverage).
 *
 * Invariants: see session.h. Coverage marks a static block covered when an
 * executed translated block overlaps it (kjit's blocks start at the entry
 * after the fentry site and may span several static blocks).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/utsname.h>
#include <time.h>
#include "cfg.h"
#include "codeenv.h"
#include "tools/report/names.h"
#include "oracle.h"
#include "split.h"
#include "timing.h"
#include "tools/report/progress.h"
#include "predicate.h"
#include "session.h"
#include "tools/report/buildid.h"
#include "tools/kernel/sysfiles.h"

static int read_funcs(struct session *s, int fd)
{
	struct kjit_funcs req = {.size = sizeof(req),
				 .info_size = sizeof(struct kjit_func_info)};
	unsigned int r;
	struct kjit_func_info *f = NULL;
	unsigned int i;

	do { /* deep sessions add functions while attached */
		free(f);
		req.max = req.total + 256;
		f = calloc(req.max, sizeof(*f));
		if (!f)
			return -ENOMEM;
		req.buf = (uintptr_t)f;
		if (ioctl(fd, KJIT_IOC_FUNCS, &req)) {
			free(f);
			return -errno;
		}
	} while (req.written < req.total);
	s->funcs = calloc(req.written ? req.written : 1, sizeof(*s->funcs));
	for (i = 0; s->funcs && i < req.written; i++) {
		snprintf(s->funcs[i].name, sizeof(s->funcs[i].name), "%s",
			 f[i].name);
		s->funcs[i].start = f[i].start;
		s->funcs[i].end = f[i].end;
		s->funcs[i].entry = f[i].entry;
		s->funcs[i].diverted = f[i].diverted;
		s->funcs[i].deep = f[i].deep;
		s->funcs[i].static_blocks = s->funcs[i].covered = -1;
		s->funcs[i].native_known = 1;
		s->funcs[i].pred = (struct kjit_pred){
		    f[i].if_op, f[i].if_arg, f[i].if_bits, f[i].if_value};
		for (r = 0; r < SESSION_FALLBACKS; r++)
			s->funcs[i].native[r] = f[i].native[r];
	}
	s->n_funcs = req.written;
	free(f);
	return s->funcs ? 0 : -ENOMEM;
}

static int read_blocks(struct session *s, int fd)
{
	struct kjit_blocks req = {.size = sizeof(req)};
	struct kjit_block_info *b = NULL;
	unsigned int i;

	do { /* the count can grow between calls while attached */
		free(b);
		req.max = req.total + 64;
		b = calloc(req.max, sizeof(*b));
		req.buf = (uintptr_t)b;
		if (!b)
			return -ENOMEM;
		if (ioctl(fd, KJIT_IOC_BLOCKS, &req)) {
			free(b);
			return -errno;
		}
	} while (req.written < req.total);
	s->blocks = calloc(req.written ? req.written : 1, sizeof(*s->blocks));
	for (i = 0; s->blocks && i < req.written; i++) {
		s->blocks[i].addr = b[i].orig;
		s->blocks[i].count = b[i].count;
		s->blocks[i].func = b[i].func;
		s->blocks[i].len = b[i].orig_len;
		s->blocks[i].insns = b[i].n_insns;
		s->blocks[i].cpus = b[i].cpus;
		s->blocks[i].flags = b[i].flags;
	}
	s->n_blocks = req.written;
	free(b);
	return s->blocks ? 0 : -ENOMEM;
}

void sess_stats_from(struct sess_stats *o, const struct kjit_session_stats *k)
{
	unsigned int i;

	memset(o, 0, sizeof(*o));
	o->translated = k->translated;
	o->links = k->links;
	o->native_links = k->native_links;
	o->exits_native = k->exits_native;
	o->dispatches = k->dispatches;
	o->lookup_hits = k->lookup_hits;
	o->predicted = k->predicted;
	o->fixups_copied = k->fixups_copied;
	o->orc_entries = k->orc_entries;
	o->pool_bytes = k->pool_bytes;
	o->pool_taken = k->pool_taken;
	o->pool_empty = k->pool_empty;
	o->translate_ns = k->translate_ns;
	o->attached = (int)k->attached;
	o->deep = k->deep;
	o->deep_funcs = k->deep_funcs;
	o->deep_over_budget = k->deep_over_budget;
	o->watched = k->watched;
	o->patched = k->patched;
	o->patched_addr = k->patched_addr;
	o->deep_max = k->deep_max;
	o->deep_over_funcs = k->deep_over_funcs;
	o->cache_kb = k->cache_kb;
	o->max_blocks = k->max_blocks;
	o->pcpu_slots = k->pcpu_slots;
	o->pcpu_used = k->pcpu_used;
	o->pcpu_full = k->pcpu_full;
	o->blocks_cpu_max = k->blocks_cpu_max;
	o->mem_bytes = k->mem_bytes;
	o->deep_held = k->deep_held;
	o->deep_growing = k->deep_growing;
	o->pcpu_held = k->pcpu_held;
	o->pcpu_growing = k->pcpu_growing;
	o->exit_tail = k->exit_tail;
	o->exit_tail_max = k->exit_tail_max;
	o->exit_tail_stayed = k->exit_tail_stayed;
	o->exit_tail_left = k->exit_tail_left;
	for (i = 0; i < k->ncpus && i < KJIT_STAT_CPUS; i++) {
		o->cache_bytes += k->bytes[i];
		if (k->bytes[i] > o->cache_bytes_cpu_max)
			o->cache_bytes_cpu_max = k->bytes[i];
	}
	for (i = 0; i < SESSION_FALLBACKS && i < KJIT_FALLBACK_REASONS; i++)
		o->fallback[i] = k->fallback[i];
	for (i = 0; i < KJIT_R_COUNT && i < KJIT_REFUSE_REASONS; i++)
		o->refused[i] = k->refused[i];
}

/* "; only when FUNC:argN OP VALUE, ..." after the scope, for every
 * function attached with a predicate (as record writes it). */
static void scope_add_preds(struct session *s)
{
	unsigned int i, k = 0;

	for (i = 0; i < s->n_funcs; i++) {
		struct tool_pred p = {.p = s->funcs[i].pred};

		if (!p.p.op)
			continue;
		snprintf(p.func, sizeof(p.func), "%s", s->funcs[i].name);
		pred_append_scope(&p, !k++, s->scope, sizeof(s->scope));
	}
}

static int read_stats(struct session *s, int fd)
{
	struct kjit_session_stats st = {.size = sizeof(st)};

	if (ioctl(fd, KJIT_IOC_STATS, &st))
		return -errno;
	sess_stats_from(&s->st, &st);
	snprintf(s->scope, sizeof(s->scope), "%s", scope_words(st.scope));
	scope_add_preds(s);
	return 0;
}

const char *scope_words(unsigned int scope)
{
	switch (scope) {
	case KJIT_SCOPE_ALL:
		return "system-wide" KJIT_LEFT_OUT;
	case KJIT_SCOPE_ALL | KJIT_SCOPE_KJIT:
		return "system-wide";
	case KJIT_SCOPE_CPUS:
		return "the CPUs given with -C" KJIT_LEFT_OUT;
	case KJIT_SCOPE_CPUS | KJIT_SCOPE_KJIT:
		return "the CPUs given with -C";
	case KJIT_SCOPE_TASKS:
		return "the processes given with -p";
	case KJIT_SCOPE_TASKS | KJIT_SCOPE_CHILDREN:
		return "a command and the processes it forks";
	case KJIT_SCOPE_TASKS | KJIT_SCOPE_CHILDREN | KJIT_SCOPE_CGROUP:
		return "the processes of a cgroup at attach (-G) and those they "
		       "fork";
	default:
		return "unknown";
	}
}

int session_read_device(struct session *s, int fd)
{
	int err;

	memset(s, 0, sizeof(*s));
	s->live = 1;
	err = read_funcs(s, fd);
	if (!err)
		err = read_blocks(s, fd);
	if (!err)
		err = read_stats(s, fd);
	if (!err)
		err = split_read_device(fd, &s->split);
	if (!err)
		err = timing_read_device(fd, s->n_funcs, &s->timing);
	if (err) {
		session_free(s);
		return err;
	}
	session_stamp(s);
	session_derive(s);
	return 0;
}

void session_free(struct session *s)
{
	unsigned int i;

	for (i = 0; s->funcs && i < s->n_funcs; i++)
		free(s->funcs[i].code);
	session_cache_free(s);
	free(s->syms);
	free(s->keysites);
	s->syms = NULL;
	s->keysites = NULL;
	s->n_syms = s->n_keysites = 0;
	free(s->funcs);
	free(s->blocks);
	if (s->oracle)
		oracle_free(s->oracle);
	free(s->oracle);
	s->oracle = NULL;
	split_free(s->split);
	s->split = NULL;
	timing_free(s->timing);
	s->timing = NULL;
	s->funcs = NULL;
	s->blocks = NULL;
	s->n_funcs = s->n_blocks = 0;
}

static void read_boot_id(char *buf, size_t size)
{
	FILE *f = fopen(sysfile(2, "/proc/sys/kernel/random/boot_id"), "r");

	buf[0] = 0;
	if (f && fgets(buf, (int)size, f))
		buf[strcspn(buf, "\n")] = 0;
	if (f)
		fclose(f);
}

/* The build-id of every module that owns a counted function (MOD:func),
 * from /sys/module/MOD/notes, so that reports find its .ko later. */
static void stamp_modules(struct session *s)
{
	char path[160];
	unsigned int i, k;

	s->n_mods = 0;
	for (i = 0; i < s->n_funcs && s->n_mods < SESSION_MODS; i++) {
		const char *name = s->funcs[i].name, *c = strchr(name, ':');
		struct sess_mod *m = &s->mods[s->n_mods];
		size_t len = c ? (size_t)(c - name) : 0;

		if (!len || len >= sizeof(m->name))
			continue;
		for (k = 0; k < s->n_mods; k++)
			if (strlen(s->mods[k].name) == len &&
			    !strncmp(s->mods[k].name, name, len))
				break;
		if (k < s->n_mods)
			continue;
		memcpy(m->name, name, len);
		m->name[len] = 0;
		snprintf(path, sizeof(path),
			 "/sys/module/%s/notes/.note.gnu.build-id", m->name);
		if (!buildid_read_notes(sysfile(3, path), m->build_id,
					sizeof(m->build_id)))
			s->n_mods++;
	}
}

void session_stamp(struct session *s)
{
	struct utsname u;
	time_t now = time(NULL);

	if (!uname(&u))
		snprintf(s->kernel, sizeof(s->kernel), "%s", u.release);
	read_boot_id(s->boot_id, sizeof(s->boot_id));
	if (buildid_read_notes(sysfile(3, "/sys/kernel/notes"), s->build_id,
			       sizeof(s->build_id)))
		s->build_id[0] = 0;
	stamp_modules(s);
	strftime(s->time, sizeof(s->time), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
}

const char *session_scope(const struct session *s)
{
	return s->scope[0] ? s->scope : "system-wide";
}

void session_derive(struct session *s)
{
	unsigned int i;

	for (i = 0; i < s->n_funcs; i++) {
		s->funcs[i].calls = s->funcs[i].executions = 0;
		s->funcs[i].blocks_run = 0;
	}
	for (i = 0; i < s->n_blocks; i++) {
		const struct sess_block *b = &s->blocks[i];
		struct sess_func *f;

		if (b->func >= s->n_funcs)
			continue;
		f = &s->funcs[b->func];
		f->executions += b->count;
		f->blocks_run += b->count != 0;
		/* entered through the diversion (after the fentry site), or
		 * straight from translated code (a block at the start) */
		if (b->addr == f->entry || b->addr == f->start)
			f->calls += b->count;
	}
}

int session_is_running_kernel(const struct session *s)
{
	char id[64];

	read_boot_id(id, sizeof(id));
	return s->live || (id[0] && !strcmp(id, s->boot_id));
}

/* Covered static blocks of function @fi, given its CFG. */
static void cover_one(struct session *s, unsigned int fi, const struct cfg *g)
{
	char *mark = malloc(g->n_blk ? g->n_blk : 1);

	if (!mark)
		return;
	s->funcs[fi].static_blocks = (long)g->n_blk;
	s->funcs[fi].covered = session_cover_marks(s, fi, g, mark);
	free(mark);
}

int session_coverage(struct session *s)
{
	struct progress p;
	struct cfg g;
	unsigned int i;
	int err = session_capture(s);

	if (err)
		return err;
	progress_begin(&p, "coverage", s->n_funcs);
	for (i = 0; i < s->n_funcs; i++) {
		progress_step(&p, i);
		if (!session_cfg(s, i, &g)) {
			cover_one(s, i, &g);
			cfg_free(&g);
		}
	}
	progress_end(&p);
	return 0;
}

uint64_t session_executions(const struct session *s)
{
	uint64_t t = 0;
	unsigned int i;

	for (i = 0; i < s->n_blocks; i++)
		t += s->blocks[i].count;
	return t;
}

int sess_exit_tail_max(const struct sess_stats *st)
{
	return st->exit_tail_max ? (int)st->exit_tail_max : KJIT_EXIT_TAIL_MAX;
}
