/* kallsyms.h - look kernel symbols up in /proc/kallsyms (or a captured copy).
 */
#ifndef KJIT_TOOL_KALLSYMS_H
#define KJIT_TOOL_KALLSYMS_H

#include <stdint.h>

/*
 * kallsyms_lookup - the address of text symbol @name in the kallsyms file
 * @path. Returns 0 and sets *addr; -ENOENT if there is no such text symbol;
 * -ENOTUNIQ if several share the name (the candidates go to stderr); -EPERM
 * if the file shows only zero addresses (kptr_restrict, not root); -errno if
 * the file cannot be read.
 */
int kallsyms_lookup(const char *path, const char *name, uint64_t *addr);

#endif
