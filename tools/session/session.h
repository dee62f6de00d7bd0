/* session.h - one kjit session's results as the tool sees them, whether
 * read live from /dev/kjit or from a kjit.data file.
 *
 * Invariants:
 *  - blocks[i].func indexes funcs[]; blocks are sorted by address.
 *  - static_blocks/covered are -1 when unknown (no CFG could be built:
 *    /proc/kcore unreadable, or the recording kernel is not running).
 *  - Strings are NUL-terminated and never contain a newline.
 */
#ifndef KJIT_TOOL_SESSION_H
#define KJIT_TOOL_SESSION_H

#include <stdint.h>
#include <stdio.h>
#include "kmod/kjit_ioctl.h"
#include "jit/predicate.h"
#include "jit/reason.h"

#define SESSION_FALLBACKS 9

struct sess_func {
	char name[KJIT_NAME_MAX];
	uint64_t start, end;
	uint64_t entry; /* the block run first on each call (kjit_func_info) */
	int diverted;
	int deep; /* a callee followed in deep mode, not a named target */
	long static_blocks, covered; /* -1: unknown */
	uint64_t calls, executions;  /* derived: entry block, all blocks */
	unsigned int blocks_run;     /* derived */
	/* Its code that ran natively instead, by fallback reason
	 * (kjit_func_info.native, ABI 7; native.h); native_known 0: a data
	 * file of an older kjit, which has only the session's totals. */
	uint64_t native[SESSION_FALLBACKS];
	int native_known;
	char native_holder[96]; /* who held its ftrace site, or "" */
	/* its argument predicate (kjit_func_info.if_*; op 0: none) of a
	 * live session; a data file's is in the scope line */
	struct kjit_pred pred;
	/* Its code as it was (codeenv.h): bytes from start, end - start and
	 * up to CODE_TAIL more; NULL when not stored. */
	uint8_t *code;
	uint32_t code_len;
};

/* A text symbol the stored code reaches (codeenv.h). */
struct sess_sym {
	uint64_t addr, end;
	char name[KJIT_NAME_MAX];
};

#define SESSION_MODS 16

struct sess_block {
	uint64_t addr, count;
	unsigned int func, len, insns, cpus;
	unsigned int flags; /* KJIT_BLOCK_*: 0 in a data file */
};

struct sess_stats {
	uint64_t translated, links, native_links, exits_native, dispatches;
	uint64_t lookup_hits, translate_ns, cache_bytes;
	uint64_t predicted; /* indirect call targets predicted inline (ways
			       filled) */
	/* the code pool and the cache's side tables (ABI 7; 0 before) */
	uint64_t fixups_copied, orc_entries;
	uint64_t pool_bytes, pool_taken, pool_empty;
	uint64_t deep, deep_funcs, deep_over_budget; /* deep mode */
	uint64_t watched, patched, patched_addr;     /* code patched under us */
	/* limits in force and how full each got (kjit_session_stats; 0 in
	 * files of older kjit versions: unknown) */
	uint64_t deep_max, deep_over_funcs, cache_kb, max_blocks;
	uint64_t pcpu_slots, pcpu_used, pcpu_full, blocks_cpu_max, mem_bytes;
	uint64_t cache_bytes_cpu_max; /* code bytes of the fullest CPU */
	/* the deep table grows (ABI 8; 0 before) */
	uint64_t deep_held, deep_growing;
	/* the per-CPU counter table grows (ABI 9; 0 before) */
	uint64_t pcpu_held, pcpu_growing;
	/* dying tasks and the rest of do_exit() (ABI 11; 0 before: they
	 * left the cache at KJIT_LEAVE_AT) */
	uint64_t exit_tail, exit_tail_max, exit_tail_stayed, exit_tail_left;
	uint64_t fallback[SESSION_FALLBACKS];
	uint64_t refused[KJIT_R_COUNT];
	int attached;
};

struct oracle;
struct sess_split;
struct sess_time;

struct session {
	char kernel[128], boot_id[64], time[32], command[1024];
	char build_id[72]; /* the kernel's GNU build-id (hex), or "" */
	/* modules of MOD:func functions and their build-ids (record time) */
	struct sess_mod {
		char name[64], build_id[72];
	} mods[SESSION_MODS];
	unsigned int n_mods;
	/* Which tasks were counted, in words: "system-wide" (every task,
	 * every CPU), "command (pid N and the processes it forks)", "pid
	 * N,M", "cpu N,M" (record; ", kjit left out" after the system-wide
	 * and CPU ones that left kjit's own processes out), or scope_words()
	 * of a live session's;
	 * files without a scope line were recorded system-wide. */
	char scope[512];
	struct sess_func *funcs;
	unsigned int n_funcs;
	struct sess_block *blocks;
	unsigned int n_blocks;
	struct sess_stats st;
	int live;	       /* read from /dev/kjit, not a file */
	struct oracle *oracle; /* record --oracle's set (oracle.h), or NULL */
	struct sess_split *split; /* counts by process and CPU, if the
				   * session was split (split.h), or NULL */
	struct sess_time *timing; /* time per function, if the session was
				 * timed (timing.h), or NULL */
	/* with the stored code (codeenv.h): symbols its branches reach and
	 * the static-key sites in it, {code, target}; both sorted */
	struct sess_sym *syms;
	unsigned int n_syms;
	uint64_t (*keysites)[2];
	unsigned int n_keysites;
	/* what codeenv.c works out once per session and keeps (the
	 * addresses it finds by name, the blocks by function); NULL until
	 * then, freed with the session */
	struct sess_cache *cache;
};

/* Copies the module's statistics @k into @o (fields the tool keeps). */
void sess_stats_from(struct sess_stats *o, const struct kjit_session_stats *k);
/* The table of dying tasks' size (0 in older files: KJIT_EXIT_TAIL_MAX). */
int sess_exit_tail_max(const struct sess_stats *st);

/* Reads functions, blocks and statistics through the open device @fd.
 * Returns 0 or -errno (-ENOENT: no session). */
int session_read_device(struct session *s, int fd);
void session_free(struct session *s);
/* Block executions counted in @s, all blocks summed. */
uint64_t session_executions(const struct session *s);

/* Fills kernel/boot_id/time from the running system. */
void session_stamp(struct session *s);

/* Recomputes the derived per-function fields from the blocks. */
void session_derive(struct session *s);

/* What a system-wide or CPU scope's words end with when kjit's own
 * processes were left out (the default since ABI 13); without it they
 * were counted (--count-kjit, KJIT_SCOPE_KJIT, and every older file). */
#define KJIT_LEFT_OUT ", kjit left out"
/* A KJIT_SCOPE_* value (kjit_session_stats.scope) in words. */
const char *scope_words(unsigned int scope);
/* The scope the session counted (s->scope, or "system-wide" when unset). */
const char *session_scope(const struct session *s);

/* Reads the functions' code from the running kernel (codeenv.h:
 * session_capture) and sets static blocks and covered blocks of every
 * function from its CFG (progress on a terminal). Returns 0, or -errno if
 * /proc/kcore or kallsyms cannot be read (the fields stay -1). */
int session_coverage(struct session *s);

/* 1 if the running kernel (same boot) is the one @s was recorded on. */
int session_is_running_kernel(const struct session *s);

#endif
