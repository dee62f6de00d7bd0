/* kcheck.h - what kjit can do on the running kernel and what stops it
 * (`kjit check`, in the spirit of `bpftool feature probe`): one finding
 * per subject, each refusal with its fix.
 *
 *   modules    kjit.ko and kjit_pool.ko loaded, or installed for this
 *              kernel (modules.dep, or --modules DIR) with its vermagic
 *   device     /dev/kjit usable by this user
 *   kernel     the release (6.1 or later) and the configuration kjit
 *              needs, direct-call ftrace first (/boot/config-RELEASE or
 *              /proc/config.gz)
 *   ibt        whether the kernel enforces IBT (kjit's code is IBT-clean)
 *   lockdown   the lockdown LSM's level and module signature enforcement
 *   kallsyms   whether this user sees kernel addresses (kptr_restrict)
 *   functions  how many functions ftrace can divert, and at once
 *   memory     the code pool and a session's default tables
 *
 * Invariants: every file is read through sysfile() (KJIT_SYSROOT: tests
 * fake a whole machine); nothing is loaded or written (tracefs is
 * mounted when it is not, as for every subcommand); a fact that cannot be
 * read is said to be unknown, never guessed.
 */
#ifndef KJIT_TOOL_KCHECK_H
#define KJIT_TOOL_KCHECK_H

enum kcheck_status {
	KCHECK_OK,	/* works */
	KCHECK_INFO,	/* a fact, neither good nor bad */
	KCHECK_UNKNOWN, /* could not be read */
	KCHECK_NO,	/* stops kjit: see fix */
};

struct kcheck_item {
	const char *subject;
	enum kcheck_status status;
	char text[320];
	char fix[320]; /* for KCHECK_NO (and some KCHECK_UNKNOWN) */
};

#define KCHECK_MAX 8

struct kcheck {
	char release[128];
	struct kcheck_item item[KCHECK_MAX];
	int n;
};

/* Run every check; @modules_dir: where kjit.ko and kjit_pool.ko are when
 * not installed (NULL: /lib/modules/RELEASE's modules.dep says). Returns
 * the number of KCHECK_NO findings. */
int kcheck_run(struct kcheck *c, const char *modules_dir);

/* "ok", "info", "?", "no". */
const char *kcheck_status_name(enum kcheck_status s);

#endif
