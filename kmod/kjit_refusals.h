/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kjit_refusals.h - refusal facts shared by kjit.ko (kmod/divert.c) and the
 * tool (tools/kernel/eligible.c, `kjit list`), so the two can never disagree.
 * String literals and one self-contained matcher: includable in the kernel
 * and in user space.
 */
#ifndef KJIT_REFUSALS_H
#define KJIT_REFUSALS_H

/* Functions the dispatcher itself calls: diverting them would only make
 * every dispatch fall back (busy flag), so they are refused outright.
 * The host test test_dispatch_deps derives from each kernel's kjit.ko the
 * functions it calls and fails on one missing here (its allow list says
 * why a few need no entry); copy_from_kernel_nofault_allowed,
 * search_kernel_exception_table, search_module_extables and bsearch are
 * called by those, which it does not follow. Deep mode's table adds the
 * last four when it takes in a callee (kjit's own spinlock; the pin on
 * the callee's module); irq_work_queue asks for a bigger block map
 * (kmod/grow.h). */
#define KJIT_DISPATCH_DEPS                                                     \
	"copy_from_kernel_nofault", "copy_from_kernel_nofault_allowed",        \
	    "search_exception_tables", "search_kernel_exception_table",        \
	    "search_module_extables", "__module_address", "bsearch",           \
	    "sched_clock", "preempt_schedule_notrace", "preempt_schedule",     \
	    "__x86_return_thunk", "rcu_is_watching", "ftrace_location",        \
	    "_raw_spin_lock_irqsave", "_raw_spin_unlock_irqrestore",           \
	    "try_module_get", "module_put", "irq_work_queue"

/* The idle path: code the idle task runs in a state translated code must
 * not be in. It sleeps in schedule_idle() (RCU-tasks ignores idle tasks),
 * the loops never return, and between ct_idle_enter() and ct_idle_exit()
 * RCU is not watching. Refused at attach and in deep mode, like the
 * sections named by KJIT_REFUSED_SECTIONS. */
#define KJIT_IDLE_PATH                                                         \
	"schedule_idle", "do_idle", "cpu_startup_entry", "start_secondary",    \
	    "play_idle_precise", "cpuidle_idle_call", "default_idle_call",     \
	    "call_cpuidle", "cpuidle_enter", "cpuidle_enter_state",            \
	    "cpuidle_enter_s2idle", "arch_cpu_idle", "arch_cpu_idle_enter",    \
	    "arch_cpu_idle_exit", "arch_cpu_idle_dead", "cpu_idle_poll"

/* Text sections whose code is never translated: {start, end, reason}. */
#define KJIT_REFUSED_SECTIONS                                                  \
	{"__entry_text_start", "__entry_text_end", "entry text"},              \
	    {"__noinstr_text_start", "__noinstr_text_end", "noinstr text"},    \
	{"__cpuidle_text_start", "__cpuidle_text_end",                         \
	 "cpuidle text (runs while RCU is not watching)"},                     \
	{                                                                      \
		"__kprobes_text_start", "__kprobes_text_end",                  \
		    ".kprobes.text (Kprobes' own code)"                        \
	}

/* Deep mode follows callees without an __fentry__ site too (notrace and
 * outlined inline functions, asm in .text, __schedule), but not in these
 * sections... */
#define KJIT_DEEP_NOTRACE_SECTIONS                                             \
	{"__static_call_text_start", "__static_call_text_end",                 \
	 KJIT_STATIC_CALL_TRAMP_WHY},                                          \
	{                                                                      \
		"__indirect_thunk_start", "__indirect_thunk_end",              \
		    "retpoline or return thunk"                                \
	}
/* ... and never these: ftrace's own trampolines, the speculation thunks
 * (their section has no bounds on every kernel), the preemption thunks. */
#define KJIT_DEEP_NOTRACE_DENY                                                 \
	"__fentry__", "ftrace_caller", "ftrace_regs_caller", "ftrace_stub",    \
	    "ftrace_stub_graph", "ftrace_graph_caller", "return_to_handler",   \
	    "__x86_return_thunk", "srso_return_thunk",                         \
	    "srso_alias_return_thunk", "retbleed_return_thunk",                \
	    "zen_untrain_ret", "srso_untrain_ret", "srso_alias_untrain_ret",   \
	    "entry_untrain_ret", "entry_ibpb", "preempt_schedule_thunk",       \
	    "preempt_schedule_notrace_thunk", "__preempt_schedule",            \
	    "__preempt_schedule_notrace"
#define KJIT_STATIC_CALL_TRAMP_WHY                                             \
	"static call trampoline (the kernel rewrites it at run time)"
#define KJIT_DEEP_NOTRACE_WHY                                                  \
	"no __fentry__ site, and kept native (ftrace, speculation or "         \
	"preemption thunk)"

/* Deep mode never follows these, whatever else says: they end the task,
 * or run with the task in a state translated code must not be in
 * (kmod/deep.c; the tool's eligible_deep_why()). schedule(), __schedule()
 * and the switch (__switch_to_asm, __switch_to) are followed: a task
 * switched out there sleeps at an exact return site of translated
 * __schedule, as in any callee that sleeps; the code after the stack
 * switch runs the next task's half of the switch, and its last ret goes
 * to what that task's stack holds (the cache or the kernel, whichever
 * switched it out; ret_from_fork for a new task). So does the preemption
 * of __cond_resched() (preempt_schedule_common). The other preemption
 * entries stay native (the dispatcher's preempt_enable() calls
 * preempt_schedule; preempt_schedule_irq runs from entry code). The last
 * switch of a dying task (do_task_dead) is followed where do_exit() is
 * followed past KJIT_LEAVE_AT (kmod/exittail.h); elsewhere nothing in the
 * cache reaches it. */
#define KJIT_DEEP_DENY                                                         \
	"preempt_schedule_irq", "preempt_schedule",                            \
	    "preempt_schedule_notrace", "make_task_dead",                      \
	    "rewind_stack_and_make_dead", "panic", "machine_restart",          \
	    "kernel_restart"
/* Calls that leave the cache (jit/env.h KJIT_SYM_LEAVE, jit/flow.c
 * emit_leave_call) unless the task can stay: the callee returns to the
 * original code after the call, so the rest of its caller runs natively.
 * do_exit() calls exit_tasks_rcu_start() just before exit_notify(), which
 * may unhash the dying task (its own release_task(), or its parent's
 * wait()); from then on detach's walk of the task list (kmod/quiesce.c)
 * cannot find it, and RCU-tasks waits for it only up to
 * exit_tasks_rcu_finish() (6.1) or its first voluntary switch (6.12).
 * So the task stays in the cache only where kjit can still find it: the
 * call goes to a helper that gives it a slot in a table of dying tasks
 * that quiesce scans too (kmod/exittail.h, jit/env.h stay_call); with no
 * slot free, or kjit.exit_tail=0, the call leaves. The
 * module checks at load that each KJIT_LEAVE_FROM function calls its
 * KJIT_LEAVE_AT function directly (kmod/env.c check_leaves(): the call, or
 * with call depth tracking a call of the thunk in its padding, which leaves
 * the same way); if a name is missing or the call is not there,
 * KJIT_DEEP_DENY_UNLESS_LEAVE joins the deny list (the tool's mirror,
 * tools/kernel/eligible.c, checks the names only). */
#define KJIT_LEAVE_AT		    "exit_tasks_rcu_start"
#define KJIT_LEAVE_FROM		    "do_exit" /* the caller of each, in order */
#define KJIT_DEEP_DENY_UNLESS_LEAVE "do_exit", "do_group_exit"

#define KJIT_DEEP_DENY_WHY                                                     \
	"on deep mode's deny list (ends or switches the task)"

#define KJIT_IDLE_PATH_WHY "idle path (run by the idle task)"

/* Sanitizer runtimes (KCSAN, KASAN, KMSAN, KCOV): a kernel built with one
 * calls these at each memory access or edge it instruments. They have no
 * __fentry__ site, so deep mode would follow them like any notrace callee, and
 * on a KCSAN kernel translate a runtime that then runs at every access of every
 * translated block: a session many times slower under TCG, and the counts would
 * be the sanitizer's, not the kernel's. They stay native: the call runs the
 * real hook, which returns to the cache. Matched by name prefix (the
 * runtimes have hundreds of entry points: __tsan_read4, __asan_load8,
 * ...); the module asks kallsyms only for core kernel text without an
 * __fentry__ site (kmod/refuse.c), the tool matches its symbol table
 * (tools/kernel/eligible.c). UBSAN's handlers are not here: they run
 * only when a check fails (Debian's 7.2 has them), like any callee. */
#define KJIT_SANITIZER_PREFIXES                                                \
	"__tsan_", "__kcsan_", "kcsan_", "__asan_", "__hwasan_",               \
	    "__kasan_check_", "kasan_check_range", "kasan_report", "__msan_",  \
	    "__sanitizer_cov_"
#define KJIT_SANITIZER_WHY                                                     \
	"sanitizer runtime (called at each access the kernel checks; kept "    \
	"native)"

/* Does @name (a symbol name) start with one of KJIT_SANITIZER_PREFIXES?
 * Plain loops, no library call: both sides share this one copy, and the
 * module's dispatcher runs it (strncmp() and strlen() are traceable
 * kernel functions; tests/host/test_dispatch_deps.c). */
static inline int kjit_sanitizer_name(const char *name)
{
	static const char *const prefixes[] = {KJIT_SANITIZER_PREFIXES};
	unsigned int i, k;

	for (i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
		for (k = 0; prefixes[i][k] && name[k] == prefixes[i][k]; k++)
			;
		if (!prefixes[i][k])
			return 1;
	}
	return 0;
}

/* CONFIG_CALL_PADDING (6.2+): the 16 bytes of NOPs before each function
 * carry a symbol of their own, __pfx_<function>. They are not a function:
 * the tool never lists them and neither side attaches them. */
#define KJIT_PADDING_PREFIX "__pfx_"
#define KJIT_PADDING_WHY                                                       \
	"not a function: the padding before one (__pfx_, CALL_PADDING)"

#endif
