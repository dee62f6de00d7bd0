/* entry.c - the shared entry trampoline and its key table (layout and
 * rules in entry.h).
 *
 * Invariants:
 *  - The table always keeps an empty slot (size >= 2 x keys), so a probe
 *    for an absent key ends.
 *  - The emitted bytes are those drawn in entry.h, each run named by its
 *    mnemonic; tests/host/test_entry.c decodes them back and runs them.
 */
#include "codecache/entry.h"
#include "jit/emit.h"

u32 kjit_entry_size(u32 n)
{
	u32 size = KJIT_ENTRY_MIN_SIZE;

	while (size < 2 * (u64)n) {
		if (size >= (1u << 30))
			return 0;
		size <<= 1;
	}
	return size;
}

int kjit_entry_insert(struct kjit_entry_keys *t, u32 key)
{
	u32 i = kjit_entry_hash(key, t->size);

	if (!key || t->used + 1 >= t->size)
		return -1;
	for (; t->keys[i]; i = (i + 1) & (t->size - 1))
		if (t->keys[i] == key)
			return -1;
	t->keys[i] = key;
	t->used++;
	return (int)i;
}

int kjit_entry_find(const u32 *keys, u32 size, u32 key)
{
	u32 i = kjit_entry_hash(key, size), n;

	for (n = 0; key && n < size; n++, i = (i + 1) & (size - 1)) {
		if (keys[i] == key)
			return (int)i;
		if (!keys[i])
			break;
	}
	return -1;
}

static bool fits_s32(u64 v)
{
	return (u64)(s64)(s32)v == v;
}

/* 42 <op> <modrm> 9d <K32>: op K(,%r11,4) with no base. */
static void emit_keys_operand(struct kjit_emit *e, u8 op, u8 modrm, u32 keys)
{
	/* REX.X: index r11 */
	kjit_emit_u8(e, 0x42);
	kjit_emit_u8(e, op);
	/* mod 00, rm 100: SIB */
	kjit_emit_u8(e, modrm);
	/* SIB: scale 4, index r11, no base */
	kjit_emit_u8(e, 0x9d);
	kjit_emit_u32(e, keys);
}

static void emit_bytes(struct kjit_emit *e, const u8 *b, unsigned n)
{
	while (n--)
		kjit_emit_u8(e, *b++);
}

/* Rel8 field at @at, for a jump that ends at @at + 1, to offset @to. */
static void patch_rel8(struct kjit_emit *e, u32 at, u32 to)
{
	if (at < e->cap)
		e->buf[at] = (u8)(s8)((s32)to - (s32)(at + 1));
}

/* The probe loop (from "probe:" to "jmp probe"); *@found and *@none get
 * the offsets of the two rel8 fields that leave it. */
static void emit_probe(struct kjit_emit *e, const struct kjit_entry_addrs *a,
		       u32 *found, u32 *none)
{
	u32 probe = e->pos;

	/* cmp K(,%r11,4),%eax */
	emit_keys_operand(e, 0x3b, 0x04, (u32)a->keys);
	/* je found */
	kjit_emit_u8(e, 0x74);
	*found = e->pos;
	kjit_emit_u8(e, 0);
	/* cmpl $0,K(,%r11,4) */
	emit_keys_operand(e, 0x83, 0x3c, (u32)a->keys);
	/* ... imm8 0 */
	kjit_emit_u8(e, 0);
	/* je none */
	kjit_emit_u8(e, 0x74);
	*none = e->pos;
	kjit_emit_u8(e, 0);
	/* inc %r11d */
	emit_bytes(e, (const u8 *)"\x41\xff\xc3", 3);
	/* and $imm32,%r11d */
	emit_bytes(e, (const u8 *)"\x41\x81\xe3", 3);
	kjit_emit_u32(e, a->size - 1);
	/* jmp probe */
	kjit_emit_u8(e, 0xeb);
	kjit_emit_u8(e, 0);
	patch_rel8(e, e->pos - 1, probe);
}

/* From here on the unwinder finds the return address at rsp + @sp - 8
 * (entry.h, struct kjit_entry_frames); @fr may be NULL. */
static void frame_at(struct kjit_entry_frames *fr, u32 off, u32 sp)
{
	if (!fr || (fr->n && fr->f[fr->n - 1].sp == sp))
		return;
	if (fr->n && fr->f[fr->n - 1].off == off)
		fr->n--; /* replaced by a later word on the same byte */
	if (fr->n < KJIT_ENTRY_FRAMES) {
		fr->f[fr->n].off = off;
		fr->f[fr->n].sp = sp;
		fr->n++;
	}
}

/* The exiting guard at "found" (entry.h): current's exit_state, the
 * common case (0) falling through to "go"; returns the offset of its
 * "jnz exiting" rel32 field. */
static u32 emit_exiting_guard(struct kjit_emit *e,
			      const struct kjit_entry_exiting *x)
{
	u32 field;

	/* mov %gs:C,%rax */
	emit_bytes(e, (const u8 *)"\x65\x48\x8b\x04\x25", 5);
	kjit_emit_u32(e, (u32)x->current_gs);
	/* cmpl $0,E(%rax) */
	emit_bytes(e, (const u8 *)"\x83\xb8", 2);
	kjit_emit_u32(e, x->exit_state_off);
	kjit_emit_u8(e, 0);
	/* jnz exiting */
	emit_bytes(e, (const u8 *)"\x0f\x85", 2);
	field = e->pos;
	kjit_emit_u32(e, 0);
	return field;
}

/* exiting: in interrupt context back to "go" (@go); else count the call
 * in its function's counter, %rax back; "out" follows. */
static void emit_exiting(struct kjit_emit *e,
			 const struct kjit_entry_exiting *x, u32 field, u32 go,
			 struct kjit_entry_frames *fr)
{
	kjit_emit_put32(e, field, e->pos - (field + 4));
	frame_at(fr, e->pos, 16);
	/* mov %gs:P,%eax */
	emit_bytes(e, (const u8 *)"\x65\x8b\x04\x25", 4);
	kjit_emit_u32(e, (u32)x->preempt_gs);
	/* test $M,%eax */
	kjit_emit_u8(e, 0xa9);
	kjit_emit_u32(e, x->irq_mask);
	/* jnz go */
	emit_bytes(e, (const u8 *)"\x0f\x85", 2);
	kjit_emit_u32(e, go - (e->pos + 4));
	/* mov X(,%r11,8),%rax */
	emit_bytes(e, (const u8 *)"\x4a\x8b\x04\xdd", 4);
	kjit_emit_u32(e, (u32)x->counters);
	/* lock incq (%rax) */
	emit_bytes(e, (const u8 *)"\xf0\x48\xff\x00", 4);
	/* pop %rax */
	kjit_emit_u8(e, 0x58);
	frame_at(fr, e->pos, 8);
}

/* found: load this CPU's slot; miss -> dispatcher, else into the
 * translation through the thunk. With the exiting guard, *@exiting gets
 * its jump's field and *@go where the slot is read. */
static enum kjit_reason emit_found(struct kjit_emit *e,
				   const struct kjit_entry_addrs *a,
				   struct kjit_entry_frames *fr, u32 *exiting,
				   u32 *go)
{
	enum kjit_reason r;

	if (a->exiting.current_gs)
		*exiting = emit_exiting_guard(e, &a->exiting);
	*go = e->pos;
	/* mov %gs:G,%rax */
	emit_bytes(e, (const u8 *)"\x65\x48\x8b\x04\x25", 5);
	kjit_emit_u32(e, (u32)a->slots_gs);
	/* mov (%rax,%r11,8),%r11 */
	emit_bytes(e, (const u8 *)"\x4e\x8b\x1c\xd8", 4);
	/* pop %rax */
	kjit_emit_u8(e, 0x58);
	frame_at(fr, e->pos, 8);
	/* test %r11,%r11 */
	emit_bytes(e, (const u8 *)"\x4d\x85\xdb", 3);
	/* jz dispatch */
	emit_bytes(e, (const u8 *)"\x0f\x84", 2);
	r = kjit_emit_rel32(e, a->dispatch);
	if (r)
		return r;
	/* lea 8(%rsp),%rsp */
	emit_bytes(e, (const u8 *)"\x48\x8d\x64\x24\x08", 5);
	if (!a->thunk) {
		/* jmp *%r11 */
		emit_bytes(e, (const u8 *)"\x41\xff\xe3", 3);
		return KJIT_OK;
	}
	/* jmp __x86_indirect_thunk_r11 */
	kjit_emit_u8(e, 0xe9);
	return kjit_emit_rel32(e, a->thunk);
}

/* mov %gs:@gs,%r11 (64-bit: @wide) or %r11d */
static void emit_gs_load(struct kjit_emit *e, u64 gs, bool wide)
{
	kjit_emit_u8(e, 0x65);
	kjit_emit_u8(e, wide ? 0x4c : 0x44);
	emit_bytes(e, (const u8 *)"\x8b\x1c\x25", 3);
	kjit_emit_u32(e, (u32)gs);
}

/* jcc rel32 (0f @cc) to be patched to "out"; its field's offset. */
static u32 emit_jcc_out(struct kjit_emit *e, u8 cc)
{
	kjit_emit_u8(e, 0x0f);
	kjit_emit_u8(e, cc);
	kjit_emit_u32(e, 0);
	return e->pos - 4;
}

/* Does @s emit a prologue? */
static bool scoped(const struct kjit_entry_scope *s)
{
	return s->kind != KJIT_ENTRY_ALL || s->own_bitmap;
}

static bool scope_ok(const struct kjit_entry_scope *s)
{
	bool task = s->kind == KJIT_ENTRY_TASKS ||
		    (s->own_bitmap && s->kind != KJIT_ENTRY_TASKS);

	if (s->kind != KJIT_ENTRY_ALL && (!fits_s32(s->bitmap) || !s->limit))
		return false;
	if (s->own_bitmap && (!fits_s32(s->own_bitmap) || !s->own_limit))
		return false;
	if (task && (!fits_s32(s->preempt_gs) || !fits_s32(s->current_gs) ||
		     s->tgid_off >= 0x80000000u))
		return false;
	return s->kind != KJIT_ENTRY_CPUS || fits_s32(s->cpu_gs);
}

/* mov %gs:P,%r11d; test $M,%r11d; jnz (not task context: the field
 * returned); mov %gs:C,%r11; mov T(%r11),%r11d - the current thread
 * group id in %r11d. */
static u32 emit_tgid(struct kjit_emit *e, const struct kjit_entry_scope *s)
{
	u32 irq;

	emit_gs_load(e, s->preempt_gs, false);
	/* test $M,%r11d */
	emit_bytes(e, (const u8 *)"\x41\xf7\xc3", 3);
	kjit_emit_u32(e, s->irq_mask);
	/* jnz (out or in) */
	irq = emit_jcc_out(e, 0x85);
	emit_gs_load(e, s->current_gs, true);
	/* mov T(%r11),%r11d */
	emit_bytes(e, (const u8 *)"\x45\x8b\x9b", 3);
	kjit_emit_u32(e, s->tgid_off);
	return irq;
}

/* cmp $L,%r11d; jae (past the bitmap: the field in *@past); bt %r11,B;
 * j@cc (the field returned). */
static u32 emit_bit_test(struct kjit_emit *e, u64 bitmap, u32 limit, u8 cc,
			 u32 *past)
{
	/* cmp $L,%r11d */
	emit_bytes(e, (const u8 *)"\x41\x81\xfb", 3);
	kjit_emit_u32(e, limit);
	/* jae */
	*past = emit_jcc_out(e, 0x83);
	/* bt %r11,B */
	emit_bytes(e, (const u8 *)"\x4c\x0f\xa3\x1c\x25", 5);
	kjit_emit_u32(e, (u32)bitmap);
	return emit_jcc_out(e, cc);
}

/* The scope prologue (entry.h); its "out" jumps' rel32 fields in @out. */
static unsigned emit_scope(struct kjit_emit *e,
			   const struct kjit_entry_scope *s, u32 out[3])
{
	unsigned n = 0;
	u32 in[2];

	if (s->kind == KJIT_ENTRY_TASKS) {
		out[n++] = emit_tgid(e, s);
		out[n + 1] = emit_bit_test(e, s->bitmap, s->limit, 0x83,
					   &out[n]); /* jnc out */
		return n + 2;
	}
	if (s->kind == KJIT_ENTRY_CPUS) {
		emit_gs_load(e, s->cpu_gs, false);
		out[n + 1] = emit_bit_test(e, s->bitmap, s->limit, 0x83,
					   &out[n]); /* jnc out */
		n += 2;
	}
	if (!s->own_bitmap)
		return n;
	/* kjit's own thread groups: out; interrupts and the rest: in */
	in[0] = emit_tgid(e, s);
	out[n++] = emit_bit_test(e, s->own_bitmap, s->own_limit, 0x82,
				 &in[1]); /* jc out */
	kjit_emit_put32(e, in[0], e->pos - (in[0] + 4));
	kjit_emit_put32(e, in[1], e->pos - (in[1] + 4));
	return n;
}

static bool exiting_ok(const struct kjit_entry_exiting *x)
{
	return !x->current_gs ||
	       (fits_s32(x->current_gs) && fits_s32(x->preempt_gs) &&
		fits_s32(x->counters) && x->exit_state_off < 0x80000000u);
}

/* out: back to S+5, the function runs natively. */
static enum kjit_reason emit_out(struct kjit_emit *e, u64 ret_via, u32 *out,
				 unsigned n)
{
	while (n--)
		kjit_emit_put32(e, out[n], e->pos - (out[n] + 4));
	if (!ret_via) {
		/* ret */
		kjit_emit_u8(e, 0xc3);
		return KJIT_OK;
	}
	/* jmp R: a return as the kernel patched its own */
	kjit_emit_u8(e, 0xe9);
	return kjit_emit_rel32(e, ret_via);
}

enum kjit_reason kjit_entry_emit_frames(u8 *buf, u32 cap,
					const struct kjit_entry_addrs *a,
					u32 *len, struct kjit_entry_frames *fr)
{
	struct kjit_emit e;
	enum kjit_reason r;
	u32 found, none, i, out[3], exiting = 0, go = 0;
	unsigned n_out = 0;
	bool guard = a->exiting.current_gs != 0;
	u64 ret_via = guard ? a->exiting.ret_via : a->scope.ret_via;

	if (a->size < KJIT_ENTRY_MIN_SIZE || (a->size & (a->size - 1)) ||
	    a->scope.kind > KJIT_ENTRY_CPUS ||
	    (guard && scoped(&a->scope) &&
	     a->scope.ret_via != a->exiting.ret_via))
		return KJIT_R_BAD_ARG;
	if (!fits_s32(a->keys) || !fits_s32(a->slots_gs) ||
	    !scope_ok(&a->scope) || !exiting_ok(&a->exiting))
		return KJIT_R_BRANCH_FAR;
	kjit_emit_init(&e, buf, cap, a->run);
	for (i = 0; i < cap; i++)
		/* int3 */
		buf[i] = 0xcc;
	if (fr)
		fr->n = 0;
	frame_at(fr, 0, 8); /* [rsp] = S+5 */
	if (scoped(&a->scope))
		n_out = emit_scope(&e, &a->scope, out);
	/* push %rax */
	kjit_emit_u8(&e, 0x50);
	frame_at(fr, e.pos, 16);
	/* mov 8(%rsp),%eax */
	emit_bytes(&e, (const u8 *)"\x8b\x44\x24\x08", 4);
	/* imul $H,%eax,%r11d */
	emit_bytes(&e, (const u8 *)"\x44\x69\xd8", 3);
	kjit_emit_u32(&e, KJIT_ENTRY_HASH);
	/* shr $imm8,%r11d */
	emit_bytes(&e, (const u8 *)"\x41\xc1\xeb", 3);
	for (i = 0; (1u << i) < a->size; i++)
		;
	kjit_emit_u8(&e, (u8)(32 - i));
	emit_probe(&e, a, &found, &none);
	patch_rel8(&e, found, e.pos);
	r = emit_found(&e, a, fr, &exiting, &go);
	if (r)
		return r;
	patch_rel8(&e, none, e.pos);
	frame_at(fr, e.pos, 16);
	/* pop %rax */
	kjit_emit_u8(&e, 0x58);
	frame_at(fr, e.pos, 8);
	/* jmp dispatch */
	kjit_emit_u8(&e, 0xe9);
	r = kjit_emit_rel32(&e, a->dispatch);
	if (r)
		return r;
	if (guard)
		emit_exiting(&e, &a->exiting, exiting, go, fr);
	if (n_out || guard) {
		r = emit_out(&e, ret_via, out, n_out);
		if (r)
			return r;
	}
	if (e.overflow)
		return KJIT_R_NO_SPACE;
	frame_at(fr, e.pos, 0); /* int3 */
	/* more changes than KJIT_ENTRY_FRAMES hold */
	if (fr && fr->f[fr->n - 1].off != e.pos)
		return KJIT_R_NO_SPACE;
	*len = e.pos;
	return KJIT_OK;
}

enum kjit_reason kjit_entry_emit(u8 *buf, u32 cap,
				 const struct kjit_entry_addrs *a, u32 *len)
{
	return kjit_entry_emit_frames(buf, cap, a, len, NULL);
}
