/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kjit_fixups.h - which exception-table entries kjit translates, and how:
 * one rule for kjit.ko (kmod/env.c) and the host vmlinux sweep
 * (tests/host/test_vmlinux.c), plain C for both.
 *
 * An entry's type is data & 0xff (arch/x86/include/asm/extable_fixup_types.h,
 * the same numbers in 6.1 and 6.12, EX_TYPE_COPY unused since 6.10;
 * kmod/env.c checks them against the kernel's headers at build time).
 * kjit copies the instruction and gives the copy an entry of the same
 * type (kmod/extable.c): every handler below only reads and writes
 * registers, which the copy has as the original does, and sets the
 * instruction pointer to the entry's fixup. The fixup is the copy's next
 * instruction when the original's is the next one (rdmsr_safe, zero-padding
 * loads: the ZEROPAD handler even requires fixup - ip == length), and
 * otherwise an exit of the block to the original fixup (copy_to_user's
 * fault path, get_user's error return). Kept native:
 *   BPF             BPF programs' own entries
 *   *_IN_MCE        the machine check handler's MSR accesses (noinstr)
 *   POP_REG         moves the stack pointer (segment pops in entry code)
 *   ERETU (6.12)    FRED's return to user mode
 *   anything else   a type kjit does not know
 */
#ifndef KJIT_FIXUPS_H
#define KJIT_FIXUPS_H

#define KJIT_EX_TYPE_MASK 0xff
enum {
	KJIT_EX_DEFAULT = 1,
	KJIT_EX_FAULT = 2,
	KJIT_EX_UACCESS = 3,
	KJIT_EX_COPY = 4, /* 6.1 */
	KJIT_EX_CLEAR_FS = 5,
	KJIT_EX_FPU_RESTORE = 6,
	KJIT_EX_BPF = 7,
	KJIT_EX_WRMSR = 8,
	KJIT_EX_RDMSR = 9,
	KJIT_EX_WRMSR_SAFE = 10,
	KJIT_EX_RDMSR_SAFE = 11,
	KJIT_EX_WRMSR_IN_MCE = 12,
	KJIT_EX_RDMSR_IN_MCE = 13,
	KJIT_EX_DEFAULT_MCE_SAFE = 14,
	KJIT_EX_FAULT_MCE_SAFE = 15,
	KJIT_EX_POP_REG = 16,
	KJIT_EX_IMM_REG = 17,
	KJIT_EX_FAULT_SGX = 18,
	KJIT_EX_UCOPY_LEN = 19,
	KJIT_EX_ZEROPAD = 20,
};

/* May an instruction whose entry has type @type (data & 0xff) be copied
 * into the cache with an entry of its own? */
static inline int kjit_fixup_type_ok(unsigned int type)
{
	switch (type) {
	case KJIT_EX_DEFAULT:
	case KJIT_EX_FAULT:
	case KJIT_EX_UACCESS:
	case KJIT_EX_COPY:
	case KJIT_EX_CLEAR_FS:
	case KJIT_EX_FPU_RESTORE:
	case KJIT_EX_WRMSR:
	case KJIT_EX_RDMSR:
	case KJIT_EX_WRMSR_SAFE:
	case KJIT_EX_RDMSR_SAFE:
	case KJIT_EX_DEFAULT_MCE_SAFE:
	case KJIT_EX_FAULT_MCE_SAFE:
	case KJIT_EX_IMM_REG:
	case KJIT_EX_FAULT_SGX:
	case KJIT_EX_UCOPY_LEN:
	case KJIT_EX_ZEROPAD:
		return 1;
	default:
		return 0;
	}
}

#endif
