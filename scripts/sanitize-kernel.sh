#!/bin/sh
# sanitize-kernel.sh - build a checking kernel for `make sanitize`: Debian's
# linux-source-6.12 at the version of the 6.12 test kernel, configured from
# `make tinyconfig` + tests/sanitize/base.config + tests/sanitize/FLAVOR.config
# (kasan: KASAN, KFENCE, lockdep, UBSAN and the debug lists and objects;
# kcsan: KCSAN). Cached: the source once, each flavour's build tree under
# BUILD/cache/sanitize-FLAVOR, rebuilt only when its configuration changes.
#
# Usage: sanitize-kernel.sh BUILD_DIR FLAVOR
# Writes BUILD_DIR/cache/kernels-FLAVOR, a kernels file of one line (as
# BUILD_DIR/cache/kernels: NAME RELEASE HEADERS, and a fourth field: how
# much slower its cases run than on the stock kernel, which multiplies
# their limits), the image as BUILD_DIR/cache/kernel-RELEASE/boot/
# vmlinuz-RELEASE and its one module (msr.ko) under .../lib/modules.
# Prints how long each step took.
set -eu
BUILD=${1:?usage: sanitize-kernel.sh BUILD_DIR FLAVOR}
FLAVOR=${2:?usage: sanitize-kernel.sh BUILD_DIR FLAVOR}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
CACHE=$(mkdir -p "$BUILD/cache" && cd "$BUILD/cache" && pwd)
FRAG=$ROOT/tests/sanitize/$FLAVOR.config
[ -f "$FRAG" ] || { echo "sanitize: no $FRAG (kasan or kcsan)" >&2; exit 2; }
# The source of the 6.12 test kernel (scripts/kernels: 6.12.95+deb12-amd64).
SRCVER=6.12.95-1~bpo12+1
SRC=$CACHE/linux-source-$SRCVER
OUT=$CACHE/sanitize-$FLAVOR
# How much slower than the stock kernel the cases run (their limits x this).
case $FLAVOR in kasan) SLOWER=4 ;; *) SLOWER=3 ;; esac
say() { echo "sanitize: $*"; }
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
t0=$(date +%s)
step() { say "$* (+$(($(date +%s) - t0)) s)"; }

# 1. what building a kernel takes, beyond make deps
missing=""
for p in bison flex bc libssl-dev libelf-dev xz-utils; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing="$missing $p"
done
if [ -n "$missing" ]; then
	step "installing:$missing"
	as_root apt-get update -q > /dev/null
	as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
		--no-install-recommends $missing > /dev/null
fi

# 2. the source, once
if [ ! -f "$SRC/Makefile" ]; then
	step "fetching linux-source-6.12=$SRCVER"
	rm -rf "$CACHE/dl-src" "$SRC"
	mkdir -p "$CACHE/dl-src"
	(cd "$CACHE/dl-src" && apt-get download -q "linux-source-6.12=$SRCVER" > /dev/null 2>&1) || {
		echo "sanitize: apt-get download linux-source-6.12=$SRCVER failed" >&2
		exit 1
	}
	dpkg-deb --fsys-tarfile "$CACHE"/dl-src/*.deb |
		tar -x -O --wildcards './usr/src/linux-source-*.tar.xz' |
		xz -dc | tar -x -C "$CACHE/dl-src"
	mv "$CACHE"/dl-src/linux-source-6.12 "$SRC"
	rm -rf "$CACHE/dl-src"
fi

# 3. the configuration: tinyconfig, then the fragments; every line of
# them must have stuck (a dependency olddefconfig turned off fails here),
# "# CONFIG_X is not set" lines included
mkdir -p "$OUT"
frag=$({ cat "$ROOT/tests/sanitize/base.config" "$FRAG"
	echo "CONFIG_LOCALVERSION=\"-kjit-$FLAVOR\"" # a release of its own
	echo "# CONFIG_LOCALVERSION_AUTO is not set"; } |
	grep -E '^(CONFIG_|# CONFIG_.* is not set)')
want=$(echo "$frag" | grep '^CONFIG_')
off=$(echo "$frag" | sed -n 's/^# \(CONFIG_[A-Z0-9_]*\) is not set$/\1/p')
sum=$(echo "$frag" | md5sum | cut -d' ' -f1)
if [ "$(cat "$OUT/kjit-config.sum" 2>/dev/null)" != "$sum" ]; then
	step "configuring ($FLAVOR)"
	rm -f "$OUT/kjit-built"
	make -s -C "$SRC" O="$OUT" ARCH=x86_64 tinyconfig > /dev/null
	echo "$frag" > "$OUT/kjit-frag.config"
	(cd "$OUT" && sh "$SRC/scripts/kconfig/merge_config.sh" -m -O "$OUT" \
		"$OUT/.config" "$OUT/kjit-frag.config" > /dev/null)
	make -s -C "$SRC" O="$OUT" ARCH=x86_64 olddefconfig > /dev/null
	bad=""
	for l in $want; do
		grep -qx "$l" "$OUT/.config" || bad="$bad ${l%%=*}"
	done
	for c in $off; do
		grep -q "^$c=" "$OUT/.config" && bad="$bad $c(on)"
	done
	[ -z "$bad" ] || {
		echo "sanitize: not set after olddefconfig (a dependency is missing):$bad" >&2
		exit 1
	}
	echo "$sum" > "$OUT/kjit-config.sum"
fi

# 4. the build (the release is known once it has synced the config)
if [ ! -f "$OUT/kjit-built" ]; then
	step "building on $(nproc) cores (log: $OUT/build.log)"
	make -s -C "$SRC" O="$OUT" ARCH=x86_64 -j"$(nproc)" bzImage modules > "$OUT/build.log" 2>&1 || {
		tail -n 30 "$OUT/build.log" >&2
		echo "sanitize: the kernel did not build (all of it: $OUT/build.log)" >&2
		exit 1
	}
	touch "$OUT/kjit-built"
fi
REL=$(cat "$OUT/include/config/kernel.release")
img=$CACHE/kernel-$REL
rm -rf "$img"
mkdir -p "$img/boot"
cp "$OUT/arch/x86/boot/bzImage" "$img/boot/vmlinuz-$REL"
cp "$OUT/.config" "$img/boot/config-$REL"
make -s -C "$SRC" O="$OUT" ARCH=x86_64 INSTALL_MOD_PATH="$img" modules_install > /dev/null
echo "6.12-$FLAVOR $REL $OUT $SLOWER" > "$CACHE/kernels-$FLAVOR"
step "ready: $REL ($CACHE/kernels-$FLAVOR)"
