# attached_callee - translated code calling another attached function goes
# through that function's ftrace site, like every other caller: a Kprobe on
# pipe_read's entry (an ftrace user sharing the site with kjit's diversion)
# must see every read while __x64_sys_read (deep) and pipe_read are both
# attached, and kjit must count pipe_read's blocks all the same. Both
# exactly: the Kprobe's events are filtered to the workload's command
# name, kjit records the workload alone, and each sees its 300 reads.
# timeout: 150
. /tests/lib.sh
pr=$(pipe_read_fn) || fail "no pipe read function"
T=/sys/kernel/tracing
load_kjit
echo "p:kjit/kjit_ac $pr" >> $T/kprobe_events || fail "kprobe"
echo 'comm == "workload"' > $T/events/kjit/kjit_ac/filter || fail "kprobe filter"
echo 1 > $T/events/kjit/kjit_ac/enable || fail "enable kprobe"
for mode in --deep ""; do
	echo > $T/trace
	kjit record $mode -f __x64_sys_read "$pr" -o /tmp/ac.data -- \
		workload -c 0 piperead 300 > /tmp/r.out 2>&1 ||
		{ cat /tmp/r.out; fail "record $mode"; }
	k=$(grep -c ' kjit_ac: ' $T/trace)
	n=$(entry_count_in /tmp/ac.data "$pr")
	echo "record ${mode:-(shallow)}: Kprobe on $pr hit $k times in the workload, kjit counted $pr's entry ${n:-0} times"
	[ "$k" = 300 ] || fail "${mode:-shallow}: calls from the cache skipped $pr's ftrace site ($k Kprobe hits for 300 reads)"
	[ "${n:-0}" = 300 ] || fail "${mode:-shallow}: $pr counted ${n:-0} times for 300 reads"
done
echo 0 > $T/events/kjit/kjit_ac/enable
echo '-:kjit/kjit_ac' >> $T/kprobe_events
unload_kjit
