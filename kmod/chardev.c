// SPDX-License-Identifier: GPL-2.0
/*
 * chardev.c - /dev/kjit, the control interface (a misc device).
 *
 * Invariants:
 *  - Every ioctl checks CAP_SYS_ADMIN first: without it, -EPERM and nothing
 *    else happens.
 *  - Unknown commands get -ENOTTY; the handlers validate sizes themselves.
 */
#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include "kjit_ioctl.h"
#include "chardev.h"
#include "ksyms.h"
#include "control.h"
#include "decode_check.h"
#include "own.h"

static long ioctl_version(void __user *uarg)
{
	struct kjit_version v;

	if (copy_from_user(&v, uarg, sizeof(v)))
		return -EFAULT;
	if (v.size != sizeof(v))
		return -EINVAL;
	v.abi = KJIT_ABI_VERSION;
	strscpy(v.build, KJIT_BUILD_STRING, sizeof(v.build));
	return copy_to_user(uarg, &v, sizeof(v)) ? -EFAULT : 0;
}

/* The requests that hand kernel addresses out (or read kernel text) obey
 * the same rule as /proc/kallsyms: kptr_restrict, for the opener's
 * credentials. */
static bool shows_addresses(unsigned int cmd)
{
	return cmd == KJIT_IOC_DECODE || cmd == KJIT_IOC_BLOCKS ||
	       cmd == KJIT_IOC_FUNCS || cmd == KJIT_IOC_STATS;
}

static long kjit_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	void __user *uarg = (void __user *)arg;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	if (shows_addresses(cmd) &&
	    !kjit_kapi.kallsyms_show_value(file->f_cred))
		return -EPERM;
	switch (cmd) {
	case KJIT_IOC_VERSION:
		return ioctl_version(uarg);
	case KJIT_IOC_DECODE:
		return kjit_ioctl_decode(uarg);
	case KJIT_IOC_ATTACH:
		return kjit_ioctl_attach(uarg);
	case KJIT_IOC_DETACH:
		return kjit_ioctl_detach();
	case KJIT_IOC_BLOCKS:
		return kjit_ioctl_blocks(uarg);
	case KJIT_IOC_FUNCS:
		return kjit_ioctl_funcs(uarg);
	case KJIT_IOC_STATS:
		return kjit_ioctl_stats(uarg);
	case KJIT_IOC_RESET:
		return kjit_ioctl_reset();
	case KJIT_IOC_OWN:
		return kjit_ioctl_own(file);
	case KJIT_IOC_SELF:
		return kjit_own_join(file);
	case KJIT_IOC_SPLIT:
		return kjit_ioctl_split(uarg);
	case KJIT_IOC_TIME:
		return kjit_ioctl_time(uarg);
	case KJIT_IOC_TPATHS:
		return kjit_ioctl_tpaths(uarg);
	default:
		return -ENOTTY;
	}
}

/* Nobody's until KJIT_IOC_SELF (own.h). */
static int kjit_open(struct inode *inode, struct file *file)
{
	kjit_own_open(file);
	return 0;
}

static int kjit_release(struct inode *inode, struct file *file)
{
	kjit_control_release(file);
	kjit_own_release(file);
	return 0;
}

static const struct file_operations kjit_fops = {
    .owner = THIS_MODULE,
    .open = kjit_open,
    .release = kjit_release,
    .unlocked_ioctl = kjit_ioctl,
    .compat_ioctl = compat_ptr_ioctl,
};

static struct miscdevice kjit_miscdev = {
    .minor = MISC_DYNAMIC_MINOR,
    .name = "kjit",
    .fops = &kjit_fops,
    .mode = 0600,
};

int kjit_chardev_init(void)
{
	return misc_register(&kjit_miscdev);
}

void kjit_chardev_exit(void)
{
	misc_deregister(&kjit_miscdev);
}
