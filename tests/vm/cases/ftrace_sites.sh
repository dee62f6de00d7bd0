# ftrace_sites - kernel code that changes under us, the ftrace kind: a
# followed callee's __fentry__ site enabled after kjit translated the
# callee. Deep-attached at __x64_sys_read, pipe_read runs from the cache;
# then a Kprobe goes on pipe_read's entry (kprobe_events: the kernel turns
# pipe_read's fentry nop into a call) and every read must hit it, as
# natively: the translation's entry guard sends pipe_read native while its
# site is in use, and kjit says so (fallback ftrace_site). With the Kprobe
# gone, pipe_read runs from the cache again. Then the same with an IPMODIFY
# ftrace user on pipe_read, the way livepatch holds a function. Last, an
# int3 Kprobe inside pipe_read, which no copy can hit: kjit stat warns.
# timeout: 200
. /tests/lib.sh
pr=$(pipe_read_fn) || fail "no pipe read function"
T=/sys/kernel/tracing
hits() { awk '$1 == "kjit_pr" { print $2 }' $T/kprobe_profile; }
entries() { entry_count "$pr"; }
guarded() { kjit stat | awk '$1 == "fallback" && $2 == "ftrace_site" { print $3 }'; }
load_kjit
kjit attach --deep __x64_sys_read > /dev/null || fail "attach"
workload -c 0 piperead 300 || fail "warm-up"
kjit reset
workload -c 0 piperead 300 || fail "reads"
e0=$(entries) g0=$(guarded)
echo "p:kjit/kjit_pr $pr" >> $T/kprobe_events || fail "kprobe"
echo 1 > $T/events/kjit/kjit_pr/enable || fail "enable kprobe"
kjit reset
workload -c 0 piperead 300 || fail "reads under the Kprobe"
k1=$(hits) e1=$(entries) g1=$(guarded)
echo 0 > $T/events/kjit/kjit_pr/enable
echo '-:kjit/kjit_pr' >> $T/kprobe_events
kjit reset
workload -c 0 piperead 300 || fail "reads after the Kprobe"
e2=$(entries) g2=$(guarded)
insmod /lib/kjit/kjit_ipmodify.ko func="$pr" || fail "IPMODIFY on a followed callee"
kjit reset
workload -c 0 piperead 300 || fail "reads under IPMODIFY"
e3=$(entries) g3=$(guarded)
rmmod kjit_ipmodify
# An int3 Kprobe (not at the fentry site) armed inside pipe_read after it
# was translated: the cache's copy cannot hit it, and kjit must say so.
off=$(kjit report --live --csv | awk -F, -v f="$pr" '$1 == f && $8 == 0 { print $2; exit }')
kjit stat | grep -q "^warning:" && fail "warning before any Kprobe"
echo "p:kjit/kjit_mid $pr+$off" >> $T/kprobe_events || fail "mid-function kprobe at +$off"
echo 1 > $T/events/kjit/kjit_mid/enable || fail "enable mid-function kprobe"
kjit stat > /tmp/st.out
echo 0 > $T/events/kjit/kjit_mid/enable
echo '-:kjit/kjit_mid' >> $T/kprobe_events
grep "^warning:" /tmp/st.out
grep -q "warning: 1 int3 Kprobe(s) armed inside translated code" /tmp/st.out ||
	fail "a Kprobe armed inside translated code went unnoticed"
kjit detach
unload_kjit
echo "$pr entries counted by kjit / sent native by the guard:" \
	"before $e0/$g0, Kprobe on $e1/$g1 (Kprobe hits $k1)," \
	"Kprobe off $e2/$g2, IPMODIFY $e3/$g3"
# (the counts include the shell's own reads from command substitution
# pipes, so each is at least the workload's 300, not exactly 300)
[ "${e0:-0}" -ge 300 ] && [ "$g0" = 0 ] || fail "$pr did not run from the cache before"
[ "$k1" -ge 300 ] || fail "the Kprobe enabled after translation missed reads: $k1 hits"
[ "${e1:-0}" = 0 ] && [ "$g1" -ge 300 ] || fail "guard did not send $pr native"
[ "${e2:-0}" -ge 300 ] && [ "$g2" = 0 ] || fail "$pr did not come back to the cache"
[ "${e3:-0}" = 0 ] && [ "$g3" -ge 300 ] || fail "IPMODIFY holder bypassed by the cache"
