/* disasm.c - kernel code as text: bytes from /proc/kcore, Zydis formatting. */
#include <inttypes.h>
#include <stdlib.h>
#include <Zydis/Zydis.h>
#include "disasm.h"

int disasm_range(struct kcore *kc, uint64_t addr, uint32_t len,
		 const char *indent, FILE *out)
{
	ZydisDisassembledInstruction dis;
	uint8_t *buf = malloc(len + 15);
	uint32_t off = 0;
	int rc = 0;

	if (!buf || kcore_read(kc, addr, buf, len)) {
		free(buf);
		return -1;
	}
	while (off < len) {
		if (!ZYAN_SUCCESS(ZydisDisassembleIntel(
			ZYDIS_MACHINE_MODE_LONG_64, addr + off, buf + off,
			len - off, &dis))) {
			rc = -1;
			break;
		}
		fprintf(out, "%s0x%016" PRIx64 "  %s\n", indent, addr + off,
			dis.text);
		off += dis.info.length;
	}
	free(buf);
	return rc;
}
