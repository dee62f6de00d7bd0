/* commands.h - the kjit tool's subcommands; each returns the exit status
 * (0 success, 1 failure with one clear line on stderr, 2 usage error). */
#ifndef KJIT_TOOL_COMMANDS_H
#define KJIT_TOOL_COMMANDS_H

int cmd_list(int argc, char **argv);
int cmd_blocks(int argc, char **argv);
int cmd_decode(int argc, char **argv);
int cmd_version(int argc, char **argv);
int cmd_attach(int argc, char **argv);
int cmd_detach(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_stat(int argc, char **argv);
int cmd_reset(int argc, char **argv);
int cmd_annotate(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_top(int argc, char **argv);

struct session;
/* The session report and annotate read: -i FILE (*@input), the live one
 * (@live), else an attached live session, else ./kjit.data, else the live
 * session (*@input is set to the file read). 0, or 1 after a line on
 * stderr starting "kjit @who: ". */
int load_session(struct session *s, const char **input, int live,
		 const char *who);

#endif
