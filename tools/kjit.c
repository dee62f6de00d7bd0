/*
 * kjit.c - the kjit command-line tool: subcommand dispatch and help.
 *
 * Exit status: 0 success, 1 failure (one clear line on stderr), 2 usage error.
 */
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include "../kmod/kjit_ioctl.h"
#include "commands.h"
#include "device.h"

struct subcommand {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *usage;
};

static const struct subcommand subcommands[] = {
	{ "attach", cmd_attach,
	  "attach [--best-effort] FUNC...    divert FUNCs into the code cache and count blocks" },
	{ "detach", cmd_detach,
	  "detach                            stop diversion (results stay readable)" },
	{ "report", cmd_report,
	  "report [--top N]                  blocks and counts; --top: per function, hottest N disassembled" },
	{ "stat", cmd_stat,
	  "stat                              cache and fallback statistics" },
	{ "reset", cmd_reset,
	  "reset                             zero the counters" },
	{ "decode", cmd_decode,
	  "decode [-n N] [--check] FUNC...   decode FUNC in the kernel and in user space" },
	{ "version", cmd_version,
	  "version                           tool and module versions" },
};
#define N_SUBCOMMANDS (sizeof(subcommands) / sizeof(subcommands[0]))

int cmd_version(int argc, char **argv)
{
	struct kjit_version v = { .size = sizeof(v) };
	int fd;

	printf("kjit tool, ABI %d\n", KJIT_ABI_VERSION);
	fd = kjit_device_open();
	if (fd < 0)
		return 1;
	if (ioctl(fd, KJIT_IOC_VERSION, &v) == 0)
		printf("module: %s, ABI %u\n", v.build, v.abi);
	close(fd);
	return 0;
}

static void usage(FILE *out)
{
	size_t i;

	fprintf(out, "usage: kjit SUBCOMMAND [ARGS]\n\n");
	for (i = 0; i < N_SUBCOMMANDS; i++)
		fprintf(out, "  kjit %s\n", subcommands[i].usage);
}

int main(int argc, char **argv)
{
	size_t i;

	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	for (i = 0; i < N_SUBCOMMANDS; i++)
		if (!strcmp(argv[1], subcommands[i].name))
			return subcommands[i].run(argc - 1, argv + 1);
	fprintf(stderr, "kjit: unknown subcommand '%s' (kjit --help)\n", argv[1]);
	return 2;
}
