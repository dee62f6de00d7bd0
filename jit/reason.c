/* reason.c - names of refusal reasons.
 *
 * Invariants: one name per enum kjit_reason value, index == value.
 */
#include "jit/reason.h"
#include "jit/types.h"

static const char *const reason_names[KJIT_R_COUNT] = {
    [KJIT_OK] = "ok",
    [KJIT_R_DECODE] = "decode",
    [KJIT_R_UNREADABLE] = "unreadable",
    [KJIT_R_PRIVILEGED_FLOW] = "privileged_flow",
    [KJIT_R_TRAP] = "trap",
    [KJIT_R_VMX] = "vmx",
    [KJIT_R_TSX] = "tsx",
    [KJIT_R_RIP_FAR] = "rip_far",
    [KJIT_R_EIP_RELATIVE] = "eip_relative",
    [KJIT_R_BRANCH_FAR] = "branch_far",
    [KJIT_R_RSP_CALL] = "rsp_call",
    [KJIT_R_OPSIZE_BRANCH] = "opsize_branch",
    [KJIT_R_THUNK_COND] = "thunk_cond",
    [KJIT_R_FIXUP] = "fixup",
    [KJIT_R_STATIC_CALL] = "static_call",
    [KJIT_R_STATIC_CALL_PATCHING] = "static_call_patching",
    [KJIT_R_IRQ_SHADOW] = "irq_shadow",
    [KJIT_R_TRANSIENT_TARGET] = "transient_target",
    [KJIT_R_STATIC_CALL_TRAMP] = "static_call_tramp",
    [KJIT_R_NO_SPACE] = "no_space",
    [KJIT_R_COUNTER] = "counter",
    [KJIT_R_BAD_ARG] = "bad_arg",
};

bool kjit_reason_lasts(enum kjit_reason r)
{
	return r != KJIT_OK && r != KJIT_R_TRAP && r != KJIT_R_DECODE &&
	       r != KJIT_R_UNREADABLE && r != KJIT_R_STATIC_CALL_PATCHING &&
	       r != KJIT_R_TRANSIENT_TARGET && r != KJIT_R_NO_SPACE &&
	       r != KJIT_R_COUNTER && r != KJIT_R_BAD_ARG &&
	       (unsigned)r < KJIT_R_COUNT;
}

const char *kjit_reason_name(enum kjit_reason r)
{
	if ((unsigned)r >= KJIT_R_COUNT || !reason_names[r])
		return "unknown";
	return reason_names[r];
}
