// SPDX-License-Identifier: GPL-2.0
/*
 * symbols.c - kallsyms names for the code cache's blocks (see symbols.h).
 *
 * struct mod_kallsyms is the same in 6.1 and 6.12: Elf_Sym entries (values
 * absolute once loaded), a string table, a type character per symbol;
 * find_kallsyms_symbol() takes the nearest symbol at or below an address,
 * skipping SHN_UNDEF and unnamed ones.
 */
#include <linux/kallsyms.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>
#include "kmod/pool/kjit_pool.h"
#include "ksyms.h"
#include "session.h"
#include "symbols.h"

#define NAME_MAX_LEN 40 /* string room a name on average: "pipe_read+0x4c" */

static struct mod_kallsyms *orig, table;
static unsigned int base_n;	 /* the pool module's own symbols */
static size_t base_str, str_cap; /* string table: its own, capacity */
static size_t str_used;
static u16 shndx; /* the pool's text section, from kjit_pool_code */
static struct kjit_session *naming;
static u32 *done; /* per CPU: blocks named */
static u64 named, dropped;
/* The kernel's module_mutex (not exported), which walks of a module's
 * symbols hold (symbols.h). */
static struct mutex *modules_lock;

static void name_blocks(struct work_struct *w);
static DECLARE_DELAYED_WORK(namer, name_blocks);

/* "pipe_read+0x4c" for original address @a into @buf. */
static void block_name(unsigned long a, char *buf)
{
	char *cut;

	sprint_symbol(buf, a); /* "pipe_read+0x4c/0x470 [mod]" */
	cut = strchr(buf, '/');
	if (cut)
		*cut = 0;
}

/* Append a symbol @name at @value; false when the table is full. */
static bool add_symbol(unsigned long value, const char *name)
{
	unsigned int i = table.num_symtab;
	size_t len = strlen(name) + 1;
	Elf_Sym *sym;

	if (i >= base_n + KJIT_SYMS_MAX || str_used + len > str_cap)
		return false;
	memcpy(table.strtab + str_used, name, len);
	sym = &table.symtab[i];
	memset(sym, 0, sizeof(*sym));
	sym->st_name = str_used;
	sym->st_value = value;
	sym->st_shndx = shndx;
	sym->st_info = (STB_LOCAL << 4) | STT_FUNC;
	table.typetab[i] = 't';
	str_used += len;
	smp_wmb(); /* the symbol before the count that shows it */
	WRITE_ONCE(table.num_symtab, i + 1);
	return true;
}

/* Name the blocks translated since the last round, on every CPU. */
static void name_blocks(struct work_struct *w)
{
	struct kjit_session *s = READ_ONCE(naming);
	char name[KSYM_SYMBOL_LEN];
	unsigned int cpu;
	u32 n;

	if (!s)
		return;
	/* the kernel's walks of a module's symbols (kprobe events, fprobe,
	 * livepatch: module_kallsyms_on_each_symbol) read num_symtab plainly
	 * under module_mutex: appending under it too leaves them a stable
	 * count (KCSAN reported the race; lookups, under RCU, still see the
	 * count after the entries it covers: add_symbol's smp_wmb) */
	mutex_lock(modules_lock);
	for_each_possible_cpu(cpu)
	{
		struct kjit_cpu *c = s->cpu[cpu];

		if (!c)
			continue;
		n = kjit_cache_count(&c->cache);
		for (; done[cpu] < n; done[cpu]++) {
			const struct kjit_cblock *cb =
			    kjit_cache_block(&c->cache, done[cpu]);

			block_name((unsigned long)cb->b.orig, name);
			if (add_symbol((unsigned long)cb->run, name))
				named++;
			else
				dropped++;
		}
	}
	mutex_unlock(modules_lock);
	schedule_delayed_work(&namer, msecs_to_jiffies(KJIT_SYMS_PERIOD_MS));
}

void kjit_symbols_start(struct kjit_session *s)
{
	if (!table.symtab)
		return;
	memset(done, 0, nr_cpu_ids * sizeof(*done));
	named = dropped = 0;
	WRITE_ONCE(naming, s);
	schedule_delayed_work(&namer, msecs_to_jiffies(KJIT_SYMS_PERIOD_MS));
}

void kjit_symbols_stop(void)
{
	WRITE_ONCE(naming, NULL);
	cancel_delayed_work_sync(&namer);
}

bool kjit_symbols_add(unsigned long value, const char *name)
{
	bool ok;

	if (!table.symtab)
		return false;
	mutex_lock(modules_lock); /* as name_blocks() */
	ok = add_symbol(value, name);
	mutex_unlock(modules_lock);
	return ok;
}

void kjit_symbols_reset(void)
{
	if (!table.symtab || table.num_symtab == base_n)
		return;
	mutex_lock(modules_lock); /* walks in flight are done */
	WRITE_ONCE(table.num_symtab, base_n);
	mutex_unlock(modules_lock);
	synchronize_rcu(); /* lookups in flight are done with the slots */
	str_used = base_str;
}

/* Name @mod's symbols with @t, for walks and lookups alike (symbols.h). */
static void publish(struct module *mod, struct mod_kallsyms *t)
{
	mutex_lock(modules_lock);
	rcu_assign_pointer(mod->kallsyms, t);
	mutex_unlock(modules_lock);
}

void kjit_symbols_init(void)
{
	struct module *mod = kjit_pool.mod;
	unsigned int i;

	modules_lock = (struct mutex *)kjit_lookup_name("module_mutex");
	if (!modules_lock) {
		pr_info("kjit: translated code keeps one name (kjit_pool_code): "
			"no module_mutex in kallsyms\n");
		return;
	}
	orig = rcu_dereference_protected(mod->kallsyms, 1);
	base_n = orig->num_symtab;
	for (i = 0, base_str = 0; i < base_n; i++) {
		const char *nm = orig->strtab + orig->symtab[i].st_name;

		base_str = max_t(size_t, base_str,
				 orig->symtab[i].st_name + strlen(nm) + 1);
		if (!strcmp(nm, "kjit_pool_code"))
			shndx = orig->symtab[i].st_shndx;
	}
	str_cap = base_str + (size_t)KJIT_SYMS_MAX * NAME_MAX_LEN;
	table.symtab =
	    vzalloc(array_size(base_n + KJIT_SYMS_MAX, sizeof(Elf_Sym)));
	table.strtab = vzalloc(str_cap);
	table.typetab = vzalloc(base_n + KJIT_SYMS_MAX);
	done = kcalloc(nr_cpu_ids, sizeof(*done), GFP_KERNEL);
	if (!shndx || !table.symtab || !table.strtab || !table.typetab ||
	    !done) {
		pr_info(
		    "kjit: translated code keeps one name (kjit_pool_code): "
		    "%s\n",
		    shndx ? "no memory for block names"
			  : "kjit_pool.ko has no kjit_pool_code symbol");
		vfree(table.symtab);
		vfree(table.strtab);
		vfree(table.typetab);
		kfree(done);
		memset(&table, 0, sizeof(table));
		return;
	}
	memcpy(table.symtab, orig->symtab, base_n * sizeof(Elf_Sym));
	memcpy(table.strtab, orig->strtab, base_str);
	memcpy(table.typetab, orig->typetab, base_n);
	table.num_symtab = base_n;
	str_used = base_str;
	publish(mod, &table);
}

void kjit_symbols_exit(void)
{
	if (!table.symtab)
		return;
	kjit_symbols_stop();
	publish(kjit_pool.mod, orig);
	synchronize_rcu(); /* and no lookup either */
	vfree(table.symtab);
	vfree(table.strtab);
	vfree(table.typetab);
	kfree(done);
	memset(&table, 0, sizeof(table));
}

u64 kjit_symbols_named(void)
{
	return named;
}

u64 kjit_symbols_dropped(void)
{
	return dropped;
}
