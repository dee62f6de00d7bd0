# attached_callee - translated code calling another attached function goes
# through that function's ftrace site, like every other caller: a Kprobe on
# pipe_read's entry (an ftrace user sharing the site with kjit's diversion)
# must see every read while __x64_sys_read (deep) and pipe_read are both
# attached, and kjit must count pipe_read's blocks all the same.
# timeout: 150
. /tests/lib.sh
pr=$(pipe_read_fn) || fail "no pipe read function"
T=/sys/kernel/tracing
hits() { awk '$1 == "kjit_ac" { print $2 }' $T/kprobe_profile; }
body() { entry_count "$pr"; }
load_kjit
echo "p:kjit/kjit_ac $pr" >> $T/kprobe_events || fail "kprobe"
echo 1 > $T/events/kjit/kjit_ac/enable || fail "enable kprobe"
for mode in --deep ""; do
	k0=$(hits)
	kjit attach $mode __x64_sys_read "$pr" > /dev/null || fail "attach $mode"
	workload -c 0 piperead 300 || fail "reads"
	kjit detach
	k=$(( $(hits) - k0 )) n=$(body)
	echo "attach ${mode:-(shallow)}: Kprobe on $pr hit $k times, kjit counted $pr's entry ${n:-0} times"
	[ "$k" -ge 300 ] || fail "${mode:-shallow}: calls from the cache skipped $pr's ftrace site ($k Kprobe hits for 300 reads)"
	[ "${n:-0}" -ge 300 ] || fail "${mode:-shallow}: $pr not counted (${n:-0})"
done
echo 0 > $T/events/kjit/kjit_ac/enable
echo '-:kjit/kjit_ac' >> $T/kprobe_events
unload_kjit
