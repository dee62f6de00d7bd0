/* split.h - a session split by process (kjit attach/record --split;
 * kmod/split.h) as the tool keeps it: each part's counts, a part being one
 * bank (a user process, "[kernel]" for kernel threads and idle, "[other]"
 * for processes that found no bank) or one CPU (every bank's counts on
 * it), read live through KJIT_IOC_SPLIT or from kjit.data.
 *
 * Invariants: a part's counts are sorted by address and hold only nonzero
 * counts; parts of kind PART_BANK come before PART_CPU; a bank with no
 * count is not kept.
 */
#ifndef KJIT_TOOL_SPLIT_H
#define KJIT_TOOL_SPLIT_H

#include <stdint.h>
#include <stdio.h>

enum part_kind { PART_BANK, PART_CPU };

struct sess_count {
	uint64_t addr, count;
};

struct sess_part {
	enum part_kind kind;
	unsigned int id;   /* bank index, or CPU number */
	unsigned int tgid; /* the bank's process (0: a shared bank) */
	char comm[16];
	struct sess_count *c;
	unsigned int n;
};

struct sess_split {
	unsigned int banks, used; /* the session's banks, handed out */
	uint64_t left_over;	  /* switch-ins of processes with no bank */
	unsigned int split, unsplit; /* blocks split, counted whole */
	struct sess_part *parts;
	unsigned int n_parts;
};

/* The split of the session on the open device @fd into *@out (NULL when
 * the session is not split). 0, or -errno. */
int split_read_device(int fd, struct sess_split **out);
void split_free(struct sess_split *sp);
/* kjit.data lines: "split BANKS USED LEFT_OVER SPLIT UNSPLIT", then per
 * part "part bank|cpu ID TGID COMM" and its "pcount ADDR COUNT" lines. */
void split_write(const struct sess_split *sp, FILE *f);
/* One such line into *@sp (allocated on the "split" line); 0, 1 if the
 * line is not one of them, -1 if it is malformed. */
int split_parse_line(const char *line, struct sess_split **sp);

#endif
