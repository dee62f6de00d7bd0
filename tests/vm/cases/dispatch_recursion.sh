# dispatch_recursion - a function kjit's dispatcher itself calls, attached
# next to a deep root: the dispatcher enters it (deep mode looks callees up
# with kallsyms_lookup_size_offset), its diversion re-enters the dispatcher,
# and that nested entry must run natively (busy) instead of recursing until
# the stack overflows. Counts under the root stay exact meanwhile.
# timeout: 120
. /tests/lib.sh
load_kjit
kjit attach --deep __x64_sys_getpid kallsyms_lookup_size_offset > /dev/null ||
	fail "attach --deep __x64_sys_getpid kallsyms_lookup_size_offset"
workload -c 0 getpid 300 || fail "getpid"
kjit detach || fail "detach"
kjit stat | grep -i 'nested' || true
n=$(entry_count __x64_sys_getpid)
echo "__x64_sys_getpid entry: $n of at least 300"
[ "${n:-0}" -ge 300 ] || fail "getpid entry counted ${n:-0} times for 300 calls"
unload_kjit
