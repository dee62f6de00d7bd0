# ipmodify_conflict - a function already redirected by someone else (an
# IPMODIFY ftrace user, as livepatch is) is refused cleanly: attach fails
# with one clear line and a non-zero status, nothing is left attached, and
# once the other user is gone the same attach works and counts.
# timeout: 120
. /tests/lib.sh
pr=$(pipe_read_fn) || fail "no pipe read function"
pw=$(pipe_write_fn) || fail "no pipe write function"
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
# among other functions, one registration for all: all or nothing names
# the one that is taken; --best-effort attaches the others
kjit attach "$pr" __x64_sys_getpid "$pw" > /tmp/a.out 2>&1 && fail "attached around a held function"
cat /tmp/a.out
grep -q '__x64_sys_getpid: refused by kjit.ko: redirected by another ftrace user' /tmp/a.out ||
	fail "the held function is not named"
grep -q -e "$pr: refused" -e "$pw: refused" /tmp/a.out && fail "a free function was blamed"
kjit stat 2> /dev/null | grep -q 'state: attached' && fail "all-or-nothing left something attached"
kjit attach --best-effort "$pr" __x64_sys_getpid "$pw" > /tmp/a.out 2>&1 ||
	{ cat /tmp/a.out; fail "best effort around a held function"; }
cat /tmp/a.out
grep -qx 'attached 2 functions' /tmp/a.out || fail "best effort: want the 2 free functions"
kjit reset
workload -c 0 pipe 50
kjit detach > /dev/null
n=$(entry_count "$pr")
[ "$n" = 50 ] || fail "best effort: $pr counted ${n:-nothing}, want 50"
rmmod kjit_ipmodify || fail "rmmod kjit_ipmodify"
kjit attach __x64_sys_getpid > /dev/null || fail "attach after the other user left"
kjit reset
workload -c 0 getpid 100
n=$(entry_count __x64_sys_getpid)
kjit detach
[ "$n" = 100 ] || fail "counted ${n:-nothing} getpid calls, want 100"
unload_kjit
