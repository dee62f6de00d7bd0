#!/bin/sh
# sid-chroot.sh - a kernel from Debian sid, whose headers need a newer
# compiler and libc than Debian 12 has: a sid chroot made with mmdebstrap
# (cached under BUILD/cache/sid) holds gcc and the kernel's headers, and the
# modules are built in there (the Makefile's test-module: this tree is
# bind-mounted at the same path). The image and the msr.ko the rig copies
# come from the chroot's apt (linux-binary-unsigned-RELEASE,
# linux-modules-RELEASE), laid out under BUILD/cache/kernel-RELEASE as the
# other kernels are.
#
# Usage: sid-chroot.sh BUILD RELEASE   prints the kernels line's headers
#                                      path (in the chroot) and the chroot
#        sid-chroot.sh --run CHROOT ROOT BUILD COMMAND...
#                                      COMMAND in the chroot, ROOT (and
#                                      BUILD) mounted at their own paths
set -eu
say() { echo "sid: $*" >&2; }
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

# bind_same DIR: DIR mounted at the same path in the chroot, noted in
# $MOUNTED for the unmount
bind_same() {
	mountpoint -q "$C$1" && return 0
	mkdir -p "$C$1"
	as_root mount --bind "$1" "$C$1" && MOUNTED="$C$1 $MOUNTED"
}
# --run CHROOT ROOT BUILD COMMAND...: COMMAND in the chroot, with /proc
# (objtool reads it) and ROOT (and BUILD) mounted at their own paths, all
# unmounted again after, whatever COMMAND did: a bind mount of the tree
# left inside build/ would make `rm -rf build` delete the tree itself.
if [ "$1" = --run ]; then
	C=$2 R=$(cd "$3" && pwd) B=$(cd "$4" && pwd) MOUNTED=""
	shift 4
	trap 'for m in $MOUNTED; do as_root umount "$m"; done' EXIT
	mountpoint -q "$C/proc" || { as_root mount -t proc proc "$C/proc" && MOUNTED="$C/proc"; }
	bind_same "$R"
	case $B in "$R"/*) ;; *) bind_same "$B" ;; esac
	as_root chroot "$C" "$@"
	exit $?
fi

BUILD=$1 REL=$2
CACHE=$(mkdir -p "$BUILD/cache" && cd "$BUILD/cache" && pwd)
C=$CACHE/sid
HDR=/usr/src/linux-headers-$REL
if [ ! -f "$C$HDR/Makefile" ]; then
	command -v mmdebstrap > /dev/null || {
		say "installing mmdebstrap"
		as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
			--no-install-recommends mmdebstrap > /dev/null
	}
	say "making a sid chroot with gcc and linux-headers-$REL in $C (mmdebstrap)"
	rm -rf "$C"
	# sid's Release file is older than apt accepts by default
	as_root mmdebstrap --variant=apt -q \
		--aptopt='Acquire::Check-Valid-Until "false"' \
		--include="gcc,make,libc6-dev,kmod,libelf-dev,bc,linux-headers-$REL" \
		sid "$C" http://deb.debian.org/debian >&2
fi
img=$CACHE/kernel-$REL
if [ ! -f "$img/boot/vmlinuz-$REL" ]; then
	say "fetching linux-binary-unsigned-$REL and msr.ko (linux-modules-$REL)"
	cp /etc/resolv.conf "$C/etc/resolv.conf" 2> /dev/null || true
	as_root chroot "$C" sh -c "apt-get update -q > /dev/null 2>&1; rm -rf /tmp/dl &&
		mkdir /tmp/dl && cd /tmp/dl &&
		apt-get download -q linux-binary-unsigned-$REL linux-modules-$REL > /dev/null 2>&1" || {
		say "apt-get download in the chroot failed"
		exit 1
	}
	rm -rf "$CACHE/sid-dl"
	mkdir -p "$CACHE/sid-dl" "$img/boot" "$img/lib/modules/$REL/kernel/arch/x86/kernel"
	for d in "$C"/tmp/dl/*.deb; do dpkg-deb -x "$d" "$CACHE/sid-dl"; done
	cp "$CACHE/sid-dl/usr/lib/modules/$REL/vmlinuz.unsigned" "$img/boot/vmlinuz-$REL"
	m=$(find "$CACHE/sid-dl" -name 'msr.ko*' | head -n 1)
	[ -n "$m" ] && cp "$m" "$img/lib/modules/$REL/kernel/arch/x86/kernel/"
	cp "$C$HDR/.config" "$img/boot/config-$REL"
	rm -rf "$CACHE/sid-dl" "$C/tmp/dl"
fi
echo "$HDR $C"
