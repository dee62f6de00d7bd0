// SPDX-License-Identifier: GPL-2.0
/*
 * worker.c - a worker asked for from any context (see worker.h).
 */
#include "worker.h"

/*
 * On another CPU than this one, which asked: it is translating, perhaps
 * deep inside a system call that makes a thousand more translations
 * before it returns, and under voluntary preemption a worker woken here
 * waits for that; the tables' room ahead is sized for a worker that runs
 * meanwhile. An unbound worker's wake-up would stay here when no idle CPU
 * shares this one's cache (2 vCPUs as 2 sockets: block_map_grow saw 3
 * block entries run natively while the block map grew).
 */
static void worker_irq_work(struct irq_work *iw)
{
	struct kjit_worker *w = container_of(iw, struct kjit_worker, kick);
	int cpu = smp_processor_id();
	unsigned int other = cpumask_any_but(cpu_online_mask, cpu);

	queue_work_on(other < nr_cpu_ids ? other : cpu, system_wq, &w->work);
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
