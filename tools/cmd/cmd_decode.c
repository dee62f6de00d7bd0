/*
 * cmd_decode.c - `kjit decode`: the first instructions of kernel functions,
 * decoded twice, independently.
 *
 *  kernel side: KJIT_IOC_DECODE - kjit.ko resolves the name with
 *               kallsyms_lookup_name and decodes live text with its own Zydis;
 *  user side:   the address from /proc/kallsyms, the bytes from /proc/kcore
 *               (libelf), decoded with Debian's libZydis.
 * With --check, any difference (address, count, length, bytes, mnemonic) is
 * reported and the exit status is 1.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <Zydis/Zydis.h>
#include "kmod/kjit_ioctl.h"
#include "commands.h"
#include "tools/kernel/device.h"
#include "tools/kernel/kallsyms.h"
#include "tools/kernel/kcore.h"
#include "tools/report/say.h"

struct decode_opts {
	unsigned int count;
	int check;
	const char *kallsyms;
	const char *kcore;
};

/* One decoded instruction on the user side, plus its Intel-syntax text. */
struct user_insn {
	struct kjit_decoded_insn k;
	char text[96];
};

static int kernel_decode(int fd, const char *name, unsigned int n,
			 struct kjit_decoded_insn *out, uint64_t *addr)
{
	struct kjit_decode req = {.size = sizeof(req), .max_insns = n};

	snprintf(req.name, sizeof(req.name), "%s", name);
	req.insns = (uintptr_t)out;
	if (ioctl(fd, KJIT_IOC_DECODE, &req)) {
		say("%s: kernel decode failed: %s\n", name, strerror(errno));
		return -1;
	}
	*addr = req.resolved;
	return (int)req.count;
}

static int user_decode_at(struct kcore *kc, uint64_t addr, unsigned int n,
			  struct user_insn *out)
{
	ZydisDisassembledInstruction dis;
	uint8_t buf[15];
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (kcore_read(kc, addr, buf, sizeof(buf)))
			break;
		if (!ZYAN_SUCCESS(
			ZydisDisassembleIntel(ZYDIS_MACHINE_MODE_LONG_64, addr,
					      buf, sizeof(buf), &dis)))
			break;
		memset(&out[i], 0, sizeof(out[i]));
		out[i].k.addr = addr;
		out[i].k.length = dis.info.length;
		memcpy(out[i].k.bytes, buf, dis.info.length);
		snprintf(out[i].k.mnemonic, sizeof(out[i].k.mnemonic), "%s",
			 ZydisMnemonicGetString(dis.info.mnemonic));
		snprintf(out[i].text, sizeof(out[i].text), "%s", dis.text);
		addr += dis.info.length;
	}
	return (int)i;
}

static int user_decode(const struct decode_opts *o, const char *name,
		       struct user_insn *out, uint64_t *addr)
{
	struct kcore *kc;
	int err, n;

	err = kallsyms_lookup(o->kallsyms, name, addr);
	if (err) {
		say("%s: %s\n", name,
		    err == -ENOENT  ? "no such kernel function"
		    : err == -EPERM ? "kallsyms shows no addresses (need root)"
				    : strerror(-err));
		return -1;
	}
	kc = kcore_open(o->kcore);
	if (!kc) {
		say("cannot read %s: %s\n", o->kcore, strerror(errno));
		return -1;
	}
	n = user_decode_at(kc, *addr, o->count, out);
	kcore_close(kc);
	return n;
}

static int same_insn(const struct kjit_decoded_insn *a,
		     const struct kjit_decoded_insn *b)
{
	return a->addr == b->addr && a->length == b->length &&
	       !memcmp(a->bytes, b->bytes, a->length) &&
	       !strcmp(a->mnemonic, b->mnemonic);
}

static void print_insn(const struct user_insn *u, const char *kmnem, int bad)
{
	unsigned int i;
	char hex[48] = "";

	for (i = 0; i < u->k.length && i < 15; i++)
		sprintf(hex + strlen(hex), "%02x", u->k.bytes[i]);
	printf("%s 0x%016" PRIx64 "  %-30s %-40s kernel:%s\n",
	       bad ? "!!" : "  ", (uint64_t)u->k.addr, hex, u->text, kmnem);
}

/* Decodes one function both ways; returns the number of disagreements. */
static int decode_function(int fd, const struct decode_opts *o,
			   const char *name, struct kjit_decoded_insn *kins,
			   struct user_insn *uins)
{
	uint64_t kaddr = 0, uaddr = 0;
	int kn, un, i, bad = 0, b;

	kn = kernel_decode(fd, name, o->count, kins, &kaddr);
	un = user_decode(o, name, uins, &uaddr);
	if (kn < 0 || un < 0)
		return 1;
	printf("%s at 0x%" PRIx64 " (kernel says 0x%" PRIx64
	       "): %d instructions\n",
	       name, uaddr, kaddr, un);
	if (kaddr != uaddr || kn != un)
		bad++;
	for (i = 0; i < un; i++) {
		b = i >= kn || !same_insn(&kins[i], &uins[i].k);
		bad += b;
		print_insn(&uins[i], i < kn ? kins[i].mnemonic : "-", b);
	}
	if (o->check)
		printf("decode-check %s: %s (%d kernel, %d user, %d differ)\n",
		       name, bad ? "MISMATCH" : "agree", kn, un, bad);
	return bad;
}

static int parse_opts(int argc, char **argv, struct decode_opts *o)
{
	static const struct option longopts[] = {
	    {"count", required_argument, 0, 'n'},
	    {"check", no_argument, 0, 'c'},
	    {"kallsyms", required_argument, 0, 'K'},
	    {"kcore", required_argument, 0, 'C'},
	    {0}};
	int c;

	*o = (struct decode_opts){16, 0, "/proc/kallsyms", "/proc/kcore"};
	while ((c = getopt_long(argc, argv, "n:c", longopts, NULL)) != -1) {
		switch (c) {
		case 'n':
			o->count = (unsigned int)strtoul(optarg, NULL, 0);
			break;
		case 'c':
			o->check = 1;
			break;
		case 'K':
			o->kallsyms = optarg;
			break;
		case 'C':
			o->kcore = optarg;
			break;
		default:
			return -1;
		}
	}
	if (!o->count || o->count > KJIT_DECODE_MAX) {
		fprintf(stderr, "kjit decode: -n must be 1..%d\n",
			KJIT_DECODE_MAX);
		return -1;
	}
	if (optind >= argc) {
		fprintf(stderr, "kjit decode: name at least one function\n");
		return -1;
	}
	return optind;
}

int cmd_decode(int argc, char **argv)
{
	struct kjit_decoded_insn *kins;
	struct user_insn *uins;
	struct decode_opts o;
	int first, fd, i, bad = 0;

	first = parse_opts(argc, argv, &o);
	if (first < 0)
		return 2;
	fd = kjit_device_open();
	if (fd < 0)
		return 1;
	kins = calloc(o.count, sizeof(*kins));
	uins = calloc(o.count, sizeof(*uins));
	if (!kins || !uins) {
		say("out of memory\n");
		bad = 1;
	}
	for (i = first; !bad && i < argc; i++)
		bad += decode_function(fd, &o, argv[i], kins, uins) != 0;
	free(kins);
	free(uins);
	close(fd);
	return bad ? 1 : 0;
}
