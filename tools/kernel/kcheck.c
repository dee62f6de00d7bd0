/*
 * kcheck.c - what kjit can do on the running kernel (see kcheck.h).
 *
 * Each check is one function that fills one item from files under /proc,
 * /sys, /boot and /lib/modules (all through sysfile()). The kernel facts
 * it relies on, with where the kernel decides them:
 *  - lockdown "integrity" refuses unsigned modules (LOCKDOWN_MODULE_SIGNATURE),
 *    "confidentiality" also kprobes (LOCKDOWN_KPROBES: kjit.ko finds
 *    kallsyms_lookup_name with one at load) and /proc/kcore
 *    (LOCKDOWN_KCORE: the tool reads code there); security/lockdown.
 *  - direct calls for many functions at once: before 6.5 ftrace keeps them
 *    in one hash that kjit.ko caps at 8192 functions (kmod/compat.h,
 *    KJIT_DIRECT_MAX: past that 6.1 copies the hash on every insertion).
 *  - kallsyms shows zeros instead of addresses when kptr_restrict hides
 *    them from this user (kallsyms_show_value()).
 */
#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>
#include "kcheck.h"
#include "sysfiles.h"

/* The oldest kernel kjit supports (scripts/kdir-probe.sh draws the same
 * line for building) and the first whose ftrace diverts any number of
 * functions at once (kmod/compat.h, KJIT_DIRECT_OPS). */
#define KCHECK_MIN_MAJOR	6
#define KCHECK_MIN_MINOR	1
#define KCHECK_DIRECT_OPS_MINOR 5 /* 6.5 */
#define KCHECK_DIRECT_MAX	8192

/* The kernel configuration kjit.ko needs, with why (one list for kjit
 * check and kdir-probe.sh: kmod/kernel_needs.h). */
static const struct {
	const char *opt, *why;
} needed[] = {
#define KJIT_NEED(opt, why) {#opt, why},
#include "kmod/kernel_needs.h"
#undef KJIT_NEED
};

const char *kcheck_status_name(enum kcheck_status s)
{
	switch (s) {
	case KCHECK_OK:
		return "ok";
	case KCHECK_INFO:
		return "info";
	case KCHECK_UNKNOWN:
		return "?";
	default:
		return "no";
	}
}

static struct kcheck_item *item(struct kcheck *c, const char *subject,
				enum kcheck_status st, const char *fmt, ...)
{
	struct kcheck_item *it =
	    &c->item[c->n < KCHECK_MAX ? c->n++ : c->n - 1];
	va_list ap;

	it->subject = subject;
	it->status = st;
	it->fix[0] = 0;
	va_start(ap, fmt);
	vsnprintf(it->text, sizeof(it->text), fmt, ap);
	va_end(ap);
	return it;
}

static void fix(struct kcheck_item *it, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(it->fix, sizeof(it->fix), fmt, ap);
	va_end(ap);
}

/* First line of @path (no newline) in @buf; 0, or -1 if unreadable. */
static int first_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	int ok;

	if (!f)
		return -1;
	ok = fgets(buf, (int)len, f) != NULL;
	fclose(f);
	if (!ok)
		return -1;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

/* ---- the kernel's configuration ---- */

static char *config; /* whole text, or NULL */
static const char *config_from;

static char *read_all(FILE *f)
{
	size_t n = 0, cap = 0;
	char *b = NULL;

	for (;;) {
		if (cap - n < 65536) {
			char *nb = realloc(b, cap = 2 * cap + 65536);

			if (!nb) {
				free(b);
				return NULL;
			}
			b = nb;
		}
		size_t got = fread(b + n, 1, cap - n - 1, f);

		if (!got)
			break;
		n += got;
	}
	b[n] = 0;
	return b;
}

static void load_config(const char *release)
{
	char boot[256], cmd[600];
	const char *p;
	FILE *f;

	snprintf(boot, sizeof(boot), "/boot/config-%s", release);
	p = sysfile(0, boot);
	if ((f = fopen(p, "r"))) {
		config = read_all(f);
		fclose(f);
		config_from = "/boot/config-RELEASE";
		return;
	}
	p = sysfile(0, "/proc/config.gz");
	if (access(p, R_OK))
		return;
	snprintf(cmd, sizeof(cmd), "gzip -dc '%s' 2>/dev/null", p);
	if ((f = popen(cmd, "r"))) {
		config = read_all(f);
		if (pclose(f) != 0) {
			free(config);
			config = NULL;
		}
		config_from = "/proc/config.gz";
	}
}

/* 'y', 'm', 'n' (not set), or 0 when the configuration is unknown. */
static char config_get(const char *opt)
{
	size_t l = strlen(opt);
	const char *p = config;

	if (!config)
		return 0;
	while ((p = strstr(p, opt))) {
		if ((p == config || p[-1] == '\n') && p[l] == '=')
			return p[l + 1];
		p += l;
	}
	return 'n';
}

/* ---- .modinfo of a module file ---- */

/* The value of @key in @path's .modinfo, in @buf; 0, or -1. */
static int modinfo_get(const char *path, const char *key, char *buf, size_t len)
{
	size_t kl = strlen(key), shstrndx;
	Elf_Scn *scn = NULL;
	int fd, rc = -1;
	Elf *e;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return -1;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e || elf_getshdrstrndx(e, &shstrndx))
		goto out;
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		const char *name;
		Elf_Data *d;
		size_t i;

		if (!gelf_getshdr(scn, &sh))
			break;
		name = elf_strptr(e, shstrndx, sh.sh_name);
		if (!name || strcmp(name, ".modinfo") ||
		    !(d = elf_getdata(scn, NULL)))
			continue;
		for (i = 0; i < d->d_size;
		     i += strlen((char *)d->d_buf + i) + 1) {
			const char *s = (const char *)d->d_buf + i;

			if (!memchr(s, 0, d->d_size - i))
				break;
			if (!strncmp(s, key, kl) && s[kl] == '=') {
				snprintf(buf, len, "%s", s + kl + 1);
				rc = 0;
				break;
			}
		}
		break;
	}
out:
	if (e)
		elf_end(e);
	close(fd);
	return rc;
}

/* ---- the checks ---- */

/* Is module @name in /proc/modules? Its size in @size. */
static int module_loaded(const char *name, unsigned long *size)
{
	FILE *f = fopen(sysfile(0, "/proc/modules"), "r");
	char line[512], n[128];
	unsigned long sz;
	int found = 0;

	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f))
		if (sscanf(line, "%127s %lu", n, &sz) == 2 &&
		    !strcmp(n, name)) {
			found = 1;
			if (size)
				*size = sz;
		}
	fclose(f);
	return found;
}

/* The installed kjit.ko (and kjit_pool.ko beside it, as make install and
 * dkms put them) for @rel: from modules.dep; 0, or -1. */
static int find_installed(const char *rel, char *dir, size_t len)
{
	char path[256], line[256];
	FILE *f;
	int rc = -1;

	snprintf(path, sizeof(path), "/lib/modules/%s/modules.dep", rel);
	if (!(f = fopen(sysfile(0, path), "r")))
		return -1;
	while (rc && fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');
		char *slash;

		if (!colon)
			continue;
		*colon = 0;
		slash = strrchr(line, '/');
		if (!strcmp(slash ? slash + 1 : line, "kjit.ko")) {
			if (slash)
				*slash = 0;
			snprintf(dir, len, "/lib/modules/%.128s/%.200s", rel,
				 slash ? line : ".");
			rc = 0;
		}
	}
	fclose(f);
	return rc;
}

static void check_modules(struct kcheck *c, const char *modules_dir)
{
	char dir[512], path[600], vm[256];
	int pool = module_loaded("kjit_pool", NULL);
	int kjit = module_loaded("kjit", NULL);
	struct kcheck_item *it;
	size_t rl = strlen(c->release);

	if (pool && kjit) {
		item(
		    c, "modules", KCHECK_OK,
		    "kjit and kjit_pool are loaded (so built for this kernel)");
		return;
	}
	if (modules_dir)
		snprintf(dir, sizeof(dir), "%s", modules_dir);
	else if (find_installed(c->release, dir, sizeof(dir))) {
		it = item(c, "modules", KCHECK_NO,
			  "kjit.ko is not installed for %s", c->release);
		fix(it,
		    "make install (builds for the running kernel; needs "
		    "linux-headers-%s), or make dkms-source and dkms install",
		    c->release);
		return;
	}
	snprintf(path, sizeof(path), "%s/kjit.ko", dir);
	if (modinfo_get(modules_dir ? path : sysfile(1, path), "vermagic", vm,
			sizeof(vm))) {
		it = item(c, "modules", KCHECK_NO, "no readable kjit.ko in %s",
			  dir);
		fix(it, "make install, or make module and kjit check --modules "
			"DIR");
		return;
	}
	if (strncmp(vm, c->release, rl) || (vm[rl] && vm[rl] != ' ')) {
		vm[strcspn(vm, " ")] = 0;
		it = item(c, "modules", KCHECK_NO,
			  "%s/kjit.ko is built for %s, not %s", dir, vm,
			  c->release);
		fix(it, "rebuild for this kernel: make install (or dkms "
			"autoinstall)");
		return;
	}
	it = item(c, "modules", KCHECK_NO,
		  "%s not loaded; %s/kjit.ko is built for this kernel",
		  pool	 ? "kjit is"
		  : kjit ? "kjit_pool is"
			 : "kjit and kjit_pool are",
		  dir);
	if (modules_dir)
		fix(it, "insmod %s/kjit_pool.ko; insmod %s/kjit.ko", dir, dir);
	else
		fix(it, "modprobe kjit (it loads kjit_pool first)");
}

static void check_device(struct kcheck *c)
{
	const char *dev = sysfile(0, "/dev/kjit");
	struct kcheck_item *it;

	if (access(dev, F_OK)) {
		item(c, "device", KCHECK_INFO,
		     "/dev/kjit appears when kjit.ko is loaded");
		return;
	}
	if (access(dev, R_OK | W_OK)) {
		it = item(c, "device", KCHECK_NO,
			  "/dev/kjit: this user may not open it (root only)");
		fix(it, "run kjit as root (sudo kjit ...)");
		return;
	}
	item(c, "device", KCHECK_OK, "/dev/kjit: this user may use it");
}

static void check_kernel(struct kcheck *c)
{
	int major = 0, minor = 0;
	struct kcheck_item *it;
	char missing[256] = "";
	const char *first = NULL, *first_why = NULL;
	size_t i;

	sscanf(c->release, "%d.%d", &major, &minor);
	if (major < KCHECK_MIN_MAJOR ||
	    (major == KCHECK_MIN_MAJOR && minor < KCHECK_MIN_MINOR)) {
		it = item(
		    c, "kernel", KCHECK_NO,
		    "Linux %d.%d is older than %d.%d, the oldest kjit supports",
		    major, minor, KCHECK_MIN_MAJOR, KCHECK_MIN_MINOR);
		fix(it,
		    "a %d.%d or later kernel (docs/usage.md, \"Which "
		    "kernels\")",
		    KCHECK_MIN_MAJOR, KCHECK_MIN_MINOR);
		return;
	}
	if (!config) {
		it = item(c, "kernel", KCHECK_UNKNOWN,
			  "Linux %d.%d; its configuration is not readable "
			  "(no /boot/config-%s, no /proc/config.gz)",
			  major, minor, c->release);
		fix(it,
		    "kjit.ko needs direct-call ftrace, kprobes, modules "
		    "and kallsyms with data symbols: a failed load says which");
		return;
	}
	for (i = 0; i < sizeof(needed) / sizeof(needed[0]); i++)
		if (config_get(needed[i].opt) != 'y' &&
		    strlen(missing) + strlen(needed[i].opt) + 2 <
			sizeof(missing)) {
			strcat(missing, missing[0] ? ", " : "");
			strcat(missing, needed[i].opt);
			if (!first) {
				first = needed[i].opt;
				first_why = needed[i].why;
			}
		}
	if (config_get("CONFIG_UNWINDER_ORC") != 'y' &&
	    config_get("CONFIG_UNWINDER_FRAME_POINTER") != 'y' &&
	    strlen(missing) + 24 < sizeof(missing)) {
		strcat(missing, missing[0] ? ", CONFIG_UNWINDER_ORC"
					   : "CONFIG_UNWINDER_ORC");
		if (!first) {
			first = "CONFIG_UNWINDER_ORC";
			first_why =
			    "a detach finds exception frames with the unwinder";
		}
	}
	if (first) {
		it = item(c, "kernel", KCHECK_NO, "Linux %d.%d, not set: %s",
			  major, minor, missing);
		fix(it, "a kernel configured with them (%s: %s)", first,
		    first_why);
		return;
	}
	item(c, "kernel", KCHECK_OK,
	     "Linux %d.%d with direct-call ftrace, kprobes and the rest kjit "
	     "needs (%s)",
	     major, minor, config_from);
}

static int cpu_has_flag(const char *flag)
{
	FILE *f = fopen(sysfile(0, "/proc/cpuinfo"), "r");
	char line[4096];
	size_t l = strlen(flag);
	int has = 0;

	if (!f)
		return -1;
	while (!has && fgets(line, sizeof(line), f)) {
		char *p = line;

		if (strncmp(line, "flags", 5))
			continue;
		while ((p = strstr(p, flag))) {
			if (p[-1] == ' ' && (p[l] == ' ' || p[l] == '\n'))
				has = 1;
			p += l;
		}
		break;
	}
	fclose(f);
	return has;
}

static void check_ibt(struct kcheck *c)
{
	char cmdline[4096] = "";
	int cpu = cpu_has_flag("ibt");
	char k = config_get("CONFIG_X86_KERNEL_IBT");

	first_line(sysfile(0, "/proc/cmdline"), cmdline, sizeof(cmdline));
	if (cpu < 0 || !k) {
		item(c, "ibt", KCHECK_UNKNOWN,
		     "not known (/proc/cpuinfo or the configuration "
		     "unreadable); "
		     "kjit's code is IBT-clean either way");
		return;
	}
	if (cpu && k == 'y' && !strstr(cmdline, "ibt=off"))
		item(c, "ibt", KCHECK_OK,
		     "enforced by the CPU and kernel: every indirect target in "
		     "kjit's code begins with endbr64");
	else
		item(c, "ibt", KCHECK_INFO, "not enforced (%s)",
		     !cpu	? "the CPU has no IBT"
		     : k != 'y' ? "CONFIG_X86_KERNEL_IBT is not set"
				: "ibt=off on the command line");
}

/* Has /sys/kernel/security any entry (securityfs mounted)? */
static int securityfs_mounted(void)
{
	DIR *d = opendir(sysfile(0, "/sys/kernel/security"));
	struct dirent *e;
	int any = 0;

	if (!d)
		return 0;
	while (!any && (e = readdir(d)))
		any = strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return any;
}

static void check_lockdown(struct kcheck *c, int loaded)
{
	char l[256], sig[16] = "";
	struct kcheck_item *it;
	const char *lvl = NULL;

	if (!first_line(sysfile(0, "/sys/kernel/security/lockdown"), l,
			sizeof(l))) {
		char *b = strchr(l, '['), *e = b ? strchr(b, ']') : NULL;

		if (b && e) {
			*e = 0;
			lvl = b + 1;
		}
	}
	first_line(sysfile(0, "/sys/module/module/parameters/sig_enforce"), sig,
		   sizeof(sig));
	if (lvl && !strcmp(lvl, "confidentiality")) {
		it = item(
		    c, "lockdown", KCHECK_NO,
		    "confidentiality: the kernel refuses kprobes (kjit.ko's "
		    "load needs one) and /proc/kcore (the tool reads code "
		    "there)");
		fix(it,
		    "boot with lockdown=integrity or none (Secure Boot "
		    "sets it: mokutil --disable-validation, or the firmware)");
		return;
	}
	if ((lvl && !strcmp(lvl, "integrity")) || sig[0] == 'Y') {
		const char *why =
		    sig[0] == 'Y' ? "module.sig_enforce" : "lockdown integrity";

		if (loaded) {
			item(c, "lockdown", KCHECK_OK,
			     "%s: only signed modules load, and kjit's are "
			     "loaded",
			     why);
			return;
		}
		it =
		    item(c, "lockdown", KCHECK_NO,
			 "%s: the kernel loads only modules signed by a key it "
			 "trusts",
			 why);
		fix(it,
		    "install through dkms, which signs with its key, and "
		    "enroll that key: mokutil --import /var/lib/dkms/mok.pub, "
		    "then reboot");
		return;
	}
	if (lvl)
		item(c, "lockdown", KCHECK_OK, "none");
	else if (!securityfs_mounted())
		item(
		    c, "lockdown", KCHECK_UNKNOWN,
		    "not known: securityfs is not mounted (mount -t securityfs "
		    "none /sys/kernel/security)");
	else
		item(c, "lockdown", KCHECK_OK,
		     "none (no lockdown LSM in this kernel)");
}

/* The address of the first text symbol in /proc/kallsyms (per-CPU
 * symbols come first, at 0 on their own): 0 when hidden, -1 unreadable. */
static int first_text_address(unsigned long long *a)
{
	FILE *f = fopen(sysfile(0, "/proc/kallsyms"), "r");
	char l[512], type;
	int i, rc = -1;

	if (!f)
		return -1;
	for (i = 0; i < 100000 && fgets(l, sizeof(l), f); i++)
		if (sscanf(l, "%llx %c", a, &type) == 2 &&
		    (type == 'T' || type == 't')) {
			rc = 0;
			break;
		}
	fclose(f);
	return rc;
}

static void check_kallsyms(struct kcheck *c)
{
	char kr[16] = "?";
	struct kcheck_item *it;
	unsigned long long a = 0;

	first_line(sysfile(0, "/proc/sys/kernel/kptr_restrict"), kr,
		   sizeof(kr));
	if (first_text_address(&a)) {
		it = item(c, "kallsyms", KCHECK_NO,
			  "/proc/kallsyms is not readable");
		fix(it, "a kernel with CONFIG_KALLSYMS, and /proc mounted");
		return;
	}
	if (!a) {
		it = item(c, "kallsyms", KCHECK_NO,
			  "addresses hidden from this user (kptr_restrict=%s)",
			  kr);
		fix(it, "%s",
		    !strcmp(kr, "2")
			? "sysctl kernel.kptr_restrict=1, and run kjit as root"
			: "run kjit as root (CAP_SYSLOG)");
		return;
	}
	item(c, "kallsyms", KCHECK_OK, "addresses visible (kptr_restrict=%s)",
	     kr);
}

static void check_functions(struct kcheck *c)
{
	const char *p = sysfile_tracing("available_filter_functions");
	int major = 0, minor = 0;
	unsigned long n = 0;
	char line[512], limit[96];
	FILE *f = p ? fopen(p, "r") : NULL;

	sscanf(c->release, "%d.%d", &major, &minor);
	if (major > 6 || (major == 6 && minor >= KCHECK_DIRECT_OPS_MINOR))
		snprintf(limit, sizeof(limit), "any number in one session");
	else
		snprintf(limit, sizeof(limit),
			 "at most %d in one session (this kernel's ftrace)",
			 KCHECK_DIRECT_MAX);
	if (!f) {
		item(c, "functions", KCHECK_UNKNOWN,
		     "tracefs unreadable, so not counted; %s", limit);
		return;
	}
	while (fgets(line, sizeof(line), f))
		n++;
	fclose(f);
	item(c, "functions", KCHECK_INFO,
	     "%lu ftrace can divert (some kjit refuses: kjit list); %s", n,
	     limit);
}

static unsigned long param(const char *name)
{
	char path[128], v[32];

	snprintf(path, sizeof(path), "/sys/module/kjit/parameters/%s", name);
	if (first_line(sysfile(0, path), v, sizeof(v)))
		return 0;
	return strtoul(v, NULL, 10);
}

/* Bytes of memory module file @path takes once loaded (its allocated
 * sections); 0 if unreadable. */
static unsigned long module_alloc_bytes(const char *path)
{
	unsigned long sum = 0;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	int fd;
	Elf *e;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return 0;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	if ((e = elf_begin(fd, ELF_C_READ, NULL))) {
		while ((scn = elf_nextscn(e, scn)) && gelf_getshdr(scn, &sh))
			if (sh.sh_flags & SHF_ALLOC)
				sum += sh.sh_size;
		elf_end(e);
	}
	close(fd);
	return sum;
}

/* kjit_pool.ko's file: beside kjit.ko in @modules_dir (or as make module
 * lays them out), else where modules.dep says; "" if none. */
static void pool_file(struct kcheck *c, const char *modules_dir, char *path,
		      size_t len)
{
	char dir[512];

	path[0] = 0;
	if (modules_dir) {
		snprintf(path, len, "%s/kjit_pool.ko", modules_dir);
		if (access(path, R_OK))
			snprintf(path, len, "%s/../kjit_pool/kjit_pool.ko",
				 modules_dir);
	} else if (!find_installed(c->release, dir, sizeof(dir))) {
		snprintf(path, len, "%s",
			 sysfile(1, strcat(dir, "/kjit_pool.ko")));
	}
	if (path[0] && access(path, R_OK))
		path[0] = 0;
}

static void check_memory(struct kcheck *c, const char *modules_dir)
{
	unsigned long total = 0, text = 0, kb = param("cache_kb"),
		      blocks = param("max_blocks");
	char desc[256], path[600], sess[160] = "", of[48] = "";
	long cpus = sysconf(_SC_NPROCESSORS_CONF);
	int loaded = module_loaded("kjit_pool", &total);
	const char *mb, *dash;
	char possible[64];

	if (!first_line(sysfile(0, "/sys/devices/system/cpu/possible"),
			possible, sizeof(possible))) /* "0-3" or "0" */
		cpus = strtol((dash = strrchr(possible, '-')) ? dash + 1
							      : possible,
			      NULL, 10) +
		       1;
	if (kb && blocks && cpus > 0)
		snprintf(
		    sess, sizeof(sess),
		    "; a session by default: %lu KiB of code cache and %lu "
		    "blocks per CPU, %ld CPUs",
		    kb, blocks, cpus);
	pool_file(c, modules_dir, path, sizeof(path));
	/* the pool's size is in the module's description: "(16 MiB ...)" */
	if (path[0] && !modinfo_get(path, "description", desc, sizeof(desc)) &&
	    (mb = strchr(desc, '(')) && isdigit((unsigned char)mb[1]))
		text = strtoul(mb + 1, NULL, 10);
	if (text)
		snprintf(of, sizeof(of), " of %lu MiB", text);
	if (!loaded && path[0])
		total = module_alloc_bytes(path);
	if (!total) {
		item(
		    c, "memory", KCHECK_UNKNOWN,
		    "code pool: unknown until kjit_pool.ko is found or loaded");
		return;
	}
	item(c, "memory", KCHECK_INFO,
	     "kjit_pool.ko %s %lu MiB: a code pool%s for all CPUs and its "
	     "exception and ORC tables%s",
	     loaded ? "takes" : "will take", (total + (1 << 19)) >> 20, of,
	     sess);
}

int kcheck_run(struct kcheck *c, const char *modules_dir)
{
	int i, no = 0;

	memset(c, 0, sizeof(*c));
	if (first_line(sysfile(0, "/proc/sys/kernel/osrelease"), c->release,
		       sizeof(c->release))) {
		struct utsname u;

		uname(&u);
		snprintf(c->release, sizeof(c->release), "%s", u.release);
	}
	load_config(c->release);
	check_modules(c, modules_dir);
	check_device(c);
	check_kernel(c);
	check_ibt(c);
	check_lockdown(c, module_loaded("kjit", NULL));
	check_kallsyms(c);
	check_functions(c);
	check_memory(c, modules_dir);
	free(config);
	config = NULL;
	for (i = 0; i < c->n; i++)
		no += c->item[i].status == KCHECK_NO;
	return no;
}
