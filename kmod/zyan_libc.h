/* SPDX-License-Identifier: GPL-2.0 */
/*
 * zyan_libc.h - Zydis' memset/memcpy/memmove in the module are the
 * kernel's, not Zycore's byte loops.
 *
 * Built without a C library (ZYAN_NO_LIBC), Zycore/LibC.h defines
 * ZYAN_MEMSET, ZYAN_MEMCPY and ZYAN_MEMMOVE as loops over `volatile` bytes,
 * which the compiler may neither merge nor widen. The decoder clears its
 * state, context and instruction (~460 bytes) and the unused operands
 * (80 bytes each) that way for every instruction: under QEMU TCG, where
 * every store is a software TLB access, that was most of the translation
 * time (docs/results/translate-guest.md). This header is force-included
 * (-include, scripts/kbuild-tree.sh) into Zydis' own objects: LibC.h is
 * read first, under its include guard, and the names then expand to the
 * compiler's builtins, which inline small fixed sizes and otherwise call
 * the kernel's memset/memcpy/memmove (no locks, any context).
 */
#ifndef KJIT_ZYAN_LIBC_H
#define KJIT_ZYAN_LIBC_H

#include <Zycore/LibC.h>

#undef ZYAN_MEMSET
#undef ZYAN_MEMCPY
#undef ZYAN_MEMMOVE
#define ZYAN_MEMSET(d, v, n)  __builtin_memset((d), (v), (n))
#define ZYAN_MEMCPY(d, s, n)  __builtin_memcpy((d), (s), (n))
#define ZYAN_MEMMOVE(d, s, n) __builtin_memmove((d), (s), (n))

#endif
