# stress - both vCPUs run a mix of system calls (pipe ping-pong, open+close,
# fstat, nanosleep, fork+exit) while kjit attaches deep to their syscall
# entry points and detaches, over and over, with rmmod every few cycles.
# In every cycle an independent count checks kjit: 1000 getpid calls made
# while attached must count exactly 1000 at __x64_sys_getpid's entry (the
# background mix never calls getpid). Meanwhile other tracers hold return
# addresses of the tasks inside the cache (a kretprobe on schedule, the
# function-graph tracer on do_nanosleep), and every cycle tries to attach
# an idle-path function, which must be refused. The guest log must stay
# clean.
# Length: KJIT_STRESS_SECS of guest time (default 180), set by the caller
# through /tests/stress.conf; kjit.ko is unloaded every RMMOD_EVERY cycles
# (KJIT_STRESS_RMMOD_EVERY, default 1: every cycle; more makes more
# attach/detach cycles in the time). Under KJIT_VM_APPEND=preempt=full
# (the preemption model is printed first) a task can be preempted
# anywhere in the dispatcher's fast path while detach quiesces.
# tcg: multi
# timeout: 1800
. /tests/lib.sh
SECS=180 RMMOD_EVERY=1
[ -f /tests/stress.conf ] && . /tests/stress.conf
echo "preemption: $(cat /sys/kernel/debug/sched/preempt 2> /dev/null || echo unknown)"
mix() { # mix CPU: the background load of one vCPU, forever
	while :; do
		workload -c $1 pipe 500 && workload -c $1 openclose 200 &&
			workload -c $1 fstat 300 && workload -c $1 nanosleep 20 &&
			workload -c $1 forkexit 10 || echo "cpu $1" >> /tmp/mix-failed
	done
}
T=/sys/kernel/tracing
echo 'r64:kjit/kjit_stress schedule' >> $T/kprobe_events || fail "kretprobe"
echo 1 > $T/events/kjit/kjit_stress/enable || fail "enable kretprobe"
echo do_nanosleep > $T/set_ftrace_filter || fail "filter"
echo function_graph > $T/current_tracer || fail "function_graph"
rm -f /tmp/mix-failed
mix 0 & m0=$!
mix 1 & m1=$!
start=$(cut -d. -f1 /proc/uptime)
cycles=0
while [ $(( $(cut -d. -f1 /proc/uptime) - start )) -lt $SECS ]; do
	load_kjit
	kjit attach schedule_idle 2>&1 | grep -q "idle path" ||
		fail "cycle $cycles: schedule_idle not refused as idle path"
	kjit attach --deep __x64_sys_read __x64_sys_write __x64_sys_openat \
		__x64_sys_close __x64_sys_newfstat __x64_sys_nanosleep \
		__x64_sys_getpid > /dev/null || fail "attach, cycle $cycles"
	kjit reset || fail "reset"
	workload -c $((cycles % 2)) getpid 1000 || fail "getpid workload"
	sleep 1
	n=$(entry_count __x64_sys_getpid) # +5, or +9 behind endbr64 (IBT)
	[ "$n" = 1000 ] || fail "cycle $cycles: __x64_sys_getpid entry counted ${n:-nothing}, want 1000"
	kjit detach || fail "detach, cycle $cycles"
	[ $((cycles % 3)) = 2 ] && { kjit stat | grep -E 'translated|fallback (nested|refused|full)'; }
	[ $((cycles % RMMOD_EVERY)) = $((RMMOD_EVERY - 1)) ] && unload_kjit
	cycles=$((cycles + 1))
done
kill $m0 $m1
wait 2> /dev/null
unload_kjit
echo nop > $T/current_tracer
echo > $T/set_ftrace_filter
echo 0 > $T/events/kjit/kjit_stress/enable
echo '-:kjit/kjit_stress' >> $T/kprobe_events
echo "stress: $cycles deep attach/count/detach cycles (rmmod every $RMMOD_EVERY) in ${SECS}s with both vCPUs loaded"
[ -e /tmp/mix-failed ] && fail "a system call of the background mix failed: $(sort -u /tmp/mix-failed | tr '\n' ' ')"
[ $cycles -ge 3 ] || fail "too few cycles"
