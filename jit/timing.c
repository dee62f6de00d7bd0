/* timing.c - the calls of timed functions' entries and returns (see
 * timing.h). */
#include "jit/timing.h"
#include "jit/arch_x86.h"
#include "jit/emit.h"
#include "jit/translate.h"

/* push $fid; call @helper; lea 8(%rsp),%rsp */
static enum kjit_reason emit_time_call(struct kjit_emit *e, u64 helper,
				       int fid)
{
	enum kjit_reason r;

	kjit_emit_u8(e, KX86_OP_PUSH_I32);
	kjit_emit_u32(e, (u32)fid);
	kjit_emit_unwind_sp(e, 8);
	kjit_emit_u8(e, KX86_OP_CALL32);
	r = kjit_emit_rel32(e, helper);
	if (r)
		return r;
	kjit_emit_u8(e, KX86_REX | KX86_REX_W); /* lea 8(%rsp),%rsp */
	kjit_emit_u8(e, KX86_OP_LEA);
	kjit_emit_u8(e, KX86_MODRM(1, KX86_RSP, KX86_RM_SIB));
	kjit_emit_u8(e, KX86_SIB(0, KX86_SIB_NO_INDEX, KX86_RSP));
	kjit_emit_u8(e, 8);
	kjit_emit_unwind_sp(e, -8);
	return KJIT_OK;
}

static int fid_of(const struct kjit_translator *tr, u64 block, bool entry)
{
	const struct kjit_env *env = tr->env;

	if (!env->time_fid || !env->time_enter || !env->time_exit)
		return -1;
	return env->time_fid(env->opaque, block, entry);
}

enum kjit_reason kjit_timing_entry(struct kjit_translator *tr,
				   struct kjit_emit *e, u64 block)
{
	int fid = fid_of(tr, block, true);

	return fid < 0 ? KJIT_OK : emit_time_call(e, tr->env->time_enter, fid);
}

enum kjit_reason kjit_timing_return(struct kjit_translator *tr,
				    struct kjit_emit *e, u64 block)
{
	int fid = fid_of(tr, block, false);

	return fid < 0 ? KJIT_OK : emit_time_call(e, tr->env->time_exit, fid);
}
