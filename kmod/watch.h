/* SPDX-License-Identifier: GPL-2.0 */
/*
 * watch.h - notices code patching that no translation-time test covers: an
 * int3 Kprobe armed inside a translated function after kjit translated it.
 */
#ifndef KJIT_WATCH_H
#define KJIT_WATCH_H

struct kjit_session;

/* Process context, kjit_mutex held: watch while @s is attached. Failing to
 * watch is not an error (logged once; the statistics say "not watched"). */
void kjit_watch_start(struct kjit_session *s);
void kjit_watch_stop(void);

#endif
