/* types.h - fixed-width types for the portable translator core.
 *
 * Invariants:
 *  - jit/ includes no libc header except through this file, and only when
 *    built for the host; under KJIT_KERNEL it sees <linux/types.h> only.
 *  - u8..u64 / s8..s64 / bool / size_t mean the same on both sides.
 */
#ifndef KJIT_JIT_TYPES_H
#define KJIT_JIT_TYPES_H

#ifdef KJIT_KERNEL
#include <linux/types.h>
#include <linux/stddef.h>
#else
#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef int64_t s64;
#endif

#define KJIT_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#endif /* KJIT_JIT_TYPES_H */
