# attached_callee - translated code calling another attached function goes
# through that function's ftrace site, like every other caller: a Kprobe on
# pipe_read's entry (an ftrace user sharing the site with kjit's diversion)
# must see every read while __x64_sys_read (deep) and pipe_read are both
# attached, and kjit must count pipe_read's blocks all the same.
# timeout: 150
. /tests/lib.sh
T=/sys/kernel/tracing
hits() { awk '$1 == "kjit_ac" { print $2 }' $T/kprobe_profile; }
body() { entry_count pipe_read; }
load_kjit
echo 'p:kjit/kjit_ac pipe_read' >> $T/kprobe_events || fail "kprobe"
echo 1 > $T/events/kjit/kjit_ac/enable || fail "enable kprobe"
for mode in --deep ""; do
	k0=$(hits)
	kjit attach $mode __x64_sys_read pipe_read > /dev/null || fail "attach $mode"
	workload -c 0 piperead 300 || fail "reads"
	kjit detach
	k=$(( $(hits) - k0 )) n=$(body)
	echo "attach ${mode:-(shallow)}: Kprobe on pipe_read hit $k times, kjit counted pipe_read's entry ${n:-0} times"
	[ "$k" -ge 300 ] || fail "${mode:-shallow}: calls from the cache skipped pipe_read's ftrace site ($k Kprobe hits for 300 reads)"
	[ "${n:-0}" -ge 300 ] || fail "${mode:-shallow}: pipe_read not counted (${n:-0})"
done
echo 0 > $T/events/kjit/kjit_ac/enable
echo '-:kjit/kjit_ac' >> $T/kprobe_events
unload_kjit
