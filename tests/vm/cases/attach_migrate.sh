# attach_migrate - a reader asleep in translated pipe_read is moved to the
# other CPU while it sleeps, every time, 200 times (workload op migrate):
# it wakes there and runs the rest of pipe_read from the first CPU's code
# cache (the return address from schedule() into that cache is on its
# stack), counting on the second CPU. Every block's count must still equal
# a Kprobe's exactly, the entry block's must be N: a per-CPU `incq %gs:`
# counts on the CPU that executes it, whichever cache the code is in. The
# same in deep mode, then with the old shared `lock incq` counters
# (kjit.lock_counters=1); `kjit stat` must say which counters were used.
# tcg: multi
# kernels: spot
# timeout: 600
. /tests/lib.sh
pr=$(pipe_read_fn) || fail "no pipe read function"
[ "$(grep -c ^processor /proc/cpuinfo)" -ge 2 ] || skip "needs two CPUs"
load_kjit
insmod /lib/kjit/kjit_kprobes.ko || fail "insmod kjit_kprobes.ko"
check() { # check WANT-COUNTERS KJITCOUNT-ARGS...
	want=$1
	shift
	kjitcount "$@" > /tmp/kc.out 2>&1
	rc=$?
	cat /tmp/kc.out
	[ $rc = 0 ] || fail "kjitcount $*"
	# warm-up, kjit and Kprobes runs: every read woke on the other CPU
	awk '/^migrate: / { runs++; if ($2 != $4) bad++ }
	     END { exit !(runs >= 3 && !bad) }' /tmp/kc.out ||
		fail "not every read migrated: $*"
	n=$(sed -n 's/^SUMMARY .*crosschecked=\([0-9]*\).*/\1/p' /tmp/kc.out)
	[ "${n:-0}" -gt 0 ] || fail "nothing cross-checked for $*"
	kjit stat > /tmp/st.out || fail "kjit stat"
	cat /tmp/st.out
	grep -q "^counters: $want" /tmp/st.out || fail "counters not $want"
}
check per-CPU -e -x migrate 200 "$pr"
# deep mode follows the scheduler: Kprobes only in pipe_read (-O), not on
# every context switch of the system
check per-CPU -e -x -O -d migrate 100 "$pr"
echo 1 > /sys/module/kjit/parameters/lock_counters ||
	fail "cannot set kjit.lock_counters"
check shared -e -x migrate 100 "$pr"
echo 0 > /sys/module/kjit/parameters/lock_counters
rmmod kjit_kprobes || fail "rmmod kjit_kprobes"
unload_kjit
