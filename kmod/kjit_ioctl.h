/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kjit_ioctl.h - the /dev/kjit control ABI, shared by kjit.ko and the kjit
 * tool.
 *
 * Invariants:
 *  - Every request struct begins with a __u32 `size` that the caller sets to
 *    sizeof(the struct it was compiled with). The module rejects a size it
 *    does not know with -EINVAL, so old tools fail loudly, never silently.
 *  - KJIT_ABI_VERSION goes up whenever a struct or an ioctl changes meaning;
 *    KJIT_IOC_VERSION is stable forever so a tool can always ask.
 *  - A failed request leaves the module's state unchanged.
 *  - Only callers with CAP_SYS_ADMIN may issue any request (-EPERM).
 */
#ifndef KJIT_IOCTL_H
#define KJIT_IOCTL_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define KJIT_DEVICE	 "/dev/kjit"
#define KJIT_ABI_VERSION 16

/* Dying tasks that may run the rest of do_exit() from the cache at once
 * (kmod/exittail.h; kjit_session_stats.exit_tail_left counts the others);
 * the module parameter kjit.exit_tail_max may set fewer. */
#define KJIT_EXIT_TAIL_MAX 512
#define KJIT_IOC_MAGIC	 0xB7

#define KJIT_NAME_MAX	  128 /* symbol names, including the NUL */
#define KJIT_MNEMONIC_MAX 24  /* Zydis mnemonic strings, including the NUL */
#define KJIT_DECODE_MAX	  256 /* most instructions one DECODE request returns */

/* KJIT_IOC_VERSION: which ABI and which build this module is. */
struct kjit_version {
	__u32 size;
	__u32 abi;	/* out: KJIT_ABI_VERSION of the module */
	char build[64]; /* out: module version string, NUL-terminated */
};

/* One instruction as the module's Zydis decoded it. */
struct kjit_decoded_insn {
	__u64 addr;	/* where it starts */
	__u8 length;	/* in bytes, 1..15 */
	__u8 bytes[15]; /* its bytes as read by the module */
	char mnemonic[KJIT_MNEMONIC_MAX];
};

/*
 * KJIT_IOC_DECODE: decode the first max_insns instructions at addr (or at the
 * kernel symbol `name` when addr is 0) with the module's own Zydis.
 * Errors: -ENOENT unknown symbol, -EINVAL bad size/max_insns/unterminated
 * name, -EFAULT unreadable user buffer or kernel text, -EILSEQ the first
 * instruction does not decode (count stays 0 for it; a later undecodable
 * instruction ends the list early without an error).
 */
struct kjit_decode {
	__u32 size;
	__u32 max_insns;	  /* in: 1..KJIT_DECODE_MAX */
	__u64 addr;		  /* in: start address, or 0 to use name */
	char name[KJIT_NAME_MAX]; /* in: symbol, when addr is 0 */
	__u64 insns;		  /* in: user pointer to max_insns entries */
	__u64 resolved;		  /* out: the address decoded */
	__u32 count;		  /* out: entries written */
	__u32 pad;
};

/* One function to attach; err and why are filled in by KJIT_IOC_ATTACH. */
struct kjit_target {
	char name[KJIT_NAME_MAX]; /* in: symbol, when addr is 0 */
	__u64 addr;		  /* in: function start, or 0 */
	__s32 err;		  /* out: 0 or -errno for this target */
	__u32 pad;
	char why[64]; /* out: refusal reason, NUL-terminated */
	/* in (ABI 16): an argument predicate, KernInst's "only when": the
	 * function runs from the cache, counted and timed, only on calls
	 * where argument if_arg (0..5: %rdi, %rsi, %rdx, %rcx, %r8, %r9)
	 * holds `arg OP if_value`, compared unsigned in if_bits (64, or 32:
	 * the low halves); every other call runs natively, uncounted
	 * (jit/predicate.h). if_op KJIT_IF_NONE (0): every call; any other
	 * field then 0. A bad predicate refuses the target (-EINVAL). */
	__u8 if_op;
	__u8 if_arg;
	__u8 if_bits;
	__u8 if_pad[5];
	__u64 if_value;
};

#define KJIT_IF_NONE 0
#define KJIT_IF_EQ   1 /* == */
#define KJIT_IF_NE   2 /* != */
#define KJIT_IF_LT   3 /* < */
#define KJIT_IF_LE   4 /* <= */
#define KJIT_IF_GT   5 /* > */
#define KJIT_IF_GE   6 /* >= */
#define KJIT_IF_ANY  7 /* &: any bit of if_value set */
#define KJIT_IF_OPS  8

/* Functions per attach (ABI 7; 64 before): a bound on the request's
 * memory (a target is 224 bytes, a function ~200 in the module), above
 * the ~50,000 text symbols of a distribution kernel with its modules. */
#define KJIT_MAX_TARGETS	(1u << 18)
#define KJIT_ATTACH_BEST_EFFORT 0x1 /* attach what can be, skip refusals */
#define KJIT_ATTACH_DEEP	0x2 /* also follow direct calls into callees */
#define KJIT_ATTACH_NO_COUNT                                                   \
	0x4 /* translate, link, but count nothing:                             \
	       the cost of running from the cache */
/* count each block in the bank of the thread group that runs it (ABI 14;
 * kmod/split.h): split_banks says how many banks and chunks, and
 * KJIT_IOC_SPLIT reads them */
#define KJIT_ATTACH_SPLIT 0x8
/* time every call of the functions (and, deep, their callees) from entry
 * to return (ABI 15; kmod/timing.h): KJIT_IOC_TIME reads it */
#define KJIT_ATTACH_TIME 0x10

/*
 * KJIT_IOC_ATTACH: divert n functions into the code cache and count their
 * basic blocks. All or nothing unless KJIT_ATTACH_BEST_EFFORT: any refused
 * target fails the request with its error (each target's err/why says which)
 * and nothing is attached; with it, refused targets (at resolution, or
 * held by another ftrace user at registration) are skipped, and the
 * request fails only when none is left. Errors: -EALREADY already attached
 * (detach first), -EBUSY a target is already redirected by another ftrace user
 * (livepatch, IPMODIFY; its why says so),
 * -EINVAL bad size/flags/n/pad, a limit out of its range, or duplicate
 * target, -ENOENT unknown symbol,
 * -EOPNOTSUPP a function kjit must not or cannot instrument, -E2BIG more
 * functions than this kernel's ftrace can divert at once (6.1: 8192; the
 * targets past it say so), -ENOMEM,
 * -EFAULT the request or targets cannot be read or written back (checked
 * before anything changes; should another thread unmap them during the
 * call, a successful attach is detached again before -EFAULT returns).
 * Attaching drops the results of the previous session.
 */
struct kjit_attach {
	__u32 size;
	__u32 flags;	/* KJIT_ATTACH_* */
	__u32 n;	/* in: 1..KJIT_MAX_TARGETS */
	__u32 attached; /* out: functions diverted (all attached functions
			 * share one trampoline: kjit_func_info.tramp) */
	__u64 targets;	/* in/out: user pointer, n entries */
	/* in: the session's limits, 0 for the module parameter of the same
	 * name (its default); all allocated at attach (ABI 5) */
	__u32 deep_max;	  /* deep table: callees followed, 1..KJIT_DEEP_MAX */
	__u32 cache_kb;	  /* code cache per CPU, KiB, 4..KJIT_CACHE_KB_MAX */
	__u32 max_blocks; /* block map per CPU, 16..KJIT_BLOCKS_MAX; the
			   * per-CPU counter table has 2 x max_blocks slots */
	/* with KJIT_ATTACH_SPLIT (ABI 14; 0 before, and without it): banks
	 * in bits 0..15 (3..KJIT_SPLIT_BANKS_MAX: "[other]", "[kernel]" and
	 * one per user process; 0: KJIT_SPLIT_BANKS), chunks of 4096 blocks
	 * a bank holds in bits 16..31 (1..4; 0: 1); else must be 0 */
	__u32 split_banks;
	__u64 mem_bytes;  /* out: memory the session reserved, all CPUs */
	/* in: who is counted (ABI 7): KJIT_SCOPE_ALL, or KJIT_SCOPE_TASKS
	 * (the thread group ids in scope_ids, task context only; with
	 * KJIT_SCOPE_CHILDREN also each process they fork while attached),
	 * or KJIT_SCOPE_CPUS (the CPU numbers in scope_ids); everything else
	 * runs natively, uncounted (kmod/scope.h). kjit's own processes
	 * (KJIT_IOC_SELF) are left out of KJIT_SCOPE_ALL and
	 * KJIT_SCOPE_CPUS unless KJIT_SCOPE_KJIT is set (ABI 13;
	 * kmod/own.h) */
	__u32 scope;
	__u32 scope_n;	 /* entries in scope_ids, 1..KJIT_SCOPE_MAX */
	__u64 scope_ids; /* user pointer to scope_n __u32 */
};

#define KJIT_SCOPE_ALL	    0
#define KJIT_SCOPE_TASKS    1
#define KJIT_SCOPE_CPUS	    2
#define KJIT_SCOPE_CHILDREN 0x100
#define KJIT_SCOPE_KJIT	    0x200 /* count kjit's own processes too */
/* with KJIT_SCOPE_TASKS | KJIT_SCOPE_CHILDREN only: the ids are a cgroup's
 * processes at attach (the tool's -G); a label kept for the reports */
#define KJIT_SCOPE_CGROUP   0x400
#define KJIT_SCOPE_MAX	    4096

#define KJIT_DEEP_MAX	  (1u << 20)
#define KJIT_CACHE_KB_MAX (256u << 10) /* 256 MiB per CPU */
#define KJIT_BLOCKS_MAX	  (1u << 22)

/* One translated block, its counts summed over CPUs. */
struct kjit_block_info {
	__u64 orig;	/* original start address */
	__u64 run;	/* a translation (lowest CPU's) */
	__u64 count;	/* executions, all CPUs */
	__u32 orig_len; /* bytes of original code */
	__u32 run_len;	/* bytes of that translation */
	__u32 func;	/* index into the attached functions */
	__u16 cpus;	/* CPUs that translated it */
	__u8 n_insns;
	__u8 seq;    /* counter's flags handling (enum kjit_flagsave,
			jit/translate.h: kjit_seq_name()) */
	__u32 flags; /* KJIT_BLOCK_* */
	__u8 ctr;    /* counter form (enum kjit_ctr_form: kjit_ctr_form_name())
			of the lowest CPU's translation */
	__u8 ctr_at; /* instruction the counter precedes (0: the entry) */
	__u16 reserved;
};

/*
 * Blocks whose count timing decides, not the workload: preempt_enable()
 * calls preempt_schedule (through its static call) only when a reschedule
 * became pending while preemption was off - a timer tick or a wake-up that
 * landed inside the region. Two runs of the same workload differ there.
 *  KJIT_BLOCK_PREEMPT      the block is that call (a preemption point)
 *  KJIT_BLOCK_PREEMPT_RET  the block begins where that call returns (it may
 *                          also be reached by other paths)
 */
#define KJIT_BLOCK_PREEMPT     (1u << 0)
#define KJIT_BLOCK_PREEMPT_RET (1u << 1)

/*
 * KJIT_IOC_BLOCKS: the blocks translated so far (attached or after detach),
 * sorted by original address. Writes min(max, total) entries. -ENOENT if no
 * session exists.
 */
struct kjit_blocks {
	__u32 size;
	__u32 max;     /* in: entries room at buf */
	__u64 buf;     /* in: user pointer */
	__u32 total;   /* out: blocks in the session */
	__u32 written; /* out */
};

/* by enum kjit_fallback: nmi nested refused full ftrace_site rcu_idle
 * map_full growing exiting (ABI 10) */
#define KJIT_FALLBACK_REASONS 9

/* An attached function, as KJIT_IOC_FUNCS reports it. */
struct kjit_func_info {
	char name[KJIT_NAME_MAX];
	__u64 start, end;
	__u64 tramp;	/* its entry trampoline */
	__u64 entry;	/* its entry block: the first one run per call (an
			 * attached function: after its __fentry__ site, at
			 * +5 or, behind endbr64, +9; a deep callee: start) */
	__u32 diverted; /* 1 while attached */
	__u32 deep;	/* 1: a callee followed in deep mode */
	/* (ABI 7) its code that ran natively instead of from the cache, by
	 * reason (the order of kjit_session_stats.fallback[]): ftrace_site
	 * counts the calls its entry guard sent native whole (a deep callee
	 * whose __fentry__ site a Kprobe, tracer or livepatch held); the
	 * others count dispatcher entries at its code that ran natively from
	 * there (code cache or block map full, a block the translator
	 * refused - once per CPU for a lasting refusal, whose exits are then
	 * linked to the original -, NMI, nested, RCU idle: the last three
	 * for attached functions only; a deep callee's are in the session
	 * total alone). */
	__u64 native[KJIT_FALLBACK_REASONS];
	/* (ABI 16) an attached function's argument predicate, as attached
	 * (kjit_target.if_*; if_op KJIT_IF_NONE: every call runs from the
	 * cache) */
	__u8 if_op;
	__u8 if_arg;
	__u8 if_bits;
	__u8 if_pad[5];
	__u64 if_value;
};

/*
 * KJIT_IOC_FUNCS: the attached functions, then the deep callees followed so
 * far (attached or after detach). Writes min(max, total) entries. -ENOENT
 * if no session exists, -EINVAL for a wrong size, info_size or pad.
 */
struct kjit_funcs {
	__u32 size;
	__u32 max;
	__u64 buf;	 /* in: user pointer to max entries */
	__u32 total;	 /* out */
	__u32 written;	 /* out */
	__u32 info_size; /* in: sizeof(struct kjit_func_info) (ABI 7) */
	__u32 pad;	 /* must be 0 */
};

#define KJIT_STAT_CPUS	    64
#define KJIT_COUNTER_FORMS  8 /* by enum kjit_ctr_form (jit/translate.h) */
#define KJIT_COUNTER_SEQS   8 /* by enum kjit_flagsave */
#define KJIT_REFUSE_REASONS 32

/* KJIT_IOC_STATS: session statistics (-ENOENT if no session). */
struct kjit_session_stats {
	__u32 size;
	__u32 ncpus;		     /* out: entries used in bytes[] */
	__u64 translated;	     /* blocks, all CPUs */
	__u64 links;		     /* exits linked to a successor */
	__u64 exits_native;	     /* exits that left the attached code */
	__u64 translate_ns;	     /* time spent translating */
	__u64 bytes[KJIT_STAT_CPUS]; /* code cache bytes used per CPU */
	__u64 fallback[KJIT_FALLBACK_REASONS]; /* by enum: nmi nested refused
						  full (code cache)
						  ftrace_site rcu_idle
						  map_full (block map)
						  growing (block map, on
						  its way: grow.h) */
	__u64 refused[KJIT_REFUSE_REASONS];    /* by translator reason code */
	__u32 attached;			       /* out: 1 while attached */
	__u32 n_funcs;
	__u64 dispatches;	/* entries into the dispatcher */
	__u64 native_links;	/* links straight to original code */
	__u64 lookup_hits;	/* dispatcher entries served by the
				 * indirect branch lookup table */
	__u32 deep;		/* 1: a deep session */
	__u32 deep_funcs;	/* callees followed */
	__u64 deep_over_budget; /* times a callee was left native because
				 * the deep table was full (deep_over_funcs:
				 * how many distinct callees) */
	__u32 watched;		/* 1: int3 Kprobes armed after attach are
				 * noticed (kmod/watch.c) */
	__u32 pad;
	__u64 patched;	    /* int3 Kprobes armed inside translated functions
			     * after attach: the cache's copies miss them */
	__u64 patched_addr; /* the first one's address */
	__u32 pcpu;	    /* 1: block counters in per-CPU memory, incq %gs:;
			     * 0: lock incq (kjit.lock_counters=1, or no
			     * per-CPU memory); 2: no counting
			     * (KJIT_ATTACH_NO_COUNT) */
	__u32 pcpu_used;    /* per-CPU counter slots in use */
	__u64 pcpu_full;    /* blocks counted with lock incq instead: the
			     * per-CPU table was full */
	/* limits in force (ABI 5; kjit_attach) and how full each got */
	__u32 deep_max;	       /* deep table capacity, functions */
	__u32 deep_over_funcs; /* distinct callees left native: table full
				* (saturates at deep_max + 1: "at least") */
	__u32 cache_kb;	       /* code cache per CPU, KiB */
	__u32 max_blocks;      /* block map per CPU, blocks */
	__u32 pcpu_slots;      /* per-CPU counter table capacity */
	__u32 blocks_cpu_max;  /* blocks in the fullest CPU's map */
	__u64 mem_bytes;       /* memory the session reserved, all CPUs */
	/* translations (all CPUs) by counter form and flags handling:
	 * [kjit_ctr_form][kjit_flagsave], named by kjit_ctr_form_name() and
	 * kjit_seq_name() (jit/instrument.h) */
	__u64 counters[KJIT_COUNTER_FORMS][KJIT_COUNTER_SEQS];
	__u64 predicted; /* targets of followed indirect calls given an
			  * inline prediction, one per way filled (ABI 6) */
	/* the code pool and the cache's side tables (ABI 7) */
	__u64 fixups_copied; /* instructions with exception-table entries
			      * copied into the cache, each with an entry of
			      * its own (were refused: fixup) */
	__u64 orc_entries;   /* ORC entries written for translated code */
	__u64 pool_bytes;    /* the code pool (kjit_pool.ko), all CPUs' */
	__u64 pool_taken;    /* of it taken by this session's caches */
	__u64 pool_empty;    /* times a cache wanted room and the pool had
			      * none left (the block ran natively: full) */
	__u32 stepped_aside; /* 1: detached because a livepatch module
			      * loaded (kmod/livepatch.h) */
	__u32 scope;	     /* the session's KJIT_SCOPE_* (kjit_attach) */
	/* the deep table grows (ABI 8; kmod/deep.h) */
	__u32 deep_held; /* entries it holds room for now (<= deep_max) */
	/* the per-CPU counter table grows (ABI 9; kmod/pcpu.h) */
	__u32 pcpu_held; /* counters with memory now (<= pcpu_slots) */
	__u64 deep_growing; /* calls to callees run natively because the
			     * table's room had not come yet (not a
			     * limit: a later call is followed) */
	__u64 pcpu_growing; /* translations counted with lock incq because
			     * their block's per-CPU counter had no memory
			     * yet (exact; not a limit) */
	/* dying tasks and the rest of do_exit() (ABI 11; kmod/exittail.h:
	 * at most KJIT_EXIT_TAIL_MAX there at once) */
	__u32 exit_tail; /* 1: they run it from the cache, 0: they
			  * leave at KJIT_LEAVE_AT (kjit.exit_tail=0,
			  * or the kernel's do_exit() does not allow
			  * it) */
	__u32 exit_tail_max;	/* the table of dying tasks' size
				 * (kjit.exit_tail_max) */
	__u64 exit_tail_stayed; /* dying tasks that ran it from the cache */
	__u64 exit_tail_left;	/* ... that left for want of a slot in the
				 * table of dying tasks (KJIT_EXIT_TAIL_MAX
				 * at once): it ran natively */
};

#define KJIT_IOC_VERSION _IOWR(KJIT_IOC_MAGIC, 0x00, struct kjit_version)
#define KJIT_IOC_DECODE	 _IOWR(KJIT_IOC_MAGIC, 0x01, struct kjit_decode)
#define KJIT_IOC_ATTACH	 _IOWR(KJIT_IOC_MAGIC, 0x02, struct kjit_attach)
/* KJIT_IOC_DETACH: stop diversion; results stay readable. -ENOENT if not
 * attached. */
#define KJIT_IOC_DETACH _IO(KJIT_IOC_MAGIC, 0x03)
#define KJIT_IOC_BLOCKS _IOWR(KJIT_IOC_MAGIC, 0x04, struct kjit_blocks)
#define KJIT_IOC_FUNCS	_IOWR(KJIT_IOC_MAGIC, 0x05, struct kjit_funcs)
#define KJIT_IOC_STATS	_IOWR(KJIT_IOC_MAGIC, 0x06, struct kjit_session_stats)
/* KJIT_IOC_RESET: zero every counter of the session. -ENOENT if none. */
#define KJIT_IOC_RESET _IO(KJIT_IOC_MAGIC, 0x07)
/* KJIT_IOC_OWN: the open /dev/kjit this is called on owns the attached
 * session: when that file is closed for the last time (its process exits
 * or is killed, and no child kept it), the session is detached, as by
 * KJIT_IOC_DETACH. kjit record owns its session. A detach or a new attach
 * ends the ownership. -ENOENT if nothing is attached. */
#define KJIT_IOC_OWN _IO(KJIT_IOC_MAGIC, 0x08)
/* KJIT_IOC_SELF (ABI 13): the calling process is kjit's own while the file
 * this is called on stays open: sessions leave it out of KJIT_SCOPE_ALL
 * and KJIT_SCOPE_CPUS (unless KJIT_SCOPE_KJIT), in task context
 * (kmod/own.h). The kjit tool calls it first thing. -ENOSPC past 64 such
 * processes at once. */
#define KJIT_IOC_SELF _IO(KJIT_IOC_MAGIC, 0x09)

/*
 * KJIT_IOC_SPLIT (ABI 14): one bank of a split session (KJIT_ATTACH_SPLIT)
 * - the counts of bank @bank (0 "[other]", 1 "[kernel]", 2.. a user
 * process), or with KJIT_SPLIT_CPU | cpu every bank's counts on that CPU -
 * as (original block address, count) pairs of the blocks it counted,
 * since the last reset; attached or after detach. Blocks numbered past
 * the banks' chunks count whole, not split: @unsplit says how many.
 * Errors: -ENOENT no session, -EOPNOTSUPP the session is not split,
 * -EINVAL bad size, bank or cpu, -EFAULT.
 */
#define KJIT_SPLIT_BANKS 32	    /* banks by default */
#define KJIT_SPLIT_BANKS_MAX 1024
#define KJIT_SPLIT_CPU	 0x80000000u
struct kjit_split_count {
	__u64 orig;
	__u64 count;
};
struct kjit_split_read {
	__u32 size;
	__u32 bank;	 /* in: a bank, or KJIT_SPLIT_CPU | cpu */
	__u32 max;	 /* in: room in buf */
	__u32 written;	 /* out: pairs written */
	__u64 buf;	 /* in: user pointer, max struct kjit_split_count */
	__u32 total;	 /* out: blocks with a count there (> max: cut) */
	__u32 n_banks;	 /* out: the session's banks */
	__u32 used;	 /* out: banks handed out, the two fixed ones too */
	__u32 tgid;	 /* out: the bank's thread group (0: fixed, unused) */
	char comm[16];	 /* out: its command (as the group leader had it) */
	__u64 left_over; /* out: switch-ins of groups that found no bank */
	__u32 split;	 /* out: blocks split (numbered below the chunks) */
	__u32 unsplit;	 /* out: blocks counted whole, past the chunks */
};
#define KJIT_IOC_SPLIT _IOWR(KJIT_IOC_MAGIC, 0x0a, struct kjit_split_read)

/*
 * KJIT_IOC_TIME (ABI 15): a timed session's (KJIT_ATTACH_TIME) per-function
 * time, summed over CPUs, since the last reset: for the functions with
 * ids first.. (the session's function indices, as KJIT_IOC_FUNCS lists
 * them) that were called, their calls and TSC cycles (inclusive: entry
 * to return; exclusive: less the timed callees'; virtual: less the time
 * the task was switched out) and a log2 histogram of the inclusive
 * cycles (bucket b: 2^(b-1) <= cycles < 2^b; the last holds the rest).
 * Errors: -ENOENT no session, -EOPNOTSUPP not timed, -EINVAL bad size,
 * -EFAULT.
 */
#define KJIT_TIME_BUCKETS 48
struct kjit_time_func {
	__u32 fid;
	__u32 pad;
	__u64 calls, incl, excl, virt;
	__u64 hist[KJIT_TIME_BUCKETS];
};
struct kjit_time_read {
	__u32 size;
	__u32 first;	/* in: the first function id to look at */
	__u32 max;	/* in: room in buf */
	__u32 written;	/* out: entries (called functions only) */
	__u64 buf;	/* in: user pointer, max struct kjit_time_func */
	__u32 next;	/* out: the id to go on from (max_fid: done) */
	__u32 max_fid;	/* out: functions timed (ids below it) */
	__u64 tsc_khz;	/* out: the kernel's TSC rate, cycles per ms */
	__u64 untimed;	/* out: calls not timed (no record, too deep, id) */
	__u64 lost;	/* out: calls whose return ran natively */
	__u32 recs;	/* out: task records in the pool ... */
	__u32 recs_used; /* ... and claimed */
};
#define KJIT_IOC_TIME _IOWR(KJIT_IOC_MAGIC, 0x0b, struct kjit_time_read)

/*
 * KJIT_IOC_TPATHS (ABI 15): a timed session's call paths, the calling
 * context tree its calls made: node ids from first on, as many as fit,
 * each with its caller's node (KJIT_TPATH_NONE: a root call), its
 * function id, and its calls and TSC cycles summed over CPUs since the
 * last reset (every node claimed, so that each node's chain of callers is
 * there, whether it returned yet or not). A call whose path
 * found no room is timed per function only (full). Errors as
 * KJIT_IOC_TIME's.
 */
#define KJIT_TPATH_NONE 0xffffffffu
struct kjit_tpath_info {
	__u32 node, parent, fid, pad;
	__u64 calls, incl, excl;
};
struct kjit_tpath_read {
	__u32 size;
	__u32 first;   /* in: the first node to look at */
	__u32 max;     /* in: room in buf */
	__u32 written; /* out: entries */
	__u64 buf;     /* in: user pointer, max struct kjit_tpath_info */
	__u32 next;    /* out: the node to go on from (n_paths: done) */
	__u32 n_paths; /* out: room for nodes ... */
	__u32 used;    /* ... and nodes claimed */
	__u32 pad;
	__u64 full;    /* out: calls whose path found no node */
};
#define KJIT_IOC_TPATHS _IOWR(KJIT_IOC_MAGIC, 0x0c, struct kjit_tpath_read)

#endif /* KJIT_IOCTL_H */
