/*
 * kthunks.c - the symbols classify() knows by name, found and matched
 * (kthunks.h).
 */
#include <stdio.h>
#include <string.h>
#include "kthunks.h"

static const char *const regs[16] = {"rax", "rcx", "rdx", "rbx", "rsp", "rbp",
				     "rsi", "rdi", "r8",  "r9",	 "r10", "r11",
				     "r12", "r13", "r14", "r15"};
static const char *const fentry_names[3] = {"__fentry__", "ftrace_caller",
					    "ftrace_regs_caller"};
static const char ind_prefix[] = "__x86_indirect_thunk_";
static const char ret_name[] = "__x86_return_thunk";

/* Names 0-2: fentry_names, 3: the return thunk, 4-19: the indirect
 * thunks by register number. */
static uint64_t *slot(struct kthunks *k, int i)
{
	if (i < 3)
		return &k->fentry[i];
	if (i == 3)
		return &k->ret_thunk;
	return &k->ind_thunk[i - 4];
}

const char *kthunks_name(int i, char *buf, size_t len)
{
	if (i < 3)
		snprintf(buf, len, "%s", fentry_names[i]);
	else if (i == 3)
		snprintf(buf, len, "%s", ret_name);
	else
		snprintf(buf, len, "%s%s", ind_prefix, regs[i - 4]);
	return buf;
}

void kthunks_from_symtab(struct kthunks *k, const struct symtab *t)
{
	char name[64];
	int i;

	for (i = 0; i < KTHUNKS_N; i++)
		*slot(k, i) =
		    symtab_addr(t, kthunks_name(i, name, sizeof(name)));
}

/* The known name's index, or -1. */
static int index_of(const char *name)
{
	int i;

	if (!strncmp(name, ind_prefix, sizeof(ind_prefix) - 1)) {
		for (i = 0; i < 16; i++)
			if (!strcmp(name + sizeof(ind_prefix) - 1, regs[i]))
				return 4 + i;
		return -1;
	}
	if (!strcmp(name, ret_name))
		return 3;
	for (i = 0; i < 3; i++)
		if (!strcmp(name, fentry_names[i]))
			return i;
	return -1;
}

void kthunks_note(struct kthunks *k, const char *name, uint64_t addr)
{
	int i = index_of(name);

	if (i >= 0 && !*slot(k, i))
		*slot(k, i) = addr;
}

enum kjit_sym kthunks_classify(const struct kthunks *k, uint64_t target,
			       int *reg)
{
	int i;

	for (i = 0; i < 3; i++)
		if (k->fentry[i] && target == k->fentry[i])
			return KJIT_SYM_FENTRY;
	if (k->ret_thunk && target == k->ret_thunk)
		return KJIT_SYM_RETURN_THUNK;
	for (i = 0; i < 16; i++)
		if (k->ind_thunk[i] && target == k->ind_thunk[i]) {
			*reg = i;
			return KJIT_SYM_INDIRECT_THUNK;
		}
	return KJIT_SYM_NONE;
}
