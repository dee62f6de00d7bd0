# dispatch_recursion - a function kjit's dispatcher itself calls, attached
# next to a deep root: the dispatcher enters it (deep mode looks callees up
# with kallsyms_lookup_size_offset), its diversion re-enters the dispatcher,
# and that nested entry must run natively (busy) instead of recursing until
# the stack overflows. Counts under the root stay exact meanwhile: recorded
# for the workload's process alone, getpid's entry ran exactly 300 times.
# kernels: spot
# timeout: 120
. /tests/lib.sh
load_kjit
kjit record --deep -f __x64_sys_getpid kallsyms_lookup_size_offset \
	-o /tmp/r.data -- workload -c 0 getpid 300 > /tmp/r.out 2>&1 ||
	{ cat /tmp/r.out; fail "record --deep __x64_sys_getpid kallsyms_lookup_size_offset"; }
n=$(entry_count_in /tmp/r.data __x64_sys_getpid)
echo "__x64_sys_getpid entry: $n for 300 calls"
[ "${n:-0}" = 300 ] || fail "getpid entry counted ${n:-0} times for 300 calls"
unload_kjit
