// SPDX-License-Identifier: GPL-2.0
/*
 * decode_check.c - decode the first instructions of a kernel function with the
 * module's own Zydis and hand them to user space (KJIT_IOC_DECODE).
 *
 * This is the in-kernel half of the decoder cross-check: the tool decodes the
 * same bytes read through /proc/kcore with Debian's libZydis, and the VM test
 * asserts both agree instruction for instruction.
 *
 * Invariants:
 *  - Kernel text is read with copy_from_kernel_nofault(), never dereferenced,
 *    so a bad address is -EFAULT, not an oops.
 *  - Only kernel text is read (kernel_text_address(): core kernel, modules,
 *    ftrace and BPF trampolines), never data, ioremap or user memory; an
 *    instruction that runs past the end of text ends the listing. Under
 *    lockdown's confidentiality level nothing is read (-EPERM), as
 *    /proc/kcore is closed then too.
 *  - Process context only (ioctl); sleeps (allocates with GFP_KERNEL).
 */
#include <linux/security.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <Zydis/Zydis.h>
#include "kjit_ioctl.h"
#include "decode_check.h"
#include "ksyms.h"

#define X86_MAX_INSN_LEN 15

static int resolve_target(struct kjit_decode *req)
{
	if (req->addr)
		return 0;
	if (strnlen(req->name, KJIT_NAME_MAX) == KJIT_NAME_MAX)
		return -EINVAL;
	req->addr = kjit_lookup_name(req->name);
	return req->addr ? 0 : -ENOENT;
}

/*
 * decode_one - decode the instruction at @addr into @out.
 * Returns 0, -EFAULT if the bytes cannot be read, -EILSEQ if they do not
 * decode.
 */
static int decode_one(const ZydisDecoder *dec, u64 addr,
		      struct kjit_decoded_insn *out)
{
	ZydisDecodedInstruction insn;
	u8 buf[X86_MAX_INSN_LEN];

	if (!kjit_kapi.kernel_text_address(addr) ||
	    copy_from_kernel_nofault(buf, (const void *)addr, sizeof(buf)))
		return -EFAULT;
	if (!ZYAN_SUCCESS(ZydisDecoderDecodeInstruction(dec, NULL, buf,
							sizeof(buf), &insn)))
		return -EILSEQ;
	if (!kjit_kapi.kernel_text_address(addr + insn.length - 1))
		return -EFAULT;
	memset(out, 0, sizeof(*out));
	out->addr = addr;
	out->length = insn.length;
	memcpy(out->bytes, buf, insn.length);
	strscpy(out->mnemonic, ZydisMnemonicGetString(insn.mnemonic),
		sizeof(out->mnemonic));
	return 0;
}

static int decode_run(struct kjit_decode *req, struct kjit_decoded_insn *out)
{
	ZydisDecoder dec;
	u64 addr = req->addr;
	int err;

	ZydisDecoderInit(&dec, ZYDIS_MACHINE_MODE_LONG_64,
			 ZYDIS_STACK_WIDTH_64);
	for (req->count = 0; req->count < req->max_insns; req->count++) {
		err = decode_one(&dec, addr, &out[req->count]);
		if (err)
			return req->count ? 0 : err;
		addr += out[req->count].length;
	}
	return 0;
}

long kjit_ioctl_decode(void __user *uarg)
{
	struct kjit_decoded_insn *out;
	struct kjit_decode req;
	size_t bytes;
	int err;

	if (copy_from_user(&req, uarg, sizeof(req)))
		return -EFAULT;
	if (req.size != sizeof(req) || !req.max_insns ||
	    req.max_insns > KJIT_DECODE_MAX)
		return -EINVAL;
	if (security_locked_down(LOCKDOWN_KCORE))
		return -EPERM;
	err = resolve_target(&req);
	if (err)
		return err;
	bytes = array_size(req.max_insns, sizeof(*out));
	out = kvzalloc(bytes, GFP_KERNEL);
	if (!out)
		return -ENOMEM;
	err = decode_run(&req, out);
	if (!err && copy_to_user(u64_to_user_ptr(req.insns), out,
				 req.count * sizeof(*out)))
		err = -EFAULT;
	if (!err) {
		req.resolved = req.addr;
		if (copy_to_user(uarg, &req, sizeof(req)))
			err = -EFAULT;
	}
	kvfree(out);
	return err;
}
