/* SPDX-License-Identifier: GPL-2.0 */
/* env.h - the kernel implementation of jit/env.h, for one CPU's cache of a
 * session (env.c). */
#ifndef KJIT_KMOD_ENV_H
#define KJIT_KMOD_ENV_H

#include "jit/env.h"

struct kjit_cpu;

/* Fill @env for translations into @c's cache. */
void kjit_env_fill(struct kjit_env *env, struct kjit_cpu *c);

#endif
