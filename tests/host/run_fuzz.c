/* run_fuzz.c - bounded libFuzzer run of fuzz_translate for `make host-test`.
 *
 * Seeds the corpus (first run) with real function starts from the stock
 * vmlinux when it is there, runs the fuzzer for FUZZ_SECONDS, and reports
 * one KJIT-RESULT line; on a finding it prints the command that reproduces
 * it.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "tests/host/kjit_test.h"
#include "tests/host/vmlinux.h"

#define FUZZ_SECONDS 30
#define N_SEEDS	     400
#define REGRESS_DIR  "tests/host/fuzz-regress" /* inputs of past findings */

static void seed(const char *build, const char *dir)
{
	char path[600], err[256];
	struct vml v;
	size_t i, step, n = 0;

	snprintf(path, sizeof(path), "%s/host/vmlinux", build);
	if (vml_open(&v, path, err, sizeof(err)))
		return;
	step = v.n_sym / N_SEEDS + 1;
	for (i = 0; i < v.n_sym; i += step) {
		u64 off = v.sym[i].addr - v.text_addr;
		FILE *f;

		if (v.sym[i].addr < v.text_addr || off + 128 > v.text_size)
			continue;
		snprintf(path, sizeof(path), "%s/seed-%zu", dir, n++);
		f = fopen(path, "wb");
		if (!f)
			return;
		fputc((int)(i & 0xff), f), fputc(0, f),
		    fputc(0, f); /* config, start */
		fwrite(v.text + off, 1, 128, f);
		fclose(f);
	}
	printf("seeded %zu inputs from vmlinux\n", n);
}

/* Print @path's bytes as hex: the input survives in the test log when the
 * machine that found it (a CI runner) does not. */
static void print_hex(const char *path)
{
	FILE *f = fopen(path, "rb");
	int c, n = 0;

	if (!f)
		return;
	printf("finding (%s), hex:\n", path);
	while ((c = fgetc(f)) != EOF)
		printf("%02x%s", c, ++n % 32 ? "" : "\n");
	printf("\n(recreate: echo HEX | xxd -r -p > FILE)\n");
	fclose(f);
}

static int empty_dir(const char *d)
{
	DIR *dp = opendir(d);
	struct dirent *e;
	int n = 0;

	if (!dp)
		return 1;
	while ((e = readdir(dp)))
		n += e->d_name[0] != '.';
	closedir(dp);
	return n == 0;
}

static void newest(const char *dir, char *out, size_t n)
{
	DIR *dp = opendir(dir);
	struct dirent *e;
	time_t best = 0;
	struct stat sb;
	char p[1024];

	out[0] = 0;
	while (dp && (e = readdir(dp))) {
		snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
		if (e->d_name[0] != '.' && !stat(p, &sb) &&
		    sb.st_mtime >= best) {
			best = sb.st_mtime;
			snprintf(out, n, "%s", p);
		}
	}
	if (dp)
		closedir(dp);
}

int main(void)
{
	const char *build = getenv("BUILD") ? getenv("BUILD") : "build";
	char fuzzer[256], corpus[256], art[256], log[256], cmd[3000],
	    found[1100];
	int st;

	snprintf(fuzzer, sizeof(fuzzer), "%s/host/fuzz_translate", build);
	snprintf(corpus, sizeof(corpus), "%s/host/fuzz-corpus", build);
	snprintf(art, sizeof(art), "%s/host/fuzz-artifacts", build);
	snprintf(log, sizeof(log), "%s/host/fuzz.log", build);
	if (access(fuzzer, X_OK)) {
		kt_fail("jit.fuzz.translate", "%s not built", fuzzer);
		return kt_exit();
	}
	/* earlier findings first (cwd is the repo root) */
	if (!empty_dir(REGRESS_DIR)) {
		snprintf(cmd, sizeof(cmd), "%s %s/* > %s 2>&1", fuzzer,
			 REGRESS_DIR, log);
		st = system(cmd);
		kt_check("jit.fuzz.regress", st == 0,
			 "an earlier finding is back; reproduce with: %s %s/*",
			 fuzzer, REGRESS_DIR);
	}
	mkdir(corpus, 0755);
	mkdir(art, 0755);
	if (empty_dir(corpus))
		seed(build, corpus);
	snprintf(cmd, sizeof(cmd),
		 "%s -max_total_time=%d -timeout=10 -rss_limit_mb=2048 "
		 "-artifact_prefix=%s/ %s > %s 2>&1",
		 fuzzer, FUZZ_SECONDS, art, corpus, log);
	st = system(cmd);
	snprintf(cmd, sizeof(cmd), "grep -E '^Done|DONE' %s | tail -1", log);
	if (st != 0 && !(WIFEXITED(st) && WEXITSTATUS(st) == 0)) {
		newest(art, found, sizeof(found));
		printf("fuzzer log: %s\n", log);
		print_hex(found);
		kt_fail("jit.fuzz.translate", "finding; reproduce with: %s %s",
			fuzzer, found);
		return kt_exit();
	}
	if (system(cmd) != 0)
		printf("(no summary line)\n");
	kt_pass("jit.fuzz.translate", "%d s, log %s", FUZZ_SECONDS, log);
	return kt_exit();
}
