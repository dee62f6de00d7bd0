/*
 * bench_share.c - the independent oracle of bench/share.sh: what share of
 * the kernel code executed under the roots ran counted by kjit. It
 * single-steps the guest through QEMU's gdb stub and counts, instruction by
 * instruction, the native kernel code that ran under a root; the guest's
 * lmbench -K counts what kjit counted in the same window.
 *
 *   bench_share PORT OUT TTYS1
 *
 * TTYS1 is the guest's second serial port (a file): bench_share waits there
 * for "KJIT-STEP-INFO marker=A stext=A etext=A switch=A
 * thunks=A-A,A-A,... roots=A,A,..." (hex), sets a
 * breakpoint on the marker (the guest's access() entry) and lets the guest
 * run. lmbench -K calls access("KJITSTEP-OPEN") and access("KJITSTEP-CLOSE")
 * around each measured run; between the two every instruction is stepped:
 *
 *  - a root extent starts when a step lands on a root's address: its kernel
 *    stack (rsp rounded down to THREAD_SIZE), the entry rsp and the return
 *    address [rsp]; it ends when that stack returns there. Extents follow
 *    their stack, so a task that sleeps inside a root and resumes later is
 *    counted again, and another task's code in between is not;
 *  - an instruction is native under a root if an extent is open on its
 *    stack, it is at or below the entry rsp, and it lies in the kernel's
 *    text [stext, etext): kjit's cache (kjit_pool.ko), trampolines and
 *    dispatcher (kjit.ko, module area) are outside it and not counted;
 *  - a synchronous stack switch inside an extent (call_on_irqstack: a
 *    softirq run from local_bh_enable() on the irq stack; interrupts are
 *    masked while stepping, so nothing else switches stacks but the
 *    context switch) takes the extent along: the new stack belongs to it
 *    until rsp is back on the old one. The context switch is
 *    __switch_to_asm's `mov TASK_threadsp(%rsi),%rsp`, native (at
 *    switch=) or its copy in kjit's cache: any load of rsp from memory
 *    (call_on_irqstack moves a register into rsp);
 *  - a switch that native code makes (schedule() outside the roots: on
 *    the way back to user space, in a task outside them) into a task
 *    inside a root runs its second half - __switch_to_asm after the stack
 *    switch, __switch_to - on that task's stack, up to __switch_to's ret
 *    (the switch frame popped): counted apart (switch_insns,
 *    switch_blocks), as kjit cannot follow code that the switching task
 *    runs natively; a switch made by translated code runs it translated;
 *  - what kjit.ko's own code calls in the kernel (its dispatcher looks
 *    functions up with kallsyms, __module_address) runs on the task's
 *    stack too; from a call out of kjit.ko's range (kjit= BASE,SIZE) to
 *    the return to it, it is kjit's, counted apart;
 *  - a rep-prefixed string instruction is stepped once per iteration: a
 *    step that stays on the instruction stepped last is the same one;
 *  - two kinds of native instruction are counted apart, as kjit's way in
 *    or as part of an instruction kjit counted: a root's own entry site
 *    (endbr64 and the __fentry__ call, now a call to kjit's trampoline:
 *    kjit's blocks start behind it), and the speculation thunks (the
 *    thunks= ranges: __x86_indirect_thunk_*, __x86_return_thunk and the
 *    like), which stand for the `call *%reg`, `jmp *%reg` or `ret` that
 *    jumps to them: kjit counts the block that ends in that jump, and its
 *    trampoline jumps through one;
 *  - a native instruction starts a block when the previous instruction of
 *    its extent was not native, was a branch, call, return or other
 *    control transfer, or does not end where it starts (leader rule).
 *
 * Per window OUT gets "WINDOW n native_insns native_blocks site_insns
 * thunk_insns kjit_insns switch_insns switch_blocks steps extents"
 * and every native instruction it ran, most executed first ("NATIVE pc
 * count");
 * the report pairs window n with lmbench's n-th KJIT-SHARE line. QEMU's
 * default step flags mask interrupts while stepping, so interrupt handlers
 * do not run inside the windows.
 */
#define _GNU_SOURCE
#include <Zydis/Zydis.h>
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define THREAD_SIZE (16u << 10) /* x86-64 kernel stacks (no KASAN) */
/* struct inactive_task_frame: the six registers __switch_to_asm pushes and
 * its caller's return address */
#define SWITCH_FRAME (7 * 8)
#define MAX_ROOTS   256
#define MAX_EXT	    64
#define PC_HASH	    (1u << 20)

static int sock = -1;

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "bench_share: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	exit(1);
}

/* ---- the gdb remote protocol, no-ack mode ------------------------------ */

static char rbuf[1 << 16];
static size_t rlen, rpos;

static int get_byte(void)
{
	ssize_t n;

	if (rpos == rlen) {
		n = read(sock, rbuf, sizeof(rbuf));
		if (n <= 0)
			die("gdb stub closed the connection");
		rlen = (size_t)n;
		rpos = 0;
	}
	return (unsigned char)rbuf[rpos++];
}

static bool ack_mode = true;

static void send_packet(const char *data)
{
	static char out[4096];
	unsigned sum = 0;
	size_t i, n = strlen(data);

	for (i = 0; i < n; i++)
		sum += (unsigned char)data[i];
	n = (size_t)snprintf(out, sizeof(out), "$%s#%02x", data, sum & 0xff);
	if (write(sock, out, n) != (ssize_t)n)
		die("write: %s", strerror(errno));
	if (ack_mode && get_byte() != '+')
		die("no ack for %s", data);
}

/* The next packet's payload into @buf (NUL-terminated). */
static void get_packet(char *buf, size_t size)
{
	size_t n = 0;
	int c;

	while ((c = get_byte()) != '$')
		;
	while ((c = get_byte()) != '#')
		if (n + 1 < size)
			buf[n++] = (char)c;
	buf[n] = 0;
	get_byte();
	get_byte();
	if (ack_mode && write(sock, "+", 1) != 1)
		die("write ack");
}

static void request(const char *req, char *reply, size_t size)
{
	send_packet(req);
	get_packet(reply, size);
}

static uint64_t le64(const char *hex)
{
	uint64_t v = 0;
	int i;

	for (i = 7; i >= 0; i--) {
		unsigned b;

		sscanf(hex + 2 * i, "%2x", &b);
		v = v << 8 | b;
	}
	return v;
}

struct regs {
	uint64_t rdi, rsp, rip;
};

static void read_regs(struct regs *r)
{
	static char g[8192];

	request("g", g, sizeof(g));
	if (strlen(g) < 17 * 16)
		die("short register packet: %.40s", g);
	r->rdi = le64(g + 5 * 16);
	r->rsp = le64(g + 7 * 16);
	r->rip = le64(g + 16 * 16);
}

/* @n bytes of guest virtual memory at @a; false if unreadable. */
static bool read_mem(uint64_t a, uint8_t *out, unsigned n)
{
	char req[64], rep[512];
	unsigned i, b;

	snprintf(req, sizeof(req), "m%" PRIx64 ",%x", a, n);
	request(req, rep, sizeof(rep));
	if (rep[0] == 'E' || strlen(rep) < 2 * n)
		return false;
	for (i = 0; i < n; i++) {
		sscanf(rep + 2 * i, "%2x", &b);
		out[i] = (uint8_t)b;
	}
	return true;
}

static void wait_stop(void)
{
	char rep[512];

	get_packet(rep, sizeof(rep));
	if (rep[0] != 'T' && rep[0] != 'S')
		die("unexpected stop reply %.40s", rep);
}

static void step(void)
{
	send_packet("s");
	wait_stop();
}

/* ---- the guest's facts ------------------------------------------------- */

#define MAX_THUNKS 128
static uint64_t marker, stext, etext, switch_to, roots[MAX_ROOTS];
static uint64_t kjit_lo, kjit_hi; /* kjit.ko's core */
static uint64_t thunk_lo[MAX_THUNKS], thunk_hi[MAX_THUNKS];
static unsigned n_roots, n_thunks;

static bool is_thunk(uint64_t pc)
{
	unsigned i;

	for (i = 0; i < n_thunks; i++)
		if (pc >= thunk_lo[i] && pc < thunk_hi[i])
			return true;
	return false;
}
static bool is_root(uint64_t pc)
{
	unsigned i;

	for (i = 0; i < n_roots; i++)
		if (roots[i] == pc)
			return true;
	return false;
}

/* Wait for the KJIT-STEP-INFO line in @ttys1. */
static void read_info(const char *ttys1)
{
	char line[8192], *p;
	FILE *f;

	for (;;) {
		f = fopen(ttys1, "r");
		while (f && fgets(line, sizeof(line), f)) {
			if (strncmp(line, "KJIT-STEP-INFO ", 15))
				continue;
			/* the guest may be writing it still: whole lines
			 * only (a run read it without its roots= and
			 * stepped nothing) */
			if (!strchr(line, '\n'))
				break;
			if (sscanf(line + 15,
				   "marker=%" SCNx64 " stext=%" SCNx64
				   " etext=%" SCNx64,
				   &marker, &stext, &etext) != 3)
				die("bad info line: %s", line);
			p = strstr(line, "kjit=");
			if (p) {
				kjit_lo = strtoull(p + 5, &p, 16);
				if (*p == ',')
					kjit_hi =
					    kjit_lo + strtoull(p + 1, NULL, 10);
			}
			p = strstr(line, "switch=");
			if (p)
				switch_to = strtoull(p + 7, NULL, 16);
			p = strstr(line, "thunks=");
			for (p = p ? p + 7 : NULL;
			     p && n_thunks < MAX_THUNKS;) {
				thunk_lo[n_thunks] = strtoull(p, &p, 16);
				if (*p != '-')
					break;
				thunk_hi[n_thunks++] = strtoull(p + 1, &p, 16);
				if (*p != ',')
					break;
				p++;
			}
			p = strstr(line, "roots=");
			for (p = p ? p + 6 : NULL;
			     p && *p && n_roots < MAX_ROOTS;) {
				roots[n_roots++] = strtoull(p, &p, 16);
				if (*p != ',')
					break;
				p++;
			}
			fclose(f);
			return;
		}
		if (f)
			fclose(f);
		usleep(200 * 1000);
	}
}

/* ---- instructions: length and whether they end a block ------------------ */

struct pcinfo {
	uint64_t pc;
	uint64_t hits; /* native executions in window `gen` */
	unsigned gen;
	uint8_t len, ends; /* ends: a control transfer */
};

#define MAX_TOUCHED (1u << 16)
static struct pcinfo *touched[MAX_TOUCHED]; /* this window's native PCs */
static unsigned n_touched, gen;

static struct pcinfo *pcs;
static ZydisDecoder dec;

static struct pcinfo *decode(uint64_t pc)
{
	uint32_t h = (uint32_t)((pc >> 0) * 0x9e3779b1u) & (PC_HASH - 1);
	ZydisDecodedInstruction in;
	uint8_t bytes[16];

	while (pcs[h].pc && pcs[h].pc != pc)
		h = (h + 1) & (PC_HASH - 1);
	if (pcs[h].pc == pc)
		return &pcs[h];
	pcs[h].pc = pc;
	pcs[h].len = 1;
	pcs[h].ends = 1; /* unknown: start afresh after it */
	if (read_mem(pc, bytes, sizeof(bytes)) &&
	    ZYAN_SUCCESS(ZydisDecoderDecodeInstruction(&dec, NULL, bytes,
						       sizeof(bytes), &in))) {
		pcs[h].len = in.length;
		pcs[h].ends = in.meta.branch_type != ZYDIS_BRANCH_TYPE_NONE ||
			      in.meta.category == ZYDIS_CATEGORY_RET ||
			      in.meta.category == ZYDIS_CATEGORY_CALL ||
			      in.meta.category == ZYDIS_CATEGORY_COND_BR ||
			      in.meta.category == ZYDIS_CATEGORY_UNCOND_BR ||
			      in.meta.category == ZYDIS_CATEGORY_SYSTEM ||
			      in.meta.category == ZYDIS_CATEGORY_INTERRUPT ||
			      in.meta.category == ZYDIS_CATEGORY_SYSCALL ||
			      in.meta.category == ZYDIS_CATEGORY_SYSRET;
	}
	return &pcs[h];
}

/* ---- windows ------------------------------------------------------------ */

struct extent {
	uint64_t stack, entry_rsp, ret; /* ret 0: a stack switched to */
	uint64_t parent;		/* then: the stack it came from */
	uint64_t kjit_call; /* rsp of a call out of kjit.ko in progress */
	uint64_t switch_in; /* a native switch into this stack: its second
			       half runs while rsp is below this, 0: none */
	uint64_t last_rip;  /* the last instruction stepped on it */
	uint64_t last_pc;   /* the previous native instruction, 0: none */
	uint8_t last_len, last_ends;
};

struct window {
	uint64_t native_insns, native_blocks, steps, extents;
	uint64_t site_insns, thunk_insns; /* kjit's way in (above) */
	uint64_t kjit_insns;		  /* kernel code kjit.ko called */
	uint64_t switch_insns, switch_blocks; /* second halves of native
						 switches into a root task */
};

static struct extent ext[MAX_EXT];
static unsigned n_ext;

static struct extent *extent_of(uint64_t rsp)
{
	uint64_t stack = rsp & ~(uint64_t)(THREAD_SIZE - 1);
	int i;

	for (i = (int)n_ext - 1; i >= 0; i--)
		if (ext[i].stack == stack && rsp <= ext[i].entry_rsp)
			return &ext[i];
	return NULL;
}

static uint64_t prev_rip, prev_rsp;
static int prev_ext = -1; /* the extent of the previous instruction */

/* Did the instruction at @rip switch tasks: is it in the native
 * __switch_to_asm, or `mov m64,%rsp` (REX.W 8b, ModRM reg rsp, a memory
 * operand), as __switch_to_asm's copy in the cache is? */
static int task_switch_at(uint64_t rip)
{
	uint8_t b[3];

	if (rip >= switch_to && rip < switch_to + 256)
		return 1;
	return read_mem(rip, b, 3) && (b[0] & 0xf8) == 0x48 && b[1] == 0x8b &&
	       ((b[2] >> 3) & 7) == 4 && !(b[0] & 4) && (b[2] >> 6) != 3;
}

static void count_step(const struct regs *r, struct window *w)
{
	uint64_t stack = r->rsp & ~(uint64_t)(THREAD_SIZE - 1);
	struct pcinfo *pi;
	struct extent *e;
	unsigned i;

	/* back from a stack switch; a return out of an extent closes it
	 * (and any nested one above) */
	for (i = n_ext; i-- > 0;)
		if ((!ext[i].ret && stack == ext[i].parent) ||
		    (ext[i].ret && ext[i].stack == stack &&
		     r->rip == ext[i].ret && r->rsp == ext[i].entry_rsp + 8)) {
			n_ext = i;
			break;
		}
	e = extent_of(r->rsp);
	/* a synchronous switch to another stack takes the extent along */
	if (!e && prev_ext >= 0 && prev_ext < (int)n_ext &&
	    ext[prev_ext].stack != stack && !task_switch_at(prev_rip) &&
	    n_ext < MAX_EXT) {
		e = &ext[n_ext++];
		memset(e, 0, sizeof(*e));
		e->stack = stack;
		e->entry_rsp = r->rsp;
		e->parent = ext[prev_ext].stack;
	}
	if (is_root(r->rip) && n_ext < MAX_EXT) {
		e = &ext[n_ext++];
		memset(e, 0, sizeof(*e));
		e->stack = stack;
		e->entry_rsp = r->rsp;
		if (!read_mem(r->rsp, (uint8_t *)&e->ret, 8) || !e->ret)
			n_ext--;
		else
			w->extents++;
		e = extent_of(r->rsp);
	}
	/* a call from kjit.ko into the kernel: kjit's until it returns */
	if (e && !e->kjit_call && prev_ext == (int)(e - ext) &&
	    prev_rip >= kjit_lo && prev_rip < kjit_hi &&
	    (r->rip < kjit_lo || r->rip >= kjit_hi) && r->rsp < prev_rsp)
		e->kjit_call = r->rsp;
	if (e && e->kjit_call && r->rsp > e->kjit_call)
		e->kjit_call = 0;
	/* the native __switch_to_asm switched to this stack: up to its
	 * __switch_to's ret (the switch frame: six registers and the return
	 * address) the code is the switching task's half of the switch */
	if (e && prev_rip >= switch_to && prev_rip < switch_to + 256 &&
	    (prev_rsp & ~(uint64_t)(THREAD_SIZE - 1)) != stack)
		e->switch_in = r->rsp + SWITCH_FRAME;
	if (e && e->switch_in && r->rsp >= e->switch_in)
		e->switch_in = 0;
	prev_rip = r->rip;
	prev_rsp = r->rsp;
	prev_ext = e ? (int)(e - ext) : -1;
	if (!e)
		return;
	if (r->rip == e->last_rip) /* a rep string op's next iteration */
		return;
	e->last_rip = r->rip;
	if (e->kjit_call) {
		w->kjit_insns++;
		e->last_pc = 0;
		return;
	}
	if (r->rip < stext || r->rip >= etext) {
		e->last_pc = 0; /* kjit's code, or a module's */
		return;
	}
	if (is_root(r->rip) || is_root(r->rip - 4)) {
		w->site_insns++; /* endbr64, the entry site's call */
		e->last_pc = 0;
		return;
	}
	if (is_thunk(r->rip)) {
		w->thunk_insns++;
		e->last_pc = 0;
		return;
	}
	pi = decode(r->rip);
	if (e->switch_in) {
		w->switch_insns++;
		if (!e->last_pc || e->last_ends ||
		    e->last_pc + e->last_len != r->rip)
			w->switch_blocks++;
		e->last_pc = r->rip;
		e->last_len = pi->len;
		e->last_ends = pi->ends;
		return;
	}
	if (pi->gen != gen) {
		pi->gen = gen;
		pi->hits = 0;
		if (n_touched < MAX_TOUCHED)
			touched[n_touched++] = pi;
	}
	pi->hits++;
	w->native_insns++;
	if (!e->last_pc || e->last_ends || e->last_pc + e->last_len != r->rip)
		w->native_blocks++;
	e->last_pc = r->rip;
	e->last_len = pi->len;
	e->last_ends = pi->ends;
}

/* Which marker this stop at the marker is: 1 open, 2 close, 0 neither
 * (another caller of access()). The path is the syscall's first argument:
 * pt_regs->di (offset 112) of the pt_regs in %rdi. */
static int marker_kind(const struct regs *r)
{
	uint8_t path[16] = {0};
	uint64_t di;

	if (!read_mem(r->rdi + 112, (uint8_t *)&di, 8) ||
	    !read_mem(di, path, 15))
		return 0;
	if (!memcmp(path, "KJITSTEP-OPEN", 14))
		return 1;
	if (!memcmp(path, "KJITSTEP-CLOSE", 15))
		return 2;
	return 0;
}

static int by_hits(const void *a, const void *b)
{
	const struct pcinfo *x = *(struct pcinfo *const *)a,
			    *y = *(struct pcinfo *const *)b;

	return x->hits < y->hits ? 1 : x->hits > y->hits ? -1 : 0;
}

/* The window's native instructions, most executed first. */
static void print_top(FILE *out, unsigned n)
{
	unsigned i;

	qsort(touched, n_touched, sizeof(touched[0]), by_hits);
	for (i = 0; i < n_touched && i < n; i++)
		fprintf(out, "NATIVE %" PRIx64 " %" PRIu64 "\n", touched[i]->pc,
			touched[i]->hits);
}

static void breakpoint(char op, uint64_t a)
{
	char req[64], rep[256];

	snprintf(req, sizeof(req), "%c0,%" PRIx64 ",1", op, a);
	request(req, rep, sizeof(rep));
	if (strcmp(rep, "OK"))
		die("breakpoint %c at %" PRIx64 ": %s", op, a, rep);
}

/* Breakpoints on every root (inside a window, between extents, the guest
 * runs at full speed to the next root or the closing marker). */
static void root_breakpoints(char op)
{
	unsigned i;

	for (i = 0; i < n_roots; i++)
		breakpoint(op, roots[i]);
}

static void run(FILE *out)
{
	struct window w;
	struct regs r;
	unsigned n = 0;

	/* QEMU stops again at a breakpoint it is resumed on: step off it
	 * first */
	breakpoint('Z', marker);
	memset(&r, 0, sizeof(r));
	for (;;) {
		if (r.rip == marker)
			step();
		send_packet("c");
		wait_stop();
		read_regs(&r);
		if (r.rip != marker || marker_kind(&r) != 1)
			continue;
		memset(&w, 0, sizeof(w));
		n_ext = 0;
		prev_ext = -1;
		n_touched = 0;
		gen++;
		root_breakpoints('Z');
		for (;;) {
			if (n_ext || r.rip == marker || is_root(r.rip)) {
				step();
				w.steps++;
			} else {
				send_packet("c");
				wait_stop();
			}
			read_regs(&r);
			if (r.rip == marker && marker_kind(&r) == 2)
				break;
			count_step(&r, &w);
		}
		root_breakpoints('z');
		fprintf(out,
			"WINDOW %u native_insns=%" PRIu64
			" native_blocks=%" PRIu64 " site_insns=%" PRIu64
			" thunk_insns=%" PRIu64 " kjit_insns=%" PRIu64
			" switch_insns=%" PRIu64 " switch_blocks=%" PRIu64
			" steps=%" PRIu64 " extents=%" PRIu64 "\n",
			n++, w.native_insns, w.native_blocks, w.site_insns,
			w.thunk_insns, w.kjit_insns, w.switch_insns,
			w.switch_blocks, w.steps, w.extents);
		print_top(out, n_touched);
		fflush(out);
	}
}

int main(int argc, char **argv)
{
	struct sockaddr_in a = {.sin_family = AF_INET};
	char rep[4096];
	FILE *out;
	int one = 1, tries;

	if (argc != 4)
		die("usage: bench_share PORT OUT TTYS1");
	out = fopen(argv[2], "w");
	if (!out)
		die("%s: %s", argv[2], strerror(errno));
	pcs = calloc(PC_HASH, sizeof(*pcs));
	if (!pcs)
		die("no memory");
	ZydisDecoderInit(&dec, ZYDIS_MACHINE_MODE_LONG_64,
			 ZYDIS_STACK_WIDTH_64);
	read_info(argv[3]);
	fprintf(out, "INFO marker=%" PRIx64 " roots=%u\n", marker, n_roots);
	fflush(out);
	a.sin_port = htons((uint16_t)atoi(argv[1]));
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	for (tries = 0;; tries++) {
		sock = socket(AF_INET, SOCK_STREAM, 0);
		if (sock >= 0 && !connect(sock, (void *)&a, sizeof(a)))
			break;
		if (sock >= 0)
			close(sock);
		if (tries > 100)
			die("cannot connect to the gdb stub on port %s",
			    argv[1]);
		usleep(100 * 1000);
	}
	setsockopt(sock, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	/* the stub stops the guest when we connect; no acks from now on */
	request("QStartNoAckMode", rep, sizeof(rep));
	if (!strcmp(rep, "OK"))
		ack_mode = false;
	request("?", rep, sizeof(rep));
	run(out);
	return 0;
}
