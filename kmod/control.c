// SPDX-License-Identifier: GPL-2.0
/*
 * control.c - the session ioctls of /dev/kjit: attach, detach, blocks,
 * funcs, stats, reset (ABI in kjit_ioctl.h).
 *
 * Invariants:
 *  - Every handler validates the whole request before changing anything, so
 *    a malformed request leaves all state as it was.
 *  - kjit_current is the latest session (attached or not); it and the
 *    attach state change only under kjit_mutex.
 *  - Process context; handlers sleep.
 */
#include <linux/log2.h>
#include <linux/delay.h>
#include <linux/kallsyms.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include "control.h"
#include "divert.h"
#include "kjit_refusals.h"
#include "kcode.h"
#include "ksyms.h"
#include "session.h"

static struct kjit_session *kjit_current;
/* The open /dev/kjit that owns the attached session (KJIT_IOC_OWN), or
 * NULL; under kjit_mutex. Only compared, never dereferenced: release
 * clears it before the file goes. */
static struct file *kjit_owner;

static void set_why(struct kjit_target *t, int err, const char *why)
{
	t->err = err;
	strscpy(t->why, why, sizeof(t->why));
}

/* @t's argument predicate (KJIT_IF_*) into @p: 0, or -EINVAL for a bad
 * one (ops are jit/predicate.h's, by number). */
static int target_pred(const struct kjit_target *t, struct kjit_pred *p)
{
	unsigned int i;

	BUILD_BUG_ON(KJIT_IF_EQ != KJIT_PRED_EQ);
	BUILD_BUG_ON(KJIT_IF_NE != KJIT_PRED_NE);
	BUILD_BUG_ON(KJIT_IF_LT != KJIT_PRED_LT);
	BUILD_BUG_ON(KJIT_IF_LE != KJIT_PRED_LE);
	BUILD_BUG_ON(KJIT_IF_GT != KJIT_PRED_GT);
	BUILD_BUG_ON(KJIT_IF_GE != KJIT_PRED_GE);
	BUILD_BUG_ON(KJIT_IF_ANY != KJIT_PRED_ANY);
	BUILD_BUG_ON(KJIT_IF_OPS != KJIT_PRED_OPS);
	for (i = 0; i < sizeof(t->if_pad); i++)
		if (t->if_pad[i])
			return -EINVAL;
	*p = (struct kjit_pred){t->if_op, t->if_arg, t->if_bits, t->if_value};
	if (t->if_op == KJIT_IF_NONE)
		return t->if_arg || t->if_bits || t->if_value ? -EINVAL : 0;
	return kjit_pred_valid(p) ? 0 : -EINVAL;
}

#define KJIT_BAD_PRED_WHY "bad argument predicate (if_op, if_arg, if_bits)"

/* Fills @f for target @t; on refusal sets t->err/why and returns it. */
static int resolve_target(struct kjit_target *t, struct kjit_func *f)
{
	unsigned long size = 0, off = 0;
	const char *why;

	t->name[KJIT_NAME_MAX - 1] = 0;
	if (target_pred(t, &f->pred)) {
		set_why(t, -EINVAL, KJIT_BAD_PRED_WHY);
		return -EINVAL;
	}
	if (!strncmp(t->name, KJIT_PADDING_PREFIX,
		     sizeof(KJIT_PADDING_PREFIX) - 1)) {
		set_why(t, -EOPNOTSUPP, KJIT_PADDING_WHY);
		return -EOPNOTSUPP;
	}
	if (!t->addr)
		t->addr = kjit_lookup_name(t->name);
	if (!t->addr) {
		set_why(t, -ENOENT, "no such kernel symbol");
		return -ENOENT;
	}
	if (!kjit_kapi.kallsyms_lookup_size_offset(t->addr, &size, &off) ||
	    off) {
		set_why(t, -EINVAL, "not the start of a kernel function");
		return -EINVAL;
	}
	if (kjit_divert_check(t->addr, &why)) {
		set_why(t, -EOPNOTSUPP, why);
		return -EOPNOTSUPP;
	}
	f->start = t->addr;
	f->site = kjit_fentry_site(t->addr); /* checked just above */
	f->end = t->addr + size;
	if (t->name[0])
		strscpy(f->name, t->name, sizeof(f->name));
	else
		snprintf(f->name, sizeof(f->name), "%ps", (void *)t->addr);
	set_why(t, 0, "");
	return 0;
}

struct start_ix {
	unsigned long start;
	unsigned int target, func;
};

static int cmp_start(const void *a, const void *b)
{
	const struct start_ix *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->target < y->target ? -1 : x->target > y->target;
}

/* Refuses every target naming a function an earlier target named already
 * (sorted, so thousands of targets cost n log n), and drops it from the
 * @n functions of @funcs and from @target_of (@ix: room for @n). Returns
 * how many remain. */
static unsigned int refuse_duplicates(struct kjit_target *t,
				      struct kjit_func *funcs, unsigned int n,
				      unsigned int *target_of,
				      struct start_ix *ix)
{
	unsigned int i, k = 0;

	for (i = 0; i < n; i++)
		ix[i] = (struct start_ix){funcs[i].start, target_of[i], i};
	sort(ix, n, sizeof(*ix), cmp_start, NULL);
	for (i = 1; i < n; i++)
		if (ix[i].start == ix[i - 1].start) {
			set_why(&t[ix[i].target], -EINVAL, "duplicate target");
			funcs[ix[i].func].start = 0; /* dropped below */
		}
	for (i = 0; i < n; i++)
		if (funcs[i].start) {
			target_of[k] = target_of[i];
			funcs[k++] = funcs[i];
		}
	return k;
}

/* Refuses the functions past the most this kernel's ftrace can divert
 * (KJIT_DIRECT_MAX, compat.h). Returns how many remain. */
static unsigned int refuse_past_max(struct kjit_target *t, unsigned int n,
				    const unsigned int *target_of)
{
	unsigned int i;

	for (i = KJIT_DIRECT_MAX; i < n; i++)
		set_why(&t[target_of[i]], -E2BIG, KJIT_DIRECT_MAX_WHY);
	return min_t(unsigned int, n, KJIT_DIRECT_MAX);
}

/* Resolves all targets into @funcs; returns how many were accepted, or the
 * first refusal's error when all-or-nothing. */
static int resolve_all(struct kjit_target *t, unsigned int n, u32 flags,
		       struct kjit_func *funcs)
{
	unsigned int i, ok = 0, *target_of;
	struct start_ix *ix;
	int err, first = 0;

	target_of = kvmalloc_array(n, sizeof(*target_of), GFP_KERNEL);
	ix = kvmalloc_array(n, sizeof(*ix), GFP_KERNEL);
	if (!target_of || !ix) {
		kvfree(target_of);
		kvfree(ix);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		err = resolve_target(&t[i], &funcs[ok]);
		if (!err)
			target_of[ok++] = i;
		cond_resched(); /* thousands of targets */
	}
	ok = refuse_duplicates(t, funcs, ok, target_of, ix);
	ok = refuse_past_max(t, ok, target_of);
	kvfree(target_of);
	kvfree(ix);
	for (i = 0; i < n && !first; i++)
		first = t[i].err;
	if (first && !(flags & KJIT_ATTACH_BEST_EFFORT))
		return first;
	return ok ? (int)ok : (first ? first : -EINVAL);
}

/* The ftrace direct call of the function at @start failed with @err: say so
 * in its target entry. -EBUSY means another ftrace user already redirects
 * it (livepatch, or any IPMODIFY or direct-call user). */
static void blame_target(struct kjit_target *t, unsigned int n,
			 unsigned long start, int err)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (t[i].addr == start && !t[i].err)
			set_why(&t[i], err,
				err == -EBUSY
				    ? "redirected by another ftrace user "
				      "(livepatch, IPMODIFY)"
				    : "cannot divert (register_ftrace_direct "
				      "failed)");
}

/* The request's scope into @sc (scope.h). */
static int request_scope(const struct kjit_attach *req, struct kjit_scope *sc)
{
	u32 *ids = NULL;
	int err;

	if ((req->scope & ~KJIT_SCOPE_KJIT) != KJIT_SCOPE_ALL &&
	    (!req->scope_n || req->scope_n > KJIT_SCOPE_MAX))
		return -EINVAL;
	if (req->scope_n) {
		ids = memdup_user(u64_to_user_ptr(req->scope_ids),
				  array_size(req->scope_n, sizeof(*ids)));
		if (IS_ERR(ids))
			return PTR_ERR(ids);
	}
	err = kjit_scope_prepare(sc, req->scope, ids, req->scope_n);
	kfree(ids);
	return err;
}

/* KJIT_ATTACH_SPLIT: the banks (split.h), before anything runs. A
 * session without per-CPU counters cannot be split. */
static int prepare_split(struct kjit_session *s, const struct kjit_attach *req)
{
	u32 banks = req->split_banks & 0xffff, chunks = req->split_banks >> 16;
	int err;

	if (!(req->flags & KJIT_ATTACH_SPLIT))
		return 0;
	if (!s->pcpu)
		return -EOPNOTSUPP;
	err = kjit_split_prepare(&s->split, banks ? banks : KJIT_SPLIT_BANKS,
				 chunks ? chunks : 1);
	if (!err)
		s->mem_bytes += s->split.bytes;
	return err;
}

/* Task records and the functions timed (timing.h), for KJIT_ATTACH_TIME:
 * the attached ones, and in deep mode as many callees as the deep table
 * may hold, up to kjit.time_max in all. */
static unsigned int time_max = 4096;
module_param(time_max, uint, 0444);
MODULE_PARM_DESC(time_max, "functions a timed session times at most (4096)");
static unsigned int time_tasks = 1024;
module_param(time_tasks, uint, 0444);
MODULE_PARM_DESC(time_tasks, "tasks a timed session times at most (1024)");
static unsigned int time_paths = 16384;
module_param(time_paths, uint, 0444);
MODULE_PARM_DESC(time_paths, "call paths a timed session keeps apart at most "
			     "(16384, a power of two)");

static int prepare_timing(struct kjit_session *s,
			  const struct kjit_attach *req)
{
	u32 n = s->n_funcs + (s->deep ? s->lim.deep_max : 0);
	int err;

	if (!(req->flags & KJIT_ATTACH_TIME))
		return 0;
	err = kjit_timing_prepare(
	    &s->timing, clamp(time_tasks, 1u, 65536u),
	    min(n, clamp(time_max, 1u, 1u << 20)),
	    roundup_pow_of_two(clamp(time_paths, 16u, 1u << 22)));
	if (!err)
		s->mem_bytes += s->timing.bytes;
	return err;
}

static long __attach(struct kjit_attach *req, struct kjit_target *t,
		     const struct kjit_limits *lim)
{
	struct kjit_func *funcs;
	struct kjit_session *s;
	struct kjit_scope sc;
	unsigned int i;
	int n, err;

	if (kjit_current && kjit_current->attached)
		return -EALREADY;
	err = request_scope(req, &sc);
	if (err)
		return err;
	funcs = kvcalloc(req->n, sizeof(*funcs), GFP_KERNEL);
	if (!funcs) {
		kjit_scope_free(&sc);
		return -ENOMEM;
	}
	n = resolve_all(t, req->n, req->flags, funcs);
	s = n > 0 ? kjit_session_new(funcs, n, req->flags, lim, &sc) : NULL;
	kvfree(funcs);
	if (n <= 0) {
		kjit_scope_free(&sc);
		return n;
	}
	if (!s)
		return -ENOMEM;
	err = prepare_split(s, req);
	if (!err)
		err = prepare_timing(s, req);
	if (err) {
		kjit_session_free(s);
		return err;
	}
	s->scope_req = kjit_scope_counted(&s->scope, req->scope);
	err = __kjit_session_attach(s, req->flags & KJIT_ATTACH_BEST_EFFORT);
	for (i = 0; i < s->n_funcs; i++) {
		if (!s->funcs[i].err)
			continue;
		pr_info_ratelimited("kjit: cannot divert %s: %d\n",
				    s->funcs[i].name, s->funcs[i].err);
		blame_target(t, req->n, s->funcs[i].start, s->funcs[i].err);
	}
	if (err && !s->attached) {
		kjit_session_free(s);
		return err;
	}
	/* attached, or a failed attach whose undo could not remove a
	 * diversion: the session must stay reachable for a later detach */
	kjit_session_free(kjit_current);
	kjit_current = s;
	if (err)
		return err;
	for (i = 0; i < s->n_funcs; i++)
		req->attached += s->funcs[i].diverted;
	req->mem_bytes = s->mem_bytes;
	return 0;
}

/* The results of an attach could not be written back (another thread
 * unmapped the buffers during the call): detach what @err says was
 * attached, so the caller's -EFAULT leaves nothing diverted. */
static long undo_attach(long err)
{
	if (err)
		return err;
	mutex_lock(&kjit_mutex);
	if (kjit_current && kjit_current->attached)
		__kjit_session_detach(kjit_current); /* says so if it fails */
	mutex_unlock(&kjit_mutex);
	return -EFAULT;
}

long kjit_ioctl_attach(void __user *uarg)
{
	struct kjit_target *t;
	struct kjit_attach req;
	struct kjit_limits lim;
	size_t bytes;
	long err;

	if (copy_from_user(&req, uarg, sizeof(req)))
		return -EFAULT;
	if (req.size != sizeof(req) || !req.n || req.n > KJIT_MAX_TARGETS ||
	    (req.flags & ~(KJIT_ATTACH_BEST_EFFORT | KJIT_ATTACH_DEEP |
			   KJIT_ATTACH_NO_COUNT | KJIT_ATTACH_SPLIT |
			   KJIT_ATTACH_TIME)) ||
	    (req.split_banks && !(req.flags & KJIT_ATTACH_SPLIT)))
		return -EINVAL;
	if ((req.flags & KJIT_ATTACH_SPLIT) &&
	    (((req.split_banks & 0xffff) &&
	      ((req.split_banks & 0xffff) < 3 ||
	       (req.split_banks & 0xffff) > KJIT_SPLIT_BANKS_MAX)) ||
	     req.split_banks >> 16 > KJIT_SPLIT_CHUNKS))
		return -EINVAL;
	lim = (struct kjit_limits){req.deep_max, req.cache_kb, req.max_blocks};
	if (kjit_session_limits(&lim))
		return -EINVAL;
	bytes = array_size(req.n, sizeof(*t));
	t = vmemdup_user(u64_to_user_ptr(req.targets), bytes);
	if (IS_ERR(t))
		return PTR_ERR(t);
	/* Results go back into both buffers: make sure they can, before
	 * anything changes (a failed request changes nothing). */
	if (copy_to_user(u64_to_user_ptr(req.targets), t, bytes) ||
	    copy_to_user(uarg, &req, sizeof(req))) {
		kvfree(t);
		return -EFAULT;
	}
	mutex_lock(&kjit_mutex);
	req.attached = 0;
	req.mem_bytes = 0;
	err = __attach(&req, t, &lim);
	if (!err)
		kjit_owner = NULL; /* a new session: nobody's until OWN */
	mutex_unlock(&kjit_mutex);
	if (copy_to_user(u64_to_user_ptr(req.targets), t, bytes) ||
	    copy_to_user(uarg, &req, sizeof(req)))
		err = undo_attach(err);
	kvfree(t);
	return err;
}

long kjit_ioctl_detach(void)
{
	long err = 0;

	mutex_lock(&kjit_mutex);
	if (kjit_current && kjit_current->attached)
		err = __kjit_session_detach(kjit_current);
	else
		err = -ENOENT;
	if (!err)
		kjit_owner = NULL;
	mutex_unlock(&kjit_mutex);
	return err;
}

long kjit_ioctl_own(struct file *file)
{
	long err = 0;

	mutex_lock(&kjit_mutex);
	if (kjit_current && kjit_current->attached)
		kjit_owner = file;
	else
		err = -ENOENT;
	mutex_unlock(&kjit_mutex);
	return err;
}

void kjit_control_release(struct file *file)
{
	mutex_lock(&kjit_mutex);
	if (kjit_owner == file) {
		kjit_owner = NULL;
		if (kjit_current && kjit_current->attached) {
			pr_info("kjit: the session's owner closed /dev/kjit "
				"while attached (its recorder ended without "
				"detaching): detaching\n");
			__kjit_session_detach(kjit_current); /* says if not */
		}
	}
	mutex_unlock(&kjit_mutex);
}

void kjit_control_step_aside(const char *why)
{
	mutex_lock(&kjit_mutex);
	if (kjit_current && kjit_current->attached) {
		pr_warn("kjit: detaching: livepatch module %s is loading "
			"(translated copies would hide old functions from its "
			"consistency check)\n",
			why);
		if (__kjit_session_detach(kjit_current))
			pr_err("kjit: could not step aside for %s\n", why);
		else
			kjit_current->stepped_aside = true;
	}
	mutex_unlock(&kjit_mutex);
}

/* Detach and free everything (module unload). A diversion ftrace keeps
 * would send its function into freed code: unload cannot fail, so it
 * tries again, once a second, until ftrace lets go, saying so every
 * ten tries. */
void kjit_control_exit(void)
{
	unsigned int tries = 0;

	mutex_lock(&kjit_mutex);
	while (kjit_current && __kjit_session_detach(kjit_current)) {
		if (!(tries++ % 10))
			pr_err("kjit: unload waits until every diversion is "
			       "removed (try %u)\n",
			       tries);
		ssleep(1);
	}
	kjit_session_free(kjit_current);
	kjit_current = NULL;
	mutex_unlock(&kjit_mutex);
}

struct kjit_session *__kjit_current(void)
{
	return kjit_current;
}
