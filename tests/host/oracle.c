/* oracle.c - the host tests' independent block-count oracle (oracle.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>
#include "tests/host/corpus.h"
#include "tests/host/oracle.h"

#define MAX_STEPS 2000000

static u64 lo, hi;
static bool native_indirect;

void oracle_init(u64 l, u64 h)
{
	lo = l, hi = h;
}

void oracle_native_indirect_calls(bool on)
{
	native_indirect = on;
}

/* Skipping legacy prefixes and REX: the opcode byte's offset. */
static int opcode_at(const u8 *p)
{
	int i = 0;

	while (i < 14 &&
	       (p[i] == 0x66 || p[i] == 0x67 || p[i] == 0xf2 || p[i] == 0xf3 ||
		p[i] == 0x2e || p[i] == 0x36 || p[i] == 0x3e || p[i] == 0x26 ||
		p[i] == 0x64 || p[i] == 0x65 || p[i] == 0xf0))
		i++;
	if ((p[i] & 0xf0) == 0x40)
		i++;
	return i;
}

/* An indirect call (ff /2), or a direct call of one of the corpus's
 * indirect thunks (which jmp through a register): the callee the
 * translator leaves native when it copies indirect calls. */
static bool indirect_call(u64 rip)
{
	const u8 *p = (const u8 *)(uintptr_t)rip;
	int i = opcode_at(p);
	u64 t;
	s32 rel;

	if (p[i] == 0xff)
		return ((p[i + 1] >> 3) & 7) == 2;
	if (p[i] != 0xe8)
		return false;
	memcpy(&rel, p + i + 1, 4);
	t = rip + (u64)i + 5 + (u64)(s64)rel;
	return t == (u64)(uintptr_t)corpus_thunk_rax ||
	       t == (u64)(uintptr_t)corpus_thunk_r11;
}

static u64 reg_of(pid_t pid, size_t off)
{
	return (u64)ptrace(PTRACE_PEEKUSER, pid, off, 0);
}

/* Control transfer by opcode, past legacy prefixes and REX. */
static int is_transfer(const u8 *p)
{
	int i = opcode_at(p);

	if ((p[i] & 0xf0) == 0x70 || (p[i] >= 0xe0 && p[i] <= 0xe3) ||
	    p[i] == 0xe8 || p[i] == 0xe9 || p[i] == 0xeb || p[i] == 0xc2 ||
	    p[i] == 0xc3 || p[i] == 0xca || p[i] == 0xcb || p[i] == 0xcc ||
	    p[i] == 0xcd || p[i] == 0xcf)
		return 1;
	if (p[i] == 0xff) {
		int reg = (p[i + 1] >> 3) & 7;

		return reg >= 2 && reg <= 5;
	}
	return p[i] == 0x0f && (p[i + 1] & 0xf0) == 0x80;
}

static int is_fentry_call(u64 rip)
{
	const u8 *p = (const u8 *)(uintptr_t)rip;
	s32 rel;

	if (p[0] != 0xe8)
		return 0;
	memcpy(&rel, p + 1, 4);
	return rip + 5 + rel == (u64)(uintptr_t)corpus_fentry;
}

static unsigned omap_idx(struct omap *m, u64 a)
{
	unsigned i;

	for (i = 0; i < m->n; i++)
		if (m->addr[i] == a)
			return i;
	if (m->n >= OMAP_MAX)
		return 0;
	m->addr[m->n] = a, m->count[m->n] = 0, m->end[m->n] = 0;
	return m->n++;
}

/* Is @a a block start the oracle saw? (never adds it, unlike omap_idx) */
bool omap_has(const struct omap *m, u64 a)
{
	unsigned i;

	for (i = 0; i < m->n; i++)
		if (m->addr[i] == a)
			return m->count[i] != 0;
	return false;
}

static void oracle_edge(struct omap *m, u64 from, u64 to)
{
	unsigned i;

	for (i = 0; i < m->ne; i++)
		if (m->e_from[i] == from && m->e_to[i] == to) {
			m->e_count[i]++;
			return;
		}
	if (m->ne < OMAP_MAX) {
		m->e_from[m->ne] = from, m->e_to[m->ne] = to;
		m->e_count[m->ne++] = 1;
	}
}

u64 oracle_edge_count(const struct omap *m, u64 from, u64 to)
{
	unsigned i;

	for (i = 0; i < m->ne; i++)
		if (m->e_from[i] == from && m->e_to[i] == to)
			return m->e_count[i];
	return 0;
}

static void oracle_step(struct omap *m, u64 rip, int *prev_ct, int *first,
			u64 *seg)
{
	/* the fake kernel symbols (fentry, thunks) sit before a_carry: they are
	 * not blocks of their own; fentry returns are not block boundaries */
	if (rip < (u64)(uintptr_t)corpus_thunk_r11 + 3) {
		*prev_ct = rip >= (u64)(uintptr_t)corpus_return_thunk;
		return;
	}
	if (*first || *prev_ct) {
		unsigned i = omap_idx(m, rip);

		m->count[i]++;
		if (m->prev)
			oracle_edge(m, m->prev, rip);
		m->prev = rip;
		*seg = rip;
		*first = 0;
	}
	*prev_ct =
	    is_transfer((const u8 *)(uintptr_t)rip) && !is_fentry_call(rip);
	if (*prev_ct) {
		unsigned i = omap_idx(m, *seg);

		if (m->end[i] && m->end[i] != rip)
			m->end[i] =
			    ~0ull; /* inconsistent: flagged by the check */
		else
			m->end[i] = rip;
	}
}

/* The traced child stops itself and exits through raw system calls:
 * raise() and _exit() would be hundreds of single steps each. */
static void stop_self(void)
{
	long pid = getpid();

	__asm__ volatile("syscall"
			 :
			 : "a"(62L /* kill */), "D"(pid), "S"((long)SIGSTOP)
			 : "rcx", "r11", "memory");
}

static __attribute__((noreturn)) void exit_now(void)
{
	__asm__ volatile("syscall"
			 :
			 : "a"(231L /* exit_group */), "D"(0L)
			 : "rcx", "r11", "memory");
	__builtin_unreachable();
}

long oracle_run_fn(void (*run)(void *arg), void *arg, struct omap *m)
{
	pid_t pid = fork();
	int st, prev_ct = 0, first = 1;
	u64 skip_to = 0, skip_sp = 0;
	long steps = 0;
	u64 seg = 0;

	if (pid == 0) {
		corpus_reset();
		ptrace(PTRACE_TRACEME, 0, 0, 0);
		stop_self();
		run(arg);
		exit_now();
	}
	waitpid(pid, &st, 0);
	m->n = 0;
	m->ne = 0;
	m->prev = 0;
	while (steps < MAX_STEPS) {
		u64 rip;
		bool call;

		if (ptrace(PTRACE_SINGLESTEP, pid, 0, 0) < 0)
			break;
		waitpid(pid, &st, 0);
		if (!WIFSTOPPED(st))
			return steps;
		rip = reg_of(pid, offsetof(struct user_regs_struct, rip));
		if (skip_to) { /* in a native callee until it returns */
			if (rip != skip_to ||
			    reg_of(pid, offsetof(struct user_regs_struct,
						 rsp)) != skip_sp)
				continue;
			skip_to = 0;
			prev_ct = 1;
		}
		if (rip < lo || rip >= hi) {
			prev_ct = 1; /* left the corpus (return to harness) */
			continue;
		}
		call = native_indirect && indirect_call(rip);
		oracle_step(m, rip, &prev_ct, &first, &seg), steps++;
		if (call) { /* step into the callee: its return address */
			u64 sp;

			if (ptrace(PTRACE_SINGLESTEP, pid, 0, 0) < 0)
				break;
			waitpid(pid, &st, 0);
			if (!WIFSTOPPED(st))
				return steps;
			sp = reg_of(pid, offsetof(struct user_regs_struct, rsp));
			errno = 0;
			skip_to = (u64)ptrace(PTRACE_PEEKDATA, pid, sp, 0);
			skip_sp = sp + 8;
			if (errno)
				break;
		}
	}
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	return -1;
}


u64 omap_count(const struct omap *m, u64 a)
{
	unsigned i;

	for (i = 0; i < m->n; i++)
		if (m->addr[i] == a)
			return m->count[i];
	return 0;
}
