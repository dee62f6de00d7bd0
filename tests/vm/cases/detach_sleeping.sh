# detach_sleeping - a task sleeping inside an instrumented function (blocked
# in pipe_read, called out of translated code) survives detach and rmmod:
# its cache return address is moved back to the original code, and it
# completes natively once woken. Once with detach then rmmod, once with
# rmmod straight away.
# tcg: multi
# kernels: spot
# timeout: 120
. /tests/lib.sh
pr=$(pipe_read_fn) || fail "no pipe read function"
for how in detach rmmod; do
	load_kjit
	kjit attach "$pr" > /dev/null || fail "attach"
	sleeper > /tmp/sleeper.out & s=$!
	sleep 1
	cat /tmp/sleeper.out
	pid=$(sed -n 's/^child \([0-9]*\) asleep/\1/p' /tmp/sleeper.out)
	[ -n "$pid" ] || fail "no sleeping child"
	grep -q "$pr" /proc/$pid/stack 2>/dev/null || cat /proc/$pid/stack
	dmesg -c > /dev/null
	[ $how = detach ] && { kjit detach || fail "detach"; }
	unload_kjit
	dmesg | grep 'moved out of the code cache' ||
		fail "$how: no return address was moved (the test did not exercise the path)"
	kill -USR1 $s
	wait $s || fail "$how: the sleeping reader did not complete natively"
	cat /tmp/sleeper.out
done
