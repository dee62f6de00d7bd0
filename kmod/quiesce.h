/* SPDX-License-Identifier: GPL-2.0 */
/* quiesce.h - wait until no task can run a detached session's code. */
#ifndef KJIT_QUIESCE_H
#define KJIT_QUIESCE_H

struct kjit_session;

void kjit_quiesce(const struct kjit_session *s);

#endif
