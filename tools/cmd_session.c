/*
 * cmd_session.c - `kjit attach|detach|report|stat|reset`: drive a session
 * through /dev/kjit and print its results.
 *
 * Output of `report` is one line per block, stable for scripts:
 *   BLOCK <orig hex> <function>+<off hex> count=<n> len=<orig bytes>
 *         cpus=<n> insns=<n> seq=<counter sequence>
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include "../kmod/kjit_ioctl.h"
#include "commands.h"
#include "device.h"
#include "disasm.h"
#include "kcore.h"

static const char *const fallback_names[] = { "nmi", "nested", "refused", "full" };

static int attach_print(const struct kjit_target *t, unsigned int n)
{
	unsigned int i;
	int bad = 0;

	for (i = 0; i < n; i++) {
		if (!t[i].err)
			continue;
		fprintf(stderr, "kjit: %s: cannot attach: %s (%s)\n",
			t[i].name[0] ? t[i].name : "?", t[i].why, strerror(-t[i].err));
		bad++;
	}
	return bad;
}

int cmd_attach(int argc, char **argv)
{
	struct kjit_attach req = { .size = sizeof(req) };
	struct kjit_target *t;
	int fd, i, n, first = 1, rc;

	if (argc > 1 && !strcmp(argv[1], "--best-effort")) {
		req.flags |= KJIT_ATTACH_BEST_EFFORT;
		first = 2;
	}
	n = argc - first;
	if (n < 1 || n > KJIT_MAX_TARGETS) {
		fprintf(stderr, "kjit: attach: name 1..%d functions\n", KJIT_MAX_TARGETS);
		return 2;
	}
	t = calloc(n, sizeof(*t));
	if (!t)
		return 1;
	for (i = 0; i < n; i++) {
		const char *a = argv[first + i];

		if (!strncmp(a, "0x", 2))
			t[i].addr = strtoull(a, NULL, 16);
		else
			snprintf(t[i].name, sizeof(t[i].name), "%s", a);
	}
	fd = kjit_device_open();
	if (fd < 0) {
		free(t);
		return 1;
	}
	req.n = n;
	req.targets = (uintptr_t)t;
	rc = ioctl(fd, KJIT_IOC_ATTACH, &req);
	attach_print(t, n);
	if (rc)
		fprintf(stderr, "kjit: attach failed: %s%s\n", strerror(errno),
			errno == EBUSY ? " (already attached: kjit detach first?)" : "");
	else
		printf("attached %u function(s)\n", req.attached);
	free(t);
	close(fd);
	return rc ? 1 : 0;
}

static int simple_ioctl(unsigned long cmd, const char *what, const char *enoent)
{
	int fd = kjit_device_open(), rc;

	if (fd < 0)
		return 1;
	rc = ioctl(fd, cmd, 0);
	if (rc)
		fprintf(stderr, "kjit: %s: %s\n", what,
			errno == ENOENT ? enoent : strerror(errno));
	close(fd);
	return rc ? 1 : 0;
}

int cmd_detach(int argc, char **argv)
{
	return simple_ioctl(KJIT_IOC_DETACH, "detach", "nothing is attached");
}

int cmd_reset(int argc, char **argv)
{
	return simple_ioctl(KJIT_IOC_RESET, "reset", "no session");
}

static struct kjit_func_info *get_funcs(int fd, unsigned int *n)
{
	struct kjit_funcs req = { .size = sizeof(req), .max = KJIT_MAX_TARGETS };
	struct kjit_func_info *f = calloc(KJIT_MAX_TARGETS, sizeof(*f));

	req.buf = (uintptr_t)f;
	if (!f || ioctl(fd, KJIT_IOC_FUNCS, &req)) {
		free(f);
		return NULL;
	}
	*n = req.written;
	return f;
}

static struct kjit_block_info *get_blocks(int fd, unsigned int *n)
{
	struct kjit_blocks req = { .size = sizeof(req) };
	struct kjit_block_info *b = NULL;

	do { /* the count can grow between calls while attached */
		free(b);
		req.max = req.total + 64;
		b = calloc(req.max, sizeof(*b));
		req.buf = (uintptr_t)b;
		if (!b || ioctl(fd, KJIT_IOC_BLOCKS, &req)) {
			free(b);
			return NULL;
		}
	} while (req.written < req.total);
	*n = req.written;
	return b;
}

struct report_opts {
	unsigned int top;	/* hottest blocks to show with disassembly */
	int blocks;		/* list every block */
};

static int by_count_desc(const void *a, const void *b)
{
	const struct kjit_block_info *x = a, *y = b;

	return x->count < y->count ? 1 : x->count > y->count ? -1 : 0;
}

/* Per function: blocks seen executed, and code bytes they cover. */
static void print_functions(const struct kjit_func_info *f, unsigned int nf,
			    const struct kjit_block_info *b, unsigned int nb)
{
	unsigned int i, j, run;
	uint64_t bytes, entry;

	printf("%-28s %12s %8s %18s\n", "function", "calls", "blocks", "bytes covered");
	for (i = 0; i < nf; i++) {
		run = 0;
		bytes = entry = 0;
		for (j = 0; j < nb; j++) {
			if (b[j].func != i || !b[j].count)
				continue;
			run++;
			bytes += b[j].orig_len;
			if (b[j].orig == f[i].start + 5)
				entry = b[j].count;
		}
		printf("%-28s %12" PRIu64 " %8u %8" PRIu64 "/%-5" PRIu64 " %3.0f%%\n",
		       f[i].name, entry, run, bytes, (uint64_t)(f[i].end - f[i].start),
		       100.0 * bytes / (double)(f[i].end - f[i].start));
	}
}

static void print_hottest(const struct kjit_func_info *f, unsigned int nf,
			  struct kjit_block_info *b, unsigned int nb, unsigned int top)
{
	struct kcore *kc = kcore_open("/proc/kcore");
	unsigned int i;

	qsort(b, nb, sizeof(*b), by_count_desc);
	printf("\nhottest blocks:\n");
	for (i = 0; i < nb && i < top; i++) {
		const struct kjit_func_info *fn = b[i].func < nf ? &f[b[i].func] : NULL;

		printf("%12" PRIu64 "  %s+0x%" PRIx64 " (%u bytes)\n", (uint64_t)b[i].count,
		       fn ? fn->name : "?", fn ? (uint64_t)(b[i].orig - fn->start) : 0,
		       b[i].orig_len);
		if (!kc || disasm_range(kc, b[i].orig, b[i].orig_len, "                ", stdout))
			printf("                (no disassembly: cannot read /proc/kcore)\n");
	}
	kcore_close(kc);
}

static void print_blocks(const struct kjit_func_info *f, unsigned int nf,
			 const struct kjit_block_info *b, unsigned int nb)
{
	unsigned int i;

	for (i = 0; i < nb; i++) {
		const struct kjit_func_info *fn = b[i].func < nf ? &f[b[i].func] : NULL;

		printf("BLOCK 0x%" PRIx64 " %s+0x%" PRIx64 " count=%" PRIu64
		       " len=%u cpus=%u insns=%u seq=%u\n",
		       (uint64_t)b[i].orig, fn ? fn->name : "?",
		       fn ? (uint64_t)(b[i].orig - fn->start) : 0,
		       (uint64_t)b[i].count, b[i].orig_len, b[i].cpus,
		       b[i].n_insns, b[i].seq);
	}
}

int cmd_report(int argc, char **argv)
{
	struct report_opts o = { 0, 1 };
	struct kjit_block_info *b;
	struct kjit_func_info *f;
	unsigned int nb = 0, nf = 0, i;
	int fd;

	for (i = 1; i < (unsigned int)argc; i++) {
		if (!strcmp(argv[i], "--top") && i + 1 < (unsigned int)argc) {
			o.top = (unsigned int)atoi(argv[++i]);
			o.blocks = 0;
		} else {
			fprintf(stderr, "kjit: report: unknown option %s\n", argv[i]);
			return 2;
		}
	}
	fd = kjit_device_open();
	if (fd < 0)
		return 1;
	f = get_funcs(fd, &nf);
	b = f ? get_blocks(fd, &nb) : NULL;
	close(fd);
	if (!f || !b) {
		fprintf(stderr, "kjit: report: %s\n",
			errno == ENOENT ? "no session (kjit attach first)" : strerror(errno));
		free(f);
		return 1;
	}
	if (o.blocks) {
		for (i = 0; i < nf; i++)
			printf("FUNC %s 0x%" PRIx64 "-0x%" PRIx64 " %s\n", f[i].name,
			       (uint64_t)f[i].start, (uint64_t)f[i].end,
			       f[i].diverted ? "attached" : "detached");
		print_blocks(f, nf, b, nb);
	} else {
		print_functions(f, nf, b, nb);
		print_hottest(f, nf, b, nb, o.top);
	}
	free(f);
	free(b);
	return 0;
}

int cmd_stat(int argc, char **argv)
{
	struct kjit_session_stats st = { .size = sizeof(st) };
	int fd = kjit_device_open(), i;
	uint64_t bytes = 0;

	if (fd < 0)
		return 1;
	if (ioctl(fd, KJIT_IOC_STATS, &st)) {
		fprintf(stderr, "kjit: stat: %s\n",
			errno == ENOENT ? "no session (kjit attach first)" : strerror(errno));
		close(fd);
		return 1;
	}
	for (i = 0; i < (int)st.ncpus; i++)
		bytes += st.bytes[i];
	printf("state: %s, %u function(s)\n", st.attached ? "attached" : "detached",
	       st.n_funcs);
	printf("blocks translated: %" PRIu64 " (%" PRIu64 " ns translating)\n",
	       (uint64_t)st.translated, (uint64_t)st.translate_ns);
	printf("cache bytes: %" PRIu64, bytes);
	for (i = 0; i < (int)st.ncpus; i++)
		printf("%s cpu%d=%" PRIu64, i ? "," : " (", i, (uint64_t)st.bytes[i]);
	printf("%s\n", st.ncpus ? ")" : "");
	printf("links: %" PRIu64 " (%" PRIu64 " straight to native code)\n",
	       (uint64_t)st.links, (uint64_t)st.native_links);
	printf("dispatcher entries: %" PRIu64 " in C (%" PRIu64 " left the attached code),"
	       " %" PRIu64 " served by the lookup table\n",
	       (uint64_t)st.dispatches, (uint64_t)st.exits_native,
	       (uint64_t)st.lookup_hits);
	for (i = 0; i < 4; i++)
		printf("fallback %s: %" PRIu64 "\n", fallback_names[i],
		       (uint64_t)st.fallback[i]);
	for (i = 0; i < KJIT_REFUSE_REASONS; i++)
		if (st.refused[i])
			printf("refused reason %d: %" PRIu64 "\n", i, (uint64_t)st.refused[i]);
	close(fd);
	return 0;
}
