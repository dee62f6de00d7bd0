// SPDX-License-Identifier: GPL-2.0
/*
 * kjit_pool.c - kjit_pool.ko: kjit's code cache memory as module text, and
 * the module's exception and ORC tables sized for it (kjit_pool.h says why
 * and what kjit.ko keeps true). Data only: nothing here ever runs.
 */
#include <linux/module.h> /* first: asm/extable.h's inline helpers use
			     cpu_relax() without including its header
			     (kernels without CONFIG_X86_MCE) */
#include <linux/extable.h>
#include <asm/extable.h>
#include <linux/stringify.h>
#include <asm/orc_types.h>
#include "kjit_pool.h"

#define N_CHUNKS (KJIT_POOL_BYTES / KJIT_POOL_CHUNK)

/* NOBITS: the loader allocates and zeroes it, the .ko holds no bytes. */
asm(".pushsection .kjit_pool_text, \"ax\", @nobits\n"
    ".balign 4096\n"
    ".globl kjit_pool_code\n"
    "kjit_pool_code:\n"
    ".skip " __stringify(KJIT_POOL_MB) " << 20\n"
				       ".popsection\n");
extern u8 kjit_pool_code[];

static struct exception_table_entry
    pool_extable[N_CHUNKS * KJIT_POOL_EX_PER_CHUNK];
static int pool_orc_ip[N_CHUNKS * KJIT_POOL_ORC_PER_CHUNK];
static struct orc_entry pool_orc[N_CHUNKS * KJIT_POOL_ORC_PER_CHUNK];

const struct kjit_pool kjit_pool = {
    .abi = KJIT_POOL_ABI,
    .mod = THIS_MODULE,
    .code = kjit_pool_code,
    .code_bytes = KJIT_POOL_BYTES,
    .chunk_bytes = KJIT_POOL_CHUNK,
    .extable = pool_extable,
    .ex_per_chunk = KJIT_POOL_EX_PER_CHUNK,
    .orc_ip = pool_orc_ip,
    .orc = pool_orc,
    .orc_per_chunk = KJIT_POOL_ORC_PER_CHUNK,
};
EXPORT_SYMBOL_GPL(kjit_pool);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("kjit: code cache memory (" __stringify(
    KJIT_POOL_MB) " MiB of module text) and its exception and ORC tables");
