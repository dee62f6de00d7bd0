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

# unload_leftovers: unload our modules a case left loaded (kjit first: an
# attached kjit pins the module code it runs); prints their names.
# kjit_pool.ko (the code cache's memory, no code) may stay between cases.
unload_leftovers() {
	left=$(sed -n 's/^\(kjit[a-z_]*\) .*/\1/p' /proc/modules | grep -v '^kjit_pool$' | tr '\n' ' ')
	[ -n "$left" ] || return 0
	for m in kjit $left; do rmmod "$m" 2> /dev/null; done
	echo "${left% }"
}

out "KJIT-BOOT $(uname -r) cpus=$(nproc)"
while read -r name tmo; do
	dmesg -c > /dev/null
	rm -f /tmp/skip
	out "KJIT-BEGIN $name at $(cut -d' ' -f1 /proc/uptime)s"
	(cd /tmp && timeout -s KILL "$tmo" sh "/tests/cases/$name.sh" 2>&1; echo $? > /tmp/rc) |
		tee /dev/ttyS1 > /dev/console
	rc=$(cat /tmp/rc)
	why="" skip=""
	if [ "$rc" = 77 ] && [ -s /tmp/skip ]; then
		skip=$(cat /tmp/skip)
		rc=0
	fi
	[ "$rc" = 0 ] || why="exit status $rc"
	[ "$rc" = 137 ] && why="timed out after ${tmo}s"
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
