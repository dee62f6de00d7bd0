/* SPDX-License-Identifier: GPL-2.0 */
/* control.h - the session ioctls of /dev/kjit. */
#ifndef KJIT_CONTROL_H
#define KJIT_CONTROL_H

#include <linux/compiler_types.h>

struct file;

long kjit_ioctl_attach(void __user *uarg);
long kjit_ioctl_detach(void);
long kjit_ioctl_blocks(void __user *uarg);
long kjit_ioctl_funcs(void __user *uarg);
long kjit_ioctl_stats(void __user *uarg);
long kjit_ioctl_reset(void);
long kjit_ioctl_split(void __user *uarg);
long kjit_ioctl_time(void __user *uarg);
long kjit_ioctl_tpaths(void __user *uarg);
long kjit_ioctl_own(struct file *file);
/* /dev/kjit's @file is closed for the last time: if it owns the attached
 * session (KJIT_IOC_OWN), detach it. Process context. */
void kjit_control_release(struct file *file);
void kjit_control_exit(void);
/* Detach the attached session, if any, because livepatch module @why is
 * loading (livepatch.h); the session's statistics say so. Process
 * context. */
void kjit_control_step_aside(const char *why);
/* The latest session or NULL; kjit_mutex held. */
struct kjit_session *__kjit_current(void);

#endif
