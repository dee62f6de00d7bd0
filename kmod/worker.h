/* SPDX-License-Identifier: GPL-2.0 */
/*
 * worker.h - a worker asked for from any context: how the block map
 * (grow.c) and the deep table (deep.c) get memory while the dispatcher,
 * which may not allocate, runs.
 *
 *   ask       irq_work_queue(): NMI-safe, takes no lock
 *   irq_work  queue_work_on() another online CPU, system_wq (hard irq,
 *             interrupts were on, so no lock of the workqueue's is held
 *             here; another CPU: worker.c)
 *   work      the owner's function, in process context
 *
 * Invariants: asks are taken only between kjit_worker_start() and
 * kjit_worker_stop(); the function never runs on two CPUs at once (one
 * work item), and not after kjit_worker_stop() returns.
 */
#ifndef KJIT_KMOD_WORKER_H
#define KJIT_KMOD_WORKER_H

#include <linux/irq_work.h>
#include <linux/workqueue.h>

struct kjit_worker {
	bool live; /* asks are taken: started, not stopped */
	struct irq_work kick;
	struct work_struct work;
	void (*fn)(struct kjit_worker *w); /* the owner's: container_of(w) */
};

/* Process context: set up, not started. */
void kjit_worker_init(struct kjit_worker *w, void (*fn)(struct kjit_worker *));
/* Process context: asks are taken from now on. */
void kjit_worker_start(struct kjit_worker *w);
/* Any context: run fn soon (once for any number of asks meanwhile). */
void kjit_worker_ask(struct kjit_worker *w);
/* Process context, once nothing asks any more: no more runs; waits for
 * one in progress. Harmless when never started or stopped already. */
void kjit_worker_stop(struct kjit_worker *w);

#endif
