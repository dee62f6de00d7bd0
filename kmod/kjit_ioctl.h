/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kjit_ioctl.h - the /dev/kjit control ABI, shared by kjit.ko and the kjit tool.
 *
 * Invariants:
 *  - Every request struct begins with a __u32 `size` that the caller sets to
 *    sizeof(the struct it was compiled with). The module rejects a size it
 *    does not know with -EINVAL, so old tools fail loudly, never silently.
 *  - KJIT_ABI_VERSION goes up whenever a struct or an ioctl changes meaning;
 *    KJIT_IOC_VERSION is stable forever so a tool can always ask.
 *  - A failed request leaves the module's state unchanged.
 *  - Only callers with CAP_SYS_ADMIN may issue any request (-EPERM).
 */
#ifndef KJIT_IOCTL_H
#define KJIT_IOCTL_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define KJIT_DEVICE "/dev/kjit"
#define KJIT_ABI_VERSION 1
#define KJIT_IOC_MAGIC 0xB7

#define KJIT_NAME_MAX 128	/* symbol names, including the NUL */
#define KJIT_MNEMONIC_MAX 24	/* Zydis mnemonic strings, including the NUL */
#define KJIT_DECODE_MAX 256	/* most instructions one DECODE request returns */

/* KJIT_IOC_VERSION: which ABI and which build this module is. */
struct kjit_version {
	__u32 size;
	__u32 abi;		/* out: KJIT_ABI_VERSION of the module */
	char build[64];		/* out: module version string, NUL-terminated */
};

/* One instruction as the module's Zydis decoded it. */
struct kjit_decoded_insn {
	__u64 addr;			/* where it starts */
	__u8 length;			/* in bytes, 1..15 */
	__u8 bytes[15];			/* its bytes as read by the module */
	char mnemonic[KJIT_MNEMONIC_MAX];
};

/*
 * KJIT_IOC_DECODE: decode the first max_insns instructions at addr (or at the
 * kernel symbol `name` when addr is 0) with the module's own Zydis.
 * Errors: -ENOENT unknown symbol, -EINVAL bad size/max_insns/unterminated
 * name, -EFAULT unreadable user buffer or kernel text, -EILSEQ the first
 * instruction does not decode (count stays 0 for it; a later undecodable
 * instruction ends the list early without an error).
 */
struct kjit_decode {
	__u32 size;
	__u32 max_insns;		/* in: 1..KJIT_DECODE_MAX */
	__u64 addr;			/* in: start address, or 0 to use name */
	char name[KJIT_NAME_MAX];	/* in: symbol, when addr is 0 */
	__u64 insns;			/* in: user pointer to max_insns entries */
	__u64 resolved;			/* out: the address decoded */
	__u32 count;			/* out: entries written */
	__u32 pad;
};

#define KJIT_IOC_VERSION _IOWR(KJIT_IOC_MAGIC, 0x00, struct kjit_version)
#define KJIT_IOC_DECODE _IOWR(KJIT_IOC_MAGIC, 0x01, struct kjit_decode)

#endif /* KJIT_IOCTL_H */
