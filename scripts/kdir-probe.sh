#!/bin/sh
# kdir-probe.sh - can kjit be built for the kernel build tree DIR? Decided
# by reading the tree (its .config and generated headers), not by a table
# of versions: a tree nobody here has seen either passes or is refused,
# each missing feature named with what turns it on. The finer differences
# between kernels (APIs, structure layouts) are probed by the compiler in
# kmod/compat.h (__has_include, #ifdef on the kernel's own macros).
#
# Usage: kdir-probe.sh DIR      (DIR: /lib/modules/RELEASE/build, or the
#                                output of a kernel build: O=... or the tree)
# Prints the release (as vermagic and `uname -r` spell it) on stdout;
# exit 1 with one line per missing feature on stderr.
set -eu
DIR=${1:?usage: kdir-probe.sh KERNEL_BUILD_DIR}
no() { echo "kjit: $DIR: $*" >&2; bad=1; }
bad=

[ -f "$DIR/Makefile" ] || { no "not a kernel build tree (no Makefile)"; exit 1; }
uts=$DIR/include/generated/utsrelease.h
ver=$DIR/include/generated/uapi/linux/version.h
if [ ! -f "$uts" ] || [ ! -f "$ver" ] || [ ! -f "$DIR/.config" ]; then
	no "not configured and prepared (no .config or include/generated): run make modules_prepare there, or install linux-headers-RELEASE"
	exit 1
fi
rel=$(sed -n 's/^#define UTS_RELEASE "\(.*\)"$/\1/p' "$uts")
code=$(sed -n 's/^#define LINUX_VERSION_CODE \([0-9]*\)$/\1/p' "$ver")
[ -n "$rel" ] && [ -n "$code" ] || { no "cannot read its release from $uts and $ver"; exit 1; }
major=$((code >> 16)) minor=$(((code >> 8) & 255))

# The line: 6.1 is the oldest kernel kjit is tested on (Debian 12's), and
# what kjit.ko uses first appeared by then: direct calls for many
# functions in one ftrace_ops (5.16), ORC entries for module text read
# at run time, ENDBR in the core kernel (IBT, 6.2 is tested too).
if [ "$major" -lt 6 ] || { [ "$major" -eq 6 ] && [ "$minor" -lt 1 ]; }; then
	no "Linux $major.$minor is older than 6.1, the oldest kernel kjit supports (docs/usage.md, \"Which kernels\")"
fi

# need CONFIG_X WHY: CONFIG_X=y in the tree's .config
need() {
	grep -q "^$1=y$" "$DIR/.config" || no "$1 is not set ($2)"
}
grep -q '^CONFIG_X86_64=y$' "$DIR/.config" || no "not an x86-64 kernel (kjit translates x86-64 code only)"
# the list kjit check uses too (kmod/kernel_needs.h: KJIT_NEED(OPTION, "WHY"))
NEEDS=$(dirname "$0")/../kmod/kernel_needs.h
[ -r "$NEEDS" ] || { echo "kdir-probe.sh: $NEEDS missing" >&2; exit 1; }
list=$(sed -n 's/^KJIT_NEED(\(CONFIG_[A-Z0-9_]*\), "\(.*\)")$/\1 \2/p' "$NEEDS")
while read -r opt why; do
	need "$opt" "$why"
done << EOF
$list
EOF
grep -qE '^CONFIG_UNWINDER_(ORC|FRAME_POINTER)=y$' "$DIR/.config" ||
	no "neither CONFIG_UNWINDER_ORC nor CONFIG_UNWINDER_FRAME_POINTER is set (a detach finds the exception frames on every stack with the unwinder)"
[ -z "$bad" ] || exit 1
echo "$rel"
