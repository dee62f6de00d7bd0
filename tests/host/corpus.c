/* corpus.c - differential test corpus (see corpus.h).
 *
 * Covers: loops, switch jump tables, recursion, calls through pointers,
 * tail calls, setcc/cmov, flags live across blocks (two jcc on one cmp,
 * adc/sbb chains split by jumps), string instructions, RIP-relative data,
 * computed goto, loop/jrcxz, ret imm16, call *disp(%rsp), fake retpoline /
 * return thunks and a fake __fentry__ call at function entry, every
 * arithmetic flag and %rax live into block entries and jcc exits, and an
 * IBT kernel's function layouts (endbr64 or its seal before __fentry__).
 * Built with -O2 -mno-red-zone -fno-pie -mgeneral-regs-only -fno-builtin.
 */
#include "tests/host/corpus.h"

#define CORPUS __attribute__((section("kjit_corpus"), noinline, used))

static long g_arr[64];
static long g_acc;
unsigned char g_buf[256], g_src[256]; /* used by the asm cases */

void corpus_reset(void)
{
	int i;

	for (i = 0; i < 64; i++)
		g_arr[i] = i * 3;
	for (i = 0; i < 256; i++) {
		g_buf[i] = 0;
		g_src[i] = (unsigned char)(i * 7 + 1);
	}
	g_acc = 0;
}

unsigned long corpus_state(void)
{
	unsigned long h = (unsigned long)g_acc;
	int i;

	for (i = 0; i < 64; i++)
		h = h * 31 + (unsigned long)g_arr[i];
	for (i = 0; i < 256; i++)
		h = h * 31 + g_buf[i];
	return h;
}

CORPUS long c_loop(long a, long b)
{
	long s = 0, i;

	for (i = 0; i < (a & 63); i++) {
		if ((i ^ b) & 1)
			s += i * i;
		else
			s -= b % 7;
	}
	return s;
}

CORPUS long c_switch(long a, long b)
{
	switch (a & 15) {
	case 0:
		return b + 1;
	case 1:
		return b * 3;
	case 2:
		return b - 7;
	case 3:
		return b ^ 0x55;
	case 4:
		return b << 2;
	case 5:
		return b >> 1;
	case 6:
		return -b;
	case 7:
		return b * b;
	case 8:
		return b | 9;
	case 9:
		return b & 0xf0;
	case 10:
		return b + a;
	case 11:
		return b - a;
	default:
		return a;
	}
}

CORPUS long c_fib(long a, long b)
{
	long n = a & 15;

	if (n < 2)
		return n + b;
	return c_fib(n - 1, b) + c_fib(n - 2, b);
}

CORPUS long op_add(long a, long b)
{
	return a + b;
}
CORPUS long op_sub(long a, long b)
{
	return a - b;
}
CORPUS long op_mul(long a, long b)
{
	return a * b;
}
CORPUS long op_xor(long a, long b)
{
	return a ^ b;
}
static long (*const ops[4])(long, long) = {op_add, op_sub, op_mul, op_xor};

CORPUS long c_fnptr(long a, long b)
{
	long r = 0, i;

	for (i = 0; i < 4; i++)
		r += ops[(a + i) & 3](r, b + i);
	return r;
}

/* One call site, through a register, four targets in turn: each way of
 * the site's prediction (deep mode) must compare its own target, and a
 * target no way holds must miss. */
CORPUS long c_fnreg(long a, long b)
{
	long r = 0, i;

	for (i = 0; i < 8; i++) {
		long (*f)(long, long) = ops[(a + i) & 3];

		__asm__("" : "+r"(f)); /* call *%reg, not call *ops(,%rax,8) */
		r += f(r, b + i);
	}
	return r;
}

CORPUS long t_even(long a, long b)
{
	g_acc += a;
	return a * 2 + b;
}
CORPUS long t_odd(long a, long b)
{
	g_acc -= b;
	return a - b * 2;
}

CORPUS long c_tail(long a, long b)
{
	if (a & 1)
		return t_odd(b, a + 1);
	return t_even(a >> 1, b);
}

CORPUS long c_setcc(long a, long b)
{
	long r =
	    (a < b) + 2 * (a == b) + 4 * ((unsigned long)a > (unsigned long)b);

	return r + (a > b ? a : b) * 8 + ((a & 3) ? 5 : 11);
}

CORPUS long c_twojcc(long a, long b)
{
	long r = 0, i;

	for (i = -3; i < 4; i++) {
		long x = a + i;

		if (x < b)
			r += 1;
		else if (x == b)
			r += 100;
		else
			r -= 7;
	}
	return r;
}

CORPUS long c_wide(long a, long b)
{
	unsigned __int128 x =
	    (unsigned __int128)(unsigned long)a * (unsigned long)b;
	unsigned __int128 y =
	    x + ((unsigned __int128)(unsigned long)b << 64) - (unsigned long)a;

	return (long)(y >> 64) ^ (long)y;
}

CORPUS long c_global(long a, long b)
{
	int i;

	for (i = 0; i < 8; i++)
		g_arr[(a + i) & 63] += b + g_arr[(b + i) & 63];
	g_acc += g_arr[a & 63];
	return g_acc;
}

CORPUS long c_goto(long a, long b)
{
	static void *const lbl[4] = {&&l0, &&l1, &&l2, &&l3};
	long r = b, n = a & 7;

next:
	if (n-- <= 0)
		return r;
	goto *lbl[(r + n) & 3];
l0:
	r += 3;
	goto next;
l1:
	r *= 5;
	goto next;
l2:
	r ^= n;
	goto next;
l3:
	r -= a;
	goto next;
}

CORPUS long c_bits(long a, long b)
{
	unsigned long x = (unsigned long)a, r = 0;
	int s = (int)(b & 63);

	while (x) {
		r += (x & 1) << (s & 7);
		x >>= 1;
		s++;
	}
	return (long)(r ^ ((unsigned long)a << (b & 31)));
}

/* ---- assembly cases, all in section kjit_corpus ---------------------- */
__asm__(".pushsection kjit_corpus,\"ax\",@progbits\n"
	/* fake kernel symbols */
	".globl corpus_fentry\n corpus_fentry: ret\n"
	".globl corpus_return_thunk\n corpus_return_thunk: ret\n"
	".globl corpus_thunk_rax\n corpus_thunk_rax: jmp *%rax\n"
	".globl corpus_thunk_r11\n corpus_thunk_r11: jmp *%r11\n"

	/* a_carry: flags live across blocks: add; jmp; adc; sbb chain split
	 * by a jcc whose both sides read CF */
	".globl a_carry\n a_carry:\n"
	"  call corpus_fentry\n"
	"  xor %eax,%eax\n"
	"  add %rsi,%rdi\n"
	"  jmp 1f\n"
	"1: adc $0,%rax\n"
	"  sub %rsi,%rdi\n"
	"  jz 2f\n"
	"  sbb $1,%rax\n"
	"  jmp 3f\n"
	"2: adc $7,%rax\n"
	"3: cmp %rsi,%rdi\n"
	"  jb 4f\n"
	"  je 5f\n"
	"  add $10,%rax\n"
	"  ret\n"
	"4: add $20,%rax\n"
	"  ret\n"
	"5: add $30,%rax\n"
	"  ret\n"

	/* a_string: rep movsb / repe cmpsb / rep stosb on RIP-relative data */
	".globl a_string\n a_string:\n"
	"  mov %rdi,%rcx\n and $127,%rcx\n"
	"  lea g_src(%rip),%rsi\n"
	"  lea g_buf(%rip),%rdi\n"
	"  rep movsb\n"
	"  mov %rsi,%r8\n"
	"  lea g_src(%rip),%rsi\n lea g_buf(%rip),%rdi\n mov $200,%ecx\n"
	"  repe cmpsb\n"
	"  mov %rcx,%rax\n"
	"  lea 128+g_buf(%rip),%rdi\n mov $16,%ecx\n mov %r8b,%al\n"
	"  and $15,%ecx\n rep stosb\n"
	"  mov %rcx,%rdx\n"
	"  sete %cl\n movzbl %cl,%ecx\n add %rcx,%rax\n"
	"  ret\n"

	/* a_repzero: repe cmpsb / repne scasb with rcx = 0 leave the flags
	 * as the previous block set them; cmpxchg8b before them kills ZF
	 * only, so SF and CF must stay live at the block entry */
	".globl a_repzero\n a_repzero:\n"
	"  push %rbx\n mov %rdi,%r8\n mov %rsi,%r9\n"
	"  lea g_src(%rip),%rsi\n lea g_buf(%rip),%rdi\n"
	"  xor %ebx,%ebx\n xor %eax,%eax\n xor %edx,%edx\n xor %ecx,%ecx\n"
	"  cmp %r9,%r8\n"
	"  jmp 1f\n"
	"1: cmpxchg8b 192+g_buf(%rip)\n"
	"  repe cmpsb\n"
	"  sets %al\n movzbl %al,%r10d\n"
	"  xor %eax,%eax\n xor %edx,%edx\n"
	"  cmp %r8,%r9\n"
	"  jmp 2f\n"
	"2: cmpxchg8b 192+g_buf(%rip)\n"
	"  repne scasb\n"
	"  sets %al\n movzbl %al,%eax\n lea (%r10,%rax,2),%rax\n"
	"  pop %rbx\n ret\n"

	/* a_loop: loop and jrcxz */
	".globl a_loop\n a_loop:\n"
	"  mov %rdi,%rcx\n and $31,%rcx\n xor %eax,%eax\n"
	"  jrcxz 2f\n"
	"1: add %rsi,%rax\n xor %rcx,%rax\n loop 1b\n"
	"2: mov %rsi,%rcx\n and $3,%rcx\n"
	"3: jrcxz 4f\n inc %rax\n dec %rcx\n jmp 3b\n"
	"4: ret\n"

	/* a_retimm: callee pops its two stack arguments with ret $16 */
	"retimm_callee:\n"
	"  mov 8(%rsp),%rax\n sub 16(%rsp),%rax\n ret $16\n"
	".globl a_retimm\n a_retimm:\n"
	"  push %rdi\n push %rsi\n call retimm_callee\n add %rdi,%rax\n ret\n"

	/* a_thunks: retpoline-style calls/jumps and a return thunk */
	"thunk_target:\n lea 1(%rdi,%rsi,2),%rax\n jmp corpus_return_thunk\n"
	".globl a_thunks\n a_thunks:\n"
	"  call corpus_fentry\n"
	"  push %rbx\n mov %rdi,%rbx\n"
	"  lea thunk_target(%rip),%rax\n call corpus_thunk_rax\n"
	"  add %rax,%rbx\n"
	"  lea op_mul(%rip),%r11\n call corpus_thunk_r11\n"
	"  add %rbx,%rax\n pop %rbx\n"
	"  test $1,%al\n jz 1f\n"
	"  lea op_xor(%rip),%r11\n jmp corpus_thunk_r11\n"
	"1: jmp corpus_return_thunk\n"

	/* a_callrsp: call *8(%rsp), call *(%rax), jmp *mem (rip-relative) */
	".globl a_callrsp\n a_callrsp:\n"
	"  lea op_sub(%rip),%rax\n push %rax\n push %rax\n"
	"  call *8(%rsp)\n"
	"  add $16,%rsp\n mov %rax,%rdi\n"
	"  lea ptr_cell(%rip),%rax\n call *(%rax)\n"
	"  test %rax,%rax\n js 1f\n ret\n"
	"1: jmp *ptr_cell(%rip)\n"

	/* a_flags: all six arithmetic flags and %rax (the LAHF sequence's
	 * scratch register) live into block entries and jcc exits: each
	 * block reads flags it did not set; blocks 1-4 are a jmp chain longer
	 * than the liveness look-ahead (cfg.live_depth 2), which must then
	 * assume live at block 1 */
	".globl a_flags\n a_flags:\n"
	"  mov %rdi,%rax\n sub %rsi,%rax\n"
	"  jmp 1f\n"
	"1: jmp 2f\n"
	"2: jmp 3f\n"
	"3: jmp 4f\n"
	"4: seto %cl\n jmp 5f\n"
	"5: setp %dl\n jmp 6f\n"
	"6: jl 7f\n"
	"  sete %r8b\n jmp 8f\n"
	"7: setbe %r8b\n"
	"8: pushfq\n pop %r9\n and $0x8d5,%r9d\n"
	"  movzbl %cl,%ecx\n movzbl %dl,%edx\n movzbl %r8b,%r8d\n"
	"  shl $16,%r9\n shl $32,%rcx\n shl $33,%rdx\n shl $34,%r8\n"
	"  xor %r9,%rax\n xor %rcx,%rax\n xor %rdx,%rax\n xor %r8,%rax\n"
	"  ret\n"

	/* a_ibt: an IBT kernel's layouts (CONFIG_X86_KERNEL_IBT): functions
	 * open with endbr64 and have their __fentry__ call at +4; one only
	 * ever called directly opens with the seal the kernel writes over its
	 * endbr64 (66 0f 1f 00); an indirect jmp lands on an endbr64 that
	 * starts a block (label 3) and is reached by falling through too, so
	 * another block has it in its middle */
	"ibt_sealed:\n .byte 0x66,0x0f,0x1f,0x00\n call corpus_fentry\n"
	"  lea (%rdi,%rsi,2),%rax\n ret\n"
	"ibt_taken:\n endbr64\n call corpus_fentry\n"
	"  lea 3(%rdi),%rax\n sub %rsi,%rax\n ret\n"
	".globl a_ibt\n a_ibt:\n"
	"  endbr64\n call corpus_fentry\n"
	"  push %rbx\n mov %rdi,%rbx\n"
	"  call ibt_sealed\n add %rax,%rbx\n"
	"  lea ibt_taken(%rip),%r11\n call *%r11\n add %rax,%rbx\n"
	"  lea 1f(%rip),%rax\n test $1,%bl\n jz 2f\n lea 3f(%rip),%rax\n"
	"2: jmp *%rax\n"
	"1: endbr64\n add $5,%rbx\n"
	"3: endbr64\n xor %rsi,%rbx\n"
	"  mov %rbx,%rax\n pop %rbx\n ret\n"

	/* a_rsbfill: __switch_to_asm's return stack buffer filling
	 * (FILL_RETURN_BUFFER on 6.1): slots `call 1f; int3; 1:` whose
	 * pushed return addresses the loop drops again, then a tail jump */
	".globl a_rsbfill\n a_rsbfill:\n"
	"  mov %rdi,%rcx\n and $3,%rcx\n inc %rcx\n"
	"1: call 2f\n int3\n"
	"2: call 3f\n int3\n"
	"3: add $16,%rsp\n dec %rcx\n jnz 1b\n"
	"  lfence\n"
	"  jmp op_add\n"

	/* a_regslive: every argument and scratch register set in one block
	 * and read in the next, each once, %r11 (a counter's first choice)
	 * last, but %r10 written first, unread: a per-CPU counter there must
	 * take %r10 (or save a register, or wait until one is read for the
	 * last time), never %r11 */
	".globl a_regslive\n a_regslive:\n"
	"  call corpus_fentry\n"
	"  lea 1(%rdi),%r8\n lea 2(%rdi),%r9\n lea 3(%rsi),%r10\n"
	"  lea 4(%rsi),%r11\n lea 5(%rdi),%rcx\n lea 6(%rsi),%rdx\n"
	"  lea (%rdi,%rsi,4),%rax\n"
	"  jmp 1f\n"
	"1: mov $7,%r10d\n imul %r10,%rax\n add %r9,%rax\n imul %r8,%rax\n"
	"  add %rcx,%rax\n"
	"  imul %rdx,%rax\n add %rsi,%rax\n imul %rdi,%rax\n add %r11,%rax\n"
	"  ret\n"
	".popsection\n"
	".pushsection .data\n ptr_cell: .quad op_add\n .popsection\n");

long a_carry(long, long), a_string(long, long), a_loop(long, long);
long a_repzero(long, long);
long a_retimm(long, long), a_thunks(long, long), a_callrsp(long, long);
long a_flags(long, long), a_ibt(long, long), a_rsbfill(long, long);
long a_regslive(long, long);

const struct corpus_case corpus_cases[] = {
    {"loop", c_loop},	      {"switch", c_switch},   {"fib", c_fib},
    {"fnptr", c_fnptr},	      {"tail", c_tail},	      {"setcc", c_setcc},
    {"twojcc", c_twojcc},     {"wide", c_wide},	      {"global", c_global},
    {"goto", c_goto},	      {"bits", c_bits},	      {"carry", a_carry},
    {"string", a_string},     {"loopinsn", a_loop},   {"retimm", a_retimm},
    {"thunks", a_thunks},     {"callrsp", a_callrsp}, {"repzero", a_repzero},
    {"flags", a_flags},	      {"ibt", a_ibt},	      {"rsbfill", a_rsbfill},
    {"regslive", a_regslive}, {"fnreg", c_fnreg},
};
const unsigned corpus_n_cases = sizeof(corpus_cases) / sizeof(corpus_cases[0]);
