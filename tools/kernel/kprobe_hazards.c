/*
 * kprobe_hazards.c - functions `kjit compare` leaves unprobed (see
 * kprobe_hazards.h for why).
 */
#include <string.h>
#include <unistd.h>
#include "kprobe_hazards.h"
#include "sysfiles.h"

/* Whole names. */
static const char *const hazard_names[] = {
    /* lockdep (kernel/locking/lockdep.c) */
    "lock_acquire", "lock_release", "lock_acquired", "lock_contended",
    "lock_sync", "lock_is_held_type", "lock_pin_lock", "lock_repin_lock",
    "lock_unpin_lock", "__lock_acquire", "__lock_release", "mark_lock",
    "mark_held_locks", "find_held_lock", "debug_locks_off",
    "look_up_lock_class", "register_lock_class", "validate_chain",
    "check_prev_add", "check_noncircular", "check_irq_usage",
    "reacquire_held_locks", "match_held_lock",
    /* the irq_enable/irq_disable tracepoints' helpers
     * (kernel/trace/trace_preemptirq.c) */
    "trace_irq_enable", "trace_irq_disable",
    /* RCU's lockdep checks (kernel/rcu/update.c, tree.c) */
    "rcu_is_watching", "rcu_read_lock_held", "rcu_read_lock_any_held",
    "rcu_read_lock_sched_held", "rcu_read_lock_bh_held",
    "rcu_read_lock_held_common", "rcu_lockdep_current_cpu_online",
    "debug_lockdep_rcu_enabled",
};

/* Prefixes. */
static const char *const hazard_prefixes[] = {
    "lockdep_",	      /* lockdep_hardirqs_on_prepare, lockdep_assert_* */
    "trace_hardirqs_", /* the irq-state tracer's entry points */
};

/* Length of @name without a "[module]" tag and a compiler suffix
 * (".constprop.0", ".isra.0", ".part.0", ".cold": the first '.' on). */
static size_t base_len(const char *name)
{
	size_t n = strcspn(name, ". [\t");

	return n;
}

int kprobe_hazard(const char *name)
{
	size_t n = base_len(name), i;

	for (i = 0; i < sizeof(hazard_names) / sizeof(hazard_names[0]); i++)
		if (strlen(hazard_names[i]) == n &&
		    !strncmp(name, hazard_names[i], n))
			return 1;
	for (i = 0; i < sizeof(hazard_prefixes) / sizeof(hazard_prefixes[0]);
	     i++)
		if (!strncmp(name, hazard_prefixes[i],
			     strlen(hazard_prefixes[i])))
			return 1;
	return 0;
}

int kprobe_lockdep_kernel(void)
{
	return access(sysfile(0, "/proc/lockdep"), F_OK) == 0;
}
