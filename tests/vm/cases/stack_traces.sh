# stack_traces - pins what a stack trace shows today (docs/design.md, "Stack
# traces"). A reader asleep in pipe_read: natively /proc/PID/stack shows
# pipe_read < vfs_read < ksys_read. While read is deep-attached, its frames
# return into the code cache, which the ORC unwinder does not know: the
# trace stops at the first such frame and shows none of them (a known loss).
# After detach the cache return addresses are rewritten to the original
# ones, and the same sleeping task's trace is whole again.
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
unload_kjit
