# deep_schedule - deep mode follows schedule() and __schedule(): a task that
# blocks under an attached root switches out inside translated code and
# resumes there. A pipe ping-pong under deep read and write roots: the
# entry blocks of schedule and __schedule count at least once a round trip,
# the context switch's callee (the fair class's pick) is counted, and the
# ping-pongs complete. Then, with a reader asleep
# in __schedule's translated code (its switch frame returns into the cache),
# detach and rmmod: its return addresses move back to the original code and
# it completes natively when woken (as detach_sleeping, one level deeper).
# The switch itself (__switch_to_asm, __switch_to) is translated too: a
# switch from translated __schedule runs it from the cache, the next task's
# half included. Both vCPUs run the workloads.
# tcg: multi
# kernels: spot
# timeout: 300
. /tests/lib.sh
load_kjit
kjit attach --deep __x64_sys_read __x64_sys_write > /tmp/a.out || fail "attach"
lmbench -c 0 -n 20 -r 1 lat_pipe > /dev/null || fail "lmbench warm-up"
kjit reset > /dev/null
# 200 round trips on one CPU: at least one of the two blocks in read()
# each trip (the other may be preempted instead, natively: preemption
# enters __schedule through preempt_schedule, kept native)
lmbench -c 0 -n 200 -r 1 lat_pipe || fail "lat_pipe"
for f in schedule __schedule; do
	n=$(entry_count $f)
	echo "$f entry counted ${n:-0} time(s) for 200 round trips"
	[ "${n:-0}" -ge 200 ] || fail "$f counted ${n:-0} times for 200 round trips"
done
# the fair class's pick: pick_next_task_fair up to 6.12; 7.2's
# __pick_next_task calls pick_task_fair (and put_prev/set_next) instead
picks=0
for f in pick_next_task_fair __pick_next_task_fair pick_task_fair; do
	n=$(entry_count $f)
	echo "$f entry counted ${n:-0} time(s) for 200 round trips"
	picks=$((picks + ${n:-0}))
done
[ "$picks" -ge 1 ] || fail "the fair class's pick never counted: the switch ran natively"
# the switch is followed too: __switch_to_asm, called from translated
# __schedule, and __switch_to, which it tail-calls (the only way into
# __switch_to from the cache: the two counts are equal in one report)
kjit report --live --csv > /tmp/r.csv
count_in() { awk -F, -v f="$1" -v e="$2" '{ n = $1; sub(/ \[.*\]$/, "", n) }
	n == f && (e == "" || $8 == 1) { print $2, $4 }' /tmp/r.csv; }
sw=$(count_in __switch_to_asm 1 | cut -d' ' -f2)
st=$(count_in __switch_to 1 | cut -d' ' -f2)
echo "__switch_to_asm entered ${sw:-0} time(s), __switch_to ${st:-0}"
[ "${sw:-0}" -ge 200 ] || fail "__switch_to_asm counted ${sw:-0} times for 200 round trips"
[ "${sw:-0}" = "${st:-0}" ] || fail "__switch_to_asm entered $sw times but __switch_to $st"
# its return stack buffer filling runs translated: 16 rounds of two
# `call 1f; int3; 1:` slots a switch (FILL_RETURN_BUFFER, patched in where
# the CPU needs it: QEMU's -cpu max does on both kernels); were a slot a
# call exit, the rest of the switch would run natively
echo "__switch_to_asm blocks (offset count):"; count_in __switch_to_asm | head -n 12
most=$(count_in __switch_to_asm | awk '$2 > m { m = $2 } END { print m + 0 }')
[ "$most" -ge $((16 * sw)) ] ||
	fail "no block of __switch_to_asm ran 16 times a switch (most: $most): its return stack buffer filling ran natively"
kjit stat | grep -E '^deep mode|^nothing ran|natively' | head -n 4
# more switching: a context-switch ring, then the ping-pong on two CPUs
lmbench -c 0 -n 200 -r 1 lat_ctx_2p_0k || fail "lat_ctx on one CPU"
lmbench -n 200 -r 1 lat_pipe || fail "lat_pipe on two CPUs"
kjit detach > /dev/null || fail "detach"
unload_kjit
for how in detach rmmod; do
	load_kjit
	kjit attach --deep __x64_sys_read > /dev/null || fail "attach ($how)"
	sleeper > /tmp/sleeper.out & s=$!
	sleep 1
	pid=$(sed -n 's/^child \([0-9]*\) asleep/\1/p' /tmp/sleeper.out)
	[ -n "$pid" ] || fail "no sleeping child"
	cat /proc/$pid/stack 2>/dev/null | head -n 4
	dmesg -c > /dev/null
	[ $how = detach ] && { kjit detach > /dev/null || fail "detach"; }
	unload_kjit
	dmesg | grep 'moved out of the code cache' ||
		fail "$how: no return address was moved"
	kill -USR1 $s
	wait $s || fail "$how: the reader asleep in __schedule did not complete natively"
	echo "$how: $(cat /tmp/sleeper.out | tail -n 1)"
done
