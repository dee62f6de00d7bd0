#!/bin/sh
# test_check.sh - `kjit check` on fake machines (KJIT_SYSROOT: a directory
# of /proc, /sys, /boot and /lib/modules files), one per finding it must
# make: every refusal with its fix, and the machine where nothing stops
# kjit. The module files are real: the test kernels' kjit.ko and
# kjit_pool.ko (their .modinfo gives vermagic and the pool's size).
# Usage: test_check.sh ROOT BUILD KJIT_BINARY
ROOT=$1
BUILD=$2
KJIT=$3
GROUP=tool.check
. "$ROOT/tests/tool/result.sh"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
chmod 755 "$T"
set -- $(head -n 1 "$BUILD/cache/kernels"); name1=$1 rel1=$2 hdr1=$3
set -- $(tail -n 1 "$BUILD/cache/kernels"); rel2=$2
mods1=$BUILD/mod/$name1

# machine DIR [REL]: a machine where nothing stops kjit, kernel REL
# (default rel1), kjit loaded; each case then changes one thing
machine() {
	d=$T/$1 rel=${2:-$rel1}
	mkdir -p "$d/proc/sys/kernel" "$d/boot" "$d/sys/kernel/security" \
		"$d/sys/module/module/parameters" "$d/sys/module/kjit/parameters" \
		"$d/sys/kernel/tracing" "$d/sys/devices/system/cpu" "$d/dev"
	echo "$rel" > "$d/proc/sys/kernel/osrelease"
	printf 'kjit 2000000 0 - Live 0x0\nkjit_pool 16797696 1 kjit, Live 0x0\n' > "$d/proc/modules"
	cp "$hdr1/.config" "$d/boot/config-$rel"
	echo CONFIG_X86_KERNEL_IBT=y >> "$d/boot/config-$rel" # not in 6.1's
	echo 0-3 > "$d/sys/devices/system/cpu/possible"
	printf 'processor\t: 0\nflags\t\t: fpu sse ibt user_shstk\n' > "$d/proc/cpuinfo"
	echo "BOOT_IMAGE=/vmlinuz root=/dev/vda" > "$d/proc/cmdline"
	echo "[none] integrity confidentiality" > "$d/sys/kernel/security/lockdown"
	echo N > "$d/sys/module/module/parameters/sig_enforce"
	echo 2048 > "$d/sys/module/kjit/parameters/cache_kb"
	echo 32768 > "$d/sys/module/kjit/parameters/max_blocks"
	echo 0 > "$d/proc/sys/kernel/kptr_restrict"
	printf '0000000000000000 A fixed_percpu_data\nffffffff81000000 T _stext\n' > "$d/proc/kallsyms"
	seq 1 1234 | sed 's/^/f/' > "$d/sys/kernel/tracing/available_filter_functions"
	: > "$d/dev/kjit"
	chmod 600 "$d/dev/kjit"
	chmod -R go+rX "$d"
	echo "$d"
}
unload() { sed -i '/^kjit/d' "$1/proc/modules"; rm -rf "$1/sys/module/kjit" "$1/dev/kjit"; }
install_mods() { # install_mods DIR REL: the 6.1 modules, as make install puts them
	m=$1/lib/modules/$2/updates/kjit
	mkdir -p "$m"
	cp "$mods1/kmod/kjit.ko" "$mods1/kjit_pool/kjit_pool.ko" "$m/"
	printf 'updates/kjit/kjit.ko: updates/kjit/kjit_pool.ko\nupdates/kjit/kjit_pool.ko:\nkernel/fs/x.ko:\n' \
		> "$1/lib/modules/$2/modules.dep"
}
run() { out=$(KJIT_SYSROOT=$1 "$KJIT" check ${2:+--modules "$2"} 2>&1); rc=$?; }
# has NAME PATTERN...: the output holds every (fixed-string) pattern
has() {
	n=$1 miss=
	shift
	for p in "$@"; do
		printf '%s\n' "$out" | grep -qF -- "$p" || miss="$miss [$p]"
	done
	if [ -z "$miss" ]; then result "$n" 1; else result "$n" 0 "rc=$rc missing:$miss in: $out"; fi
}

d=$(machine good)
run "$d"
has nothing_stops "kjit check: $rel1" "ok    modules    kjit and kjit_pool are loaded" \
	"ok    device" "ok    kernel     Linux 6.1 with direct-call ftrace" \
	"ok    ibt        enforced" "ok    lockdown   none" \
	"ok    kallsyms   addresses visible (kptr_restrict=0)" \
	"info  functions  1234 ftrace can divert" "at most 8192 in one session" \
	"kjit_pool.ko takes 16 MiB: a code pool for all CPUs and its exception and ORC tables; a session by default: 2048 KiB of code cache and 32768 blocks per CPU, 4 CPUs" \
	"kjit check: nothing stops kjit here"
result nothing_stops_exit "$([ $rc = 0 ] && echo 1)" "exit $rc"

d=$(machine notloaded)
unload "$d"
install_mods "$d" "$rel1"
run "$d"
has not_loaded "no    modules    kjit and kjit_pool are not loaded; /lib/modules/$rel1/updates/kjit/kjit.ko is built for this kernel" \
	"fix: modprobe kjit" "info  device     /dev/kjit appears when kjit.ko is loaded" \
	"kjit_pool.ko will take 26 MiB: a code pool of 16 MiB for all CPUs" "kjit check: 1 thing stops kjit here"
result not_loaded_exit "$([ $rc = 1 ] && echo 1)" "exit $rc"

d=$(machine notinstalled)
unload "$d"
run "$d"
has not_installed "no    modules    kjit.ko is not installed for $rel1" "fix: make install"

d=$(machine otherkernel "$rel2")
unload "$d"
install_mods "$d" "$rel2"
run "$d"
has wrong_vermagic "kjit.ko is built for $rel1, not $rel2" "fix: rebuild for this kernel" \
	"any number in one session"

d=$(machine moddir)
unload "$d"
run "$d" "$mods1/kmod"
has modules_dir "no    modules    kjit and kjit_pool are not loaded; $mods1/kmod/kjit.ko is built for this kernel" \
	"fix: insmod $mods1/kmod/kjit_pool.ko; insmod $mods1/kmod/kjit.ko" "kjit_pool.ko will take 26 MiB: a code pool of 16 MiB"

d=$(machine nodirect)
sed -i 's/^CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS=y$/# CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS is not set/; /^CONFIG_KPROBES=/d' "$d/boot/config-$rel1"
run "$d"
has no_direct_calls "no    kernel     Linux 6.1, not set: CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS, CONFIG_KPROBES" \
	"fix: a kernel configured with them (CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS: kjit diverts"

d=$(machine old 5.10.0-30-amd64)
run "$d"
has old_kernel "no    kernel     Linux 5.10 is older than 6.1"

d=$(machine noconfig)
rm "$d/boot/config-$rel1"
run "$d"
has no_config "?     kernel     Linux 6.1; its configuration is not readable" "?     ibt"

d=$(machine noibt)
printf 'processor\t: 0\nflags\t\t: fpu sse ibtx\n' > "$d/proc/cpuinfo"
run "$d"
has ibt_cpu "info  ibt        not enforced (the CPU has no IBT)"

d=$(machine confidential)
echo "none integrity [confidentiality]" > "$d/sys/kernel/security/lockdown"
run "$d"
has lockdown_confidentiality "no    lockdown   confidentiality: the kernel refuses kprobes" "fix: boot with lockdown=integrity or none"

d=$(machine integrity)
echo "none [integrity] confidentiality" > "$d/sys/kernel/security/lockdown"
run "$d"
has lockdown_integrity_loaded "ok    lockdown   lockdown integrity: only signed modules load, and kjit's are loaded"
unload "$d"
install_mods "$d" "$rel1"
run "$d"
has lockdown_integrity "no    lockdown   lockdown integrity: the kernel loads only modules signed" \
	"mokutil --import /var/lib/dkms/mok.pub" "kjit check: 2 things stop kjit here"

d=$(machine sigenforce)
unload "$d"
install_mods "$d" "$rel1"
echo Y > "$d/sys/module/module/parameters/sig_enforce"
rm "$d/sys/kernel/security/lockdown"
run "$d"
has sig_enforce "no    lockdown   module.sig_enforce: the kernel loads only modules signed"

d=$(machine nolsm)
rm "$d/sys/kernel/security/lockdown"
run "$d"
has securityfs_unmounted "?     lockdown   not known: securityfs is not mounted"
mkdir "$d/sys/kernel/security/apparmor"
run "$d"
has no_lockdown_lsm "ok    lockdown   none (no lockdown LSM in this kernel)"

d=$(machine kptr)
echo 2 > "$d/proc/sys/kernel/kptr_restrict"
printf '0000000000000000 A fixed_percpu_data\n0000000000000000 T _stext\n' > "$d/proc/kallsyms"
run "$d"
has kptr_restrict "no    kallsyms   addresses hidden from this user (kptr_restrict=2)" \
	"fix: sysctl kernel.kptr_restrict=1, and run kjit as root"

if [ "$(id -u)" = 0 ]; then
	d=$(machine notroot)
	out=$(KJIT_SYSROOT=$d setpriv --reuid=65534 --regid=65534 --clear-groups "$KJIT" check 2>&1)
	rc=$?
	has not_root "no    device     /dev/kjit: this user may not open it" "fix: run kjit as root"
fi
exit $fail
