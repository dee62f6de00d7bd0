/*
 * test_cfg.c - host test of static CFG discovery (tools/session/cfg.c) on a
 * hand-assembled function: blocks split at jump targets (including one
 * into the middle of the entry run), calls end a block but not the walk,
 * the fentry site stays in the entry block, edges and their kinds, an
 * external tail jump, a trap that ends the flow, a static-key site
 * with both of its successors, and the fentry site of IBT kernels at +4.
 */
#include <string.h>
#include "jit/decode.h"
#include "tools/session/cfg.h"
#include "check.h"

#define BASE 0xffffffff81000000ull

/*
 * 00: e8 00 00 00 00    call (fentry site, live-patched: a call)
 * 05: 85 ff             test edi, edi
 * 07: 74 07             je 0x10
 * 09: e8 f2 ff ff 7f    call far away (outside)
 * 0e: eb 03             jmp 0x13
 * 10: 31 c0             xor eax, eax
 * 12: c3                ret
 * 13: b8 02 00 00 00    mov eax, 2
 * 18: 85 c0             test eax, eax
 * 1a: 75 e9             jne 0x05      (back into the entry run)
 * 1c: 7f 05             jg 0x23
 * 1e: e9 dd 0f 00 00    jmp 0x1000    (outside: tail jump)
 * 23: 0f 0b             ud2           (refused: ends the flow)
 * 25: cc cc cc          padding, never reached
 */
static const unsigned char code[] = {
    0xe8, 0x00, 0x00, 0x00, 0x00, 0x85, 0xff, 0x74, 0x07, 0xe8,
    0xf2, 0xff, 0xff, 0x7f, 0xeb, 0x03, 0x31, 0xc0, 0xc3, 0xb8,
    0x02, 0x00, 0x00, 0x00, 0x85, 0xc0, 0x75, 0xe9, 0x7f, 0x05,
    0xe9, 0xdd, 0x0f, 0x00, 0x00, 0x0f, 0x0b, 0xcc, 0xcc, 0xcc,
};

static size_t read_code(void *opaque, u64 addr, u8 *buf, size_t len)
{
	size_t off = (size_t)(addr - BASE), n;

	if (addr < BASE || off >= sizeof(code))
		return 0;
	n = sizeof(code) - off < len ? sizeof(code) - off : len;
	memcpy(buf, code + off, n);
	return n;
}

static int has_edge(const struct cfg_block *b, uint64_t off, int kind, int ext)
{
	unsigned int i;

	for (i = 0; i < b->n_edges; i++)
		if (b->edge[i].to == BASE + off && b->edge[i].kind == kind &&
		    b->edge[i].external == ext)
			return 1;
	return 0;
}

static const struct cfg_block *blk(const struct cfg *g, uint64_t off)
{
	long i = cfg_block_at(g, BASE + off);

	return i >= 0 && g->blk[i].start == BASE + off ? &g->blk[i] : NULL;
}

/*
 * A static-key site (the kernel flips it between nop5 and jmp 0x08):
 * 00: 0f 1f 44 00 00    nop5          site -> 0x08
 * 05: 31 c0             xor eax, eax
 * 07: c3                ret
 * 08: b8 01 00 00 00    mov eax, 1
 * 0d: c3                ret
 */
static const unsigned char site_code[] = {0x0f, 0x1f, 0x44, 0x00, 0x00,
					  0x31, 0xc0, 0xc3, 0xb8, 0x01,
					  0x00, 0x00, 0x00, 0xc3};

static size_t read_site_code(void *opaque, u64 addr, u8 *buf, size_t len)
{
	size_t off = (size_t)(addr - BASE), n;

	if (addr < BASE || off >= sizeof(site_code))
		return 0;
	n = sizeof(site_code) - off < len ? sizeof(site_code) - off : len;
	memcpy(buf, site_code + off, n);
	return n;
}

static bool patch_site(void *opaque, u64 addr, u64 *target)
{
	if (addr != BASE)
		return false;
	*target = BASE + 8;
	return true;
}

static void static_key(void)
{
	struct kjit_env env = {.read_code = read_site_code,
			       .patch_site = patch_site};
	const struct cfg_block *b;
	struct cfg g;

	if (cfg_build(&g, BASE, BASE + sizeof(site_code), &env)) {
		check("static_key", 0, "cfg_build failed");
		return;
	}
	b = blk(&g, 0);
	check("static_key",
	      g.n_blk == 3 && b && b->n == 1 && has_edge(b, 8, CFG_KEY, 0) &&
		  has_edge(b, 5, CFG_FALL, 0),
	      "site at 0x00 must have the key edge and the fall-through");
	cfg_free(&g);
}

/*
 * IBT kernels (CONFIG_X86_KERNEL_IBT): the fentry site follows the
 * function's endbr64, or the seal the kernel writes over an endbr64 no
 * indirect branch may reach:
 * 00: f3 0f 1e fa       endbr64          (or 66 0f 1f 00, the seal)
 * 04: e8 00 00 00 00    call (fentry site, live-patched: a call)
 * 09: 31 c0             xor eax, eax
 * 0b: c3                ret
 */
static unsigned char ibt_code[12] = {0xf3, 0x0f, 0x1e, 0xfa, 0xe8, 0x00,
				     0x00, 0x00, 0x00, 0x31, 0xc0, 0xc3};

static size_t read_ibt_code(void *opaque, u64 addr, u8 *buf, size_t len)
{
	size_t off = (size_t)(addr - BASE), n;

	if (addr < BASE || off >= sizeof(ibt_code))
		return 0;
	n = sizeof(ibt_code) - off < len ? sizeof(ibt_code) - off : len;
	memcpy(buf, ibt_code + off, n);
	return n;
}

static void ibt_layout(const char *name, const unsigned char *opening)
{
	struct kjit_env env = {.read_code = read_ibt_code};
	const struct cfg_block *b;
	struct cfg g;

	memcpy(ibt_code, opening, 4);
	if (cfg_build(&g, BASE, BASE + sizeof(ibt_code), &env)) {
		check(name, 0, "cfg_build failed");
		return;
	}
	b = blk(&g, 0);
	check(name,
	      g.n_blk == 1 && b && b->n == 4 && b->end == BASE + 0xc &&
		  g.insn[b->first + 1].kind == KJIT_I_DROP && !b->n_edges,
	      "the call at +4 must be the fentry site: one block, no edge");
	cfg_free(&g);
}

int main(void)
{
	struct kjit_env env = {.read_code = read_code};
	const struct cfg_block *b;
	struct cfg g;
	char why[128];
	int rc;

	area = "tool.cfg";
	rc = cfg_build(&g, BASE, BASE + 0x28, &env);
	check("build", !rc, "cfg_build failed");
	if (rc)
		return 1;
	snprintf(why, sizeof(why), "%zu blocks, %zu edges", g.n_blk, g.n_edges);
	check("counts", g.n_blk == 9 && g.n_edges == 10, why);
	b = blk(&g, 0);
	check("fentry_in_entry",
	      b && b->end == BASE + 5 && b->n == 1 &&
		  has_edge(b, 5, CFG_FALL, 0),
	      "entry run split only by the jump back to 0x05");
	b = blk(&g, 5);
	check("jcc",
	      b && b->n == 2 && has_edge(b, 0x10, CFG_TAKEN, 0) &&
		  has_edge(b, 9, CFG_FALL, 0),
	      "je at 0x07");
	b = blk(&g, 9);
	check("call_falls_through",
	      b && b->n == 1 && b->n_edges == 1 &&
		  has_edge(b, 0xe, CFG_FALL, 0),
	      "call at 0x09");
	b = blk(&g, 0xe);
	check("jmp", b && has_edge(b, 0x13, CFG_JUMP, 0) && b->n_edges == 1,
	      "jmp at 0x0e");
	b = blk(&g, 0x10);
	check("ret", b && b->n == 2 && b->n_edges == 0, "ret at 0x12");
	b = blk(&g, 0x13);
	check("loop_back", b && b->n == 3 && has_edge(b, 5, CFG_TAKEN, 0),
	      "jne at 0x1a");
	b = blk(&g, 0x1c);
	check("jcc_to_trap",
	      b && has_edge(b, 0x23, CFG_TAKEN, 0) &&
		  has_edge(b, 0x1e, CFG_FALL, 0),
	      "jg at 0x1c");
	b = blk(&g, 0x1e);
	check("tail_jump", b && has_edge(b, 0x1000, CFG_JUMP, 1),
	      "jmp outside");
	b = blk(&g, 0x23);
	check("trap",
	      b && b->n == 1 && g.insn[b->first].reason && b->n_edges == 0,
	      "ud2 at 0x23");
	check("padding_unreached", cfg_block_at(&g, BASE + 0x25) < 0,
	      "int3 padding is not code");
	cfg_free(&g);
	static_key();
	ibt_layout("ibt_endbr64", (const unsigned char *)"\xf3\x0f\x1e\xfa");
	ibt_layout("ibt_sealed", (const unsigned char *)"\x66\x0f\x1f\x00");
	return failures ? 1 : 0;
}
