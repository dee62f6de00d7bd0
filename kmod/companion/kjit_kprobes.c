// SPDX-License-Identifier: GPL-2.0
/*
 * kjit_kprobes.c - counting Kprobes: the oracle kjit's block counts are
 * checked against, and the Kprobes side of `kjit compare` and the benchmarks.
 *
 * Invariants:
 *  - Each armed address has one kprobe whose pre-handler does one atomic
 *    increment, nothing else.
 *  - Arming replaces the whole set under kp_mutex; unload disarms.
 */
#include <linux/atomic.h>
#include <linux/fs.h>
#include <linux/kprobes.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include "kjit_kprobes_ioctl.h"

struct counting_probe {
	struct kprobe kp;
	atomic64_t hits;
	bool armed;
};

static DEFINE_MUTEX(kp_mutex);
static struct counting_probe *probes;
static u32 n_probes;

static int count_hit(struct kprobe *kp, struct pt_regs *regs)
{
	atomic64_inc(&container_of(kp, struct counting_probe, kp)->hits);
	return 0;
}
NOKPROBE_SYMBOL(count_hit);

/* Every armed probe in one unregister_kprobes(): one RCU grace period for
 * them all, where unregister_kprobe() waits for one each (thousands of a
 * deep compare took minutes on 6.12-rt under TCG); one at a time only if
 * there is no memory for the list. */
static void __disarm(void)
{
	struct kprobe **kps;
	u32 i, n = 0;

	kps = n_probes ? vmalloc(array_size(n_probes, sizeof(*kps))) : NULL;
	for (i = 0; i < n_probes; i++) {
		if (!probes[i].armed)
			continue;
		if (kps)
			kps[n++] = &probes[i].kp;
		else
			unregister_kprobe(&probes[i].kp);
	}
	if (n)
		unregister_kprobes(kps, (int)n);
	vfree(kps);
	vfree(probes);
	probes = NULL;
	n_probes = 0;
}

static long __arm(struct kjitkp_arm *req, const u64 *addrs, s32 *errs)
{
	u32 i;

	__disarm();
	if (!req->n)
		return 0;
	probes = vzalloc(array_size(req->n, sizeof(*probes)));
	if (!probes)
		return -ENOMEM;
	n_probes = req->n;
	for (i = 0; i < req->n; i++) {
		probes[i].kp.addr = (kprobe_opcode_t *)(unsigned long)addrs[i];
		probes[i].kp.pre_handler = count_hit;
		errs[i] = register_kprobe(&probes[i].kp);
		probes[i].armed = !errs[i];
		req->armed += !errs[i];
	}
	return 0;
}

static long ioctl_arm(void __user *uarg)
{
	struct kjitkp_arm req;
	s32 *errs = NULL;
	u64 *addrs;
	long err;

	if (copy_from_user(&req, uarg, sizeof(req)))
		return -EFAULT;
	if (req.size != sizeof(req) || req.n > KJITKP_MAX)
		return -EINVAL;
	addrs = vmemdup_user(u64_to_user_ptr(req.addrs), req.n * sizeof(u64));
	if (IS_ERR(addrs))
		return PTR_ERR(addrs);
	errs = kvcalloc(req.n + 1, sizeof(*errs), GFP_KERNEL);
	req.armed = 0;
	mutex_lock(&kp_mutex);
	err = errs ? __arm(&req, addrs, errs) : -ENOMEM;
	mutex_unlock(&kp_mutex);
	if (!err && (copy_to_user(u64_to_user_ptr(req.errs), errs,
				  req.n * sizeof(*errs)) ||
		     copy_to_user(uarg, &req, sizeof(req))))
		err = -EFAULT;
	kvfree(errs);
	kvfree(addrs);
	return err;
}

static long ioctl_read(void __user *uarg)
{
	struct kjitkp_read req;
	long err = 0;
	u64 c;
	u32 i;

	if (copy_from_user(&req, uarg, sizeof(req)))
		return -EFAULT;
	if (req.size != sizeof(req))
		return -EINVAL;
	mutex_lock(&kp_mutex);
	req.n = min(req.n, n_probes);
	for (i = 0; i < req.n && !err; i++) {
		c = atomic64_read(&probes[i].hits);
		if (copy_to_user(u64_to_user_ptr(req.counts) + i * sizeof(c),
				 &c, sizeof(c)))
			err = -EFAULT;
	}
	mutex_unlock(&kp_mutex);
	if (!err && copy_to_user(uarg, &req, sizeof(req)))
		err = -EFAULT;
	return err;
}

static long ioctl_reset(void)
{
	u32 i;

	mutex_lock(&kp_mutex);
	for (i = 0; i < n_probes; i++)
		atomic64_set(&probes[i].hits, 0);
	mutex_unlock(&kp_mutex);
	return 0;
}

static long kp_ioctl(struct file *f, unsigned int cmd, unsigned long arg)
{
	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	switch (cmd) {
	case KJITKP_IOC_ARM:
		return ioctl_arm((void __user *)arg);
	case KJITKP_IOC_READ:
		return ioctl_read((void __user *)arg);
	case KJITKP_IOC_RESET:
		return ioctl_reset();
	default:
		return -ENOTTY;
	}
}

static const struct file_operations kp_fops = {
    .owner = THIS_MODULE,
    .unlocked_ioctl = kp_ioctl,
};

static struct miscdevice kp_dev = {
    .minor = MISC_DYNAMIC_MINOR,
    .name = "kjit_kprobes",
    .fops = &kp_fops,
    .mode = 0600,
};

static int __init kp_init(void)
{
	return misc_register(&kp_dev);
}

static void __exit kp_exit(void)
{
	misc_deregister(&kp_dev);
	mutex_lock(&kp_mutex);
	__disarm();
	mutex_unlock(&kp_mutex);
}

module_init(kp_init);
module_exit(kp_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("kjit companion: counting kprobes");
