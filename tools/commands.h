/* commands.h - the kjit tool's subcommands; each returns the exit status. */
#ifndef KJIT_TOOL_COMMANDS_H
#define KJIT_TOOL_COMMANDS_H

int cmd_decode(int argc, char **argv);
int cmd_version(int argc, char **argv);

#endif
