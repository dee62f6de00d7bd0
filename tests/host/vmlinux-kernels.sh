#!/bin/sh
# vmlinux-kernels.sh - the vmlinux sweep (test_vmlinux) on every kernel of
# build/cache/kernels after the first, whose sweep is test_vmlinux's own:
# each image's vmlinux is extracted once into build/host/vmlinux-NAME and
# the results are named jit.vmlinux.NAME.* (e.g. jit.vmlinux.6.12.ibt.proof:
# the IBT proof over the 6.12 kernel's every function), and test_shapes'
# differential on its blocks (jit.shapes.NAME.*).
#
# Usage: vmlinux-kernels.sh BUILD_DIR
set -u
BUILD=$1
HERE=$(cd "$(dirname "$0")" && pwd)
tail -n +2 "$BUILD/cache/kernels" | while read -r name rel hdr; do
	img=$BUILD/cache/kernel-$rel/boot/vmlinuz-$rel
	cfg=$BUILD/cache/kernel-$rel/boot/config-$rel
	out=$BUILD/host/vmlinux-$name
	if [ ! -f "$out" ] && ! sh "$HERE/extract-vmlinux.sh" "$img" "$cfg" "$out" > /dev/null 2>&1; then
		echo "KJIT-RESULT FAIL jit.vmlinux.$name.extract cannot extract $img"
		rm -f "$out"
		exit 1
	fi
	BUILD=$BUILD "$BUILD/host/test_vmlinux" "$out" |
		sed "s/^\(KJIT-RESULT [A-Z]* jit\.vmlinux\)\./\1.$name./"
	# the differential on this kernel's blocks (test_shapes.c)
	[ -x "$BUILD/host/test_shapes" ] &&
		BUILD=$BUILD "$BUILD/host/test_shapes" "$out" |
		sed "s/^\(KJIT-RESULT [A-Z]* jit\.shapes\)\./\1.$name./"
done
