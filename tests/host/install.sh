#!/bin/sh
# install.sh - building and installing kjit for a kernel as a user does,
# on the host, without loading anything and without changing the host:
#   kdir_probe    scripts/kdir-probe.sh accepts the test kernels' trees and
#                 refuses, naming what is missing, a tree without direct-call
#                 ftrace, one older than 6.1, one not prepared, a non-tree
#   install       make install DESTDIR=... KDIR=(a test kernel's headers):
#                 the tool runs, the modules carry that release's vermagic,
#                 depmod made kjit.ko depend on kjit_pool.ko
#   dkms          make dkms-source, then Debian's dkms builds the modules
#                 for a test kernel (its trees and signing key in a private
#                 mount namespace: /var/lib/dkms and /etc/dkms are not
#                 touched)
# Usage: install.sh ROOT BUILD     (prints KJIT-RESULT lines)
set -u
unset MAKEFLAGS MFLAGS MAKELEVEL # a make of its own, not make test's jobs
ROOT=$1
BUILD=$2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fails=0
pass() { echo "KJIT-RESULT PASS host.install.$1 $2"; }
fail() { echo "KJIT-RESULT FAIL host.install.$1 $2"; fails=$((fails + 1)); }
probe() { sh "$ROOT/scripts/kdir-probe.sh" "$@"; }

# The test kernels: the first one for dkms, the last one built on this
# host for make install (a kernel built in the sid chroot, a line of five
# fields, has its headers inside the chroot).
first=$(head -n 1 "$BUILD/cache/kernels")
last=$(awk 'NF == 3' "$BUILD/cache/kernels" | tail -n 1)
set -- $first; rel1=$2 hdr1=$3
set -- $last; rel2=$2 hdr2=$3

# ---- kdir_probe: a fake tree made of a real one's .config and headers
fake() { # fake NAME: a copy of hdr2's .config and generated version files
	d=$T/$1
	mkdir -p "$d/include/generated/uapi/linux"
	cp "$hdr2/Makefile" "$hdr2/.config" "$d/"
	cp "$hdr2/include/generated/utsrelease.h" "$d/include/generated/"
	cp "$hdr2/include/generated/uapi/linux/version.h" "$d/include/generated/uapi/linux/"
	echo "$d"
}
why=""
for k in "$first" "$last"; do
	set -- $k
	got=$(probe "$3" 2>&1) && [ "$got" = "$2" ] || why="$why; $1's tree: '$got', not $2"
done
d=$(fake nodirect)
sed -i 's/^CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS=y$/# CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS is not set/' "$d/.config"
got=$(probe "$d" 2>&1) && why="$why; a tree without direct calls passed"
echo "$got" | grep -q "CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS is not set" ||
	why="$why; no direct calls: '$got'"
d=$(fake old)
sed -i 's/^#define LINUX_VERSION_CODE .*/#define LINUX_VERSION_CODE 331264/' \
	"$d/include/generated/uapi/linux/version.h" # 5.14.0
got=$(probe "$d" 2>&1) && why="$why; a 5.14 tree passed"
echo "$got" | grep -q "Linux 5.14 is older than 6.1" || why="$why; 5.14: '$got'"
d=$(fake unprepared)
rm -r "$d/include"
got=$(probe "$d" 2>&1) && why="$why; an unprepared tree passed"
echo "$got" | grep -q "modules_prepare" || why="$why; unprepared: '$got'"
got=$(probe "$T" 2>&1) && why="$why; a directory that is no tree passed"
echo "$got" | grep -q "not a kernel build tree" || why="$why; non-tree: '$got'"
if [ -z "$why" ]; then
	pass kdir_probe "the test kernels' trees pass; no direct calls, 5.14, unprepared and a non-tree are refused, each saying why"
else
	fail kdir_probe "${why#; }"
fi

# ---- install: into DESTDIR, with the modules make test built already
# (KJIT_MODS: nothing is rebuilt)
set -- $last
D=$T/dest
out=$(make -s -C "$ROOT" BUILD="$BUILD" install KDIR="$hdr2" \
	KJIT_MODS="$BUILD/mod/$1" DESTDIR="$D" PREFIX=/usr/local 2>&1)
rc=$?
m=$D/lib/modules/$rel2/updates/kjit
why=""
[ $rc = 0 ] || why="make install failed ($rc): $(echo "$out" | tail -n 3)"
for f in kjit_pool kjit kjit_kprobes; do
	[ -z "$why" ] || break
	[ -f "$m/$f.ko" ] || { why="no $m/$f.ko"; break; }
	v=$(modinfo -F vermagic "$m/$f.ko" 2>&1)
	case $v in "$rel2 "*) ;; *) why="$f.ko's vermagic is '$v', not $rel2" ;; esac
done
[ -n "$why" ] || grep -qx "updates/kjit/kjit.ko: updates/kjit/kjit_pool.ko" \
	"$D/lib/modules/$rel2/modules.dep" 2>/dev/null ||
	why="depmod: no 'kjit.ko: kjit_pool.ko' in modules.dep"
[ -n "$why" ] || "$D/usr/local/bin/kjit" help > /dev/null 2>&1 ||
	why="the installed tool does not run"
if [ -z "$why" ]; then
	pass install "tool in PREFIX/bin, kjit_pool/kjit/kjit_kprobes.ko for $rel2 under updates/kjit, modules.dep right"
else
	fail install "$why"
fi

# ---- dkms: the source as dkms-source lays it out, built by dkms for rel1
if [ "$(id -u)" != 0 ] || ! command -v dkms > /dev/null || ! command -v unshare > /dev/null; then
	fail dkms "needs root, dkms and unshare (make deps installs dkms)"
	exit 1
fi
V=$(sed -n 's/^#define KJIT_BUILD_STRING "kjit \(.*\)"$/\1/p' "$ROOT/kmod/chardev.h")
mkdir -p "$T/d/etc" "$T/d/src" "$T/d/tree" "$T/d/mod"
cp -r /etc/dkms/. "$T/d/etc/"
printf 'source_tree="%s"\ndkms_tree="%s"\ninstall_tree="%s"\n' \
	"$T/d/src" "$T/d/tree" "$T/d/mod" >> "$T/d/etc/framework.conf"
why=""
make -s -C "$ROOT" BUILD="$BUILD" dkms-source DESTDIR="$T/d/root" > "$T/dkms.log" 2>&1 &&
	mv "$T/d/root/usr/src/kjit-$V" "$T/d/src/" || why="make dkms-source failed"
[ -n "$why" ] || unshare -m sh -c "mount -t tmpfs none /var/lib/dkms &&
	mount --bind '$T/d/etc' /etc/dkms && dkms add kjit/$V &&
	dkms build kjit/$V -k '$rel1' --kernelsourcedir='$hdr1'" >> "$T/dkms.log" 2>&1 ||
	why="${why:-dkms add/build failed}: $(tail -n 3 "$T/dkms.log")"
k=$T/d/tree/kjit/$V/$rel1/x86_64/module
for f in kjit_pool kjit kjit_kprobes; do
	[ -z "$why" ] || break
	v=$(modinfo -F vermagic "$k/$f.ko" 2>&1)
	case $v in "$rel1 "*) ;; *) why="dkms's $f.ko: vermagic '$v', not $rel1" ;; esac
done
if [ -z "$why" ]; then
	pass dkms "dkms add + dkms build -k $rel1: kjit_pool, kjit, kjit_kprobes.ko built for it"
else
	fail dkms "$why"
fi
[ $fails = 0 ]
