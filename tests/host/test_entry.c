/* test_entry.c - the shared entry trampoline (codecache/entry.h): its key
 * table, its bytes decoded back, the IBT and register rules proven on them,
 * and the trampoline run for real with a GS base per "CPU".
 *
 * Running it: a harness enters the trampoline as ftrace's direct call does
 * ([rsp] = the fake S+5 key, [rsp+8] = the caller's return address, every
 * register as at the function's entry). A hit must jump, with S+5 dropped,
 * to the slot's "translation" (a stub that returns %rax as it found it,
 * xored with its id); a miss must reach the "dispatcher" (a stub that pops
 * the target the stack now holds and returns it, marked) with %rax intact.
 * Keys are chosen to collide in the hash and to wrap around the table's
 * end, so the probe loop is exercised, not just its first compare.
 */
#define _GNU_SOURCE
#include <asm/prctl.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <Zydis/Zydis.h>
#include "codecache/entry.h"
#include "tests/host/kjit_test.h"

#define SIZE	 64
#define DIS_MARK (1ull << 62)

/* Harness and stubs (SysV: rdi, rsi, rdx). */
unsigned long entry_call(unsigned long tramp, unsigned long key,
			 unsigned long rax);
void xlat_1(void), xlat_2(void), xlat_3(void), disp_stub(void), thunk_r11(void);
void native_stub(void), native_stub2(void), thunk_ret(void);
__asm__(".text\n"
	".globl entry_call\n"
	"entry_call:\n"
	"	push %rsi\n"	  /* the fentry call's return address: S+5 */
	"	mov %rdx, %rax\n" /* a value the trampoline must keep */
	"	jmp *%rdi\n"
	".globl xlat_1, xlat_2, xlat_3\n"
	"xlat_1: endbr64; xor $0x1000, %rax; ret\n"
	"xlat_2: endbr64; xor $0x2000, %rax; ret\n"
	"xlat_3: endbr64; xor $0x3000, %rax; ret\n"
	".globl disp_stub\n"
	"disp_stub:\n" /* [rsp] = target, rax must be the caller's rdx */
	"	cmp %rdx, %rax\n"
	"	pop %rax\n"
	"	jne 1f\n"
	"	bts $62, %rax\n"
	"	ret\n"
	"1:	mov $-1, %rax\n"
	"	ret\n"
	".globl thunk_r11\n"
	"thunk_r11: jmp *%r11\n"
	/* S+5 for the scope checks: the function's native body */
	".globl native_stub, native_stub2, thunk_ret\n"
	"native_stub: xor $0x7000, %rax; ret\n"
	"native_stub2: xor $0x8000, %rax; ret\n"
	"thunk_ret: ret\n");

struct cpu_area {
	unsigned long pad[3];
	unsigned long *slots; /* at %gs:offsetof(struct cpu_area, slots) */
	u32 preempt, cpu;     /* the scope prologue's preempt count, CPU */
	unsigned char *current;
};

static u32 keys[SIZE];
static unsigned long slots[2][SIZE];
static struct cpu_area cpu[2];

static void table_checks(void)
{
	static u32 t[KJIT_ENTRY_MIN_SIZE];
	struct kjit_entry_keys kt = {t, KJIT_ENTRY_MIN_SIZE, 0};
	u32 h0 = kjit_entry_hash(7, KJIT_ENTRY_MIN_SIZE), k;
	int i, n = 0, ok = 1;

	kt_check("entry.size",
		 kjit_entry_size(0) == 16 && kjit_entry_size(8) == 16 &&
		     kjit_entry_size(9) == 32 &&
		     kjit_entry_size(2000) == 4096 &&
		     kjit_entry_size(1u << 30) == 0,
		 "sizes: %u %u %u", kjit_entry_size(9), kjit_entry_size(2000),
		 kjit_entry_size(1u << 30));
	/* keys hashing to one slot take the ones after it, in order */
	for (k = 1; n < 4; k++)
		if (kjit_entry_hash(k, 16) == h0)
			ok &=
			    kjit_entry_insert(&kt, k) == (int)((h0 + n++) & 15);
	for (k = 1, n = 0; n < 4; k++)
		if (kjit_entry_hash(k, 16) == h0)
			ok &=
			    kjit_entry_find(t, 16, k) == (int)((h0 + n++) & 15);
	kt_check("entry.probe_order", ok, "colliding keys misplaced");
	kt_check("entry.refused",
		 kjit_entry_insert(&kt, 0) < 0 &&
		     kjit_entry_insert(&kt, 7) < 0 && /* already there */
		     kjit_entry_find(t, 16, 0) < 0 &&
		     kjit_entry_find(t, 16, 0xdead) < 0,
		 "zero or absent keys");
	for (k = 0x100; k < 0x200; k++)
		kjit_entry_insert(&kt, k);
	for (i = n = 0; i < 16; i++)
		n += !t[i];
	kt_check("entry.keeps_empty_slot", n == 1,
		 "%d empty slots in a full table", n);
}

/* Decode the code: every instruction as drawn in entry.h, int3 after it,
 * nothing written but rax, r11, rsp and the flags, the only indirect
 * branch `jmp r11` (and none with the thunk). */
static const ZydisMnemonic drawn[] = {
    ZYDIS_MNEMONIC_PUSH, ZYDIS_MNEMONIC_MOV, ZYDIS_MNEMONIC_IMUL,
    ZYDIS_MNEMONIC_SHR,	 ZYDIS_MNEMONIC_CMP, ZYDIS_MNEMONIC_JZ,
    ZYDIS_MNEMONIC_CMP,	 ZYDIS_MNEMONIC_JZ,  ZYDIS_MNEMONIC_INC,
    ZYDIS_MNEMONIC_AND,	 ZYDIS_MNEMONIC_JMP, ZYDIS_MNEMONIC_MOV,
    ZYDIS_MNEMONIC_MOV,	 ZYDIS_MNEMONIC_POP, ZYDIS_MNEMONIC_TEST,
    ZYDIS_MNEMONIC_JZ,	 ZYDIS_MNEMONIC_LEA, ZYDIS_MNEMONIC_JMP,
    ZYDIS_MNEMONIC_POP,	 ZYDIS_MNEMONIC_JMP};

static int allowed_write(ZydisRegister r)
{
	r = ZydisRegisterGetLargestEnclosing(ZYDIS_MACHINE_MODE_LONG_64, r);
	return r == ZYDIS_REGISTER_RAX || r == ZYDIS_REGISTER_R11 ||
	       r == ZYDIS_REGISTER_RSP || r == ZYDIS_REGISTER_RFLAGS ||
	       r == ZYDIS_REGISTER_RIP || r == ZYDIS_REGISTER_NONE;
}

static const char *check_insn(const ZydisDecodedInstruction *in,
			      const ZydisDecodedOperand *op, bool thunk)
{
	unsigned i;

	for (i = 0; i < in->operand_count; i++)
		if ((op[i].actions & ZYDIS_OPERAND_ACTION_MASK_WRITE) &&
		    op[i].type == ZYDIS_OPERAND_TYPE_REGISTER &&
		    !allowed_write(op[i].reg.value))
			return "writes a register other than rax, r11";
	if (in->meta.branch_type == ZYDIS_BRANCH_TYPE_NEAR &&
	    op[0].type != ZYDIS_OPERAND_TYPE_IMMEDIATE &&
	    (thunk || op[0].type != ZYDIS_OPERAND_TYPE_REGISTER ||
	     op[0].reg.value != ZYDIS_REGISTER_R11))
		return "an indirect branch other than jmp *%r11";
	return NULL;
}

static const char *decode_back(const u8 *code, u32 len, u32 cap, bool thunk)
{
	ZydisDecodedOperand op[ZYDIS_MAX_OPERAND_COUNT];
	ZydisDecodedInstruction in;
	ZydisDecoder d;
	const char *why;
	u32 off = 0, n = 0;

	ZydisDecoderInit(&d, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
	while (off < len) {
		if (!ZYAN_SUCCESS(ZydisDecoderDecodeFull(&d, code + off,
							 len - off, &in, op)))
			return "does not decode";
		if (n >= KJIT_ARRAY_SIZE(drawn) || in.mnemonic != drawn[n])
			return "not the instructions drawn in entry.h";
		why = check_insn(&in, op, thunk);
		if (why)
			return why;
		off += in.length;
		n++;
	}
	if (n != KJIT_ARRAY_SIZE(drawn))
		return "instructions missing";
	for (; off < cap; off++)
		if (code[off] != 0xcc)
			return "a byte past the code is not int3";
	return NULL;
}

/* Any scoped trampoline: it decodes, writes only rax, r11, rsp and the
 * flags, its only indirect branch goes through r11, int3 after it. */
static const char *decode_any(const u8 *code, u32 len, u32 cap)
{
	ZydisDecodedOperand op[ZYDIS_MAX_OPERAND_COUNT];
	ZydisDecodedInstruction in;
	ZydisDecoder d;
	const char *why;
	u32 off = 0;

	ZydisDecoderInit(&d, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
	while (off < len) {
		if (!ZYAN_SUCCESS(ZydisDecoderDecodeFull(&d, code + off,
							 len - off, &in, op)))
			return "does not decode";
		/* ret: back to S+5, out of scope (IBT checks no ret) */
		why = in.meta.category == ZYDIS_CATEGORY_RET
			  ? NULL
			  : check_insn(&in, op, false);
		if (why)
			return why;
		off += in.length;
	}
	for (; off < cap; off++)
		if (code[off] != 0xcc)
			return "a byte past the code is not int3";
	return NULL;
}

static void set_gs(struct cpu_area *c)
{
	syscall(SYS_arch_prctl, ARCH_SET_GS, (unsigned long)c);
}

/* Keys: 3 colliding at slot h, one at the table's last slot (wrapping). */
static void pick_keys(u32 k[4])
{
	u32 h = kjit_entry_hash(0x1234, SIZE), v;
	int n = 0;

	for (v = 0x1000; n < 3; v++)
		if (kjit_entry_hash(v, SIZE) == h)
			k[n++] = v;
	for (v = 0x1000;; v++)
		if (kjit_entry_hash(v, SIZE) == SIZE - 1 && v != k[0] &&
		    v != k[1] && v != k[2])
			break;
	k[3] = v;
}

static void run_checks(u8 *page, bool thunk)
{
	static void (*const xl[])(void) = {xlat_1, xlat_2, xlat_3};
	const char *mode = thunk ? "thunk" : "jmp_r11";
	unsigned long t = (unsigned long)page, r;
	char name[64];
	struct kjit_entry_keys kt = {keys, SIZE, 0};
	u32 k[4], i, other;
	int s[4], ok = 1;

	memset(keys, 0, sizeof(keys));
	memset(slots, 0, sizeof(slots));
	pick_keys(k);
	for (i = 0; i < 4; i++)
		s[i] = kjit_entry_insert(&kt, k[i]);
	/* CPU 0 has translations for keys 0..2; CPU 1 only for key 1 */
	for (i = 0; i < 3; i++)
		slots[0][s[i]] = (unsigned long)xl[i];
	slots[1][s[1]] = (unsigned long)xl[2];
	cpu[0].slots = slots[0];
	cpu[1].slots = slots[1];

	set_gs(&cpu[0]);
	for (i = 0; i < 3; i++)
		ok &= entry_call(t, k[i], 0x55) ==
		      (0x55ul ^ (0x1000ul * (i + 1)));
	snprintf(name, sizeof(name), "entry.run.%s.hit", mode);
	kt_check(name, ok, "a key did not reach its translation");
	r = entry_call(t, k[3], 0x66);
	snprintf(name, sizeof(name), "entry.run.%s.miss", mode);
	kt_check(name, r == (DIS_MARK | k[3]), "miss gave %#lx", r);
	/* a key the table lacks, colliding with the chain: the dispatcher */
	for (other = 0x1000;; other++)
		if (kjit_entry_hash(other, SIZE) ==
			kjit_entry_hash(k[0], SIZE) &&
		    other != k[0] && other != k[1] && other != k[2])
			break;
	r = entry_call(t, other, 0x77);
	snprintf(name, sizeof(name), "entry.run.%s.absent", mode);
	kt_check(name, r == (DIS_MARK | other), "absent key gave %#lx", r);
	set_gs(&cpu[1]);
	r = entry_call(t, k[1], 0x88);
	ok = r == (0x88ul ^ 0x3000);
	r = entry_call(t, k[0], 0x99);
	ok &= r == (DIS_MARK | k[0]);
	snprintf(name, sizeof(name), "entry.run.%s.per_cpu", mode);
	kt_check(name, ok, "another CPU's slots were used (%#lx)", r);
	set_gs(NULL);
}

static void emit_and_run(u8 *page, bool thunk)
{
	struct kjit_entry_addrs a = {
	    .run = (u64)(unsigned long)page,
	    .keys = (u64)(unsigned long)keys,
	    .size = SIZE,
	    .slots_gs = offsetof(struct cpu_area, slots),
	    .dispatch = (u64)(unsigned long)disp_stub,
	    .thunk = thunk ? (u64)(unsigned long)thunk_r11 : 0,
	};
	const char *mode = thunk ? "thunk" : "jmp_r11", *why;
	enum kjit_reason r;
	char name[64];
	u32 len = 0;

	mprotect(page, 4096, PROT_READ | PROT_WRITE);
	r = kjit_entry_emit(page, KJIT_ENTRY_TRAMP_MAX, &a, &len);
	snprintf(name, sizeof(name), "entry.emit.%s", mode);
	kt_check(name, !r && len <= KJIT_ENTRY_TRAMP_MAX, "reason %d", r);
	if (r)
		return;
	why = decode_back(page, len, KJIT_ENTRY_TRAMP_MAX, thunk);
	snprintf(name, sizeof(name), "entry.decode.%s", mode);
	kt_check(name, !why, "%s", why);
	mprotect(page, 4096, PROT_READ | PROT_EXEC);
	if (!why)
		run_checks(page, thunk);
}

/* ---- scope: calls from outside go back to S+5 (native) ---------------- */

#define TGID_OFF 0x9a4
#define IRQ_MASK 0x1f0100u /* NMI | hardirq | serving softirq */
static unsigned char task[2][TGID_OFF + 8];
static unsigned long bitmap[4];	  /* 256 bits */
static unsigned long own_bits[4]; /* kjit's own thread groups: 200 bits */
static bool use_own;		  /* test_scope() keeps own_bits out */

static void set_tgid(int t, u32 tgid)
{
	memcpy(&task[t][TGID_OFF], &tgid, 4);
}

/* One call to the scoped trampoline at @t, native_stub's low half as the
 * key: 1 if it reached the translation, 0 if it ran natively, -1 else. */
static int scoped_call(unsigned long t, u32 key)
{
	unsigned long r = entry_call(t, key, 0x55);

	return r == (0x55ul ^ 0x1000) ? 1 : r == (0x55ul ^ 0x7000) ? 0 : -1;
}

/* The scope prologue of @kind over this file's fake CPU, task and bitmap;
 * out of scope returns through thunk_ret with @thunk, else by ret. */
static struct kjit_entry_scope test_scope(u32 kind, bool thunk)
{
	struct kjit_entry_scope sc = {
	    .kind = kind,
	    .preempt_gs = offsetof(struct cpu_area, preempt),
	    .irq_mask = IRQ_MASK,
	    .current_gs = offsetof(struct cpu_area, current),
	    .tgid_off = TGID_OFF,
	    .cpu_gs = offsetof(struct cpu_area, cpu),
	    .bitmap = (u64)(unsigned long)bitmap,
	    .limit = 200,
	    .ret_via = thunk ? (u64)(unsigned long)thunk_ret : 0,
	};

	if (use_own && kind != KJIT_ENTRY_TASKS) {
		sc.own_bitmap = (u64)(unsigned long)own_bits;
		sc.own_limit = 200;
	}
	return sc;
}

/* Emits @a into @page and checks it: "PREFIX.MODE[.thunk].emit" (fits)
 * and ".decode" (as drawn). 0 when the bytes can run. */
static int emit_checked(u8 *page, const struct kjit_entry_addrs *a,
			const char *prefix, const char *mode, bool thunk)
{
	char name[64];
	const char *why;
	u32 len = 0;

	mprotect(page, 4096, PROT_READ | PROT_WRITE);
	snprintf(name, sizeof(name), "%s.%s%s.emit", prefix, mode,
		 thunk ? ".thunk" : "");
	kt_check(name,
		 !kjit_entry_emit(page, KJIT_ENTRY_TRAMP_MAX, a, &len) &&
		     len <= KJIT_ENTRY_TRAMP_MAX,
		 "len %u", len);
	why = decode_any(page, len, KJIT_ENTRY_TRAMP_MAX);
	snprintf(name, sizeof(name), "%s.%s%s.decode", prefix, mode,
		 thunk ? ".thunk" : "");
	kt_check(name, !why, "%s", why);
	mprotect(page, 4096, PROT_READ | PROT_EXEC);
	return why ? -1 : 0;
}

static void scope_run(u8 *page, u32 kind, bool thunk)
{
	struct kjit_entry_addrs a = {
	    .run = (u64)(unsigned long)page,
	    .keys = (u64)(unsigned long)keys,
	    .size = SIZE,
	    .slots_gs = offsetof(struct cpu_area, slots),
	    .dispatch = (u64)(unsigned long)disp_stub,
	    .scope = test_scope(kind, thunk),
	};
	const char *mode = kind == KJIT_ENTRY_TASKS ? "tasks" : "cpus";
	struct kjit_entry_keys kt = {keys, SIZE, 0};
	u32 key = (u32)(unsigned long)native_stub;
	unsigned long t = (unsigned long)page;
	int s, ok;
	char name[64];

	memset(keys, 0, sizeof(keys));
	memset(slots, 0, sizeof(slots));
	memset(bitmap, 0, sizeof(bitmap));
	s = kjit_entry_insert(&kt, key);
	slots[0][s] = (unsigned long)xlat_1;
	if (emit_checked(page, &a, "entry.scope", mode, thunk))
		return;
	cpu[0].slots = slots[0];
	cpu[0].current = task[0];
	cpu[0].preempt = 0;
	cpu[0].cpu = 3;
	set_tgid(0, 77);
	set_gs(&cpu[0]);
	if (kind == KJIT_ENTRY_TASKS) {
		bitmap[1] = 1ul << (77 - 64); /* tgid 77 in scope */
		ok = scoped_call(t, key) == 1;
		set_tgid(0, 78); /* another process */
		ok &= scoped_call(t, key) == 0;
		set_tgid(0, 77);
		cpu[0].preempt = 0x10000; /* in a hardirq */
		ok &= scoped_call(t, key) == 0;
		cpu[0].preempt = 0x100; /* serving a softirq */
		ok &= scoped_call(t, key) == 0;
		cpu[0].preempt = 0x202; /* bh off, preemption off: a task */
		ok &= scoped_call(t, key) == 1;
		set_tgid(0, 1u << 20); /* past the bitmap */
		ok &= scoped_call(t, key) == 0;
	} else {
		bitmap[0] = 1ul << 3; /* CPU 3 in scope */
		ok = scoped_call(t, key) == 1;
		cpu[0].cpu = 2;
		ok &= scoped_call(t, key) == 0;
		cpu[0].cpu = 300; /* past the bitmap */
		ok &= scoped_call(t, key) == 0;
		cpu[0].preempt = 0x10000; /* interrupts count on a CPU */
		cpu[0].cpu = 3;
		ok &= scoped_call(t, key) == 1;
	}
	set_gs(NULL);
	snprintf(name, sizeof(name), "entry.scope.%s%s.run", mode,
		 thunk ? ".thunk" : "");
	kt_check(name, ok, "a call went the wrong way");
}

/* ---- kjit's own processes: kept out of every and cpus scopes -------- */

/* A call in task context by a thread group in own_bits runs natively;
 * interrupts on it, other groups and groups past the bitmap go in; with a
 * cpus scope, the CPU decides first. */
static void own_run(u8 *page, u32 kind, bool thunk)
{
	struct kjit_entry_addrs a = {
	    .run = (u64)(unsigned long)page,
	    .keys = (u64)(unsigned long)keys,
	    .size = SIZE,
	    .slots_gs = offsetof(struct cpu_area, slots),
	    .dispatch = (u64)(unsigned long)disp_stub,
	    .thunk = thunk ? (u64)(unsigned long)thunk_r11 : 0,
	};
	const char *mode = kind == KJIT_ENTRY_ALL ? "all" : "cpus";
	struct kjit_entry_keys kt = {keys, SIZE, 0};
	u32 key = (u32)(unsigned long)native_stub;
	unsigned long t = (unsigned long)page;
	int s, ok;
	char name[64];

	use_own = true;
	a.scope = test_scope(kind, thunk);
	use_own = false;
	memset(keys, 0, sizeof(keys));
	memset(slots, 0, sizeof(slots));
	memset(bitmap, 0, sizeof(bitmap));
	memset(own_bits, 0, sizeof(own_bits));
	s = kjit_entry_insert(&kt, key);
	slots[0][s] = (unsigned long)xlat_1;
	if (emit_checked(page, &a, "entry.own", mode, thunk))
		return;
	cpu[0].slots = slots[0];
	cpu[0].current = task[0];
	cpu[0].preempt = 0;
	cpu[0].cpu = 3;
	bitmap[0] = 1ul << 3; /* CPU 3 in a cpus scope */
	set_tgid(0, 77);
	set_gs(&cpu[0]);
	ok = scoped_call(t, key) == 1;	/* nobody is kjit's */
	own_bits[1] = 1ul << (77 - 64); /* tgid 77 is kjit's */
	ok &= scoped_call(t, key) == 0;
	set_tgid(0, 78); /* another process */
	ok &= scoped_call(t, key) == 1;
	set_tgid(0, 77);
	cpu[0].preempt = 0x10000; /* a hardirq on kjit's task: in */
	ok &= scoped_call(t, key) == 1;
	cpu[0].preempt = 0x100; /* serving a softirq: in */
	ok &= scoped_call(t, key) == 1;
	cpu[0].preempt = 0x202; /* bh and preemption off: a task */
	ok &= scoped_call(t, key) == 0;
	own_bits[3] = 1ul << (210 - 192); /* past own_limit: ignored */
	set_tgid(0, 210);
	ok &= scoped_call(t, key) == 1;
	set_tgid(0, 77);
	own_bits[1] = 0;
	ok &= scoped_call(t, key) == 1;
	if (kind == KJIT_ENTRY_CPUS) {
		cpu[0].cpu = 2; /* out of the cpus scope, whoever runs */
		ok &= scoped_call(t, key) == 0;
		cpu[0].cpu = 3;
	}
	set_gs(NULL);
	snprintf(name, sizeof(name), "entry.own.%s%s.run", mode,
		 thunk ? ".thunk" : "");
	kt_check(name, ok, "a call went the wrong way");
}

/* ---- exiting tasks: past exit_notify(), a call runs natively, counted - */

#define EXIT_STATE_OFF 0x5f0
static u64 exit_counts[2], *exit_counters[SIZE];

static void set_exit_state(int t, int v)
{
	memcpy(&task[t][EXIT_STATE_OFF], &v, 4);
}

static struct kjit_entry_exiting test_exiting(bool thunk)
{
	struct kjit_entry_exiting x = {
	    .current_gs = offsetof(struct cpu_area, current),
	    .preempt_gs = offsetof(struct cpu_area, preempt),
	    .irq_mask = IRQ_MASK,
	    .exit_state_off = EXIT_STATE_OFF,
	    .counters = (u64)(unsigned long)exit_counters,
	    .ret_via = thunk ? (u64)(unsigned long)thunk_ret : 0,
	};

	return x;
}

/* Two functions in the table (native_stub's key and another): a task
 * with exit_state set runs either natively, counted in its own counter;
 * in a hardirq or a softirq it is let in; exit_state 0 is let in; and
 * with a tasks scope the scope decides first. */
static void exiting_run(u8 *page, u32 kind, bool thunk)
{
	struct kjit_entry_addrs a = {
	    .run = (u64)(unsigned long)page,
	    .keys = (u64)(unsigned long)keys,
	    .size = SIZE,
	    .slots_gs = offsetof(struct cpu_area, slots),
	    .dispatch = (u64)(unsigned long)disp_stub,
	    .thunk = thunk ? (u64)(unsigned long)thunk_r11 : 0,
	    .scope = test_scope(kind, thunk),
	    .exiting = test_exiting(thunk),
	};
	static const char *const kinds[] = {"all", "tasks", "cpus"};
	struct kjit_entry_keys kt = {keys, SIZE, 0};
	u32 key = (u32)(unsigned long)native_stub,
	    other = (u32)(unsigned long)native_stub2;
	unsigned long t = (unsigned long)page, r;
	int s, s2, ok;
	char name[64];

	memset(keys, 0, sizeof(keys));
	memset(slots, 0, sizeof(slots));
	memset(bitmap, 0, sizeof(bitmap));
	memset(exit_counts, 0, sizeof(exit_counts));
	s = kjit_entry_insert(&kt, key);
	s2 = kjit_entry_insert(&kt, other);
	slots[0][s] = (unsigned long)xlat_1;
	slots[0][s2] = (unsigned long)xlat_2;
	exit_counters[s] = &exit_counts[0];
	exit_counters[s2] = &exit_counts[1];
	if (emit_checked(page, &a, "entry.exiting", kinds[kind], thunk))
		return;
	cpu[0].slots = slots[0];
	cpu[0].current = task[0];
	cpu[0].preempt = 0;
	cpu[0].cpu = 3;
	bitmap[1] = 1ul << (77 - 64); /* tgid 77 in a tasks scope */
	bitmap[0] = 1ul << 3;	      /* CPU 3 in a cpus scope */
	set_tgid(0, 77);
	set_exit_state(0, 0);
	set_gs(&cpu[0]);
	ok = scoped_call(t, key) == 1; /* alive: in */
	set_exit_state(0, 16);	       /* EXIT_ZOMBIE */
	ok &= scoped_call(t, key) == 0 && exit_counts[0] == 1;
	set_exit_state(0, 32); /* EXIT_DEAD (self-reaped) */
	ok &= scoped_call(t, key) == 0 && exit_counts[0] == 2;
	/* the other function: its own counter, %rax kept */
	r = entry_call(t, other, 0x55);
	ok &= r == (0x55ul ^ 0x8000) && exit_counts[1] == 1 &&
	      exit_counts[0] == 2;
	cpu[0].preempt = 0x10000; /* a hardirq on the dying task: in */
	ok &= scoped_call(t, key) == (kind == KJIT_ENTRY_TASKS ? 0 : 1);
	cpu[0].preempt = 0x100; /* serving a softirq: in */
	ok &= scoped_call(t, key) == (kind == KJIT_ENTRY_TASKS ? 0 : 1);
	cpu[0].preempt = 0x202; /* bh and preemption off: a task */
	ok &= scoped_call(t, key) == 0 && exit_counts[0] == 3;
	if (kind == KJIT_ENTRY_TASKS) {
		set_tgid(0, 78); /* out of scope: not counted as exiting */
		ok &= scoped_call(t, key) == 0 && exit_counts[0] == 3;
		set_tgid(0, 77);
	}
	set_exit_state(0, 0);
	ok &= scoped_call(t, key) == 1 && exit_counts[0] == 3;
	set_gs(NULL);
	snprintf(name, sizeof(name), "entry.exiting.%s%s.run", kinds[kind],
		 thunk ? ".thunk" : "");
	kt_check(name, ok, "a call went the wrong way (counts %llu %llu)",
		 (unsigned long long)exit_counts[0],
		 (unsigned long long)exit_counts[1]);
}

/* ---- the unwinder's view: kjit_entry_frames against the code ---------- */

/* The sp the frames give at byte @off (0 when none covers it). */
static u32 frame_sp(const struct kjit_entry_frames *fr, u32 off)
{
	u32 sp = 0;
	unsigned i;

	for (i = 0; i < fr->n; i++)
		if (fr->f[i].off <= off)
			sp = fr->f[i].sp;
	return sp;
}

/* What rsp does in @in: bytes pushed (+8 push, -8 pop or lea 8(%rsp)),
 * or 1 for a write to rsp this checker does not know. */
static int rsp_move(const ZydisDecodedInstruction *in,
		    const ZydisDecodedOperand *op)
{
	unsigned i;

	if (in->mnemonic == ZYDIS_MNEMONIC_PUSH)
		return 8;
	if (in->mnemonic == ZYDIS_MNEMONIC_POP)
		return -8;
	if (in->mnemonic == ZYDIS_MNEMONIC_LEA &&
	    op[0].reg.value == ZYDIS_REGISTER_RSP)
		return op[1].mem.base == ZYDIS_REGISTER_RSP &&
			       op[1].mem.index == ZYDIS_REGISTER_NONE &&
			       op[1].mem.disp.value == 8
			   ? -8
			   : 1;
	for (i = 0; i < in->operand_count_visible; i++)
		if ((op[i].actions & ZYDIS_OPERAND_ACTION_MASK_WRITE) &&
		    op[i].type == ZYDIS_OPERAND_TYPE_REGISTER &&
		    op[i].reg.value == ZYDIS_REGISTER_RSP)
			return 1;
	return 0;
}

/* Walk every path through the code from its first byte (entered with S+5
 * at [rsp]) with the bytes pushed so far, and check at each instruction
 * the frames' sp: 8 + pushed while S+5 is on the stack, 8 once `lea`
 * dropped it (pushed -8); every branch out of the code leaves with S+5 at
 * [rsp] (the dispatcher, S+5 itself) or dropped (the translation); 0
 * past the code. */
static const char *frames_check(const u8 *code, u32 len,
				const struct kjit_entry_frames *fr)
{
	ZydisDecodedOperand op[ZYDIS_MAX_OPERAND_COUNT];
	ZydisDecodedInstruction in;
	ZydisDecoder d;
	/* + 1: a path may fall off the code's last byte (then refused) */
	int depth[KJIT_ENTRY_TRAMP_MAX + 1], todo[KJIT_ENTRY_TRAMP_MAX + 1];
	int n = 0;
	u32 off, i;

	if (!fr->n || fr->f[0].off != 0 || frame_sp(fr, len) != 0)
		return "no frame at the first byte, or one past the end";
	for (i = 1; i < fr->n; i++)
		if (fr->f[i].off <= fr->f[i - 1].off)
			return "frames out of address order";
	for (i = 0; i <= KJIT_ENTRY_TRAMP_MAX; i++)
		depth[i] = 99;
	ZydisDecoderInit(&d, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
	depth[0] = 0;
	todo[n++] = 0;
	while (n) {
		int dep, move;
		u64 to;

		off = (u32)todo[--n];
		dep = depth[off];
		if (off >= len || !ZYAN_SUCCESS(ZydisDecoderDecodeFull(
				      &d, code + off, len - off, &in, op)))
			return "a path leaves the code without a branch";
		if (frame_sp(fr, off) != (u32)(dep >= 0 ? 8 + dep : 8))
			return "the frames' sp differs from the code's";
		move = rsp_move(&in, op);
		if (move == 1 || dep + move < -8)
			return "rsp moves in a way the frames cannot say";
		dep += move;
		to = 0;
		if (in.meta.branch_type == ZYDIS_BRANCH_TYPE_SHORT ||
		    in.meta.branch_type == ZYDIS_BRANCH_TYPE_NEAR) {
			if (op[0].type == ZYDIS_OPERAND_TYPE_IMMEDIATE)
				ZydisCalcAbsoluteAddress(&in, &op[0], off, &to);
			else
				to = ~0ull; /* jmp *%r11 */
		}
		if (in.meta.category == ZYDIS_CATEGORY_RET)
			to = ~0ull;
		if (to && to < len) {
			if (depth[to] != 99 && depth[to] != dep)
				return "two paths meet with different stacks";
			if (depth[to] == 99) {
				depth[to] = dep;
				todo[n++] = (int)to;
			}
		} else if (to && dep != 0 && dep != -8) {
			return "a branch leaves with %rax still pushed";
		}
		if (in.mnemonic == ZYDIS_MNEMONIC_JMP ||
		    in.meta.category == ZYDIS_CATEGORY_RET)
			continue;
		off += in.length;
		if (depth[off] != 99 && depth[off] != dep)
			return "two paths meet with different stacks";
		if (depth[off] == 99) {
			depth[off] = dep;
			todo[n++] = (int)off;
		}
	}
	return NULL;
}

static void frames_checks_x(u8 *page, u32 kind, bool thunk, bool exiting)
{
	struct kjit_entry_addrs a = {
	    .run = (u64)(unsigned long)page,
	    .keys = (u64)(unsigned long)keys,
	    .size = SIZE,
	    .slots_gs = offsetof(struct cpu_area, slots),
	    .dispatch = (u64)(unsigned long)disp_stub,
	    .thunk = thunk ? (u64)(unsigned long)thunk_r11 : 0,
	    .scope = test_scope(kind, thunk),
	};
	static const char *const kinds[] = {"all", "tasks", "cpus"};
	struct kjit_entry_frames fr;

	if (exiting)
		a.exiting = test_exiting(thunk);
	const char *why = "not emitted";
	char name[64];
	u32 len = 0;

	memset(&fr, 0, sizeof(fr));
	mprotect(page, 4096, PROT_READ | PROT_WRITE);
	if (!kjit_entry_emit_frames(page, KJIT_ENTRY_TRAMP_MAX, &a, &len, &fr))
		why = frames_check(page, len, &fr);
	mprotect(page, 4096, PROT_READ | PROT_EXEC);
	snprintf(name, sizeof(name), "entry.frames.%s%s%s%s",
		 use_own ? "own." : "", exiting ? "exiting." : "", kinds[kind],
		 thunk ? ".thunk" : "");
	kt_check(name, !why, "%s (%u frames)", why, fr.n);
}

static void frames_checks(u8 *page, u32 kind, bool thunk)
{
	frames_checks_x(page, kind, thunk, false);
}

static void exiting_frames(u8 *page, u32 kind, bool thunk)
{
	frames_checks_x(page, kind, thunk, true);
}

/* The frames with kjit's own processes kept out (names: entry.frames.own.*) */
static void own_frames(u8 *page, u32 kind, bool thunk, bool exiting)
{
	use_own = true;
	frames_checks_x(page, kind, thunk, exiting);
	use_own = false;
}

static void reach_checks(u8 *page)
{
	struct kjit_entry_addrs a = {
	    .run = (u64)(unsigned long)page,
	    .keys = (u64)(unsigned long)keys,
	    .size = SIZE,
	    .slots_gs = 0x100,
	    .dispatch = (u64)(unsigned long)disp_stub,
	};
	static u8 buf[KJIT_ENTRY_TRAMP_MAX];
	u32 len;
	int ok;

	a.keys = 0x100000000ull; /* no disp32 reaches it */
	ok = kjit_entry_emit(buf, sizeof(buf), &a, &len) == KJIT_R_BRANCH_FAR;
	a.keys = (u64)(unsigned long)keys;
	a.dispatch = 0x7f0000000000ull;
	ok &= kjit_entry_emit(buf, sizeof(buf), &a, &len) == KJIT_R_BRANCH_FAR;
	a.dispatch = (u64)(unsigned long)disp_stub;
	a.size = 48;
	ok &= kjit_entry_emit(buf, sizeof(buf), &a, &len) == KJIT_R_BAD_ARG;
	a.size = SIZE;
	ok &= kjit_entry_emit(buf, 40, &a, &len) == KJIT_R_NO_SPACE;
	kt_check("entry.emit.refusals", ok,
		 "an unreachable or bad input "
		 "was emitted");
}

int main(void)
{
	u8 *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);

	if (page == MAP_FAILED) {
		kt_fail("entry.mmap", "no memory below 2 GiB");
		return 1;
	}
	table_checks();
	emit_and_run(page, false);
	emit_and_run(page, true);
	scope_run(page, KJIT_ENTRY_TASKS, false);
	scope_run(page, KJIT_ENTRY_TASKS, true);
	scope_run(page, KJIT_ENTRY_CPUS, false);
	frames_checks(page, KJIT_ENTRY_ALL, false);
	frames_checks(page, KJIT_ENTRY_ALL, true);
	frames_checks(page, KJIT_ENTRY_TASKS, true);
	frames_checks(page, KJIT_ENTRY_CPUS, false);
	exiting_run(page, KJIT_ENTRY_ALL, false);
	exiting_run(page, KJIT_ENTRY_ALL, true);
	exiting_run(page, KJIT_ENTRY_TASKS, true);
	exiting_run(page, KJIT_ENTRY_CPUS, false);
	exiting_frames(page, KJIT_ENTRY_ALL, true);
	exiting_frames(page, KJIT_ENTRY_TASKS, false);
	own_run(page, KJIT_ENTRY_ALL, false);
	own_run(page, KJIT_ENTRY_ALL, true);
	own_run(page, KJIT_ENTRY_CPUS, false);
	own_frames(page, KJIT_ENTRY_ALL, true, true);
	own_frames(page, KJIT_ENTRY_CPUS, false, false);
	/* the longest trampoline: cpus, kjit's own, the exiting guard, the
	 * thunk, as the module emits a -C session */
	own_frames(page, KJIT_ENTRY_CPUS, true, true);
	reach_checks(page);
	return kt_exit();
}
