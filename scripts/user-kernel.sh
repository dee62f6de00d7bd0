#!/bin/sh
# user-kernel.sh - make a kernel the user built testable by the VM rig, as
# the test kernels are (make vm-test KJIT_KIMAGE=bzImage KJIT_KDIR=DIR):
# its image, .config and msr.ko (fixups.sh uses it) laid out under
# BUILD/cache/kernel-RELEASE, and BUILD/cache/kernels-user naming it
# "user". DIR is its build tree (scripts/kdir-probe.sh checks it first).
#
# The VM suite needs more of the kernel than kjit does: tests/sanitize/
# base.config lists it (kprobe events, livepatch, userfaultfd, ...).
#
# Usage: user-kernel.sh BUILD_DIR IMAGE KERNEL_BUILD_DIR
set -eu
BUILD=$1 IMAGE=$2 KDIR=$3
ROOT=$(cd "$(dirname "$0")/.." && pwd)
[ -f "$IMAGE" ] || { echo "user-kernel: no kernel image $IMAGE" >&2; exit 1; }
KDIR=$(cd "$KDIR" && pwd)
REL=$(sh "$ROOT/scripts/kdir-probe.sh" "$KDIR")
img=$BUILD/cache/kernel-$REL
mkdir -p "$img/boot"
cp "$IMAGE" "$img/boot/vmlinuz-$REL"
cp "$KDIR/.config" "$img/boot/config-$REL"
if [ -f "$KDIR/arch/x86/kernel/msr.ko" ]; then
	mkdir -p "$img/lib/modules/$REL/kernel/arch/x86/kernel"
	cp "$KDIR/arch/x86/kernel/msr.ko" "$img/lib/modules/$REL/kernel/arch/x86/kernel/"
fi
echo "user $REL $KDIR" > "$BUILD/cache/kernels-user"
echo "user-kernel: $REL from $IMAGE and $KDIR"
