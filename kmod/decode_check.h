/* SPDX-License-Identifier: GPL-2.0 */
/* decode_check.h - KJIT_IOC_DECODE: decode live kernel text with Zydis. */
#ifndef KJIT_DECODE_CHECK_H
#define KJIT_DECODE_CHECK_H

long kjit_ioctl_decode(void __user *uarg);

#endif
