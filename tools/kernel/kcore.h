/* kcore.h - read live kernel memory through /proc/kcore (an ELF core file). */
#ifndef KJIT_TOOL_KCORE_H
#define KJIT_TOOL_KCORE_H

#include <stddef.h>
#include <stdint.h>

struct kcore;

/* Opens @path (normally /proc/kcore). NULL with errno set on failure. */
struct kcore *kcore_open(const char *path);
void kcore_close(struct kcore *kc);

/*
 * kcore_read - copy @len bytes of kernel virtual memory at @addr to @buf.
 * Returns 0, -ENXIO if no PT_LOAD segment covers the whole range, or -errno.
 */
int kcore_read(struct kcore *kc, uint64_t addr, void *buf, size_t len);

#endif
