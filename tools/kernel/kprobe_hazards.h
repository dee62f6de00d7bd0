/* kprobe_hazards.h - kernel functions a counting Kprobe of `kjit compare`
 * must not sit on, though the kernel takes one there.
 *
 * They are the kernel's debug machinery that its own int3 handling and
 * every lock operation run: lockdep (lock_acquire, mark_lock, ...), the
 * irq-state tracer (trace_hardirqs_*, the irq_enable/irq_disable
 * tracepoint helpers) and RCU's lockdep checks (rcu_is_watching,
 * rcu_read_lock_*held, ...). Deep mode follows them on a debug kernel
 * (the KASAN + lockdep one: lockdep.o has no __fentry__ sites), and the
 * kernel marks only some of them NOKPROBE. A Kprobe on each one at a time
 * works, slowly: every lock of the system traps. All of them at once, as
 * a deep compare of ksys_read arms them, nested int3 inside the int3
 * handler's own entry and exit (irqentry_nmi_enter/exit call the tracer
 * and lockdep) until the NMI count was full: "kernel BUG at
 * kernel/entry/common.c:375" repeating, or a reset with no message.
 *
 * On a lockdep kernel every deep callee is left out, not only these: each
 * lock of the system runs lockdep's and the debug spinlocks' out-of-line
 * code (do_raw_spin_lock, ...), which deep mode follows too, so Kprobes
 * on the callees trap on every lock of every task: with the functions
 * above left out, a deep compare of ksys_read (1 run of 5 reads) had not
 * finished after 30 minutes on the KASAN + lockdep kernel under TCG.
 *
 * Invariants:
 *  - A name is matched with its compiler suffix (".constprop.0", ".isra.0",
 *    ".part.0", ".cold") and its "[module]" tag taken off.
 *  - Only deep callees are left out: every function the user attached is
 *    probed. On a kernel without lockdep only the functions named here.
 */
#ifndef KJIT_TOOL_KPROBE_HAZARDS_H
#define KJIT_TOOL_KPROBE_HAZARDS_H

/* Why such a function is left unprobed, for the legend. */
#define KPROBE_HAZARD_WHY                                                      \
	"the kernel's debug machinery (lockdep, the irq-state tracer, RCU's "  \
	"lockdep checks), which its int3 handling and every lock run: "        \
	"Kprobes there trap on every lock and, all at once, nest int3 in "     \
	"the int3 handler past the NMI count"

#define KPROBE_LOCKDEP_WHY                                                     \
	"a deep callee on a lockdep kernel: every lock runs lockdep's and "    \
	"the debug spinlocks' code, which deep mode follows, so Kprobes "      \
	"on the callees trap on every lock of every task (and, on "           \
	"lockdep itself, nest int3 in the int3 handler past the NMI count)"

/* 1 if a counting Kprobe must not sit in function @name, else 0. */
int kprobe_hazard(const char *name);

/* 1 if the running kernel has lockdep (/proc/lockdep, through sysfile():
 * KJIT_SYSROOT in tests), else 0. */
int kprobe_lockdep_kernel(void);

#endif
