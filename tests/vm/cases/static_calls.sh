# static_calls - kernel code that changes under us, the static_call kind.
# With the preemption model "voluntary", might_sleep() in mutex_lock calls
# __cond_resched through an inline static_call site; switching the model to
# "full" rewrites every such site into `xor %eax,%eax`, and back again.
# kjit deep-translates read's call tree (mutex_lock included) under
# "voluntary", then the model is switched while kjit stays attached: the
# translated code must stop calling __cond_resched exactly when native code
# does, and start again after the switch back. A Kprobe (kprobe_events,
# independent of kjit) counts the calls of __cond_resched.
# timeout: 200
. /tests/lib.sh
P=/sys/kernel/debug/sched/preempt
T=/sys/kernel/tracing
[ -w $P ] || fail "no $P (the kernel has CONFIG_PREEMPT_DYNAMIC)"
echo voluntary > $P || fail "set voluntary"
hits() { awk '$1 == "kjit_cr" { print $2 }' $T/kprobe_profile; }
load_kjit
kjit attach --deep __x64_sys_read > /dev/null || fail "attach"
workload -c 0 piperead 300 || fail "warm-up" # mutex_lock etc. translated now
echo 'p:kjit/kjit_cr __cond_resched' >> $T/kprobe_events || fail "kprobe"
echo 1 > $T/events/kjit/kjit_cr/enable || fail "enable kprobe"
kjit reset
# calls during one workload run only (switching the model calls it too)
calls() { a=$(hits); workload -c 0 piperead 300 || fail "reads ($1)"; b=$(hits); echo $((b - a)); }
vol=$(calls voluntary)
echo full > $P || fail "set full"
full=$(calls full)
echo voluntary > $P || fail "set voluntary again"
back=$(calls "voluntary again")
kjit detach
ml=$(kjit report --live --csv | awk -F, '$1 == "mutex_lock" && $2 == "0x0" { print $4 }')
echo 0 > $T/events/kjit/kjit_cr/enable
echo '-:kjit/kjit_cr' >> $T/kprobe_events
unload_kjit
echo "__cond_resched calls per 300 reads: voluntary $vol, full $full," \
	"voluntary again $back; mutex_lock entries counted by kjit: $ml"
[ "${ml:-0}" -ge 900 ] || fail "mutex_lock was not run from the cache (${ml:-none})"
[ "$vol" -ge 300 ] || fail "under voluntary the translated might_sleep() did not call __cond_resched ($vol)"
[ "$full" -lt 30 ] || fail "translated code ran a stale static_call site: $full calls of __cond_resched under full"
[ "$back" -ge 300 ] || fail "after switching back, translated code did not call __cond_resched ($back)"
