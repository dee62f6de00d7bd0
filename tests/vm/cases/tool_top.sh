# tool_top - `kjit top`: the live view of an attached session. The session
# counts one process only (-p, held before its exec of 1000 getpid calls,
# as in scope.sh), so the calls of __x64_sys_getpid summed over the frames
# are exactly 1000, and so is what `kjit report --live` says after the
# last frame (frames are differences of two reads of the same counters).
# It stops at SIGTERM (timeout(1)) with status 0, by itself when the
# session is detached (saying so), and refuses a detached session.
# kernels: once
# timeout: 150
. /tests/lib.sh
calls() {
	kjit report --live --csv > /tmp/r.csv 2> /dev/null
	awk -F, '$1 == "__x64_sys_getpid" && $8 == 1 { s += $4 } END { print s + 0 }' /tmp/r.csv
}
wait_line() { # FILE TEXT: up to 30 s for TEXT to appear in FILE
	i=0
	while ! grep -q "$2" "$1" 2> /dev/null; do
		i=$((i + 1))
		[ $i -le 300 ] || return 1
		sleep 0.1
	done
}
load_kjit
rm -f /tmp/go; mkfifo /tmp/go || fail "mkfifo"
sh -c 'read x < /tmp/go; exec workload getpid 1000' & w=$!
for i in $(seq 50); do grep -q fifo /proc/$w/wchan 2> /dev/null && break; sleep 0.1; done
kjit attach -p $w __x64_sys_getpid > /dev/null || fail "attach -p $w"
kjit top -d 1 > /tmp/t.out 2> /tmp/t.err &
top=$!
wait_line /tmp/t.err 'a frame every 1.0 s (^C stops)' || fail "top did not start: $(cat /tmp/t.err)"
echo go > /tmp/go
wait $w || fail "the workload failed"
n=$(grep -c '^kjit top: frame' /tmp/t.out)
# a frame wholly after the workload: the last read follows it
wait_line /tmp/t.out "kjit top: frame $((n + 2))," || fail "no frame after the workload"
kill -TERM $top
wait $top
rc=$?
c=$(calls)
cat /tmp/t.err
head -n 12 /tmp/t.out
frames=$(grep -c '^kjit top: frame [0-9]*, [0-9.]* s: ' /tmp/t.out)
sum=$(awk '$1 == "__x64_sys_getpid" { s += $2 } END { print s + 0 }' /tmp/t.out)
echo "frames $frames; calls in the frames $sum; report --live after them $c"
[ $rc = 0 ] || fail "top stopped by SIGTERM exited $rc"
[ "$sum" = 1000 ] || fail "the frames' calls: $sum, not the workload's 1000"
[ "$c" = 1000 ] || fail "report --live: $c calls, not 1000"
grep -q '^__x64_sys_getpid+0x[0-9a-f]* ' /tmp/t.out || fail "no block row of __x64_sys_getpid"
grep -q '^$' /tmp/t.out || fail "frames not separated by a blank line (not a terminal)"

# detached under it: top ends by itself and says so
kjit top -d 0.5 > /dev/null 2> /tmp/t.err &
top=$!
wait_line /tmp/t.err 'a frame every' || fail "second top did not start"
kjit detach > /dev/null || fail "detach"
i=0
while kill -0 $top 2> /dev/null; do
	i=$((i + 1))
	[ $i -le 100 ] || { kill $top; fail "top went on after the detach"; }
	sleep 0.1
done
wait $top || fail "top exited $? after the detach: $(cat /tmp/t.err)"
grep -q 'kjit top: the session was detached' /tmp/t.err || fail "no word of the detach: $(cat /tmp/t.err)"
kjit top -n 1 > /dev/null 2> /tmp/t.err && fail "top of a detached session must fail"
grep -q 'kjit top: the session is detached' /tmp/t.err || fail "wrong refusal: $(cat /tmp/t.err)"
unload_kjit
