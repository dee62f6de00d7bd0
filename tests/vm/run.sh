#!/bin/sh
# run.sh - the VM test rig: pack an initramfs, boot Debian's stock kernel under
# QEMU (TCG; KVM only if KJIT_VM_KVM=1), run the in-guest cases, judge.
#
# Cases run in up to three boots, one per TCG mode, into one results file:
#  - single: `-accel tcg,thread=single` (the default: both vCPUs take turns
#    on one host thread; timing-sensitive cases stay here);
#  - icount: `--icount` below, for cases with a `# tcg: icount` line (they
#    check what only a clock that counts instructions can show);
#  - multi: `-accel tcg,thread=multi`, for cases with a `# tcg: multi` line
#    (each vCPU on a host thread of its own: real parallelism). It needs
#    QEMU >= 10 (make deps installs it from bookworm-backports): 7.2's
#    multi-threaded TCG mishandles cross-modifying code - a vCPU that keeps
#    executing a function another vCPU live-patches (text_poke_bp: ftrace,
#    kjit's diversion, kprobes) can keep running the stale int3 forever (see
#    docs/testing.md). The rig refuses a multi boot on an older QEMU and
#    fails those cases, saying so.
# KJIT_VM_TCG=ACCEL (e.g. tcg,thread=multi) runs every case in one boot
# under that accelerator instead; KJIT_VM_QEMU names the QEMU binary.
# --icount: one boot, deterministic: `-icount shift=0,sleep=off` on one
# vCPU (-smp 1; icount needs single-threaded TCG), kernel booted with
# `nokaslr` so that every boot lays it out alike. The guest's clocks then
# count executed instructions (1 ns = 1 instruction), so a guest timing is
# an instruction count that repeats run after run (bench: BENCH_ONLY=icount).
#
# Usage: run.sh --build DIR --log FILE [--results FILE] [--timeout S] [--demo]
#               [--kernel NAME] [--extra FILE] [--icount]
#               [--accel ACCEL [--suffix S]] [CASE.sh...]
#        (default: every tests/vm/cases/*.sh)
#        --kernel NAME: boot kernel NAME of build/cache/kernels (written by
#          make deps from scripts/kernels; default: its first line) with the
#          modules built for it in DIR/mod/NAME; result names start with
#          vm.NAME. (e.g. vm.6.12.attach_counts)
#        --extra copies FILE into the guest's /tests/ (e.g. a case's settings)
#        --timeout S: each boot's overall limit
#        --accel ACCEL: every case in one boot under -accel ACCEL, its own
#          checks named vm.NAME<S>.guest_log_clean and .poweroff
#          (tests/vm/matrix.sh runs each boot so)
#
# Judgement (exit status 1 on any failure):
#  - every requested case must report "KJIT-RESULT PASS name" on ttyS1;
#    a case with no result (hang, panic, reboot) is a failure;
#  - per boot (".multi" added to the names for the multi boot):
#    vm.guest_log_clean: its console log has no bug/warning/oops/stall;
#    vm.poweroff: the guest reached KJIT-DONE and QEMU exited before the
#    overall timeout (boot allowance + the sum of the boot's case timeouts).
# The console log (kernel + tests) of every boot, one after the other, is
# kept at --log; results at --results.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
BUILD=$ROOT/build LOG="" RESULTS="" TIMEOUT="" DEMO=0 EXTRA="" KNAME="" ICOUNT=0
ACCEL="" SUFFIX="" SHELLMODE=0
while [ $# -gt 0 ]; do
	case $1 in
	--accel) ACCEL=$2; shift 2 ;;
	--suffix) SUFFIX=$2; shift 2 ;;
	--build) BUILD=$2; shift 2 ;;
	--log) LOG=$2; shift 2 ;;
	--results) RESULTS=$2; shift 2 ;;
	--timeout) TIMEOUT=$2; shift 2 ;;
	--demo) DEMO=1; shift ;;
	--shell) SHELLMODE=1; shift ;;
	--extra) EXTRA=$2; shift 2 ;;
	--kernel) KNAME=$2; shift 2 ;;
	--icount) ICOUNT=1; shift ;;
	*) break ;;
	esac
done
[ -n "$LOG" ] || LOG=$BUILD/vm/console.log
[ -n "$RESULTS" ] || RESULTS=$BUILD/vm/results
if [ $# -eq 0 ]; then
	if [ $DEMO = 1 ]; then set -- "$HERE/demo.sh"; else set -- "$HERE"/cases/*.sh; fi
fi
BAD='BUG:|WARNING:|Oops|general protection|soft lockup|hard LOCKUP|self-detected stall|detected stalls|rcu_.*stall|Kernel panic|blocked for more than'
# KJIT_KERNELS_FILE: another kernels file (make sanitize's checking
# kernels); a fourth field says how much slower its cases run than on a
# stock kernel (their limits x that; default 1).
KFILE=${KJIT_KERNELS_FILE:-$BUILD/cache/kernels}
[ -n "$KNAME" ] || KNAME=$(head -n 1 "$KFILE" | cut -d' ' -f1)
KVER=$(awk -v k="$KNAME" '$1 == k { print $2 }' "$KFILE")
[ -n "$KVER" ] || { echo "vm: no kernel '$KNAME' in $KFILE (make deps)" >&2; exit 1; }
KSLOWER=$(awk -v k="$KNAME" '$1 == k { print ($4 == "" ? 1 : $4) }' "$KFILE")
KERNEL=$BUILD/cache/kernel-$KVER/boot/vmlinuz-$KVER
MODS=$BUILD/mod/$KNAME
VMP=vm.$KNAME # prefix of every result name
QEMU=${KJIT_VM_QEMU:-qemu-system-x86_64}
QEMU_MIN=10 # for multi-threaded TCG; scripts/deps.sh installs it
# Each run has a work directory of its own (one sub-directory per boot:
# initramfs, ttyS1 log), so runs can go on side by side in one build tree;
# the newest is linked as last.
mkdir -p "$BUILD/vm" "$(dirname "$LOG")" "$(dirname "$RESULTS")"
VM=$(cd "$(mktemp -d "$BUILD/vm/run.XXXXXX")" && pwd)
ln -sfn "$VM" "$BUILD/vm/last"
trap 'rm -rf "$VM"/*/initramfs "$VM"/*/initramfs.cpio.gz' EXIT

# copy_with_libs BIN DEST_DIR: a dynamically linked binary and its libraries.
copy_with_libs() {
	cp "$1" "$IRD/$2/"
	ldd "$1" | sed -n 's/.*=> \(\/[^ ]*\).*/\1/p; s/^[[:space:]]*\(\/[^ ]*\) .*/\1/p' |
	while read -r lib; do
		mkdir -p "$IRD$(dirname "$lib")"
		cp -L "$lib" "$IRD$lib"
	done
}

# line_debug: for tests/vm/cases/lines.sh, the unstripped kjit_linetest.ko
# (lib/kjit/debug/) and what binutils' addr2line -i -f says for every
# instruction of linemod_outer (tests/linetest.expect: "OFF FUNC FILE:LINE
# [FUNC FILE:LINE]..." per offset, the case's independent oracle).
line_debug() {
	ko=$MODS/kjit_linetest/kjit_linetest.ko
	[ -e "$ko" ] || return 0
	mkdir -p "$IRD/lib/kjit/debug"
	cp "$ko" "$IRD/lib/kjit/debug/"
	readelf -n "$ko" | sed -n 's/.*Build ID: //p' > "$IRD/tests/linetest.buildid"
	sec=$(readelf -sW "$ko" | awk '$8 == "linemod_outer" { print $7 }')
	sec=$(readelf -SW "$ko" | sed -n "s/^ *\[ *$sec\] \([^ ]*\) .*/\1/p")
	val=$(readelf -sW "$ko" | awk '$8 == "linemod_outer" { print $2 }')
	objdump -d -j "$sec" --no-show-raw-insn "$ko" |
		awk '/<linemod_outer>:/ { on = 1; next } /^$/ { on = 0 }
			on && /^ +[0-9a-f]+:/ { sub(":", "", $1); print $1 }' |
	while read -r a; do
		off=$(printf '%x' $((0x$a - 0x$val)))
		echo "$off $(addr2line -i -f -j "$sec" -e "$ko" "0x$a" |
			sed 's/ (discriminator [0-9]*)//' | paste -d' ' - - |
			tr '\n' ' ' | sed 's/ $//')"
	done > "$IRD/tests/linetest.expect"
}

# kernel_module NAME PATH: the booted kernel's own module PATH (under
# kernel/, .ko or Debian's .ko.xz) as lib/kjit/NAME.ko, uncompressed (for
# busybox insmod): msr.ko for the faults case's rdmsr_safe. Missing: no
# copy, and the case that needs it says so.
kernel_module() {
	km=$BUILD/cache/kernel-$KVER/lib/modules/$KVER/kernel/$2
	if [ -e "$km" ]; then
		cp "$km" "$IRD/lib/kjit/$1.ko"
	elif [ -e "$km.xz" ]; then
		xz -dc "$km.xz" > "$IRD/lib/kjit/$1.ko"
	fi
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
	cp "$ROOT/tests/sanitize/kcsan-known" "$IRD/tests/" # init.sh, KCSAN only
	[ -n "$EXTRA" ] && cp "$EXTRA" "$IRD/tests/"
	[ $ICOUNT = 1 ] && : > "$IRD/tests/icount" # lib.sh: icount_mode
	echo "$KSLOWER" > "$IRD/tests/slower"       # init.sh: limits x this
	cp "$MODS/kmod/kjit.ko" "$IRD/lib/kjit/"
	# the kernel's configuration, where kjit check looks for it
	kcfg=$BUILD/cache/kernel-$KVER/boot/config-$KVER
	[ -f "$kcfg" ] && mkdir -p "$IRD/boot" && cp "$kcfg" "$IRD/boot/"
	for ko in "$MODS"/kjit_*/kjit_*.ko; do
		[ -e "$ko" ] && cp "$ko" "$IRD/lib/kjit/"
	done
	line_debug
	kernel_module msr arch/x86/kernel/msr.ko
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
	(cd "$IRD" && find . | cpio -o -H newc 2>/dev/null | gzip -1) > "$BOOT/initramfs.cpio.gz"
	echo "$total"
}

# demo_html: the demo's lcov tracefile (its "KJIT-LCOV " lines on ttyS1)
# as $BUILD/demo/kjit.info, and genhtml's pages of it in $BUILD/demo/html:
# the sources it names are this tree's (the test module was built here).
demo_html() {
	d=$BUILD/demo
	mkdir -p "$d"
	sed -n 's/^KJIT-LCOV //p' "$TTYS1.txt" > "$d/kjit.info"
	[ -s "$d/kjit.info" ] || return 0
	if command -v genhtml > /dev/null &&
		genhtml --quiet --branch-coverage -o "$d/html" "$d/kjit.info" > "$d/genhtml.log" 2>&1; then
		echo "== HTML coverage of the demo's module: $d/html/index.html"
		echo "   (lcov tracefile: $d/kjit.info; lcov --summary $d/kjit.info)"
	else
		echo "== genhtml could not make HTML of $d/kjit.info (see $d/genhtml.log)"
	fi
}

# demo_kernel_lines: with the kernel's -dbg vmlinux (make demo KJIT_DBG=1),
# the demo's deep recording (its "KJIT-DATA " lines on ttyS1) as
# $BUILD/demo/deep.data, in the kernel's source lines, lcov and genhtml
# pages ($BUILD/demo/kernel/: scripts/kernel-lines.sh).
demo_kernel_lines() {
	[ -n "${KJIT_DBG:-}" ] || return 0
	mkdir -p "$BUILD/demo"
	sed -n 's/^KJIT-DATA //p' "$TTYS1.txt" > "$BUILD/demo/deep.data"
	echo
	sh "$ROOT/scripts/kernel-lines.sh" "$BUILD" "$KVER" "$BUILD/demo/deep.data" "$BUILD/demo/kernel"
}

# boot LIMIT ACCEL: run QEMU on $BOOT's initramfs, console appended to $LOG.
# KJIT_VM_GDB=PORT (bench/share.sh): one vCPU, QEMU's gdb stub on
# 127.0.0.1:PORT, and KJIT_VM_HELPER run beside QEMU with the ttyS1 file as
# its last argument (it reads the guest's lines and steps it); it is
# stopped when QEMU ends.
boot() {
	acc="-accel $2" smp=2 gdb= app=
	# icount: nokaslr too, so that each boot lays the kernel out alike
	# (hash chains, Kprobes' among them, follow the addresses)
	[ $ICOUNT = 1 ] && acc="$acc -icount shift=0,sleep=off" smp=1 app=nokaslr
	[ -n "${KJIT_VM_GDB:-}" ] && smp=1 gdb="-gdb tcp:127.0.0.1:$KJIT_VM_GDB"
	: > "$TTYS1"
	rm -f "$BOOT/timed-out"
	"$QEMU" $acc -cpu max -smp $smp -m 1G $gdb -name kjit,debug-threads=on \
		-display none -monitor none -no-reboot \
		-chardev "file,id=con,path=$LOG,append=on" -serial chardev:con \
		-serial "file:$TTYS1" \
		-kernel "$KERNEL" -initrd "$BOOT/initramfs.cpio.gz" \
		-append "console=ttyS0 panic=-1 loglevel=7 $app ${KJIT_VM_APPEND:-}" &
	qpid=$!
	slow_down $qpid "$2" || { kill -KILL $qpid; wait $qpid; return 1; }
	watchdog $qpid "$1" &
	wpid=$!
	hpid=
	if [ -n "$gdb" ] && [ -n "${KJIT_VM_HELPER:-}" ]; then
		$KJIT_VM_HELPER "$TTYS1" &
		hpid=$!
	fi
	# Show the tests' own output (not the kernel's) as it comes.
	hide='^KJIT-\(BEGIN\|BOOT\)'
	[ $DEMO = 1 ] && hide='^KJIT-'
	tail -n +1 -s 0.2 -f --pid=$qpid "$TTYS1" 2>/dev/null |
		sed -u -e 's/\r$//' -e "\\%$hide%d" &
	tpid=$!
	wait $qpid
	rc=$?
	kill $wpid 2> /dev/null
	wait $wpid 2> /dev/null
	[ -e "$BOOT/timed-out" ] && rc=124
	slow_end
	[ -n "$hpid" ] && { kill $hpid 2> /dev/null; wait $hpid; }
	wait $tpid
	tr -d '\r' < "$TTYS1" > "$TTYS1.txt"
	return $rc
}

# pace_factor: the guest's "KJIT-PACE ... factor F" (init.sh), once it has
# printed it; nothing before.
pace_factor() {
	sed -n 's/^KJIT-PACE .*factor \([0-9.]*\).*/\1/p' "$TTYS1" | head -n 1
}

# watchdog QPID TOTAL: kill QEMU (and leave $BOOT/timed-out) once the
# boot has run longer than its overall limit: --timeout S as given, else
# (BOOT_ALLOW + TOTAL, the sum of the cases' limits) x the guest's pace
# factor, or BOOT_ALLOW x MAX_PACE until the guest has printed it.
BOOT_ALLOW=90 MAX_PACE=4
watchdog() {
	w0=$(date +%s)
	while kill -0 "$1" 2> /dev/null; do
		f=$(pace_factor)
		if [ -n "$TIMEOUT" ]; then
			lim=$TIMEOUT
		elif [ -n "$f" ]; then
			lim=$(awk -v t=$((BOOT_ALLOW + $2)) -v f="$f" -v k="$KSLOWER" \
				'BEGIN { printf "%d", t * f * k }')
		else
			lim=$(awk -v b=$BOOT_ALLOW -v m=$MAX_PACE -v k="$KSLOWER" \
				'BEGIN { printf "%d", b * m * k }')
		fi
		if [ $(($(date +%s) - w0)) -ge "$lim" ]; then
			echo "$lim" > "$BOOT/timed-out"
			kill -TERM "$1" 2> /dev/null
			sleep 5
			kill -KILL "$1" 2> /dev/null
			return
		fi
		sleep 2
	done
}

# slow_down QPID ACCEL: with KJIT_VM_SLOW=F (e.g. 2), hold each thread
# that runs guest code (QEMU names them with debug-threads=on: "CPU n/TCG"
# under multi-threaded TCG, "ALL CPUs/TCG" under single-threaded TCG) to
# 1/F of a core, through a cpu cgroup a thread (cgroup v1's cpu
# controller: CFS bandwidth, 10 ms periods). The guest then runs as on
# a host F times slower, and the limits must follow (docs/testing.md).
# Fails, saying why, when no cgroup can be made.
slow_down() {
	SLOWCG=
	[ -n "${KJIT_VM_SLOW:-}" ] || return 0
	quota=$(awk -v f="$KJIT_VM_SLOW" 'BEGIN { printf "%d", 10000 / f }')
	root=/sys/fs/cgroup/cpu
	if ! [ -w $root ] || ! [ -e $root/cpu.cfs_period_us ]; then
		echo "vm: KJIT_VM_SLOW=$KJIT_VM_SLOW needs cgroup v1's cpu controller at $root" >&2
		return 1
	fi
	SLOWCG=$root/kjit-slow-$$-$1
	mkdir "$SLOWCG" || return 1
	sleep 0.5 # QEMU's vCPU threads come at machine init
	for t in /proc/"$1"/task/*; do
		case $(cat "$t/comm" 2> /dev/null) in *CPU*/TCG) ;; *) continue ;; esac
		t=${t##*/}
		mkdir "$SLOWCG/$t" && echo 10000 > "$SLOWCG/$t/cpu.cfs_period_us" &&
			echo "$quota" > "$SLOWCG/$t/cpu.cfs_quota_us" &&
			echo "$t" > "$SLOWCG/$t/tasks" || {
			echo "vm: KJIT_VM_SLOW: cannot hold thread $t in $SLOWCG/$t" >&2
			slow_end
			return 1
		}
	done
}
slow_end() {
	[ -n "${SLOWCG:-}" ] && [ -d "$SLOWCG" ] || return 0
	rmdir "$SLOWCG"/* "$SLOWCG" 2> /dev/null
	SLOWCG=
}

# judged_log CONSOLE: the console log less the kernel's echoes of its own
# parameters: KJIT_VM_APPEND may name rcupdate.rcu_cpu_stall_suppress=1
# (the share bench), which the command line and RCU's boot banner repeat;
# neither is a stall. Less the share bench's dump of /proc/kallsyms too
# ("KSYM ADDR NAME": __traceiter_rcu_stall_warning is a name, not a stall).
judged_log() {
	grep -av -e 'ommand line: ' \
		-e 'RCU CPU stall warnings suppressed (rcu_cpu_stall_suppress)' \
		-e '^KSYM [0-9a-f]* [^ ]*.$' -e '^KSYM [0-9a-f]* [^ ]*$' "$1"
}

# judge SUFFIX CONSOLE CASE...: append the results of one boot to $RESULTS;
# SUFFIX goes into the names of the boot's own checks, CONSOLE is its log.
judge() {
	suffix=$1 console=$2
	shift 2
	sed -n "s/^KJIT-TIME \([^ ]*\) /$VMP.\1 /p" "$TTYS1.txt" >> "$TIMES"
	for c in "$@"; do
		name=$(basename "$c" .sh)
		line=$(grep -a "^KJIT-RESULT [A-Z]* $name\( \|$\)" "$TTYS1.txt" | tail -n 1)
		[ -n "$line" ] || line="KJIT-RESULT FAIL $name no result (guest hung, panicked or rebooted)"
		echo "$line" | sed "s/^KJIT-RESULT \([A-Z]*\) /KJIT-RESULT \1 $VMP./" >> "$RESULTS"
	done
	if judged_log "$console" | grep -aEq "$BAD"; then
		echo "KJIT-RESULT FAIL $VMP$suffix.guest_log_clean $(judged_log "$console" | grep -aEm1 "$BAD" | tr -d '\r')" >> "$RESULTS"
	else
		echo "KJIT-RESULT PASS $VMP$suffix.guest_log_clean" >> "$RESULTS"
	fi
	if [ "$qrc" = 0 ] && grep -aq '^KJIT-DONE' "$TTYS1.txt"; then
		echo "KJIT-RESULT PASS $VMP$suffix.poweroff" >> "$RESULTS"
	else
		why="qemu exit $qrc"
		[ -e "$BOOT/timed-out" ] && why="overall limit of $(cat "$BOOT/timed-out")s reached"
		echo "KJIT-RESULT FAIL $VMP$suffix.poweroff $why" >> "$RESULTS"
	fi
}

# tcg_mode CASE: "multi" if the case asks for multi-threaded TCG, "icount"
# for -icount (`# tcg: icount`), else "single".
tcg_mode() {
	if grep -q '^# tcg: *multi *$' "$1"; then echo multi
	elif grep -q '^# tcg: *icount *$' "$1"; then echo icount
	else echo single; fi
}

# qemu_too_old ACCEL: prints why ACCEL cannot run on this QEMU, if it cannot:
# multi-threaded TCG (any tcg not forced to thread=single) needs QEMU_MIN.
qemu_too_old() {
	case $1 in tcg*thread=single*) return 0 ;; tcg*) ;; *) return 0 ;; esac
	ver=$("$QEMU" --version 2>/dev/null | sed -n '1s/.*version \([0-9][0-9.]*\).*/\1/p')
	[ "${ver%%.*}" -ge $QEMU_MIN ] 2>/dev/null && return 0
	echo "multi-threaded TCG needs QEMU >= $QEMU_MIN, $QEMU is ${ver:-missing} (make deps installs it from bookworm-backports)"
}

# run_boot NAME SUFFIX ACCEL CASE...: pack, boot and judge one group.
run_boot() {
	name=$1 suffix=$2 accel=$3
	shift 3
	BOOT=$VM/$name IRD=$VM/$name/initramfs TTYS1=$VM/$name/ttyS1.log
	mkdir -p "$BOOT"
	old=$(qemu_too_old "$accel")
	if [ -n "$old" ]; then
		echo "vm: $old" >&2
		for c in "$@"; do
			echo "KJIT-RESULT FAIL $VMP.$(basename "$c" .sh) $old" >> "$RESULTS"
		done
		return 1
	fi
	total=$(pack_initramfs "$@") || return 1
	echo "vm: booting $KVER under QEMU -accel $accel ($# case(s), overall limit ${TIMEOUT:-$((total + BOOT_ALLOW))}s x pace)${KJIT_VM_SLOW:+, slowed $KJIT_VM_SLOW times}; log: $LOG"
	start=$(wc -c < "$LOG")
	echo "==== kjit rig: boot '$name', -accel $accel: $(for c in "$@"; do basename "$c" .sh; done | tr '\n' ' ')" >> "$LOG"
	boot "$total" "$accel"
	qrc=$?
	if [ $DEMO = 1 ]; then
		demo_html
		demo_kernel_lines || { echo "demo: kernel source lines failed" >&2; return 1; }
		grep -aq '^KJIT-RESULT PASS' "$TTYS1.txt" && return 0
		echo "demo failed; console log: $LOG" >&2
		return 1
	fi
	tail -c +$((start + 1)) "$LOG" > "$BOOT/console.log"
	kept_files "${RESULTS%.results}.files"
	judge "$suffix" "$BOOT/console.log" "$@"
}

# kept_files DIR: the files the boot's cases kept (lib.sh's keep: a
# gzipped tar in base64 between KJIT-FILES-BEGIN CASE and KJIT-FILES-END
# on ttyS1) unpacked under DIR/CASE/.
kept_files() {
	grep -aq '^KJIT-FILES-BEGIN ' "$TTYS1.txt" || return 0
	mkdir -p "$1"
	awk -v d="$1" '
		/^KJIT-FILES-BEGIN / { f = d "/" $2 ".b64"; printf "" > f; next }
		/^KJIT-FILES-END / { close(f); f = ""; next }
		f != "" && /^KJIT-FILE / { print substr($0, 11) > f }' "$TTYS1.txt"
	for b in "$1"/*.b64; do
		c=$(basename "$b" .b64)
		mkdir -p "$1/$c"
		if base64 -d "$b" | tar -xzf - -C "$1/$c"; then
			rm -f "$b"
			echo "vm: $c kept $(ls "$1/$c" | tr '\n' ' ')in $1/$c"
		else
			echo "vm: $c kept files that did not unpack: $b" >&2
		fi
	done
}

# shell_boot: make shell. The guest's console (ttyS0) is this terminal,
# kjit loaded, a root shell; no case, no limit. Leaving the shell powers
# the guest off (Ctrl-A X quits QEMU at once).
shell_boot() {
	BOOT=$VM/shell IRD=$VM/shell/initramfs TTYS1=$VM/shell/ttyS1.log
	mkdir -p "$BOOT"
	pack_initramfs > /dev/null || return 1
	: > "$IRD/tests/shell" # init.sh: a shell instead of the cases
	(cd "$IRD" && find . | cpio -o -H newc 2> /dev/null | gzip -1) > "$BOOT/initramfs.cpio.gz"
	echo "vm: booting $KVER (2 vCPUs, multi-threaded TCG) with kjit loaded; exit the shell to power off, Ctrl-A X to quit QEMU"
	"$QEMU" -accel tcg,thread=multi -cpu max -smp 2 -m 1G -name kjit,debug-threads=on \
		-display none -no-reboot -serial mon:stdio -serial null \
		-kernel "$KERNEL" -initrd "$BOOT/initramfs.cpio.gz" \
		-append "console=ttyS0 panic=-1 loglevel=4 ${KJIT_VM_APPEND:-}"
}
if [ $SHELLMODE = 1 ]; then
	shell_boot
	exit $?
fi

: > "$LOG"
: > "$RESULTS"
TIMES=$RESULTS.times # "vm.KERNEL.CASE SECONDS LIMIT" per case (init.sh's KJIT-TIME)
: > "$TIMES"
single="" multi="" icount=""
for c in "$@"; do
	case $(tcg_mode "$c") in
	multi) multi="$multi $c" ;;
	icount) icount="$icount $c" ;;
	*) single="$single $c" ;;
	esac
done
rc=0
if [ $ICOUNT = 1 ]; then
	run_boot icount .icount tcg,thread=single "$@" || rc=1
elif [ -n "$ACCEL" ]; then
	# one boot of the given cases (tests/vm/matrix.sh): KJIT_VM_KVM and
	# KJIT_VM_TCG still win
	accel=${KJIT_VM_TCG:-$ACCEL}
	[ "${KJIT_VM_KVM:-0}" = 1 ] && accel=kvm
	run_boot "boot${SUFFIX:-}" "$SUFFIX" "$accel" "$@" || rc=1
elif [ "${KJIT_VM_KVM:-0}" = 1 ] || [ -n "${KJIT_VM_TCG:-}" ]; then
	accel=${KJIT_VM_TCG:-tcg,thread=single}
	[ "${KJIT_VM_KVM:-0}" = 1 ] && accel=kvm
	run_boot all "" "$accel" "$@" || rc=1
else
	# Word splitting of the lists is meant: case paths have no blanks.
	[ -z "$single" ] || run_boot single "" tcg,thread=single $single || rc=1
	[ -z "$multi" ] || run_boot multi .multi tcg,thread=multi $multi || rc=1
	[ -z "$icount" ] || { ICOUNT=1 && run_boot icount .icount tcg,thread=single $icount; } || rc=1
fi
[ $DEMO = 1 ] && exit $rc
cat "$RESULTS"
! grep -q '^KJIT-RESULT FAIL' "$RESULTS"
