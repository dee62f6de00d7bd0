/*
 * test_kprobe_hazards.c - which functions `kjit compare` leaves unprobed
 * (tools/kernel/kprobe_hazards.h): the kernel's debug machinery that its
 * int3 handling and every lock run, with their compiler clones and module
 * tags, and nothing else.
 */
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include "check.h"
#include "tools/kernel/kprobe_hazards.h"

/* kprobe_lockdep_kernel() reads /proc/lockdep under KJIT_SYSROOT. */
static void lockdep_kernel(void)
{
	char dir[] = "/tmp/kjit-hazards-XXXXXX", path[64];

	if (!mkdtemp(dir)) {
		check("kprobe_hazards.lockdep_kernel", 0, "mkdtemp");
		return;
	}
	setenv("KJIT_SYSROOT", dir, 1);
	check("kprobe_hazards.no_lockdep", !kprobe_lockdep_kernel(),
	      "a kernel without /proc/lockdep taken for a lockdep kernel");
	snprintf(path, sizeof(path), "%s/proc", dir);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/proc/lockdep", dir);
	fclose(fopen(path, "w"));
	check("kprobe_hazards.lockdep", kprobe_lockdep_kernel(),
	      "a kernel with /proc/lockdep not taken for a lockdep kernel");
	unlink(path);
	snprintf(path, sizeof(path), "%s/proc", dir);
	rmdir(path);
	rmdir(dir);
	unsetenv("KJIT_SYSROOT");
}

int main(void)
{
	static const char *const left_out[] = {
	    "lock_acquire", "lock_release", "__lock_acquire", "mark_lock",
	    "mark_held_locks", "lockdep_hardirqs_on_prepare",
	    "lockdep_assert_rq_held", "trace_hardirqs_on",
	    "trace_irq_enable.constprop.0", "trace_irq_disable.constprop.0",
	    "rcu_is_watching", "rcu_read_lock_any_held",
	    "rcu_lockdep_current_cpu_online", "find_held_lock.isra.0",
	    "lock_acquire [somemod]"};
	static const char *const probed[] = {
	    "ksys_read", "vfs_read", "lock_acquire_x", "xlock_acquire",
	    "_raw_spin_lock", "__rcu_read_lock", "rcu_note_context_switch",
	    "trace_irq_enabled_x", "trace_sched_stat_runtime", "mark_lock_",
	    "lockd_up", "rcu_is_watching_curr_cpu", "lock_torture_init"};
	char why[160];
	unsigned int i;

	for (i = 0; i < sizeof(left_out) / sizeof(left_out[0]); i++) {
		snprintf(why, sizeof(why), "'%s' would be probed", left_out[i]);
		check("kprobe_hazards.left_out", kprobe_hazard(left_out[i]),
		      why);
	}
	for (i = 0; i < sizeof(probed) / sizeof(probed[0]); i++) {
		snprintf(why, sizeof(why), "'%s' would be left out", probed[i]);
		check("kprobe_hazards.probed", !kprobe_hazard(probed[i]), why);
	}
	lockdep_kernel();
	return failures != 0;
}
