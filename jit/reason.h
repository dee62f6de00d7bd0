/* reason.h - why the translator refused a block (one meaning per code).
 *
 * Invariants:
 *  - KJIT_OK is 0; every other value is a refusal: the caller runs the
 *    block natively, which is always legal. Nothing is half-emitted.
 *  - kjit_reason_name() has an entry for every value (checked by a host test).
 */
#ifndef KJIT_JIT_REASON_H
#define KJIT_JIT_REASON_H

#include "jit/types.h"

enum kjit_reason {
	KJIT_OK = 0,
	KJIT_R_DECODE,		/* decoder rejected the bytes */
	KJIT_R_UNREADABLE,	/* code bytes could not be read */
	KJIT_R_PRIVILEGED_FLOW, /* iret/sysret/sysexit/swapgs/far transfer... */
	KJIT_R_TRAP,		/* int3/int n/into/int1/ud0/ud1/ud2/hlt */
	KJIT_R_VMX,		/* vmlaunch/vmresume/vmrun etc. */
	KJIT_R_TSX,	     /* xbegin/xabort/xend: transaction control flow */
	KJIT_R_RIP_FAR,	     /* a RIP-relative operand out of rel32 reach */
	KJIT_R_EIP_RELATIVE, /* addr32 RIP-relative operand: truncated to 32
				bits */
	KJIT_R_BRANCH_FAR,   /* an exit or literal out of rel32 reach */
	KJIT_R_RSP_CALL, /* call [rsp+...] we cannot re-address after push */
	KJIT_R_OPSIZE_BRANCH, /* branch/ret with 66 prefix, or addr32 memory
				 target */
	KJIT_R_THUNK_COND,    /* conditional jump to a retpoline/return thunk */
	KJIT_R_FIXUP,	      /* instruction has an exception-table fixup */
	KJIT_R_NO_SPACE,      /* output buffer too small */
	KJIT_R_COUNTER,	      /* environment gave no counter */
	KJIT_R_BAD_ARG,	      /* caller error (null env, bad exit index...) */
	KJIT_R_STATIC_CALL,   /* static_call site whose trampoline is unknown */
	KJIT_R_STATIC_CALL_PATCHING, /* tail static_call site read mid-patch
					(int3): jmp or jcc cannot be told */
	KJIT_R_IRQ_SHADOW, /* sti/mov ss whose next instruction would start
			      another block (sti; hlt): both run natively */
	KJIT_R_TRANSIENT_TARGET,  /* direct branch into code the kernel may free
				     (kprobe slot, ftrace or BPF trampoline) */
	KJIT_R_STATIC_CALL_TRAMP, /* a followed static call trampoline that is
				     neither `jmp F` nor a NULL one's ret
				     when first reached (a return-0 static
				     call): it runs natively for the
				     session */
	KJIT_R_COUNT
};

/* Short stable name ("rip_far") for logs and reports; never NULL. */
const char *kjit_reason_name(enum kjit_reason r);

/* True when refusing the block at an address holds for as long as its code
 * stays as it is, so the refusal may be remembered (codecache/: exits to it
 * are linked straight to the original code). False for bytes caught while
 * the kernel patches them (an int3 that text_poke_bp() plants for a
 * moment, a half-written instruction, a page being remapped, a tail
 * static_call site mid-patch), for branches into a trampoline or kprobe
 * slot that its user will free, for lack of room, and for KJIT_OK: those
 * are tried again next time. */
bool kjit_reason_lasts(enum kjit_reason r);

#endif /* KJIT_JIT_REASON_H */
