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
 * What it may clobber: %r11 and the arithmetic flags, dead at a function's
 * entry (%r11 is no argument register; ftrace's own caller does not keep
 * the flags either); %rax is pushed and restored. On a miss the stack holds
 * S+5 where an exit stub would have pushed its target, so the dispatcher
 * (kjit_dispatch_entry) translates S+5, the function's first block, and
 * sets the slot. `none` cannot happen while only registered sites call the
 * trampoline; it is the dispatcher's business all the same.
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

#define KJIT_ENTRY_TRAMP_MAX 96 /* bytes of trampoline code, int3 after */
#define KJIT_ENTRY_MIN_SIZE  16 /* smallest table */
#define KJIT_ENTRY_HASH	     0x9e3779b1u

/* Where the trampoline runs and what it reaches. */
struct kjit_entry_addrs {
	u64 run;      /* the trampoline's run address */
	u64 keys;     /* run address of keys[0] (absolute disp32) */
	u32 size;     /* slots, a power of two >= KJIT_ENTRY_MIN_SIZE */
	u64 slots_gs; /* %gs offset of the per-CPU pointer to slots[] */
	u64 dispatch; /* kjit_dispatch_entry */
	u64 thunk;    /* __x86_indirect_thunk_r11, or 0: `jmp *%r11` */
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
 * with int3 past the code); *@len gets the code's length. KJIT_R_BRANCH_FAR
 * if keys, the %gs offset, the dispatcher or the thunk is out of reach,
 * KJIT_R_BAD_ARG for a size that is no power of two or too small,
 * KJIT_R_NO_SPACE if @cap is short. */
enum kjit_reason kjit_entry_emit(u8 *buf, u32 cap,
				 const struct kjit_entry_addrs *a, u32 *len);

#endif /* KJIT_CODECACHE_ENTRY_H */
