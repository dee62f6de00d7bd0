# exit_tail_full - the table of dying tasks full (kmod/exittail.h): with
# kjit.exit_tail_max=1 a dying task that finds the one slot taken (another
# task in the rest of its do_exit() at the same time) leaves the cache at
# do_exit()'s call of exit_tasks_rcu_start(), as every task did before:
# the helper returns to the original code after the call. Children fork
# and exit on both vCPUs until some did; then kjit stat, the report's line
# under do_exit and the limits line of detach say how many, and the
# do_exit calls are accounted for: stayed + left is do_exit's entries but
# for the few still before the call at detach (moved native). Then 5
# attach/detach cycles with the one slot contended while threads reap
# themselves, and the kernel log stays clean.
# tcg: multi
# timeout: 300
. /tests/lib.sh
load_kjit exit_tail_max=1
kjit attach --deep __x64_sys_exit_group __x64_sys_exit > /dev/null || fail "deep attach"
workload -c 0 forkexit 100000000 & w0=$!
workload -c 1 forkexit 100000000 & w1=$!
i=0 left=0
while [ $i -lt 60 ]; do
	kjit stat > /tmp/s.txt || fail "stat"
	left=$(sed -n 's/^dying tasks: [0-9]* ran the rest of do_exit() from the cache, \([0-9]*\) left.*/\1/p' /tmp/s.txt)
	[ "${left:-0}" -gt 0 ] && break
	sleep 1
	i=$((i + 1))
done
kill $w0 $w1
wait $w0 $w1 2> /dev/null
grep '^dying tasks: ' /tmp/s.txt || { cat /tmp/s.txt; fail "kjit stat says nothing of dying tasks"; }
[ "${left:-0}" -gt 0 ] || fail "no dying task found the one slot taken in 60 s"
grep -q '(no slot free in the table of dying tasks, 1 at once)' /tmp/s.txt ||
	fail "kjit stat does not give the table's size (1)"
kjit detach > /tmp/d.txt 2>&1 || { cat /tmp/d.txt; fail "detach"; }
cat /tmp/d.txt
grep -q '[0-9]* dying task(s) ran the rest of do_exit() natively because the table of dying tasks was full (limit 1 tasks at once' /tmp/d.txt ||
	fail "detach does not say that dying tasks left for want of a slot"
kjit report --live > /tmp/r.txt || fail "report"
grep 'the rest after its call of exit_tasks_rcu_start ran natively for [0-9]* dying task(s): no slot was free in the table of dying tasks (1 at once)' /tmp/r.txt ||
	fail "the report does not say it under do_exit"
kjit stat > /tmp/s.txt || fail "stat after detach"
set -- $(sed -n 's/^dying tasks: \([0-9]*\) ran the rest of do_exit() from the cache, \([0-9]*\) left.*/\1 \2/p' /tmp/s.txt)
stayed=$1 left=$2
calls=$(entry_count do_exit)
echo "dying tasks: $stayed stayed, $left left; do_exit entered ${calls:-?}x"
[ "$stayed" -gt 0 ] && [ "$left" -gt 0 ] || fail "want both: $stayed stayed, $left left"
[ -n "$calls" ] && [ $((stayed + left)) -le "$calls" ] && [ $((calls - stayed - left)) -le 8 ] ||
	fail "do_exit entered ${calls:-?}x from the cache, but $stayed + $left dying tasks reached the helper"

workload -c 0 forkexit 100000000 & w0=$!
workload -c 1 forkexit 100000000 & w1=$!
i=0
while [ $i -lt 5 ]; do
	kjit attach --deep __x64_sys_exit_group __x64_sys_exit > /dev/null ||
		fail "attach, cycle $i"
	workload -c 1 threadpid 20 || fail "threads under kjit, cycle $i"
	kjit detach > /dev/null || fail "detach, cycle $i"
	i=$((i + 1))
done
kill -0 $w0 && kill -0 $w1 || fail "a background workload died"
kill $w0 $w1
wait $w0 $w1 2> /dev/null
unload_kjit
echo "5 deep attach/detach cycles with the one slot contended"
