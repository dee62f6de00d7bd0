/* datafile.h - kjit.data, the file `kjit record` writes and `kjit report -i`
 * reads. Text, one record per line, fields separated by one space:
 *
 *   kjit-data 1                          magic and format version (first)
 *   kernel <release>                     uname -r of the recording kernel
 *   boot_id <id>                         /proc/sys/kernel/random/boot_id
 *   build_id <hex>                       the kernel's GNU build-id
 *                                        (/sys/kernel/notes); optional
 *   module_build_id <mod> <hex>          a module of MOD:func functions
 *                                        (/sys/module/MOD/notes); optional
 *   time <YYYY-MM-DDTHH:MM:SSZ>          when the recording ended (UTC)
 *   command <the command line>           rest of the line
 *   stat <key> <value>                   translated links native_links
 *                                        exits_native dispatches lookup_hits
 *                                        predicted
 *                                        translate_ns cache_bytes deep
 *                                        deep_funcs deep_over_budget
 *                                        fallback.<nmi|nested|refused|full>
 *                                        refused.<kjit_reason_name>
 *   func <start> <end> <static> <covered> <name>   hex addresses; -1 unknown
 *   deep <func index>                    that function is a callee followed
 *                                        in deep mode (after the func lines)
 *   entry <func index> <addr>            its entry block (the module's
 *                                        kjit_func_info.entry); absent
 *                                        (version 1): start + 5
 *   native_counts yes                    the per-function native runs
 *                                        were recorded (absent: an older
 *                                        kjit; the stat lines' totals only)
 *   native <func index> <reason> <count> its code ran natively instead
 *                                        (reason: a fallback key); only
 *                                        non-zero counts
 *   native_holder <func index> <text>    who held its ftrace site
 *   sym <start> <end> <name>             a text symbol the stored code
 *                                        reaches (codeenv.h), by address
 *   keysite <addr> <target>              a static-key site in it
 *   code <func index> <offset> <hex>     its bytes, in order, 128 a line
 *                                        (end - start and up to 16 more)
 *   block <addr> <func index> <count> <len> <insns> <cpus>
 *   oracle_root <name>                   record --oracle (oracle.h):
 *   oracle_lost <events>                 the function_graph run's roots,
 *   oracle <name> <parent> <root> <irq> <why>   lost events and functions
 *                                        (why: deep mode's refusal, or -)
 *   end                                  (last: a file without it is cut)
 *
 * Invariants: func lines come before the blocks that index them; unknown
 * keys are skipped on reading (newer minor additions), an unknown version
 * is refused.
 */
#ifndef KJIT_TOOL_DATAFILE_H
#define KJIT_TOOL_DATAFILE_H

#include <stdio.h>
#include "session.h"

#define KJIT_DATA_VERSION 2

int datafile_write(const struct session *s, FILE *f);

/* Returns 0, or -1 with a reason in @why. */
int datafile_read(struct session *s, FILE *f, char *why, size_t size);

#endif
