/* SPDX-License-Identifier: GPL-2.0 */
/*
 * livepatch.h - kjit steps aside when a livepatch module loads.
 *
 * Livepatch switches a task to the new functions only once no old one is
 * on its stack, and decides that from a reliable stack walk matched
 * against the old functions' addresses. A task inside a translated copy
 * has a frame in kjit_pool.ko instead (a reliable one, since the cache has
 * ORC entries: orc.h), so livepatch would call it safe while it still
 * runs old code. So when a module that is a livepatch comes (before its
 * init enables the patch and starts the transition), the session is
 * detached: quiesce moves every cache return address back to the original
 * one, where livepatch sees it. Attaching again afterwards is safe: a
 * patched function's __fentry__ site is livepatch's, and kjit's copies go
 * through it (an attach conflicts, a followed callee's entry guard runs
 * it natively).
 */
#ifndef KJIT_LIVEPATCH_H
#define KJIT_LIVEPATCH_H

/* Module init/exit: the module notifier. Process context. */
int kjit_livepatch_init(void);
void kjit_livepatch_exit(void);

#endif
