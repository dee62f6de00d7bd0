#!/bin/busybox sh
# init.sh - /init of the test guest: mount, run each test case, report, power off.
#
# Each case in /tests/list ("NAME TIMEOUT" per line) runs as `sh /tests/cases/NAME.sh`
# with a timeout. Its output goes to the console (ttyS0, with the kernel log) and
# to ttyS1 (test output only), followed by one machine-readable line on both:
#     KJIT-RESULT PASS|FAIL|SKIP NAME [why]
# A case that cannot apply to this kernel calls `skip REASON` (lib.sh): exit
# status 77 with the reason in /tmp/skip; it counts as skipped, not passed,
# and still fails on anything below.
# A case fails if it exits non-zero, times out, or if the kernel logged a bug,
# warning, oops, lockup or stall while it ran, or if it left one of our
# modules loaded: those are unloaded before the next case, so a failed case
# cannot make the cases after it fail too. "KJIT-DONE" ends the run.
#
# Time limits follow the host (docs/testing.md, "Time limits that follow
# the host"): a case's TIMEOUT is its limit on the reference host; `pace`
# times a fixed piece of work at boot ("KJIT-PACE ... factor F") and every
# limit here is TIMEOUT x F, F never below 1 (under -icount, F is 1), and
# x the kernel's own slowness when the rig says it has one (make sanitize).
# casewatch runs each case: when the limit kills it, it prints the command
# the case was in and how long each earlier step took. "KJIT-TIME NAME
# SECONDS LIMIT" follows each case.
/bin/busybox --install -s /bin
export PATH=/bin:/sbin:/usr/bin:/usr/sbin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
mkdir -p /tmp && mount -t tmpfs tmpfs /tmp
BAD='BUG:|WARNING:|Oops|general protection|soft lockup|hard LOCKUP|self-detected stall|detected stalls|rcu_.*stall|Kernel panic|blocked for more than'
out() { echo "$*" > /dev/ttyS1; echo "$*" > /dev/console; }

# A KCSAN kernel: the kernel's own known races (tests/sanitize/kcsan-known)
# on KCSAN's report filter, so that any other report fails the boot.
if [ -w /sys/kernel/debug/kcsan ] && [ -f /tests/kcsan-known ]; then
	grep -v '^#' /tests/kcsan-known | while read -r f; do
		[ -n "$f" ] && echo "!$f" > /sys/kernel/debug/kcsan
	done
	out "KJIT-KCSAN filter: $(grep -vc '^#' /tests/kcsan-known) kernel function(s) of tests/sanitize/kcsan-known"
fi

# unload_leftovers: unload our modules a case left loaded (kjit first: an
# attached kjit pins the module code it runs); prints their names.
# kjit_pool.ko (the code cache's memory, no code) may stay between cases.
unload_leftovers() {
	left=$(sed -n 's/^\(kjit[a-z_]*\) .*/\1/p' /proc/modules | grep -v '^kjit_pool$' | tr '\n' ' ')
	[ -n "$left" ] || return 0
	for m in kjit $left; do rmmod "$m" 2> /dev/null; done
	echo "${left% }"
}

# make shell: kjit loaded and a root shell on the console; leaving it
# powers off.
if [ -e /tests/shell ]; then
	insmod /lib/kjit/kjit_pool.ko && insmod /lib/kjit/kjit.ko
	cd /tmp
	cat <<-EOF

	kjit shell on $(uname -r): kjit.ko is loaded; kjit_kprobes.ko (for
	kjit compare) is in /lib/kjit. Try:
	  kjit check
	  kjit list 'vfs_*'
	  kjit record --deep -f __x64_sys_read -- workload read 200
	  kjit report --top 5
	exit (or Ctrl-D) powers the guest off; Ctrl-A X quits QEMU.

	EOF
	PS1='kjit-guest# ' HOME=/tmp setsid cttyhack sh
	sync
	poweroff -f
fi

# The reference host's time for pace's work (docs/testing.md names the host).
PACE_REF_MS=300
out "KJIT-BOOT $(uname -r) cpus=$(nproc)"
factor=1
if [ -e /tests/icount ]; then
	out "KJIT-PACE none under -icount: factor 1"
elif line=$(pace $PACE_REF_MS); then
	out "$line"
	factor=$(echo "$line" | sed -n 's/.*factor \([0-9.]*\)$/\1/p')
else
	out "KJIT-PACE pace failed: factor 1"
fi
# a kernel known to run slower (make sanitize's) says by how much
slower=$(cat /tests/slower 2> /dev/null)
if [ -n "$slower" ] && [ "$slower" != 1 ]; then
	factor=$(awk -v f="${factor:-1}" -v k="$slower" 'BEGIN { print f * k }')
	out "KJIT-PACE kernel slower by $slower: limits x $factor"
fi
# The kernel's own watchdogs count guest time too: on a host F times slower
# the same work (enabling function_graph patches every ftrace site of the
# kernel in one go: 22 s on 6.1 at factor 3.5) takes F times as long. So
# the soft-lockup threshold (watchdog_thresh, 10 s: 2 x it) and the RCU
# stall timeout (21 s) follow the factor as case limits do; a real lockup
# is still reported, F times later. At F = 1 nothing changes.
scaled() { awk -v b="$1" -v f="${factor:-1}" -v m="$2" 'BEGIN { t = b * f; t = t == int(t) ? t : int(t) + 1; print (t > m ? m : t) }'; }
if [ "$(scaled 10 60)" -gt 10 ]; then
	echo "$(scaled 10 60)" > /proc/sys/kernel/watchdog_thresh 2> /dev/null
	echo "$(scaled 21 300)" > /sys/module/rcupdate/parameters/rcu_cpu_stall_timeout 2> /dev/null
	# (worded so that the rig's log check, which looks for "soft lockup" and
	# "rcu_...stall", does not take it for one)
	out "KJIT-PACE kernel watchdogs x $factor: watchdog_thresh $(cat /proc/sys/kernel/watchdog_thresh 2> /dev/null) s, RCU CPU timeout $(cat /sys/module/rcupdate/parameters/rcu_cpu_stall_timeout 2> /dev/null) s"
fi
# cases that tighten a kernel watchdog scale it by the same factor
export KJIT_PACE_FACTOR="${factor:-1}"
uptime_s() { cut -d' ' -f1 /proc/uptime; }
while read -r name tmo; do
	dmesg -c > /dev/null
	rm -f /tmp/skip
	lim=$(awk -v t="$tmo" -v f="${factor:-1}" 'BEGIN { l = t * f; printf "%d", l == int(l) ? l : int(l) + 1 }')
	t0=$(uptime_s)
	out "KJIT-BEGIN $name at ${t0}s"
	(cd /tmp && casewatch "$lim" sh "/tests/cases/$name.sh" 2>&1; echo $? > /tmp/rc) |
		tee /dev/ttyS1 /tmp/case.out > /dev/console
	rc=$(cat /tmp/rc)
	if [ -n "$(ls -A /keep 2> /dev/null)" ]; then # lib.sh keep: to the host
		out "KJIT-FILES-BEGIN $name"
		tar -C /keep -cf - . | gzip -1 | base64 | sed 's/^/KJIT-FILE /' > /dev/ttyS1
		out "KJIT-FILES-END $name"
	fi
	rm -rf /keep
	out "KJIT-TIME $name $(awk -v a="$t0" -v b="$(uptime_s)" 'BEGIN { printf "%.1f", b - a }') $lim"
	why="" skip=""
	if [ "$rc" = 77 ] && [ -s /tmp/skip ]; then
		skip=$(cat /tmp/skip)
		rc=0
	fi
	# the case's own last word, so that a summary (CI's) says why
	said=$(sed -n 's/^FAIL: //p' /tmp/case.out | tail -n 1 | cut -c1-200)
	[ "$rc" = 0 ] || why="exit status $rc${said:+ (FAIL: $said)}"
	[ "$rc" = 137 ] && why="timed out after ${lim}s ($tmo s x pace $factor)$(sed -n 's/^casewatch: timed out after [0-9]* s\(.*\)/\1/p' /tmp/case.out | head -n 1)"
	left=$(unload_leftovers)
	[ -n "$left" ] && why="${why:+$why; }left loaded: $left"
	if dmesg | grep -E "$BAD" > /tmp/bad; then
		why="${why:+$why; }kernel log: $(head -n 1 /tmp/bad)"
	fi
	if [ -n "$why" ]; then
		out "KJIT-RESULT FAIL $name $why"
	elif [ -n "$skip" ]; then
		out "KJIT-RESULT SKIP $name $skip"
	else
		out "KJIT-RESULT PASS $name"
	fi
done < /tests/list
out "KJIT-DONE at $(cut -d' ' -f1 /proc/uptime)s"
sync
poweroff -f
