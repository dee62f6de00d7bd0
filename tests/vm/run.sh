#!/bin/sh
# run.sh - the VM test rig: pack an initramfs, boot Debian's stock kernel under
# QEMU (TCG; KVM only if KJIT_VM_KVM=1), run the in-guest cases, judge.
#
# TCG runs single-threaded by default (KJIT_VM_TCG=tcg,thread=single): with
# QEMU 7.2's multi-threaded TCG, a vCPU that keeps executing a kernel
# function while another vCPU live-patches it (text_poke_bp: ftrace, kjit's
# diversion, kprobes) can keep running the stale int3 forever - the stock
# kernel hangs this way with nothing but ftrace on/off cycles (see
# docs/testing.md). KJIT_VM_TCG=tcg selects multi-threaded TCG.
#
# Usage: run.sh --build DIR --log FILE [--results FILE] [--timeout S] [--demo]
#               [--extra FILE] [CASE.sh...]  (default: every tests/vm/cases/*.sh)
#        --extra copies FILE into the guest's /tests/ (e.g. a case's settings)
#
# Judgement (exit status 1 on any failure):
#  - every requested case must report "KJIT-RESULT PASS name" on ttyS1;
#    a case with no result (hang, panic, reboot) is a failure;
#  - vm.guest_log_clean: the whole console log has no bug/warning/oops/stall;
#  - vm.poweroff: the guest reached KJIT-DONE and QEMU exited before the
#    overall timeout (boot allowance + the sum of the case timeouts).
# The console log (kernel + tests) is kept at --log; results at --results.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
BUILD=$ROOT/build LOG="" RESULTS="" TIMEOUT="" DEMO=0 EXTRA=""
while [ $# -gt 0 ]; do
	case $1 in
	--build) BUILD=$2; shift 2 ;;
	--log) LOG=$2; shift 2 ;;
	--results) RESULTS=$2; shift 2 ;;
	--timeout) TIMEOUT=$2; shift 2 ;;
	--demo) DEMO=1; shift ;;
	--extra) EXTRA=$2; shift 2 ;;
	*) break ;;
	esac
done
[ -n "$LOG" ] || LOG=$BUILD/vm/console.log
[ -n "$RESULTS" ] || RESULTS=$BUILD/vm/results
if [ $# -eq 0 ]; then
	if [ $DEMO = 1 ]; then set -- "$HERE/demo.sh"; else set -- "$HERE"/cases/*.sh; fi
fi
BAD='BUG:|WARNING:|Oops|general protection|soft lockup|hard LOCKUP|self-detected stall|detected stalls|rcu_.*stall|Kernel panic|blocked for more than'
KVER=$(cat "$BUILD/cache/kver")
KERNEL=$BUILD/cache/kernel-$KVER/boot/vmlinuz-$KVER
# Each run has a work directory of its own (initramfs, ttyS1 log), so runs
# can go on side by side in one build tree; the newest is linked as last.
mkdir -p "$BUILD/vm" "$(dirname "$LOG")" "$(dirname "$RESULTS")"
VM=$(cd "$(mktemp -d "$BUILD/vm/run.XXXXXX")" && pwd)
ln -sfn "$VM" "$BUILD/vm/last"
IRD=$VM/initramfs
TTYS1=$VM/ttyS1.log
trap 'rm -rf "$IRD" "$VM/initramfs.cpio.gz"' EXIT

# copy_with_libs BIN DEST_DIR: a dynamically linked binary and its libraries.
copy_with_libs() {
	cp "$1" "$IRD/$2/"
	ldd "$1" | sed -n 's/.*=> \(\/[^ ]*\).*/\1/p; s/^[[:space:]]*\(\/[^ ]*\) .*/\1/p' |
	while read -r lib; do
		mkdir -p "$IRD$(dirname "$lib")"
		cp -L "$lib" "$IRD$lib"
	done
}

pack_initramfs() {
	rm -rf "$IRD"
	mkdir -p "$IRD/bin" "$IRD/proc" "$IRD/sys" "$IRD/dev" "$IRD/tmp" \
		"$IRD/lib/kjit" "$IRD/tests/cases" "$IRD/lib64"
	cp /bin/busybox "$IRD/bin/busybox"
	mkdir -p "$IRD/etc"
	printf 'root:x:0:0:root:/:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/sh\n' > "$IRD/etc/passwd"
	printf 'root:x:0:\nnogroup:x:65534:\n' > "$IRD/etc/group"
	cp "$HERE/init.sh" "$IRD/init"
	cp "$HERE/lib.sh" "$IRD/tests/lib.sh"
	[ -n "$EXTRA" ] && cp "$EXTRA" "$IRD/tests/"
	cp "$BUILD/kmod/kjit.ko" "$IRD/lib/kjit/"
	for ko in "$BUILD"/kjit_*/kjit_*.ko; do
		[ -e "$ko" ] && cp "$ko" "$IRD/lib/kjit/"
	done
	strip --strip-debug "$IRD"/lib/kjit/*.ko
	copy_with_libs "$BUILD/tools/kjit" bin
	for p in "$BUILD"/guest/*; do
		[ -x "$p" ] && cp "$p" "$IRD/bin/"
	done
	: > "$IRD/tests/list"
	total=0
	for c in "$@"; do
		name=$(basename "$c" .sh)
		tmo=$(sed -n 's/^# timeout: *\([0-9]*\).*/\1/p' "$c" | head -n 1)
		tmo=${tmo:-60}
		total=$((total + tmo))
		cp "$c" "$IRD/tests/cases/$name.sh"
		echo "$name $tmo" >> "$IRD/tests/list"
	done
	chmod +x "$IRD/init"
	(cd "$IRD" && find . | cpio -o -H newc 2>/dev/null | gzip -1) > "$VM/initramfs.cpio.gz"
	echo "$total"
}

boot() {
	accel="-accel ${KJIT_VM_TCG:-tcg,thread=single}"
	[ "${KJIT_VM_KVM:-0}" = 1 ] && accel="-accel kvm"
	: > "$TTYS1"
	timeout -k 5 "$1" qemu-system-x86_64 $accel -cpu max -smp 2 -m 1G \
		-display none -monitor none -no-reboot \
		-serial "file:$LOG" -serial "file:$TTYS1" \
		-kernel "$KERNEL" -initrd "$VM/initramfs.cpio.gz" \
		-append "console=ttyS0 panic=-1 loglevel=7 ${KJIT_VM_APPEND:-}" &
	qpid=$!
	# Show the tests' own output (not the kernel's) as it comes.
	hide='^KJIT-\(BEGIN\|BOOT\)'
	[ $DEMO = 1 ] && hide='^KJIT-'
	tail -n +1 -s 0.2 -f --pid=$qpid "$TTYS1" 2>/dev/null |
		sed -u -e 's/\r$//' -e "\\%$hide%d" &
	tpid=$!
	wait $qpid
	rc=$?
	wait $tpid
	tr -d '\r' < "$TTYS1" > "$TTYS1.txt"
	return $rc
}

judge() {
	: > "$RESULTS"
	fails=0
	for c in "$@"; do
		name=$(basename "$c" .sh)
		line=$(grep -a "^KJIT-RESULT [A-Z]* $name\( \|$\)" "$TTYS1.txt" | tail -n 1)
		[ -n "$line" ] || line="KJIT-RESULT FAIL $name no result (guest hung, panicked or rebooted)"
		echo "$line" | sed "s/^KJIT-RESULT \([A-Z]*\) /KJIT-RESULT \1 vm.\1./; s/vm\.[A-Z]*\./vm./" >> "$RESULTS"
	done
	if grep -aEq "$BAD" "$LOG"; then
		echo "KJIT-RESULT FAIL vm.guest_log_clean $(grep -aEm1 "$BAD" "$LOG" | tr -d '\r')" >> "$RESULTS"
	else
		echo "KJIT-RESULT PASS vm.guest_log_clean" >> "$RESULTS"
	fi
	if [ "$qrc" = 0 ] && grep -aq '^KJIT-DONE' "$TTYS1.txt"; then
		echo "KJIT-RESULT PASS vm.poweroff" >> "$RESULTS"
	else
		echo "KJIT-RESULT FAIL vm.poweroff qemu exit $qrc (124: overall timeout ${tmo_all}s)" >> "$RESULTS"
	fi
	cat "$RESULTS"
	! grep -q '^KJIT-RESULT FAIL' "$RESULTS"
}

total=$(pack_initramfs "$@") || exit 1
tmo_all=${TIMEOUT:-$((total + 90))}
echo "vm: booting $KVER under QEMU ($# case(s), overall limit ${tmo_all}s); log: $LOG"
boot "$tmo_all"
qrc=$?
if [ $DEMO = 1 ]; then
	grep -aq '^KJIT-RESULT PASS' "$TTYS1.txt" && exit 0
	echo "demo failed; console log: $LOG" >&2
	exit 1
fi
judge "$@"
