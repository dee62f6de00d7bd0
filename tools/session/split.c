/*
 * split.c - a split session's parts, from /dev/kjit and kjit.data (see
 * split.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include "kmod/kjit_ioctl.h"
#include "split.h"

static int by_addr(const void *a, const void *b)
{
	const struct sess_count *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* One KJIT_IOC_SPLIT request: @bank's counts into a new part. 0 (with an
 * empty part: nothing kept), or -errno; *@r filled. */
static int read_part(int fd, unsigned int bank, struct kjit_split_read *r,
		     struct sess_part *p)
{
	unsigned int room = 4096;

	for (;;) {
		struct sess_count *c = calloc(room, sizeof(*c));

		if (!c)
			return -ENOMEM;
		memset(r, 0, sizeof(*r));
		r->size = sizeof(*r);
		r->bank = bank;
		r->max = room;
		r->buf = (uintptr_t)c;
		if (ioctl(fd, KJIT_IOC_SPLIT, r)) {
			free(c);
			return -errno;
		}
		if (r->total <= room) {
			qsort(c, r->written, sizeof(*c), by_addr);
			p->c = c;
			p->n = r->written;
			return 0;
		}
		free(c);
		room = r->total + 1024;
	}
}

static int add_part(struct sess_split *sp, const struct sess_part *p)
{
	struct sess_part *n =
	    realloc(sp->parts, (sp->n_parts + 1) * sizeof(*n));

	if (!n)
		return -ENOMEM;
	sp->parts = n;
	sp->parts[sp->n_parts++] = *p;
	return 0;
}

int split_read_device(int fd, struct sess_split **out)
{
	struct sess_split *sp;
	struct kjit_split_read r;
	struct sess_part p;
	long cpus = sysconf(_SC_NPROCESSORS_CONF);
	unsigned int b;
	int err;

	*out = NULL;
	memset(&p, 0, sizeof(p));
	err = read_part(fd, 0, &r, &p);
	if (err == -EOPNOTSUPP || err == -ENOTTY || err == -EINVAL)
		return 0; /* not split (or a kjit.ko before ABI 14) */
	if (err)
		return err;
	sp = calloc(1, sizeof(*sp));
	if (!sp) {
		free(p.c);
		return -ENOMEM;
	}
	sp->banks = r.n_banks;
	sp->used = r.used;
	sp->left_over = r.left_over;
	sp->split = r.split;
	sp->unsplit = r.unsplit;
	for (b = 0; !err && b < sp->used; b++) {
		if (b && (err = read_part(fd, b, &r, &p)))
			break;
		p.kind = PART_BANK;
		p.id = b;
		p.tgid = r.tgid;
		memcpy(p.comm, r.comm, sizeof(p.comm));
		p.comm[sizeof(p.comm) - 1] = 0;
		if (p.n)
			err = add_part(sp, &p);
		else
			free(p.c);
		memset(&p, 0, sizeof(p));
	}
	for (b = 0; !err && cpus > 0 && b < (unsigned int)cpus; b++) {
		err = read_part(fd, KJIT_SPLIT_CPU | b, &r, &p);
		if (err == -EINVAL) { /* not a possible CPU */
			err = 0;
			continue;
		}
		p.kind = PART_CPU;
		p.id = b;
		if (!err && p.n)
			err = add_part(sp, &p);
		else
			free(p.c);
		memset(&p, 0, sizeof(p));
	}
	if (err) {
		split_free(sp);
		return err;
	}
	*out = sp;
	return 0;
}

void split_free(struct sess_split *sp)
{
	unsigned int i;

	if (!sp)
		return;
	for (i = 0; i < sp->n_parts; i++)
		free(sp->parts[i].c);
	free(sp->parts);
	free(sp);
}

/* A command name as one word for the data file: blanks become '_'. */
static void put_word(FILE *f, const char *s)
{
	if (!*s)
		fputc('-', f);
	for (; *s; s++)
		fputc(*s == ' ' || *s == '\t' || *s == '\n' ? '_' : *s, f);
}

void split_write(const struct sess_split *sp, FILE *f)
{
	unsigned int i, k;

	if (!sp)
		return;
	fprintf(f, "split %u %u %" PRIu64 " %u %u\n", sp->banks, sp->used,
		sp->left_over, sp->split, sp->unsplit);
	for (i = 0; i < sp->n_parts; i++) {
		const struct sess_part *p = &sp->parts[i];

		fprintf(f, "part %s %u %u ", p->kind == PART_BANK ? "bank" : "cpu",
			p->id, p->tgid);
		put_word(f, p->comm);
		fputc('\n', f);
		for (k = 0; k < p->n; k++)
			fprintf(f, "pcount 0x%" PRIx64 " %" PRIu64 "\n",
				p->c[k].addr, p->c[k].count);
	}
}

static int parse_part(const char *line, struct sess_split *sp)
{
	struct sess_part p;
	char kind[8], comm[16];

	memset(&p, 0, sizeof(p));
	if (sscanf(line, "part %7s %u %u %15s", kind, &p.id, &p.tgid, comm) != 4 ||
	    (strcmp(kind, "bank") && strcmp(kind, "cpu")))
		return -1;
	p.kind = !strcmp(kind, "bank") ? PART_BANK : PART_CPU;
	memcpy(p.comm, strcmp(comm, "-") ? comm : "", strcmp(comm, "-") ? sizeof(p.comm) : 1);
	return add_part(sp, &p) ? -1 : 0;
}

static int parse_count(const char *line, struct sess_split *sp)
{
	struct sess_part *p;
	struct sess_count c, *n;

	if (!sp->n_parts ||
	    sscanf(line, "pcount %" SCNx64 " %" SCNu64, &c.addr, &c.count) != 2)
		return -1;
	p = &sp->parts[sp->n_parts - 1];
	n = realloc(p->c, (p->n + 1) * sizeof(*n));
	if (!n)
		return -1;
	p->c = n;
	p->c[p->n++] = c;
	return 0;
}

int split_parse_line(const char *line, struct sess_split **spp)
{
	struct sess_split *sp = *spp;

	if (!strncmp(line, "split ", 6)) {
		if (sp)
			return -1;
		sp = calloc(1, sizeof(*sp));
		if (!sp)
			return -1;
		if (sscanf(line, "split %u %u %" SCNu64 " %u %u", &sp->banks,
			   &sp->used, &sp->left_over, &sp->split,
			   &sp->unsplit) != 5) {
			free(sp);
			return -1;
		}
		*spp = sp;
		return 0;
	}
	if (!strncmp(line, "part ", 5))
		return sp ? parse_part(line, sp) : -1;
	if (!strncmp(line, "pcount ", 7))
		return sp ? parse_count(line, sp) : -1;
	return 1;
}
