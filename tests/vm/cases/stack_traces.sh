# stack_traces - pins what a stack trace shows today (docs/design.md, "Stack
# traces"). A reader asleep in pipe_read: natively /proc/PID/stack shows
# pipe_read < vfs_read < ksys_read. While read is deep-attached, its frames
# return into the code cache, which the ORC unwinder does not know: the
# trace stops at the first such frame and shows none of them (a known loss).
# After detach the cache return addresses are rewritten to the original
# ones, and the same sleeping task's trace is whole again. The same for a
# perf-style callchain: a Kprobe with a stacktrace trigger on pipe_read (a
# followed callee: its entry guard runs it natively under the Kprobe) shows
# vfs_read above it natively, stops at the cache frame while attached, and
# is whole again after detach.
# timeout: 120
. /tests/lib.sh
# start_sleeper OUTFILE: sets s (the sleeper) and p (its child, asleep in
# pipe_read).
start_sleeper() {
	sleeper > $1 &
	s=$!
	sleep 1
	p=$(sed -n 's/^child \([0-9]*\) asleep/\1/p' $1)
	[ -n "$p" ] || fail "no sleeping child"
}
chain() { grep -q 'pipe_read+' $1 && grep -q 'vfs_read+' $1 && grep -q 'ksys_read+' $1; }
load_kjit
start_sleeper /tmp/s0.out
cat /proc/$p/stack > /tmp/native.stk
kill -USR1 $s
wait $s || fail "native sleeper"
chain /tmp/native.stk || { cat /tmp/native.stk; fail "native trace lacks the read chain"; }
kjit attach --deep __x64_sys_read > /dev/null || fail "attach"
start_sleeper /tmp/s1.out
cat /proc/$p/stack > /tmp/attached.stk
kjit detach || fail "detach"
cat /proc/$p/stack > /tmp/after.stk
kill -USR1 $s
wait $s || fail "the reader did not complete after detach"
echo "== attached:"; cat /tmp/attached.stk
echo "== after detach:"; cat /tmp/after.stk
if grep -q 'pipe_read+' /tmp/attached.stk; then
	fail "the attached trace now shows pipe_read: the loss is gone, update this test and docs/design.md"
fi
chain /tmp/after.stk || fail "after detach the trace is not whole again"

T=/sys/kernel/tracing
E=$T/events/kjit/kjit_stk
# callchain FILE: the first pipe_read stack trace of a one-byte pipe read
callchain() {
	echo > $T/trace
	echo 1 > $E/enable
	workload -c 0 piperead 1 || fail "read for $1"
	echo 0 > $E/enable
	grep -m 1 -A 10 '<stack trace>' $T/trace > $1
}
echo 'p:kjit/kjit_stk pipe_read' >> $T/kprobe_events || fail "kprobe event"
echo stacktrace > $E/trigger || fail "stacktrace trigger"
callchain /tmp/native.cc
kjit attach --deep __x64_sys_read > /dev/null || fail "attach for callchains"
workload -c 0 piperead 10 || fail "warm-up"
callchain /tmp/attached.cc
kjit detach || fail "detach"
callchain /tmp/after.cc
echo '!stacktrace' > $E/trigger
echo '-:kjit/kjit_stk' >> $T/kprobe_events
echo "== callchains (native, attached, after detach):"
cat /tmp/native.cc /tmp/attached.cc /tmp/after.cc
grep -q '=> vfs_read' /tmp/native.cc || fail "native callchain lacks vfs_read"
if grep -q '=> vfs_read' /tmp/attached.cc; then
	fail "the attached callchain now shows vfs_read: the loss is gone, update this test and docs/design.md"
fi
grep -q '=> pipe_read' /tmp/attached.cc || fail "no callchain from pipe_read while attached"
grep -q '=> vfs_read' /tmp/after.cc || fail "after detach the callchain is not whole again"
unload_kjit
