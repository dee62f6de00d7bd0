// SPDX-License-Identifier: GPL-2.0
/*
 * kjit_kallwalk.c - walks kjit_pool.ko's symbols the way kprobe events,
 * fprobe and livepatch do: module_kallsyms_on_each_symbol(), which holds
 * module_mutex and reads the table preemptibly, outside RCU. It pauses
 * inside the walk. Used by the VM case pool_symbols_walk (issue 35, item
 * 4): kjit must neither free nor rewrite a table that a walk is reading.
 *
 *   echo MS > /sys/module/kjit_kallwalk/parameters/walk
 *
 * walks, pausing MS ms at the first symbol whose name has "+0x" (a code
 * cache block's) or, with pause_at_first=1, at the first symbol. Then it
 * compares the paused-at name with what it was, reads every symbol after
 * it, and prints one line:
 *   kjit_kallwalk: N symbols of kjit_pool, paused at #K 'NAME': same|changed
 * The write returns when the walk is done.
 *
 * module_kallsyms_on_each_symbol() is not exported: its address comes from
 * a kprobe registered and removed at load, and it is called directly. On
 * an IBT machine that call could fault (a function whose address the
 * kernel never takes loses its endbr64); the rig runs under TCG, which does
 * not enforce IBT.
 */
#include <linux/delay.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/string.h>
#include <linux/version.h>

static bool pause_at_first;
module_param(pause_at_first, bool, 0644);

struct walk {
	unsigned int pause_ms, seen, paused_at;
	const char *at;
	char was[128];
	bool changed;
	size_t bytes; /* of every name after the pause: each one is read */
};

static void *walker; /* module_kallsyms_on_each_symbol */

static int visit(struct walk *w, const char *name)
{
	w->seen++;
	if (w->paused_at) {
		w->bytes += strlen(name);
		return 0;
	}
	if (!pause_at_first && !strstr(name, "+0x"))
		return 0;
	strscpy(w->was, name, sizeof(w->was));
	w->at = name;
	w->paused_at = w->seen;
	msleep(w->pause_ms);
	w->changed = strncmp(w->at, w->was, sizeof(w->was)) != 0;
	return 0;
}

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 2, 0)
static int on_symbol(void *data, const char *name, unsigned long value)
{
	return visit(data, name);
}

static void walk_pool(struct walk *w)
{
	int (*each)(const char *, int (*)(void *, const char *, unsigned long),
		    void *) = walker;

	each("kjit_pool", on_symbol, w);
}
#else
static int on_symbol(void *data, const char *name, struct module *mod,
		     unsigned long value)
{
	return mod && !strcmp(mod->name, "kjit_pool") ? visit(data, name) : 0;
}

static void walk_pool(struct walk *w)
{
	int (*each)(int (*)(void *, const char *, struct module *,
			    unsigned long),
		    void *) = walker;

	each(on_symbol, w);
}
#endif

static int set_walk(const char *val, const struct kernel_param *kp)
{
	struct walk w = {};
	int err = kstrtouint(val, 0, &w.pause_ms);

	if (err)
		return err;
	walk_pool(&w);
	pr_info("kjit_kallwalk: %u symbols of kjit_pool, paused at #%u '%s': "
		"%s (%zu bytes of names after it)\n",
		w.seen, w.paused_at, w.was,
		!w.paused_at ? "no pause" : w.changed ? "changed" : "same",
		w.bytes);
	return 0;
}

static const struct kernel_param_ops walk_ops = {.set = set_walk};
module_param_cb(walk, &walk_ops, NULL, 0200);

static int __init kallwalk_init(void)
{
	struct kprobe kp = {.symbol_name = "module_kallsyms_on_each_symbol"};
	int err = register_kprobe(&kp);

	if (err) {
		pr_err("kjit_kallwalk: no module_kallsyms_on_each_symbol: %d\n",
		       err);
		return err;
	}
	walker = kp.addr;
	unregister_kprobe(&kp);
	return 0;
}

static void __exit kallwalk_exit(void)
{
}

module_init(kallwalk_init);
module_exit(kallwalk_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("kjit test: walks kjit_pool.ko's symbols as kprobe events do");
