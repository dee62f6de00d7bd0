/*
 * kcore.c - kernel memory through /proc/kcore, with libelf.
 *
 * /proc/kcore is an ELF core file whose PT_LOAD segments map kernel virtual
 * addresses (p_vaddr) to file offsets. We read program headers once at open
 * and pread() the bytes we need; reading needs CAP_SYS_RAWIO (root).
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <unistd.h>
#include "kcore.h"

struct kcore {
	int fd;
	size_t nseg;
	GElf_Phdr *seg;
};

static int load_segments(struct kcore *kc, Elf *elf)
{
	size_t n, i;

	if (elf_getphdrnum(elf, &n))
		return -EINVAL;
	kc->seg = calloc(n ? n : 1, sizeof(*kc->seg));
	if (!kc->seg)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(elf, i, &kc->seg[kc->nseg]))
			return -EINVAL;
		if (kc->seg[kc->nseg].p_type == PT_LOAD)
			kc->nseg++;
	}
	return 0;
}

struct kcore *kcore_open(const char *path)
{
	struct kcore *kc;
	Elf *elf;
	int err;

	if (elf_version(EV_CURRENT) == EV_NONE) {
		errno = EINVAL;
		return NULL;
	}
	kc = calloc(1, sizeof(*kc));
	if (!kc)
		return NULL;
	kc->fd = open(path, O_RDONLY);
	if (kc->fd < 0) {
		err = errno;
		free(kc);
		errno = err;
		return NULL;
	}
	elf = elf_begin(kc->fd, ELF_C_READ, NULL);
	err = elf ? load_segments(kc, elf) : -EINVAL;
	if (elf)
		elf_end(elf);
	if (err) {
		kcore_close(kc);
		errno = -err;
		return NULL;
	}
	return kc;
}

void kcore_close(struct kcore *kc)
{
	if (!kc)
		return;
	close(kc->fd);
	free(kc->seg);
	free(kc);
}

int kcore_read(struct kcore *kc, uint64_t addr, void *buf, size_t len)
{
	const GElf_Phdr *p;
	ssize_t got;
	size_t i;

	for (i = 0; i < kc->nseg; i++) {
		p = &kc->seg[i];
		if (addr < p->p_vaddr || addr + len > p->p_vaddr + p->p_memsz)
			continue;
		got =
		    pread(kc->fd, buf, len, p->p_offset + (addr - p->p_vaddr));
		if (got < 0)
			return -errno;
		return (size_t)got == len ? 0 : -EIO;
	}
	return -ENXIO;
}
