/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kjit_kprobes_ioctl.h - ABI of kjit_kprobes.ko, the independent oracle:
 * counting Kprobes on arbitrary kernel addresses, through /dev/kjit_kprobes.
 * Every request struct begins with its size; CAP_SYS_ADMIN only.
 */
#ifndef KJIT_KPROBES_IOCTL_H
#define KJIT_KPROBES_IOCTL_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define KJITKP_DEVICE "/dev/kjit_kprobes"
#define KJITKP_MAX    4096

/*
 * KJITKP_IOC_ARM: replace the armed set with a counting kprobe on each of
 * n addresses. errs[i] receives 0 or register_kprobe()'s error for addrs[i]
 * (an address the kernel refuses is simply not counted). -EINVAL bad n/size.
 */
struct kjitkp_arm {
	__u32 size;
	__u32 n;     /* 0..KJITKP_MAX; 0 disarms */
	__u64 addrs; /* in: user pointer, n __u64 */
	__u64 errs;  /* out: user pointer, n __s32 */
	__u32 armed; /* out: kprobes registered */
	__u32 pad;
};

/* KJITKP_IOC_READ: hit counts of the armed set, in arm order. */
struct kjitkp_read {
	__u32 size;
	__u32 n;      /* in: room; out: entries written */
	__u64 counts; /* user pointer, n __u64 */
};

#define KJITKP_IOC_ARM	 _IOWR(0xB8, 0x01, struct kjitkp_arm)
#define KJITKP_IOC_READ	 _IOWR(0xB8, 0x02, struct kjitkp_read)
#define KJITKP_IOC_RESET _IO(0xB8, 0x03)

#endif
