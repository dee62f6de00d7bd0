/*
 * names.c - names of fallback, refusal and counter codes.
 *
 * Invariants: fallback order is enum kjit_fallback in kmod/session.h; the
 * refusal texts are indexed by enum kjit_reason (jit/reason.h) and a host
 * test checks there is one for every code.
 */
#include <stdio.h>
#include "jit/instrument.h"
#include "jit/reason.h"
#include "kmod/kjit_ioctl.h"
#include "names.h"

static const char *const fb_key[] = {"nmi",	 "nested",	"refused",
				     "full",	 "ftrace_site", "rcu_idle",
				     "map_full", "growing",	"exiting"};
static const char *const fb_text[] = {
    "dispatcher entered in NMI context",
    "dispatcher re-entered on the same CPU",
    "translator refused the block",
    "code cache full (--cache-kb raises it)",
    "callee's ftrace site in use (Kprobe, tracer, livepatch): ran natively",
    "dispatcher entered where RCU is not watching (idle): ran natively",
    "block map full (--max-blocks raises it)",
    "block map growing: its next chunk had not come yet",
    "called by a task past exit_notify(): ran natively (entry trampoline)",
};

_Static_assert(sizeof(fb_key) / sizeof(fb_key[0]) == KJIT_FALLBACK_REASONS &&
		   sizeof(fb_text) / sizeof(fb_text[0]) ==
		       KJIT_FALLBACK_REASONS,
	       "a name and a text for every fallback reason");

static const char *const reason_texts[KJIT_R_COUNT] = {
    [KJIT_OK] = "translated",
    [KJIT_R_DECODE] = "bytes the decoder rejects",
    [KJIT_R_UNREADABLE] = "code bytes could not be read",
    [KJIT_R_PRIVILEGED_FLOW] =
	"privileged control transfer (iret, sysret, swapgs, far jump...)",
    [KJIT_R_TRAP] = "trap instruction (int3, ud2, int n, hlt...)",
    [KJIT_R_VMX] = "virtualisation instruction (vmlaunch, vmresume, vmrun)",
    [KJIT_R_TSX] = "transactional memory control (xbegin, xabort, xend)",
    [KJIT_R_RIP_FAR] = "RIP-relative operand out of rel32 reach of the cache",
    [KJIT_R_EIP_RELATIVE] = "32-bit RIP-relative operand",
    [KJIT_R_BRANCH_FAR] = "branch target out of rel32 reach of the cache",
    [KJIT_R_RSP_CALL] = "indirect call through %rsp",
    [KJIT_R_OPSIZE_BRANCH] = "branch with an operand- or address-size prefix",
    [KJIT_R_THUNK_COND] = "conditional jump to a retpoline or return thunk",
    [KJIT_R_FIXUP] = "instruction with an exception-table fixup",
    [KJIT_R_NO_SPACE] = "translation buffer too small",
    [KJIT_R_COUNTER] = "no counter available",
    [KJIT_R_BAD_ARG] = "internal error (bad argument)",
    [KJIT_R_STATIC_CALL] = "static_call site with no known trampoline",
    [KJIT_R_STATIC_CALL_PATCHING] =
	"tail static_call site caught mid-patch (jmp or jcc unknown)",
    [KJIT_R_IRQ_SHADOW] =
	"sti or mov ss whose next instruction must follow it (sti; hlt)",
    [KJIT_R_TRANSIENT_TARGET] = "branch into code the kernel may free "
				"(kprobe slot, ftrace or BPF trampoline)",
    [KJIT_R_STATIC_CALL_TRAMP] =
	"static call trampoline that is neither a jmp nor a ret now (return-0)",
};

const char *fallback_key(unsigned int i)
{
	return i < sizeof(fb_key) / sizeof(fb_key[0]) ? fb_key[i] : "?";
}

const char *fallback_text(unsigned int i)
{
	return i < sizeof(fb_text) / sizeof(fb_text[0]) ? fb_text[i]
							: "unknown fallback";
}

const char *reason_text(unsigned int r)
{
	if (r >= KJIT_R_COUNT || !reason_texts[r])
		return "unknown refusal";
	return reason_texts[r];
}

const char *names_counter(unsigned int form, unsigned int seq)
{
	static char buf[64];

	snprintf(buf, sizeof(buf), "%s/%s", kjit_ctr_form_name(form),
		 kjit_seq_name(seq));
	return buf;
}
