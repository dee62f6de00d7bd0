# detach_tracers - detach_sleeping with another tracer holding the sleeper's
# return address off its stack: a kretprobe on schedule (rethook: the stack
# holds the kretprobe trampoline, the cache return address pipe_read's copy
# pushed is in the kretprobe's node) or the function-graph tracer on
# schedule (its ret_stack). Detach must move that address too: after
# detach, rmmod and a fresh insmod (new cache memory, int3-filled, may take
# the old addresses), the woken reader must complete natively.
# timeout: 200
. /tests/lib.sh
pr=$(pipe_read_fn) || fail "no pipe read function"
T=/sys/kernel/tracing
for holder in kretprobe fgraph; do
	if [ $holder = kretprobe ]; then
		echo 'r4096:kjit/kjit_sr schedule' >> $T/kprobe_events || fail "kretprobe"
		echo 1 > $T/events/kjit/kjit_sr/enable || fail "enable kretprobe"
	else
		echo schedule > $T/set_ftrace_filter || fail "filter"
		echo function_graph > $T/current_tracer || fail "function_graph"
	fi
	load_kjit
	kjit attach "$pr" > /dev/null || fail "$holder: attach"
	sleeper > /tmp/sleeper.out & s=$!
	sleep 1
	pid=$(sed -n 's/^child \([0-9]*\) asleep/\1/p' /tmp/sleeper.out)
	[ -n "$pid" ] || fail "$holder: no sleeping child"
	dmesg -c > /dev/null
	kjit detach || fail "$holder: detach"
	unload_kjit
	dmesg | grep 'moved out of the code cache' ||
		fail "$holder: no return address was moved"
	load_kjit
	kjit attach "$pr" > /dev/null || fail "$holder: attach again"
	kill -USR1 $s
	wait $s || fail "$holder: the sleeping reader did not complete"
	kjit detach
	unload_kjit
	if [ $holder = kretprobe ]; then
		echo 0 > $T/events/kjit/kjit_sr/enable
		echo '-:kjit/kjit_sr' >> $T/kprobe_events
	else
		echo nop > $T/current_tracer
		echo > $T/set_ftrace_filter
	fi
	echo "$holder: the reader completed"
done
