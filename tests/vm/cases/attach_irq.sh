# attach_irq - functions that run in hardirq context (hrtimer_wakeup, from the
# hrtimer interrupt that ends a nanosleep) and in softirq context
# (run_timer_softirq) run from the code cache: the dispatcher translates and
# counts in those contexts too. Other timers fire as well, so the counts are
# lower bounds: every one of the 500 sleeps wakes through hrtimer_wakeup,
# and the timer softirq runs at least once.
# kernels: spot
# timeout: 200
. /tests/lib.sh
load_kjit
kjit attach hrtimer_wakeup run_timer_softirq || fail "attach"
workload -c 0 nanosleep 500 || fail "workload"
kjit detach
kjit report --live --csv > /tmp/r.out || fail "report"
cat /tmp/r.out
kjit stat | tee /tmp/s.out
hw=$(awk -F, '$1 == "hrtimer_wakeup" && $8 == 1 {print $4}' /tmp/r.out)
sw=$(awk -F, '$1 == "run_timer_softirq" && $8 == 1 {print $4}' /tmp/r.out)
echo "hrtimer_wakeup entries: ${hw:-0}, run_timer_softirq entries: ${sw:-0}"
[ "${hw:-0}" -ge 500 ] || fail "hrtimer_wakeup counted ${hw:-0} < 500 wakeups"
[ "${sw:-0}" -ge 1 ] || fail "run_timer_softirq never counted"
grep -q '^  fallback refused  *0 ' /tmp/s.out || echo "(some blocks refused, ran natively)"
unload_kjit
