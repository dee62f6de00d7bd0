# ipmodify_conflict - a function already redirected by someone else (an
# IPMODIFY ftrace user, as livepatch is) is refused cleanly: attach fails
# with one clear line and a non-zero status, nothing is left attached, and
# once the other user is gone the same attach works and counts.
# timeout: 120
. /tests/lib.sh
load_kjit
# ftrace knows the function by its first name at that address
insmod /lib/kjit/kjit_ipmodify.ko func=__do_sys_getpid || fail "insmod kjit_ipmodify.ko"
if kjit attach __x64_sys_getpid > /tmp/a.out 2>&1; then
	cat /tmp/a.out
	fail "attach succeeded on a function held by an IPMODIFY user"
fi
cat /tmp/a.out
[ "$(wc -l < /tmp/a.out)" -le 2 ] || fail "more than a clear line or two"
grep -qi 'busy' /tmp/a.out || fail "the error does not say the function is taken"
kjit stat 2> /dev/null | grep -q 'state: attached' && fail "something stayed attached"
workload getpid 100 || fail "getpid broken after the refusal"
rmmod kjit_ipmodify || fail "rmmod kjit_ipmodify"
kjit attach __x64_sys_getpid > /dev/null || fail "attach after the other user left"
kjit reset
workload -c 0 getpid 100
n=$(entry_count __x64_sys_getpid)
kjit detach
[ "$n" = 100 ] || fail "counted ${n:-nothing} getpid calls, want 100"
unload_kjit
