/* buildid.c - build-id notes as hex, and their debug-file paths. The
 * notes files hold raw ELF notes (Elf64_Nhdr, name, desc, 4-byte aligned). */
#include "buildid.h"

#include <elf.h>
#include <stdio.h>
#include <string.h>

int buildid_read_notes(const char *path, char *hex, size_t size)
{
	unsigned char buf[4096];
	size_t n, off = 0, i;
	FILE *f = fopen(path, "rb");

	if (!f)
		return -1;
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	while (off + sizeof(Elf64_Nhdr) <= n) {
		Elf64_Nhdr h;
		size_t name, desc;

		memcpy(&h, buf + off, sizeof(h));
		name = off + sizeof(h);
		desc = name + ((h.n_namesz + 3) & ~3u);
		if (desc + h.n_descsz > n)
			break;
		if (h.n_type == NT_GNU_BUILD_ID && h.n_namesz == 4 &&
		    !memcmp(buf + name, "GNU", 4) && h.n_descsz &&
		    2 * h.n_descsz < size) {
			for (i = 0; i < h.n_descsz; i++)
				sprintf(hex + 2 * i, "%02x", buf[desc + i]);
			return 0;
		}
		off = desc + ((h.n_descsz + 3) & ~3u);
	}
	return -1;
}

void buildid_debug_path(const char *dir, const char *hex, char *buf,
			size_t size)
{
	snprintf(buf, size, "%s/.build-id/%.2s/%s.debug", dir, hex, hex + 2);
}
