/* modgraph.c - references out of a kernel module's functions and data
 * (modgraph.h), read with libelf and decoded with Zydis.
 *
 * Offsets are section offsets throughout: a relocatable object has no
 * addresses, and every reference the assembler resolved itself stays
 * inside one section.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <Zydis/Zydis.h>
#include "tests/host/modgraph.h"

struct mg_rel {
	u64 off;
	u32 sym, type;
	s64 addend;
};

struct mg_sec {
	const char *name;
	GElf_Shdr sh;
	const u8 *data; /* NULL for NOBITS */
	struct mg_rel *rel;
	size_t n_rel;
};

struct mg_sym {
	const char *name;
	u32 shndx;
	u64 value, size;
	u8 type;
};

static bool sec_alloc(const struct mg *g, u32 i)
{
	return i > 0 && i < g->n_sec && (g->sec[i].sh.sh_flags & SHF_ALLOC);
}

static bool sec_exec(const struct mg *g, u32 i)
{
	return sec_alloc(g, i) && (g->sec[i].sh.sh_flags & SHF_EXECINSTR);
}

static int cmp_rel(const void *a, const void *b)
{
	const struct mg_rel *x = a, *y = b;

	return x->off < y->off ? -1 : x->off > y->off;
}

/* Sections, and the relocations of each allocated one. */
static int load_sections(struct mg *g, Elf *e, size_t shstrndx)
{
	Elf_Scn *scn = NULL;
	Elf_Data *d;
	size_t i, n;
	GElf_Rela r;
	struct mg_sec *t;

	g->sec = calloc(g->n_sec, sizeof(*g->sec));
	if (!g->sec)
		return -1;
	while ((scn = elf_nextscn(e, scn))) {
		i = elf_ndxscn(scn);
		if (!gelf_getshdr(scn, &g->sec[i].sh))
			return -1;
		g->sec[i].name = elf_strptr(e, shstrndx, g->sec[i].sh.sh_name);
		d = elf_getdata(scn, NULL);
		if (d && g->sec[i].sh.sh_type != SHT_NOBITS)
			g->sec[i].data = d->d_buf;
	}
	scn = NULL;
	while ((scn = elf_nextscn(e, scn))) {
		i = elf_ndxscn(scn);
		if (g->sec[i].sh.sh_type != SHT_RELA ||
		    !sec_alloc(g, g->sec[i].sh.sh_info))
			continue;
		t = &g->sec[g->sec[i].sh.sh_info];
		d = elf_getdata(scn, NULL);
		n = g->sec[i].sh.sh_size / sizeof(Elf64_Rela);
		t->rel = calloc(n ? n : 1, sizeof(*t->rel));
		if (!d || !t->rel)
			return -1;
		for (t->n_rel = 0; t->n_rel < n; t->n_rel++) {
			if (!gelf_getrela(d, (int)t->n_rel, &r))
				return -1;
			t->rel[t->n_rel] =
			    (struct mg_rel){r.r_offset, GELF_R_SYM(r.r_info),
					    GELF_R_TYPE(r.r_info), r.r_addend};
		}
		qsort(t->rel, t->n_rel, sizeof(*t->rel), cmp_rel);
	}
	return 0;
}

static int load_symbols(struct mg *g, Elf *e)
{
	Elf_Scn *scn = NULL;
	Elf_Data *d;
	GElf_Shdr sh;
	GElf_Sym s;
	size_t i;

	while ((scn = elf_nextscn(e, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB)
			break;
	if (!scn || !(d = elf_getdata(scn, NULL)))
		return -1;
	g->n_sym = sh.sh_size / sizeof(Elf64_Sym);
	g->sym = calloc(g->n_sym, sizeof(*g->sym));
	if (!g->sym)
		return -1;
	for (i = 0; i < g->n_sym; i++) {
		if (!gelf_getsym(d, (int)i, &s))
			return -1;
		g->sym[i] = (struct mg_sym){
		    elf_strptr(e, sh.sh_link, s.st_name), s.st_shndx,
		    s.st_value, s.st_size, GELF_ST_TYPE(s.st_info)};
	}
	return 0;
}

static int cmp_node(const void *a, const void *b)
{
	const struct mg_node *x = a, *y = b;

	if (x->sec != y->sec)
		return x->sec - y->sec;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->end != y->end) /* the widest of symbols at one address */
		return x->end > y->end ? -1 : 1;
	return strcmp(x->name, y->name); /* aliases: the same every run */
}

static int add_node(struct mg *g, size_t *cap, struct mg_node n)
{
	struct mg_node *v;

	if (g->n_node == *cap) {
		*cap = *cap ? 2 * *cap : 1024;
		v = realloc(g->node, *cap * sizeof(*v));
		if (!v)
			return -1;
		g->node = v;
	}
	g->node[g->n_node++] = n;
	return 0;
}

/* A node per sized symbol; then drop every node that starts inside the
 * one before it (aliases, labels inside asm routines). */
static int symbol_nodes(struct mg *g, size_t *cap)
{
	const struct mg_sym *s;
	size_t i, j;

	for (i = 0; i < g->n_sym; i++) {
		s = &g->sym[i];
		if (!sec_alloc(g, s->shndx) || !s->size ||
		    (s->type != STT_FUNC && s->type != STT_OBJECT &&
		     s->type != STT_NOTYPE))
			continue;
		if (add_node(g, cap,
			     (struct mg_node){s->name, (int)s->shndx, s->value,
					      s->value + s->size,
					      sec_exec(g, s->shndx)}))
			return -1;
	}
	qsort(g->node, g->n_node, sizeof(*g->node), cmp_node);
	for (i = j = 0; i < g->n_node; i++) {
		if (j && g->node[j - 1].sec == g->node[i].sec &&
		    g->node[i].start < g->node[j - 1].end)
			continue;
		g->node[j++] = g->node[i];
	}
	g->n_node = j;
	return 0;
}

/* Index of the first node of section @sec starting after @off. */
static size_t node_after(const struct mg *g, int sec, u64 off)
{
	size_t lo = 0, hi = g->n_node, mid;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (g->node[mid].sec < sec ||
		    (g->node[mid].sec == sec && g->node[mid].start <= off))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* One node for each span of a data section that no symbol covers and
 * that holds relocations (anonymous constants): from the end of the node
 * before to the start of the node after. */
static int gap_nodes(struct mg *g, size_t *cap)
{
	const struct mg_sec *s;
	size_t i, r, k;
	u64 a, b;
	char *name;

	for (i = 1; i < g->n_sec; i++) {
		s = &g->sec[i];
		if (!sec_alloc(g, (u32)i) || sec_exec(g, (u32)i))
			continue;
		for (r = 0; r < s->n_rel; r++) {
			if (mg_node_at(g, (int)i, s->rel[r].off) >= 0)
				continue;
			k = node_after(g, (int)i, s->rel[r].off);
			a = k && g->node[k - 1].sec == (int)i
				? g->node[k - 1].end
				: 0;
			b = k < g->n_node && g->node[k].sec == (int)i
				? g->node[k].start
				: s->sh.sh_size;
			if (asprintf(&name, "%s+%#llx", s->name,
				     (unsigned long long)a) < 0)
				return -1;
			g->owned[g->n_owned++] = name;
			if (add_node(
				g, cap,
				(struct mg_node){name, (int)i, a, b, false}))
				return -1;
			qsort(g->node, g->n_node, sizeof(*g->node), cmp_node);
		}
	}
	return 0;
}

/* Room for a name per data relocation: an upper bound on the gaps. */
static int alloc_owned(struct mg *g)
{
	size_t i, n = 1;

	for (i = 1; i < g->n_sec; i++)
		n += g->sec[i].n_rel;
	g->owned = calloc(n, sizeof(*g->owned));
	return g->owned ? 0 : -1;
}

int mg_open(struct mg *g, const char *path, char *err, size_t errlen)
{
	size_t shstrndx, cap = 0;
	Elf *e;

	memset(g, 0, sizeof(*g));
	elf_version(EV_CURRENT);
	g->fd = open(path, O_RDONLY);
	if (g->fd < 0) {
		snprintf(err, errlen, "cannot open %s", path);
		return -1;
	}
	e = elf_begin(g->fd, ELF_C_READ, NULL);
	g->elf = e;
	if (!e || elf_kind(e) != ELF_K_ELF || elf_getshdrnum(e, &g->n_sec) ||
	    elf_getshdrstrndx(e, &shstrndx)) {
		snprintf(err, errlen, "%s: not an ELF file", path);
		return -1;
	}
	if (load_sections(g, e, shstrndx) || load_symbols(g, e) ||
	    symbol_nodes(g, &cap) || alloc_owned(g) || gap_nodes(g, &cap)) {
		snprintf(err, errlen, "%s: cannot read sections or symbols",
			 path);
		return -1;
	}
	return 0;
}

void mg_close(struct mg *g)
{
	size_t i;

	for (i = 0; i < g->n_owned; i++)
		free(g->owned[i]);
	free(g->owned);
	for (i = 0; g->sec && i < g->n_sec; i++)
		free(g->sec[i].rel);
	free(g->sec);
	free(g->sym);
	free(g->node);
	if (g->elf)
		elf_end(g->elf);
	if (g->fd >= 0)
		close(g->fd);
	memset(g, 0, sizeof(*g));
	g->fd = -1;
}

int mg_node_by_name(const struct mg *g, const char *name)
{
	const struct mg_sym *s;
	size_t i;
	int n;

	for (i = 0; i < g->n_sym; i++) {
		s = &g->sym[i];
		if (strcmp(s->name, name) || !sec_alloc(g, s->shndx))
			continue;
		n = mg_node_at(g, (int)s->shndx, s->value);
		if (n >= 0 && g->node[n].start == s->value)
			return n; /* an alias of the node's name counts too */
	}
	for (i = 0; i < g->n_node; i++)
		if (!strcmp(g->node[i].name, name))
			return (int)i;
	return -1;
}

int mg_node_at(const struct mg *g, int sec, u64 off)
{
	size_t k = node_after(g, sec, off);

	return k && g->node[k - 1].sec == sec && off < g->node[k - 1].end
		   ? (int)k - 1
		   : -1;
}

const char *mg_sec_name(const struct mg *g, int n)
{
	return g->sec[g->node[n].sec].name;
}

const char *mg_string(const struct mg *g, const struct mg_ref *ref)
{
	const struct mg_sec *s;

	if (ref->sec <= 0 || (size_t)ref->sec >= g->n_sec)
		return NULL;
	s = &g->sec[ref->sec];
	if (!s->data || ref->sec_off >= s->sh.sh_size ||
	    !memchr(s->data + ref->sec_off, 0, s->sh.sh_size - ref->sec_off))
		return NULL;
	return (const char *)s->data + ref->sec_off;
}

static bool pc_relative(u32 type)
{
	return type == R_X86_64_PC32 || type == R_X86_64_PLT32 ||
	       type == R_X86_64_PC64;
}

/* The target of relocation @r; @adj is added for a PC-relative one (the
 * bytes from the relocated field to the end of its instruction). */
static struct mg_ref resolve(const struct mg *g, const struct mg_rel *r,
			     u64 adj)
{
	const struct mg_sym *s = &g->sym[r->sym];
	struct mg_ref ref = {MG_ADDR, -1, NULL, 0, -1, 0, r->off};
	s64 off = r->addend + (pc_relative(r->type) ? (s64)adj : 0);

	if (s->shndx == SHN_UNDEF || s->shndx >= g->n_sec) {
		ref.ksym = s->name;
		ref.off = off;
		return ref;
	}
	ref.sec = (int)s->shndx;
	ref.sec_off = s->value + (u64)off;
	/* A named symbol is the target even when the compiler folded a
	 * constant into the addend (kjit_dispatch_entry - 14): only a
	 * section symbol's addend says which node it means. */
	ref.node = mg_node_at(g, ref.sec, s->value);
	if (s->type != STT_SECTION && ref.node >= 0 &&
	    g->node[ref.node].start == s->value) {
		ref.off = off;
		return ref;
	}
	ref.node = mg_node_at(g, ref.sec, ref.sec_off);
	if (ref.node >= 0)
		ref.off = (s64)(ref.sec_off - g->node[ref.node].start);
	return ref;
}

/* A target inside section @sec at @off (an operand the assembler
 * resolved). */
static struct mg_ref local_ref(const struct mg *g, int sec, u64 off, u64 at)
{
	struct mg_ref ref = {MG_ADDR, -1, NULL, 0, sec, off, at};

	ref.node = mg_node_at(g, sec, off);
	if (ref.node >= 0)
		ref.off = (s64)(off - g->node[ref.node].start);
	return ref;
}

/* First relocation of @s at or after @off. */
static size_t rel_from(const struct mg_sec *s, u64 off)
{
	size_t lo = 0, hi = s->n_rel, mid;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (s->rel[mid].off < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* What each general-purpose register was last loaded from while a
 * straight run of code is decoded: a RIP-relative load into the whole
 * register records its target; any other write forgets it, so does a
 * call (the caller-saved ones) and an unconditional jmp or ret (all: what
 * follows is reached from elsewhere). */
struct regs {
	bool known[16];
	struct mg_ref from[16];
};

static int gpr(ZydisRegister r)
{
	r = ZydisRegisterGetLargestEnclosing(ZYDIS_MACHINE_MODE_LONG_64, r);
	return r >= ZYDIS_REGISTER_RAX && r <= ZYDIS_REGISTER_R15
		   ? (int)(r - ZYDIS_REGISTER_RAX)
		   : -1;
}

/* The register a retpoline thunk jumps through, or -1. */
static int thunk_reg(const char *ksym)
{
	static const char *const names[16] = {
	    "rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi",
	    "r8",  "r9",  "r10", "r11", "r12", "r13", "r14", "r15"};
	static const char prefix[] = "__x86_indirect_thunk_";
	int i;

	if (!ksym || strncmp(ksym, prefix, sizeof(prefix) - 1))
		return -1;
	for (i = 0; i < 16; i++)
		if (!strcmp(ksym + sizeof(prefix) - 1, names[i]))
			return i;
	return -1;
}

static void regs_after(struct regs *rs, const ZydisDecodedInstruction *in,
		       const ZydisDecodedOperand *op)
{
	static const int caller_saved[] = {0, 1, 2, 6, 7, 8, 9, 10, 11};
	size_t i;
	int r;

	for (i = 0; i < in->operand_count; i++)
		if (op[i].type == ZYDIS_OPERAND_TYPE_REGISTER &&
		    (op[i].actions & ZYDIS_OPERAND_ACTION_MASK_WRITE) &&
		    (r = gpr(op[i].reg.value)) >= 0)
			rs->known[r] = false;
	if (in->mnemonic == ZYDIS_MNEMONIC_CALL)
		for (i = 0; i < KJIT_ARRAY_SIZE(caller_saved); i++)
			rs->known[caller_saved[i]] = false;
	if (in->mnemonic == ZYDIS_MNEMONIC_JMP ||
	    in->mnemonic == ZYDIS_MNEMONIC_RET)
		memset(rs->known, 0, sizeof(rs->known));
}

/* One decoded instruction of node @n at section offset @o. */
struct insn {
	ZydisDecodedInstruction in;
	ZydisDecodedOperand op[ZYDIS_MAX_OPERAND_COUNT];
	u64 o;
	bool branch;   /* call/jmp/jcc with a relative operand */
	bool have_rip; /* a RIP-relative operand's target is in rip */
	struct mg_ref rip;
	int thunk; /* a call/jmp to __x86_indirect_thunk_<reg>: reg */
};

static const ZydisDecodedOperand *rel_operand(const struct insn *x)
{
	size_t i;

	for (i = 0; i < x->in.operand_count_visible; i++)
		if (x->op[i].type == ZYDIS_OPERAND_TYPE_IMMEDIATE &&
		    x->op[i].imm.is_relative)
			return &x->op[i];
	return NULL;
}

static const ZydisDecodedOperand *rip_operand(const struct insn *x)
{
	size_t i;

	for (i = 0; i < x->in.operand_count_visible; i++)
		if (x->op[i].type == ZYDIS_OPERAND_TYPE_MEMORY &&
		    x->op[i].mem.base == ZYDIS_REGISTER_RIP)
			return &x->op[i];
	return NULL;
}

/* The relocations inside the instruction, then the operands the
 * assembler resolved (same section, so never imported). */
static void direct_refs(const struct mg *g, int n, struct insn *x, mg_ref_fn fn,
			void *ctx)
{
	const struct mg_sec *s = &g->sec[g->node[n].sec];
	const ZydisDecodedOperand *rel = rel_operand(x), *rip = rip_operand(x);
	u64 end = x->o + x->in.length, abs;
	bool rel_done = false, rip_done = false;
	struct mg_ref ref;
	size_t k;

	for (k = rel_from(s, x->o); k < s->n_rel && s->rel[k].off < end; k++) {
		ref = resolve(g, &s->rel[k], end - s->rel[k].off);
		if (rel && s->rel[k].off == x->o + x->in.raw.imm[0].offset) {
			ref.kind = MG_CALL;
			rel_done = true;
			x->thunk = thunk_reg(ref.ksym);
		}
		if (rip && s->rel[k].off == x->o + x->in.raw.disp.offset) {
			x->rip = ref;
			x->have_rip = rip_done = true;
		}
		fn(ctx, n, &ref);
	}
	if (rel && !rel_done &&
	    ZYAN_SUCCESS(ZydisCalcAbsoluteAddress(&x->in, rel, x->o, &abs))) {
		ref = local_ref(g, g->node[n].sec, abs, x->o);
		ref.kind = MG_CALL;
		if (ref.node != n)
			fn(ctx, n, &ref);
	}
	if (rip && !rip_done &&
	    ZYAN_SUCCESS(ZydisCalcAbsoluteAddress(&x->in, rip, x->o, &abs))) {
		x->rip = local_ref(g, g->node[n].sec, abs, x->o);
		x->have_rip = true;
		if (x->rip.node != n)
			fn(ctx, n, &x->rip);
	}
}

/* An indirect call or jmp: through a register, a retpoline thunk, or
 * memory; reported with where its pointer came from if known. */
static void indirect_ref(struct regs *rs, int n, const struct insn *x,
			 mg_ref_fn fn, void *ctx)
{
	struct mg_ref ref = {MG_ICALL_UNK, -1, NULL, 0, -1, 0, x->o};
	const ZydisDecodedOperand *o = &x->op[0];
	int r = x->thunk;

	if (x->in.mnemonic != ZYDIS_MNEMONIC_CALL &&
	    x->in.mnemonic != ZYDIS_MNEMONIC_JMP)
		return;
	if (r < 0 && o->type == ZYDIS_OPERAND_TYPE_REGISTER)
		r = gpr(o->reg.value);
	else if (r < 0 && o->type != ZYDIS_OPERAND_TYPE_MEMORY)
		return; /* a direct branch */
	if (r >= 0 && rs->known[r])
		ref = rs->from[r];
	else if (r < 0 && o->mem.base == ZYDIS_REGISTER_RIP && x->have_rip)
		ref = x->rip;
	if (ref.kind != MG_ICALL_UNK)
		ref.kind = MG_ICALL;
	ref.at = x->o;
	fn(ctx, n, &ref);
}

static void regs_load(struct regs *rs, const struct insn *x)
{
	int r;

	if (x->in.mnemonic != ZYDIS_MNEMONIC_MOV || !x->have_rip ||
	    x->op[0].type != ZYDIS_OPERAND_TYPE_REGISTER ||
	    x->op[1].type != ZYDIS_OPERAND_TYPE_MEMORY || x->op[0].size != 64 ||
	    (r = gpr(x->op[0].reg.value)) < 0)
		return;
	rs->known[r] = true;
	rs->from[r] = x->rip;
}

static int code_refs(const struct mg *g, int n, mg_ref_fn fn, void *ctx)
{
	const struct mg_node *nd = &g->node[n];
	const u8 *base = g->sec[nd->sec].data;
	ZydisDecoder dec;
	struct regs rs;
	struct insn x;

	ZydisDecoderInit(&dec, ZYDIS_MACHINE_MODE_LONG_64,
			 ZYDIS_STACK_WIDTH_64);
	memset(&rs, 0, sizeof(rs));
	for (x.o = nd->start; x.o < nd->end; x.o += x.in.length) {
		if (!ZYAN_SUCCESS(ZydisDecoderDecodeFull(
			&dec, base + x.o, nd->end - x.o, &x.in, x.op)))
			return -1;
		x.have_rip = false;
		x.thunk = -1;
		direct_refs(g, n, &x, fn, ctx);
		indirect_ref(&rs, n, &x, fn, ctx);
		regs_after(&rs, &x.in, x.op);
		regs_load(&rs, &x);
	}
	return 0;
}

int mg_refs(const struct mg *g, int n, mg_ref_fn fn, void *ctx)
{
	const struct mg_node *nd = &g->node[n];
	const struct mg_sec *s = &g->sec[nd->sec];
	struct mg_ref ref;
	size_t k;

	if (nd->code)
		return s->data ? code_refs(g, n, fn, ctx) : -1;
	for (k = rel_from(s, nd->start);
	     k < s->n_rel && s->rel[k].off < nd->end; k++) {
		ref = resolve(g, &s->rel[k], 0);
		fn(ctx, n, &ref);
	}
	return 0;
}

void mg_data_refs_to(const struct mg *g, const char *target, mg_reloc_fn fn,
		     void *ctx)
{
	const struct mg_sec *s;
	struct mg_ref ref;
	size_t i, k;

	for (i = 1; i < g->n_sec; i++) {
		s = &g->sec[i];
		if (!sec_alloc(g, (u32)i) || sec_exec(g, (u32)i))
			continue;
		for (k = 0; k < s->n_rel; k++) {
			if (strcmp(g->sym[s->rel[k].sym].name, target))
				continue;
			ref = resolve(g, &s->rel[k], 0);
			fn(ctx, (int)i, mg_node_at(g, (int)i, s->rel[k].off),
			   &ref);
		}
	}
}

bool mg_data_ref_at(const struct mg *g, int sec, u64 at, struct mg_ref *out)
{
	const struct mg_sec *s = &g->sec[sec];
	size_t k = rel_from(s, at);

	if (k >= s->n_rel || s->rel[k].off != at)
		return false;
	*out = resolve(g, &s->rel[k], 0);
	return true;
}
