/* entry.h - the shared entry trampoline: every attached function's
 * __fentry__ call lands in one trampoline, which finds the function from
 * the return address that call pushed (S+5, where S is the site) and jumps
 * to this CPU's translation of the function's first block.
 *
 * One trampoline serves every function, so one ftrace registration (one
 * ops, one target address, many sites) diverts them all, and detaching
 * waits for one grace period, not one per function.
 *
 * The table (built at attach, read-only while attached):
 *
 *     keys[size]   u32, the low half of each function's S+5 (0: empty);
 *                  open addressing, linear probing from
 *                  kjit_entry_hash(key), size a power of two >= 2 x n,
 *                  so a probe ends at the key or at an empty slot
 *     slots[size]  per CPU: u64, this CPU's translation of that S+5, or 0
 *                  until there is one (written by the dispatcher of that
 *                  CPU only, one aligned word: kjit_entry_set())
 *
 * Keys are low halves: every S+5 kjit diverts lies in the top 2 GiB, where
 * an address is its low 32 bits sign-extended (the caller checks). The
 * trampoline reaches keys[] with an absolute disp32, so keys[] must lie
 * there too, and this CPU's slots through a per-CPU pointer at a %gs
 * offset that fits in a disp32.
 *
 * The trampoline (KJIT_ENTRY_TRAMP_MAX bytes at most, int3 after it):
 *
 *     50                   push %rax
 *     8b 44 24 08          mov  0x8(%rsp),%eax        ; key: S+5's low half
 *     44 69 d8 <H32>       imul $H,%eax,%r11d         ; hash (Fibonacci)
 *     41 c1 eb <32-bits>   shr  $(32 - bits),%r11d    ; first slot
 *   probe:
 *     42 3b 04 9d <K32>    cmp  K(,%r11,4),%eax       ; keys[i] == key?
 *     74 <found>           je   found
 *     42 83 3c 9d <K32> 00 cmpl $0,K(,%r11,4)         ; empty: not ours
 *     74 <none>            je   none
 *     41 ff c3             inc  %r11d
 *     41 81 e3 <size-1>    and  $(size - 1),%r11d
 *     eb <probe>           jmp  probe
 *   found:
 *     65 48 8b 04 25 <G32> mov  %gs:G,%rax            ; this CPU's slots[]
 *     4e 8b 1c d8          mov  (%rax,%r11,8),%r11    ; its translation
 *     58                   pop  %rax
 *     4d 85 db             test %r11,%r11
 *     0f 84 <rel32>        jz   dispatch              ; none yet: [rsp] = S+5
 *     48 8d 64 24 08       lea  0x8(%rsp),%rsp        ; drop S+5
 *     e9 <rel32>           jmp  __x86_indirect_thunk_r11  (or 41 ff e3
 *                                                     jmp *%r11)
 *   none:
 *     58                   pop  %rax
 *     e9 <rel32>           jmp  dispatch              ; [rsp] = S+5
 *
 * Exiting tasks (struct kjit_entry_exiting) get a guard at "found", before
 * the slot is read, and a way out after "none":
 *
 *   found:
 *     65 48 8b 04 25 <C32> mov  %gs:C,%rax            ; current
 *     83 b8 <E32> 00       cmpl $0,E(%rax)            ; its exit_state
 *     0f 85 <exiting32>    jnz  exiting
 *   go: (the slot, as above)
 *   ...
 *   exiting:
 *     65 8b 04 25 <P32>    mov  %gs:P,%eax            ; the preempt count
 *     a9 <M32>             test $M,%eax               ; interrupt context:
 *     0f 85 <go32>         jnz  go                    ;   let in
 *     4a 8b 04 dd <X32>    mov  X(,%r11,8),%rax       ; counters[slot]
 *     f0 48 ff 00          lock incq (%rax)
 *     58                   pop  %rax
 *     (out, below)
 *
 * A dying task past exit_notify() may be unhashed (a self-reaping thread
 * is): quiesce walks the task list and would not see a cache return
 * address on its stack, and on 6.12 RCU-tasks lets an exiting task go at
 * its first voluntary switch. So it never enters: the function runs
 * natively, counted in the function's native row (reason "exiting").
 * Interrupt context on such a task is let in: it cannot sleep there.
 *
 * What it may clobber: %r11 and the arithmetic flags, dead at a function's
 * entry (%r11 is no argument register; ftrace's own caller does not keep
 * the flags either); %rax is pushed and restored. On a miss the stack holds
 * S+5 where an exit stub would have pushed its target, so the dispatcher
 * (kjit_dispatch_entry) translates S+5, the function's first block, and
 * sets the slot. `none` cannot happen while only registered sites call the
 * trampoline; it is the dispatcher's business all the same.
 *
 * Scope (kmod/scope.h): a session that counts only some tasks or CPUs, or
 * keeps kjit's own processes out (the default), gets a prologue that sends
 * every other call back, at once, to S+5 - the function then runs
 * natively, as if kjit were not there - before the table is touched. It
 * too clobbers only %r11 and the flags:
 *
 *   tasks (the current task's thread group, in task context only):
 *     65 44 8b 1c 25 <P32>  mov  %gs:P,%r11d          ; the preempt count
 *     41 f7 c3 <M32>        test $M,%r11d             ; NMI|hardirq|softirq?
 *     0f 85 <out32>         jnz  out
 *     65 4c 8b 1c 25 <C32>  mov  %gs:C,%r11           ; current
 *     45 8b 9b <T32>        mov  T(%r11),%r11d        ; its tgid
 *   cpus:
 *     65 44 8b 1c 25 <N32>  mov  %gs:N,%r11d          ; this CPU's number
 *   then, for both:
 *     41 81 fb <L32>        cmp  $L,%r11d             ; in the bitmap?
 *     0f 83 <out32>         jae  out
 *     4c 0f a3 1c 25 <B32>  bt   %r11,B               ; its bit (absolute B)
 *     0f 83 <out32>         jnc  out
 *     (the trampoline above)
 *   then, for every and cpus scopes with kjit's own thread groups kept
 *   out (own_bitmap: a call in task context by one of them goes out;
 *   interrupts and every other task go in):
 *     65 44 8b 1c 25 <P32>  mov  %gs:P,%r11d          ; the preempt count
 *     41 f7 c3 <M32>        test $M,%r11d
 *     0f 85 <in32>          jnz  in                   ; an interrupt: in
 *     65 4c 8b 1c 25 <C32>  mov  %gs:C,%r11           ; current
 *     45 8b 9b <T32>        mov  T(%r11),%r11d        ; its tgid
 *     41 81 fb <L32>        cmp  $L,%r11d
 *     0f 83 <in32>          jae  in                   ; past the bitmap
 *     4c 0f a3 1c 25 <O32>  bt   %r11,O               ; kjit's own?
 *     0f 82 <out32>         jc   out
 *   in:
 *     (the trampoline above)
 *   out:
 *     e9 <rel32>            jmp  R                    (or c3 ret): to S+5
 *
 * R returns the way the kernel's own returns do after boot patched them -
 * a ret, or a jmp to the return thunk the CPU needs (never
 * __x86_return_thunk itself: unpatched, it warns) - by being a module's
 * RET, patched at load (kmod/dispatch_entry.S).
 *
 * IBT: the trampoline is entered by ftrace's direct call or by
 * ftrace_regs_caller's RET, neither IBT-checked; its only indirect branch
 * is the jump through %r11, whose targets are the slots' values: only ever
 * translations, which begin with endbr64 when the kernel has IBT (jit/).
 * The miss goes to the dispatcher by a direct jz, so there is no miss stub
 * to mark. tests/host/test_entry.c decodes and runs the emitted bytes.
 */
#ifndef KJIT_CODECACHE_ENTRY_H
#define KJIT_CODECACHE_ENTRY_H

#include "jit/reason.h"
#include "jit/types.h"

#define KJIT_ENTRY_TRAMP_MAX 256 /* bytes of trampoline code, int3 after */
#define KJIT_ENTRY_MIN_SIZE  16 /* smallest table */
#define KJIT_ENTRY_HASH	     0x9e3779b1u

/* Who the trampoline lets in (kmod/scope.h); kind KJIT_ENTRY_ALL: every
 * call. Offsets and addresses must fit in a disp32. */
enum kjit_entry_scope_kind {
	KJIT_ENTRY_ALL,
	KJIT_ENTRY_TASKS, /* bitmap of thread group ids, task context only */
	KJIT_ENTRY_CPUS,  /* bitmap of CPU numbers */
};

struct kjit_entry_scope {
	u32 kind;	/* enum kjit_entry_scope_kind */
	u64 preempt_gs; /* TASKS, own: %gs offset of the preempt count (u32) */
	u32 irq_mask;	/* TASKS, own: its bits that mean "not task context" */
	u64 current_gs; /* TASKS, own: %gs offset of the current task */
	u32 tgid_off;	/* TASKS, own: offset of the tgid (u32) in a task */
	u64 cpu_gs;	/* CPUS: %gs offset of this CPU's number (u32) */
	u64 bitmap;	/* TASKS, CPUS: absolute address of the bitmap */
	u32 limit;	/* bits in it */
	u64 own_bitmap; /* ALL, CPUS: absolute address of a bitmap of thread
			 * group ids kept out (kjit's own), or 0: none */
	u32 own_limit;	/* bits in it */
	u64 ret_via;	/* a routine that returns as the kernel's own code
			 * does (kmod: kjit_entry_return), or 0: ret */
};

/* Exiting tasks: a call in task context by a task whose exit_state is set
 * (past exit_notify(): perhaps unhashed already, where detach's quiesce
 * cannot find it) goes back to S+5 at once, and adds one to its function's
 * counter (the u64 that counters[slot] points at: lock incq, a rare path).
 * current_gs 0: no such guard. Offsets and addresses fit in a disp32. */
struct kjit_entry_exiting {
	u64 current_gs;	    /* %gs offset of the current task pointer */
	u64 preempt_gs;	    /* %gs offset of the preempt count (u32) */
	u32 irq_mask;	    /* its bits that mean "not task context" */
	u32 exit_state_off; /* offset of exit_state (int) in a task */
	u64 counters;	    /* absolute address of u64 counters[size] */
	u64 ret_via;	    /* as kjit_entry_scope.ret_via */
};

/* Where the trampoline runs and what it reaches. */
struct kjit_entry_addrs {
	u64 run;      /* the trampoline's run address */
	u64 keys;     /* run address of keys[0] (absolute disp32) */
	u32 size;     /* slots, a power of two >= KJIT_ENTRY_MIN_SIZE */
	u64 slots_gs; /* %gs offset of the per-CPU pointer to slots[] */
	u64 dispatch; /* kjit_dispatch_entry */
	u64 thunk;    /* __x86_indirect_thunk_r11, or 0: `jmp *%r11` */
	struct kjit_entry_scope scope;
	struct kjit_entry_exiting exiting;
};

/* The table size for @n functions: a power of two >= 2 @n, at least
 * KJIT_ENTRY_MIN_SIZE; 0 if that does not fit in 31 bits. */
u32 kjit_entry_size(u32 n);

static inline u32 kjit_entry_hash(u32 key, u32 size)
{
	u32 bits = 0;

	while ((1u << bits) < size)
		bits++;
	return (u32)(key * KJIT_ENTRY_HASH) >> (32 - bits);
}

/* The key table being filled (at attach). */
struct kjit_entry_keys {
	u32 *keys; /* size slots, zeroed */
	u32 size;  /* a power of two */
	u32 used;
};

/* Put @key (nonzero) into @t; returns its slot, or -1 if the key is 0,
 * already there, or it would take the last empty slot. */
int kjit_entry_insert(struct kjit_entry_keys *t, u32 key);
/* The slot of @key in @keys[@size], or -1. Any context. */
int kjit_entry_find(const u32 *keys, u32 size, u32 key);

/* Emit the trampoline drawn above for @a into @buf (@cap bytes, filled
 * with int3 past the code), with the scope prologue @a->scope asks for;
 * *@len gets the code's length. KJIT_R_BRANCH_FAR if keys, a %gs offset,
 * the bitmap, the dispatcher or a thunk is out of reach,
 * KJIT_R_BAD_ARG for a size that is no power of two or too small,
 * KJIT_R_NO_SPACE if @cap is short. */
enum kjit_reason kjit_entry_emit(u8 *buf, u32 cap,
				 const struct kjit_entry_addrs *a, u32 *len);

/* The trampoline's stack for the unwinder (kmod/orc.c gives the code ORC
 * entries from it): from byte .off on, the return address the unwinder
 * goes on from is at rsp + .sp - 8, ORC's sp_offset for a CALL frame.
 * That is S+5, the fentry call's, at 8, or 16 below `push %rax`: the
 * trampoline is a callee of the function it diverts. After `lea 8(%rsp),
 * %rsp` it is the function's own return address at 8: the function, at
 * its first instruction, has not run yet. .sp 0 from the end of the code
 * on: nothing to unwind (int3). In address order, one point a change. */
struct kjit_entry_frame {
	u32 off;
	u32 sp;
};

#define KJIT_ENTRY_FRAMES 8

struct kjit_entry_frames {
	unsigned n;
	struct kjit_entry_frame f[KJIT_ENTRY_FRAMES];
};

/* kjit_entry_emit(), with the stack at every point in @fr. */
enum kjit_reason kjit_entry_emit_frames(u8 *buf, u32 cap,
					const struct kjit_entry_addrs *a,
					u32 *len, struct kjit_entry_frames *fr);

#endif /* KJIT_CODECACHE_ENTRY_H */
