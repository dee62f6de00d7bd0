# exit_roots - an attached function that a dying task calls after
# exit_notify() runs natively: the entry trampoline sends a task whose
# exit_state is set back to the original code at once, and counts the call
# in that function's native row, reason "exiting" (codecache/entry.h).
# Such a task may be unhashed already (a self-reaping thread is), where
# detach's quiesce cannot find a cache return address on its stack, and on
# 6.12 RCU-tasks lets an exiting task go at its first voluntary switch;
# before, it ran the function from the cache.
# do_exit() and proc_exit_connector() (which do_exit calls once, after
# exit_notify()) attached as roots, children fork and exit: do_exit is
# entered from the cache N times (alive then), proc_exit_connector N times
# natively (N - 1: one exit in flight at detach) and never from the
# cache; kjit stat and the report say so.
# Then the same under detach cycles while threads (self-reaping) exit.
# tcg: multi
# timeout: 300
. /tests/lib.sh
pec=proc_exit_connector
# before loading: a skip that leaves kjit.ko loaded fails the boot's check
first_func $pec > /dev/null || skip "no $pec in this kernel (CONFIG_PROC_EVENTS off)"
load_kjit
kjit attach do_exit $pec > /dev/null || fail "attach"
workload -c 0 forkexit 50 || fail "forkexit"
sleep 1 # the last child calls proc_exit_connector after its parent woke
kjit detach || fail "detach"
# read after detach: the counts no longer move (each kjit read is a
# process that exits, and its exit would be counted while attached)
kjit report --live --json > /tmp/r.json || fail "json report"
kjit report --live > /tmp/r.txt || fail "report"
kjit stat > /tmp/s.out || fail "stat"
fn() { grep "\"name\": \"$1\"" /tmp/r.json | sed -n "s/.*\"$2\": \([0-9]*\).*/\1/p" | head -n 1; }
calls=$(fn do_exit calls) pcalls=$(fn $pec calls) pexec=$(fn $pec executions)
exiting=$(fn $pec exiting)
echo "do_exit entered $calls x from the cache; $pec: $pcalls calls, $pexec block executions from the cache, $exiting native (exiting)"
[ -n "$calls" ] && [ "$calls" -ge 50 ] || fail "do_exit entered ${calls:-?} times, want >= 50"
[ "$pexec" = 0 ] || fail "$pec ran from the cache for a dying task ($pexec block executions)"
# every do_exit calls proc_exit_connector once, after exit_notify(): as
# many exiting runs as do_exit entries, but for one exit that may be in
# flight at detach (a process that exited during `sleep`: its do_exit
# entered, its proc_exit_connector after the detach)
[ -n "$exiting" ] && [ "$exiting" -le "$calls" ] && [ "$exiting" -ge $((calls - 1)) ] ||
	fail "$pec ran natively ${exiting:-?} times as exiting, do_exit was entered $calls times"
grep "fallback exiting" /tmp/s.out || fail "kjit stat has no exiting line"
grep -q "fallback exiting *$exiting " /tmp/s.out || fail "kjit stat's exiting count is not $exiting"
grep -A1 "^$pec " /tmp/r.txt | grep "ran natively ${exiting}x: called by a task past exit_notify()" ||
	{ cat /tmp/r.txt; fail "the report does not say why $pec ran natively"; }

# self-reaping threads exit while kjit attaches and detaches
(while :; do workload -c 1 threadpid 1 || exit 1; done) & w=$!
i=0
while [ $i -lt 10 ]; do
	kjit attach do_exit $pec > /dev/null || fail "attach, cycle $i"
	workload -c 0 forkexit 10 || fail "forkexit, cycle $i"
	kjit detach || fail "detach, cycle $i"
	i=$((i + 1))
done
kill -0 $w || fail "the thread workload died"
kill $w
unload_kjit
echo "10 attach/detach cycles while threads exit"
