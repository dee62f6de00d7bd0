/* SPDX-License-Identifier: GPL-2.0 */
/* chardev.h - /dev/kjit registration. */
#ifndef KJIT_CHARDEV_H
#define KJIT_CHARDEV_H

#define KJIT_BUILD_STRING "kjit 0.1"

int kjit_chardev_init(void);
void kjit_chardev_exit(void);

#endif
