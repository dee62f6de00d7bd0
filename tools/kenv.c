/* kenv.c - struct kjit_env over /proc/kcore and kallsyms (see kenv.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include "kenv.h"

static const char *const regs[16] = {"rax", "rcx", "rdx", "rbx", "rsp", "rbp",
				     "rsi", "rdi", "r8",  "r9",	 "r10", "r11",
				     "r12", "r13", "r14", "r15"};

static size_t read_code(void *opaque, u64 addr, u8 *buf, size_t len)
{
	struct kenv *e = opaque;

	for (; len; len--) /* the end of a mapping: as much as there is */
		if (!kcore_read(e->kc, addr, buf, len))
			return len;
	return 0;
}

static enum kjit_sym classify(void *opaque, u64 target, int *reg)
{
	struct kenv *e = opaque;
	int i;

	for (i = 0; i < 3; i++)
		if (e->fentry[i] && target == e->fentry[i])
			return KJIT_SYM_FENTRY;
	if (e->ret_thunk && target == e->ret_thunk)
		return KJIT_SYM_RETURN_THUNK;
	for (i = 0; i < 16; i++)
		if (e->ind_thunk[i] && target == e->ind_thunk[i]) {
			*reg = i;
			return KJIT_SYM_INDIRECT_THUNK;
		}
	return KJIT_SYM_NONE;
}

struct kenv *kenv_open(const char *kcore_path, const struct symtab *t)
{
	struct kenv *e = calloc(1, sizeof(*e));
	char name[64];
	int i;

	if (!e)
		return NULL;
	e->kc = kcore_open(kcore_path);
	if (!e->kc) {
		free(e);
		return NULL;
	}
	e->fentry[0] = symtab_addr(t, "__fentry__");
	e->fentry[1] = symtab_addr(t, "ftrace_caller");
	e->fentry[2] = symtab_addr(t, "ftrace_regs_caller");
	e->ret_thunk = symtab_addr(t, "__x86_return_thunk");
	for (i = 0; i < 16; i++) {
		snprintf(name, sizeof(name), "__x86_indirect_thunk_%s",
			 regs[i]);
		e->ind_thunk[i] = symtab_addr(t, name);
	}
	e->env.opaque = e;
	e->env.read_code = read_code;
	e->env.classify = classify;
	return e;
}

void kenv_close(struct kenv *e)
{
	if (!e)
		return;
	kcore_close(e->kc);
	free(e);
}
