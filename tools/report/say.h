/* say.h - the one prefix of the tool's messages on stderr.
 *
 * Every message names the subcommand that says it, as git and perf do:
 * "kjit record: ...", from shared code too (symbol lookup, the device,
 * running the command). Only before a subcommand is known (an unknown
 * one, `kjit help X`) is it "kjit: ...". main() sets the subcommand once.
 */
#ifndef KJIT_TOOL_SAY_H
#define KJIT_TOOL_SAY_H

#include <stdio.h>

/* The subcommand that runs ("record"), or NULL before one is known. */
void say_set_command(const char *name);

/* "kjit record" (or "kjit"): for a message built elsewhere. */
const char *say_who(void);

/* "kjit SUBCMD: " then @fmt, to stderr / to @f. */
void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void say_to(FILE *f, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
