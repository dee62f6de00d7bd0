#!/bin/sh
# deps.sh - install what kjit needs on a bare Debian 12 machine, then fetch the
# third-party sources and the test kernel into build/cache. Idempotent: a second
# run installs nothing and downloads nothing (each step checks before acting).
#
# Usage: scripts/deps.sh BUILD_DIR [--bench | --build | --dbg KERNEL]
#   --build: only what building the tool and the modules for a kernel
#     tree needs (make install, make module KDIR=...)
#   --bench: only the packages `make bench` adds (stress-ng, gnuplot-nox)
#   --dbg KERNEL: the vmlinux with DWARF of KERNEL (a name of
#     scripts/kernels, after a plain run) from Debian's
#     linux-image-RELEASE-dbg (about 1 GB to download; only vmlinux is
#     kept) as BUILD_DIR/cache/dbg-RELEASE/vmlinux, and the matching
#     linux-source tarball, for source lines and HTML in
#     `make demo KJIT_DBG=1`
set -eu
BUILD=${1:-build}
CACHE=$BUILD/cache
ROOT=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$CACHE"

say() { echo "deps: $*"; }
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

# install_missing PKG...: apt-get install those not installed yet.
install_missing() {
	missing=""
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
			missing="$missing $p"
	done
	[ -n "$missing" ] || return 0
	say "installing:$missing"
	as_root apt-get update -q >/dev/null
	as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
		--no-install-recommends $missing >/dev/null
}

# has_deb_src: some apt source has deb-src lines (apt-get source works).
has_deb_src() {
	grep -rqs '^Types:.*deb-src' /etc/apt/sources.list.d/ ||
		grep -qs '^deb-src' /etc/apt/sources.list
}
# add_deb_src: a deb-src entry for Debian 12 main.
SRCLIST=/etc/apt/sources.list.d/kjit-deb-src.sources
add_deb_src() {
	say "adding $SRCLIST"
	as_root cp "$ROOT/scripts/kjit-deb-src.sources" "$SRCLIST"
}

# zydis_source: Zydis's source from Debian's source package (patched by
# dpkg-source) in $CACHE/zydis, and a copy of Zycore's headers
# (libzycore-dev) in a directory of their own, so that the module's include path names nothing
# else from /usr/include.
zydis_source() {
	if [ ! -f "$CACHE/zydis/src/Decoder.c" ]; then
		if ! has_deb_src; then
			add_deb_src
			as_root apt-get update -q >/dev/null
		fi
		say "fetching Zydis source (apt-get source zydis)"
		rm -rf "$CACHE/zydis-dl" "$CACHE/zydis"
		mkdir -p "$CACHE/zydis-dl"
		(cd "$CACHE/zydis-dl" && apt-get source -q zydis >/dev/null 2>&1)
		mv "$CACHE"/zydis-dl/zydis-*/ "$CACHE/zydis"
		rm -rf "$CACHE/zydis-dl"
	fi
	# a copy, not a link: a chroot build (scripts/sid-chroot.sh) sees it too
	mkdir -p "$CACHE/zycore-include"
	if [ -L "$CACHE/zycore-include/Zycore" ] || [ ! -d "$CACHE/zycore-include/Zycore" ]; then
		rm -f "$CACHE/zycore-include/Zycore"
		cp -r /usr/include/Zycore "$CACHE/zycore-include/Zycore"
	fi
}

if [ "${2:-}" = --bench ]; then
	install_missing stress-ng gnuplot-nox
	touch "$BUILD/bench-deps.stamp"
	exit 0
fi
# --build: only what building the tool and the modules for a kernel tree
# needs (make module KDIR=..., make install): a compiler, the tool's
# libraries, Zydis's source, Zycore's headers; no test kernel, no QEMU.
if [ "${2:-}" = --build ]; then
	install_missing gcc make dpkg-dev libzycore-dev libzydis-dev libdw-dev libelf-dev
	zydis_source
	exit 0
fi

# fetch_dbg NAME: the -dbg vmlinux of kernel NAME (see Usage).
fetch_dbg() {
	rel=$(awk -v k="$1" '$1 == k { print $2 }' "$CACHE/kernels" 2>/dev/null)
	[ -n "$rel" ] || { echo "deps: no kernel '$1' (make deps first)" >&2; return 1; }
	dir=$CACHE/dbg-$rel
	pkg=linux-image-$rel-dbg
	ver=$(apt-cache show "$pkg" 2>/dev/null | sed -n 's/^Version: //p' | head -n 1)
	[ -n "$ver" ] || {
		echo "deps: $pkg: not in the package lists" >&2
		return 1
	}
	[ -s "$dir/vmlinux" ] && { fetch_source "$rel" "$ver"; return 0; }
	say "fetching $pkg (about 1 GB; its vmlinux with DWARF is kept)"
	rm -rf "$CACHE/dl-dbg"
	mkdir -p "$CACHE/dl-dbg" "$dir"
	(cd "$CACHE/dl-dbg" && apt-get download -q "$pkg" >/dev/null 2>&1) || {
		rm -rf "$CACHE/dl-dbg"
		echo "deps: apt-get download $pkg failed" >&2
		return 1
	}
	dpkg-deb --fsys-tarfile "$CACHE"/dl-dbg/*.deb |
		tar -x -O "./usr/lib/debug/boot/vmlinux-$rel" > "$dir/vmlinux.tmp" &&
		[ -s "$dir/vmlinux.tmp" ] && mv "$dir/vmlinux.tmp" "$dir/vmlinux"
	st=$?
	rm -rf "$CACHE/dl-dbg" "$dir/vmlinux.tmp"
	[ $st = 0 ] || { echo "deps: no vmlinux-$rel in $pkg" >&2; return 1; }
	fetch_source "$rel" "$ver"
}

# fetch_source RELEASE VERSION: the kernel's source tarball of that exact
# Debian version (linux-source-X.Y, about 140 MB) as
# $CACHE/dbg-RELEASE/linux-source.tar.xz, for the demo's HTML pages; a
# missing one only costs the pages their source view.
fetch_source() {
	dir=$CACHE/dbg-$1
	[ -s "$dir/linux-source.tar.xz" ] && return 0
	pkg=linux-source-$(echo "$1" | cut -d. -f1,2)
	say "fetching $pkg=$2 (the sources the DWARF names)"
	rm -rf "$CACHE/dl-dbg"
	mkdir -p "$CACHE/dl-dbg"
	if (cd "$CACHE/dl-dbg" && apt-get download -q "$pkg=$2" >/dev/null 2>&1); then
		dpkg-deb --fsys-tarfile "$CACHE"/dl-dbg/*.deb |
			tar -x -O --wildcards './usr/src/linux-source-*.tar.xz' \
			> "$dir/linux-source.tar.xz.tmp" &&
			mv "$dir/linux-source.tar.xz.tmp" "$dir/linux-source.tar.xz"
	else
		echo "deps: apt-get download $pkg=$2 failed: HTML without sources" >&2
	fi
	rm -rf "$CACHE/dl-dbg" "$dir/linux-source.tar.xz.tmp"
	return 0
}

if [ "${2:-}" = --dbg ]; then
	fetch_dbg "${3:?--dbg needs a kernel name}"
	exit $?
fi

# qemu-system-x86 is not here: it comes from bookworm-backports (below).
PKGS="gcc make clang libelf-dev libdw-dev lcov libzydis-dev libzycore-dev \
busybox-static cpio linux-headers-amd64 dpkg-dev xz-utils zstd gzip kmod dkms"
QEMU_MIN=10 # tests/vm/run.sh checks the same for multi-threaded TCG

# qemu_ok: qemu-system-x86 >= QEMU_MIN is installed (Debian 12's 7.2 is not:
# its multi-threaded TCG mishandles cross-modifying code, docs/testing.md).
qemu_ok() {
	v=$(dpkg-query -W -f='${Status} ${Version}' qemu-system-x86 2>/dev/null) || return 1
	case $v in *"ok installed "*) ;; *) return 1 ;; esac
	dpkg --compare-versions "${v##* }" ge "1:$QEMU_MIN"
}

missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing="$missing $p"
done

need_update=""
has_deb_src || { add_deb_src; need_update=1; }
# bookworm-backports, for QEMU 10, unless some entry names it already.
BPOLIST=/etc/apt/sources.list.d/kjit-backports.sources
if ! grep -qsE '^[[:space:]]*(Suites:.*[[:space:]]|deb[[:space:]].*[[:space:]])bookworm-backports([[:space:]]|$)' \
	/etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; then
	say "adding $BPOLIST"
	as_root cp "$ROOT/scripts/kjit-backports.sources" "$BPOLIST"
	need_update=1
fi
qemu_ok || need_update=1
if [ -n "$missing" ] || [ -n "$need_update" ]; then
	say "apt-get update"
	as_root apt-get update -q >/dev/null
fi
if [ -n "$missing" ]; then
	say "installing:$missing"
	as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
		--no-install-recommends $missing >/dev/null
fi
if ! qemu_ok; then
	say "installing qemu-system-x86 from bookworm-backports"
	as_root env DEBIAN_FRONTEND=noninteractive apt-get -t bookworm-backports \
		install -y -q --no-install-recommends qemu-system-x86 >/dev/null
	qemu_ok || { echo "deps: qemu-system-x86 >= $QEMU_MIN did not install" >&2; exit 1; }
fi

zydis_source

# Every kernel in scripts/kernels: headers to build against, image to boot.
# fetch_unpacked DIR PKG...: apt-get download PKG... and unpack them in DIR.
fetch_unpacked() {
	dir=$1
	shift
	rm -rf "$CACHE/dl" "$dir"
	mkdir -p "$CACHE/dl" "$dir"
	(cd "$CACHE/dl" && apt-get download -q "$@" >/dev/null 2>&1) || {
		rm -rf "$CACHE/dl" "$dir"
		echo "deps: apt-get download $* failed" >&2
		return 1
	}
	for d in "$CACHE"/dl/*.deb; do dpkg-deb -x "$d" "$dir"; done
	rm -rf "$CACHE/dl"
}

# pkg_exists PKG: apt knows PKG.
pkg_exists() { apt-cache show "$1" >/dev/null 2>&1; }

# unpack_headers REL: headers of release REL under $CACHE/headers/REL, with
# the one absolute path they hold (the -common Makefile) pointed there.
unpack_headers() {
	rel=$1 dir=$CACHE/headers/$1
	[ -f "$dir/usr/src/linux-headers-$rel/Makefile" ] && return 0
	common=$(apt-cache show "linux-headers-$rel" 2>/dev/null |
		sed -n 's/^Depends:.*\(linux-headers-[^ ,]*-common[^ ,]*\).*/\1/p' | head -n 1)
	kbuild=$(apt-cache show "linux-headers-$rel" 2>/dev/null |
		sed -n 's/^Depends:.*\(linux-kbuild-[^ ,]*\).*/\1/p' | head -n 1)
	[ -n "$common" ] && [ -n "$kbuild" ] || {
		echo "deps: linux-headers-$rel: not in the package lists (apt-cache search linux-headers- lists what is)" >&2
		return 1
	}
	say "fetching linux-headers-$rel ($common, $kbuild)"
	fetch_unpacked "$dir" "linux-headers-$rel" "$common" "$kbuild" || return 1
	sed -i "s|/usr/src/|$(cd "$dir" && pwd)/usr/src/|" \
		"$dir/usr/src/linux-headers-$rel/Makefile"
}

# unpack_image REL: the kernel image under $CACHE/kernel-REL.
unpack_image() {
	rel=$1 dir=$CACHE/kernel-$1
	[ -f "$dir/boot/vmlinuz-$rel" ] && return 0
	pkg=linux-image-$rel-unsigned
	pkg_exists "$pkg" || pkg=linux-image-$rel
	say "fetching $pkg"
	fetch_unpacked "$dir" "$pkg"
}

# resolve LIST OUT: each kernel of LIST (scripts/kernels' format) fetched,
# and OUT written: "NAME RELEASE HEADERS" a line; for a kernel marked sid,
# "NAME RELEASE HEADERS 1 CHROOT" (HEADERS inside CHROOT).
resolve() {
	OUT=$2
	: > "$OUT.new"
	grep -v '^[[:space:]]*\(#\|$\)' "$1" | while read -r name rel marks; do
		case " $marks " in
		*" sid "*) sid=1 ;;
		*) sid=0 ;;
		esac
		if [ $sid = 1 ]; then # built in a sid chroot (scripts/sid-chroot.sh)
			set -- $(sh "$ROOT/scripts/sid-chroot.sh" "$BUILD" "$rel") || exit 1
			echo "$name $rel $1 1 $2" >> "$OUT.new"
			continue
		fi
		case $rel in
		@*)	# the release a meta-package points at; its headers via apt
			rel=$(dpkg-query -W -f='${Depends}' "${rel#@}" |
				sed -n 's/.*linux-headers-\([0-9][^ ,]*-amd64\).*/\1/p')
			[ -n "$rel" ] || { echo "deps: cannot tell the $name kernel's release" >&2; exit 1; }
			hdr=/usr/src/linux-headers-$rel ;;
		*)	unpack_headers "$rel" || exit 1
			hdr=$(cd "$CACHE/headers/$rel/usr/src/linux-headers-$rel" && pwd) ;;
		esac
		unpack_image "$rel" || exit 1
		echo "$name $rel $hdr" >> "$OUT.new"
	done || exit 1
	[ -s "$OUT.new" ] || { echo "deps: no kernel in $1" >&2; exit 1; }
	cmp -s "$OUT.new" "$OUT" 2>/dev/null || mv "$OUT.new" "$OUT"
	rm -f "$OUT.new"
}
resolve "$ROOT/scripts/kernels" "$CACHE/kernels"
# The default kernel's release, for scripts that know one kernel only.
head -n 1 "$CACHE/kernels" | cut -d' ' -f2 > "$CACHE/kver.new"
cmp -s "$CACHE/kver.new" "$CACHE/kver" 2>/dev/null || mv "$CACHE/kver.new" "$CACHE/kver"
rm -f "$CACHE/kver.new"

touch "$BUILD/deps.stamp"
