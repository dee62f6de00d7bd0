/* vmlinux.h - read an uncompressed vmlinux for the host sweep: .text, the
 * exception table, the static-key sites, and the symbols of the embedded kallsyms table (Debian
 * ships neither a symbol table in vmlinux nor a real System.map).
 *
 * Invariants: everything points into one read-only mapping of the file;
 * symbols are sorted by address.
 */
#ifndef KJIT_TESTS_HOST_VMLINUX_H
#define KJIT_TESTS_HOST_VMLINUX_H

#include <stddef.h>
#include "jit/types.h"

struct vsym {
	u64 addr;
	char type;
	const char *name;
};

/* One exception-table entry, absolute (the table's fields are relative). */
struct vfixup {
	u64 insn, fixup;
	u32 data; /* type in bits 0..7 (kmod/kjit_fixups.h) */
};

struct vml {
	const u8 *data;
	size_t size;
	u64 text_addr, text_size;
	const u8 *text;
	u64 *fixups; /* sorted addresses of instructions with extable entries */
	size_t n_fixups;
	struct vfixup *fix; /* the same entries, whole, sorted by insn */
	struct vsym *sym;
	size_t n_sym;
	/* static-key sites (__jump_table), sorted by code, as host_env.h's
	 * struct henv_site */
	struct vjump {
		u64 code, target;
	} * jumps;
	size_t n_jumps;
	/* inline static_call sites (.static_call_sites), sorted by code, as
	 * host_env.h's struct henv_scall: the trampoline __SCT__x of the
	 * site's key __SCK__x (0 if not found), whether it is a tail call */
	struct vscall {
		u64 code, tramp, key;
		bool tail;
	} * scalls;
	size_t n_scalls;
};

/* 0 on success, else -1 with a message in @err. */
int vml_open(struct vml *v, const char *path, char *err, size_t errlen);
/* address of symbol @name, 0 if absent */
u64 vml_sym(const struct vml *v, const char *name);
/* Sorted, distinct addresses of every symbol in .text, as the kernel's
 * kallsyms_lookup_size_offset() sees function starts (for
 * kjit_env.func_start, host_env.h); *n set. NULL without memory. The
 * array lives as long as the process. */
const u64 *vml_func_starts(const struct vml *v, size_t *n);
/* 1 if @a (non-zero) was seen by an earlier call, else 0 and remember it:
 * one process-wide set, for sweeps that visit each block once. */
int vml_seen(u64 a);

#endif
