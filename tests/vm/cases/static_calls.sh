# static_calls - kernel code that changes under us, the static_call kind.
# With the preemption model "voluntary", might_sleep() in mutex_lock calls
# __cond_resched through an inline static_call site; switching the model to
# "full" rewrites every such site into `xor %eax,%eax`, and back again.
# kjit deep-translates read's call tree (mutex_lock included) under
# "voluntary", then the model is switched while kjit stays attached: the
# translated code must stop calling __cond_resched exactly when native code
# does, and start again after the switch back. A Kprobe (kprobe_events,
# independent of kjit) counts the calls of __cond_resched. The trampoline
# of the NULL static call preempt_schedule (a ret under "voluntary") is
# translated with a guard: counted under "voluntary", never under "full".
# timeout: 200
. /tests/lib.sh
P=/sys/kernel/debug/sched/preempt
T=/sys/kernel/tracing
uname -v | grep -q PREEMPT_RT && skip "PREEMPT_RT: the preemption model is full, never switched"
[ -w $P ] || fail "no $P (the kernel has CONFIG_PREEMPT_DYNAMIC)"
grep -qw voluntary $P || skip "no voluntary preemption model to switch to ($(cat $P))"
echo voluntary > $P || fail "set voluntary"
hits() { awk '$1 == "kjit_cr" { print $2 }' $T/kprobe_profile; }
load_kjit
kjit attach --deep __x64_sys_read > /dev/null || fail "attach"
workload -c 0 piperead 300 || fail "warm-up" # mutex_lock etc. translated now
# the Kprobe goes whatever happens: left armed, it made every later case
# of the boot see __cond_resched "held by a Kprobe", and its trace events
# filled the buffer static_keys greps
trap 'echo 0 > $T/events/kjit/kjit_cr/enable 2> /dev/null; echo "-:kjit/kjit_cr" >> $T/kprobe_events 2> /dev/null' EXIT
echo 'p:kjit/kjit_cr __cond_resched' >> $T/kprobe_events || fail "kprobe"
echo 1 > $T/events/kjit/kjit_cr/enable || fail "enable kprobe"
kjit reset
# calls during one workload run only (switching the model calls it too)
calls() { a=$(hits); workload -c 0 piperead 300 || fail "reads ($1)"; b=$(hits); echo $((b - a)); }
# preempt_enable() calls the NULL static call preempt_schedule's
# trampoline (a ret) under "voluntary", translated with a guard against
# NULL; under "full" it jumps to preempt_schedule and the guard sends every
# call to it natively, so its translation counts nothing more
# (a pipe ping-pong on one CPU: its wakeups make preempt_enable() call it)
tramp() { kjit report --live --csv | awk -F, '$1 == "__SCT__preempt_schedule" && $8 == 1 { n = $4 } END { print n + 0 }'; }
# (a pipe ping-pong on one CPU: some of its wakeups make preempt_enable()
# call it, 0-20 times in 300 round trips: up to 10 runs until one counts.
# Only lat_pipe's calls count: kjit report, a kjit process, is left out
# since kjit stopped counting itself, and the clean clone of 88a1775 once
# saw 0 in 5 runs after switching back)
pingpong() { lmbench -c 0 -n 300 -r 1 lat_pipe > /dev/null || fail "lat_pipe ($1)"; }
tramp_runs() {
	a=$(tramp)
	for i in 1 2 3 4 5 6 7 8 9 10; do
		pingpong "$1"
		b=$(tramp)
		[ "$b" -gt "$a" ] && break
	done
	echo $((b - a))
}
vol=$(calls voluntary)
tv=$(tramp_runs voluntary)
echo full > $P || fail "set full"
full=$(calls full)
t2=$(tramp)
pingpong full
pingpong full
t3=$(tramp)
echo voluntary > $P || fail "set voluntary again"
back=$(calls "voluntary again")
tb=$(tramp_runs "voluntary again")
kjit detach
echo "__SCT__preempt_schedule counted by kjit: voluntary +$tv, full +$((t3 - t2)) in 600 round trips, voluntary again +$tb"
[ "$tv" -ge 1 ] || fail "the NULL trampoline was not run translated under voluntary"
[ $((t3 - t2)) -eq 0 ] || fail "the translated NULL trampoline ran under full: its guard let $((t3 - t2)) call(s) through"
[ "$tb" -ge 1 ] || fail "the NULL trampoline was not run translated again after switching back"
# the mutex's entry: mutex_lock_nested where lockdep is on (make sanitize)
mfn=$(first_func mutex_lock_nested mutex_lock)
ml=$(kjit report --live --csv | awk -F, -v f="$mfn" '$1 == f && $2 == "0x0" { print $4 }')
echo 0 > $T/events/kjit/kjit_cr/enable
echo '-:kjit/kjit_cr' >> $T/kprobe_events
unload_kjit
echo "__cond_resched calls per 300 reads: voluntary $vol, full $full," \
	"voluntary again $back; $mfn entries counted by kjit: $ml"
[ "${ml:-0}" -ge 900 ] || fail "$mfn was not run from the cache (${ml:-none})"
[ "$vol" -ge 300 ] || fail "under voluntary the translated might_sleep() did not call __cond_resched ($vol)"
[ "$full" -lt 30 ] || fail "translated code ran a stale static_call site: $full calls of __cond_resched under full"
[ "$back" -ge 300 ] || fail "after switching back, translated code did not call __cond_resched ($back)"
