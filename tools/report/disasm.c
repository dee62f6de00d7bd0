/* disasm.c - kernel code as text: Zydis' Intel formatter, hex in lower
 * case, absolute addresses named by a symbol hook (see disasm.h). */
#include <inttypes.h>
#include <stdlib.h>
#include <Zycore/Format.h>
#include <Zydis/Zydis.h>
#include "disasm.h"
#include "tools/kernel/symtab.h"

static const char *symtab_lookup(void *ctx, uint64_t addr, uint64_t *start)
{
	const struct ksym *k = symtab_containing(ctx, addr);

	if (!k)
		return NULL;
	*start = k->addr;
	return k->name;
}

struct disasm_syms disasm_syms_of(const struct symtab *t)
{
	struct disasm_syms s = {symtab_lookup, (void *)t};

	return s;
}

static ZydisFormatterFunc default_print_abs;

/* ZYDIS_FORMATTER_FUNC_PRINT_ADDRESS_ABS: branch targets and RIP-relative
 * operands; "name" or "name+0xoff" where a symbol holds the address. */
static ZyanStatus print_abs(const ZydisFormatter *f, ZydisFormatterBuffer *b,
			    ZydisFormatterContext *ctx)
{
	const struct disasm_syms *sy = ctx->user_data;
	const char *name = NULL;
	ZyanU64 addr;
	uint64_t start = 0;
	ZyanString *str;

	if (sy && sy->lookup &&
	    ZYAN_SUCCESS(ZydisCalcAbsoluteAddress(
		ctx->instruction, ctx->operand, ctx->runtime_address, &addr)))
		name = sy->lookup(sy->ctx, addr, &start);
	if (!name)
		return default_print_abs(f, b, ctx);
	ZYAN_CHECK(ZydisFormatterBufferAppend(b, ZYDIS_TOKEN_SYMBOL));
	ZYAN_CHECK(ZydisFormatterBufferGetString(b, &str));
	if (addr == start)
		return ZyanStringAppendFormat(str, "%s", name);
	return ZyanStringAppendFormat(str, "%s+0x%" PRIx64, name,
				      (uint64_t)(addr - start));
}

static const ZydisFormatter *formatter(void)
{
	static ZydisFormatter f;
	static int ready;
	ZydisFormatterFunc hook = print_abs;

	if (!ready) {
		ZydisFormatterInit(&f, ZYDIS_FORMATTER_STYLE_INTEL);
		ZydisFormatterSetProperty(
		    &f, ZYDIS_FORMATTER_PROP_HEX_UPPERCASE, ZYAN_FALSE);
		/* "gs:[0x28]" and "0x0" as objdump writes them, not
		 * "gs:[0x0000000000000028]" and "0x00" */
		ZydisFormatterSetProperty(
		    &f, ZYDIS_FORMATTER_PROP_ADDR_PADDING_ABSOLUTE,
		    ZYDIS_PADDING_DISABLED);
		ZydisFormatterSetProperty(&f, ZYDIS_FORMATTER_PROP_DISP_PADDING,
					  ZYDIS_PADDING_DISABLED);
		ZydisFormatterSetProperty(&f, ZYDIS_FORMATTER_PROP_IMM_PADDING,
					  ZYDIS_PADDING_DISABLED);
		ZydisFormatterSetHook(&f,
				      ZYDIS_FORMATTER_FUNC_PRINT_ADDRESS_ABS,
				      (const void **)&hook);
		default_print_abs = hook;
		ready = 1;
	}
	return &f;
}

/* The absolute target of @in's first relative or RIP-relative operand. */
static int first_target(const ZydisDecodedInstruction *in,
			const ZydisDecodedOperand *op, uint64_t addr,
			uint64_t *target)
{
	unsigned int i;
	ZyanU64 a;

	for (i = 0; i < in->operand_count_visible; i++) {
		int rel = (op[i].type == ZYDIS_OPERAND_TYPE_IMMEDIATE &&
			   op[i].imm.is_relative) ||
			  (op[i].type == ZYDIS_OPERAND_TYPE_MEMORY &&
			   op[i].mem.base == ZYDIS_REGISTER_RIP);

		if (rel && ZYAN_SUCCESS(ZydisCalcAbsoluteAddress(in, &op[i],
								 addr, &a))) {
			*target = a;
			return 1;
		}
	}
	return 0;
}

int disasm_one(const uint8_t *buf, size_t avail, uint64_t addr,
	       const struct disasm_syms *sy, struct disasm_insn *out)
{
	static ZydisDecoder dec;
	static int ready;
	ZydisDecodedInstruction in;
	ZydisDecodedOperand op[ZYDIS_MAX_OPERAND_COUNT];

	if (!ready) {
		ZydisDecoderInit(&dec, ZYDIS_MACHINE_MODE_LONG_64,
				 ZYDIS_STACK_WIDTH_64);
		ready = 1;
	}
	if (!ZYAN_SUCCESS(ZydisDecoderDecodeFull(&dec, buf, avail, &in, op)) ||
	    !ZYAN_SUCCESS(ZydisFormatterFormatInstruction(
		formatter(), &in, op, in.operand_count_visible, out->text,
		sizeof(out->text), addr, (void *)sy)))
		return -1;
	out->len = in.length;
	out->has_target = first_target(&in, op, addr, &out->target);
	return 0;
}

int disasm_bytes(const uint8_t *buf, uint64_t addr, uint32_t len,
		 const char *indent, const struct disasm_syms *sy, FILE *out)
{
	struct disasm_insn d;
	uint32_t off = 0;

	while (off < len) {
		if (disasm_one(buf + off, len - off, addr + off, sy, &d))
			return -1;
		fprintf(out, "%s0x%016" PRIx64 "  %s\n", indent, addr + off,
			d.text);
		off += d.len;
	}
	return 0;
}

int disasm_range(struct kcore *kc, uint64_t addr, uint32_t len,
		 const char *indent, const struct disasm_syms *sy, FILE *out)
{
	uint8_t *buf = malloc(len + 15);
	int rc = -1;

	if (buf && !kcore_read(kc, addr, buf, len))
		rc = disasm_bytes(buf, addr, len, indent, sy, out);
	free(buf);
	return rc;
}
