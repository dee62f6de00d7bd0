# tool_compare - `kjit compare`: the same workload natively, under kjit and
# under Kprobes on kjit's block addresses; a verdict first, then counts
# side by side (equal for a pinned workload; a deep callee in one line),
# timing lines; without kjit_kprobes.ko a clear error.
# kernels: once
# timeout: 150
. /tests/lib.sh
load_kjit
rmmod kjit_kprobes 2> /dev/null
kjit compare -f ksys_read -- workload read 10 2> /tmp/e.out && fail "compare without kjit_kprobes.ko"
cat /tmp/e.out
grep -qx 'kjit compare: /dev/kjit_kprobes: not found: load the Kprobes companion module first (insmod kjit_kprobes.ko)' /tmp/e.out ||
	fail "missing companion message"
insmod /lib/kjit/kjit_kprobes.ko || fail "insmod kjit_kprobes"
kjit compare -f ksys_read vfs_read -n 2 -- workload -c 0 read 100 > /tmp/c.out || fail "compare"
cat /tmp/c.out
grep -q '^# kjit compare: 2 run(s) of: workload -c 0 read 100$' /tmp/c.out || fail "title"
e=ksys_read+$(entry_off ksys_read)
k=$(awk -v e="$e" '$1 == e {print $3}' /tmp/c.out)
p=$(awk -v e="$e" '$1 == e {print $4}' /tmp/c.out)
[ "${k:-0}" -ge 200 ] || fail "kjit counted ${k:-0} ksys_read entries < 200"
[ "${p:-0}" -ge 200 ] || fail "Kprobes counted ${p:-0} ksys_read entries < 200"
grep -Eq '^# [0-9]+ block\(s\), [0-9]+ compared, [0-9]+ mismatch\(es\), [0-9]+ not probed$' /tmp/c.out ||
	fail "summary line"
# every block agrees (a block inside a longer one counts the longer one's
# runs through it too, as a Kprobe at its address does)
grep -q '^# [0-9]* block(s), [0-9]* compared, 0 mismatch(es)' /tmp/c.out ||
	fail "kjit and Kprobes disagree: $(grep MISMATCH /tmp/c.out | head -n 3)"
# the verdict leads: right after the summary, before the table (issue 38
# item 9)
v=$(grep -n '^# verdict: ' /tmp/c.out | cut -d: -f1)
h=$(grep -n '^block ' /tmp/c.out | cut -d: -f1)
[ -n "$v" ] && [ -n "$h" ] && [ "$v" -lt "$h" ] || fail "no verdict before the table"
grep -Eq '^# verdict: kjit and Kprobes agree on every block of the attached functions \([0-9]+ agree exactly\)$' /tmp/c.out ||
	fail "verdict: $(grep '^# verdict' /tmp/c.out)"
# mode, median/min/max ms, events, added ns/event: a figure or "below
# noise (±X ns)", never negative; one warm-up run each, not measured
cost='([0-9]+\.[0-9]+|below noise \(±[0-9]+\.[0-9]+ ns\))'
grep -Eq '^native( +[0-9]+\.[0-9]+){3} +- +-$' /tmp/c.out || fail "native time"
grep -Eq "^kjit( +[0-9]+\.[0-9]+){3} +[0-9]+ +$cost\$" /tmp/c.out || fail "kjit time"
grep -Eq "^kprobes( +[0-9]+\.[0-9]+){3} +[0-9]+ +$cost\$" /tmp/c.out || fail "kprobes time"
grep -Eq '^# ratio kprobes/kjit \(added ns/event\): ([0-9]+\.[0-9]|>= [0-9]+\.[0-9] \(|n/a)' /tmp/c.out ||
	fail "ratio line"
grep -Eq '^# translation: [0-9.]+ ms in kjit.s warm-up run \(not measured\)' /tmp/c.out ||
	fail "translation line"
# --deep follows callees; a callee's rows may differ ("callee": its Kprobe
# also counts calls from elsewhere)
kjit compare --deep -f ksys_read -n 2 -- workload -c 0 read 50 > /tmp/d.out || fail "compare --deep"
grep -q '^# kjit compare --deep: 2 run(s) of: workload -c 0 read 50$' /tmp/d.out || fail "deep title"
grep -Eq ' (callee|ok)$' /tmp/d.out || fail "deep rows"
# a callee is one line, its blocks summed, and the kinds of row that
# occur are explained above the table
grep -Eq '^vfs_read \([0-9]+ blocks?\) +\(deep callee\) +[0-9]+ +([0-9]+  (callee|ok)|-  left out)$' /tmp/d.out ||
	fail "no one-line vfs_read callee row"
! grep -q '^vfs_read+0x' /tmp/d.out || fail "a callee's blocks listed one by one"
if grep -q ' callee$' /tmp/d.out; then
	grep -q '^#   callee: ' /tmp/d.out || fail "callee rows not explained"
fi
echo "deep compare: $(wc -l < /tmp/d.out) lines"
# on a lockdep kernel every lock runs lockdep's and the debug spinlocks'
# code, which deep mode follows: no Kprobe on any deep callee there (with
# them, the KASAN + lockdep kernel nested int3 past the NMI count, or
# crawled for over 30 minutes), each callee's row says "left out"
if [ -e /proc/lockdep ]; then
	grep -E '^lock_acquire \([0-9]+ blocks?\) +\(deep callee\) +[0-9]+ +-  left out$' /tmp/d.out ||
		fail "lock_acquire's blocks were probed (or not followed)"
	! grep -E '\(deep callee\)' /tmp/d.out | grep -v ' left out$' ||
		fail "a deep callee was probed on a lockdep kernel"
	grep -q '^#   left out: a deep callee on a lockdep kernel' /tmp/d.out ||
		fail "left-out rows not explained"
	grep -Eq '^# of those not probed, [0-9]+ left out: deep callees on a lockdep kernel' /tmp/d.out ||
		fail "no left-out count"
fi
kjit stat | grep -q 'state: detached' || fail "compare left kjit attached"
kjit compare -f ksys_read -n 0 -- true 2> /dev/null; [ $? = 2 ] || fail "-n 0: usage"
rmmod kjit_kprobes
unload_kjit
