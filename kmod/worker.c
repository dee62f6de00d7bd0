// SPDX-License-Identifier: GPL-2.0
/*
 * worker.c - a worker asked for from any context (see worker.h).
 */
#include "worker.h"

static void worker_irq_work(struct irq_work *iw)
{
	struct kjit_worker *w = container_of(iw, struct kjit_worker, kick);

	queue_work(system_unbound_wq, &w->work);
}

static void worker_run(struct work_struct *ws)
{
	struct kjit_worker *w = container_of(ws, struct kjit_worker, work);

	w->fn(w);
}

void kjit_worker_init(struct kjit_worker *w, void (*fn)(struct kjit_worker *))
{
	w->live = false;
	w->fn = fn;
	init_irq_work(&w->kick, worker_irq_work);
	INIT_WORK(&w->work, worker_run);
}

void kjit_worker_start(struct kjit_worker *w)
{
	smp_store_release(&w->live, true);
}

void kjit_worker_ask(struct kjit_worker *w)
{
	if (smp_load_acquire(&w->live))
		irq_work_queue(&w->kick);
}

void kjit_worker_stop(struct kjit_worker *w)
{
	if (!w->live)
		return;
	WRITE_ONCE(w->live, false);
	irq_work_sync(&w->kick);
	cancel_work_sync(&w->work);
}
