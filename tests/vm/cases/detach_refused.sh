# detach_refused - when ftrace does not remove a diversion, detach stops
# before it frees anything the diverted function still reaches (issue 35,
# item 5): the session stays attached and keeps counting, a second detach
# finishes; rmmod tries again until ftrace lets go. kjit.fail_divert_off=N
# (a test hook) fails the next N removals with -EIO before ftrace is asked.
# After a failed detach, rmmod is refused until a detach works.
# Before the fix, detach went on to fill the code with int3 and free the
# trampoline, and the next getpid() ran into it.
# kernels: spot
# timeout: 120
. /tests/lib.sh
hook=/sys/module/kjit/parameters/fail_divert_off
load_kjit
[ -w $hook ] || fail "no $hook"
kjit attach __x64_sys_getpid vfs_read > /dev/null || fail "attach"
workload getpid 100 || fail "getpid"
echo 1 > $hook
kjit detach 2> /tmp/d.err && fail "detach succeeded with a removal failing"
cat /tmp/d.err
grep -q 'ftrace did not remove a diversion.*session stays attached' /tmp/d.err ||
	fail "detach's failure not explained"
dmesg | grep -q 'kjit: detach stopped: 2 functions are still diverted' ||
	fail "no 'detach stopped' line in the kernel log"
# the module stays until a detach works: rmmod is refused, not hung
rmmod kjit 2> /tmp/r.err && fail "rmmod succeeded with a diversion left"
cat /tmp/r.err
[ -e /dev/kjit ] || fail "rmmod took kjit away with a diversion left"
# still attached, still counting exactly
before=$(entry_count __x64_sys_getpid)
workload getpid 1000 || fail "getpid after the refused detach"
after=$(entry_count __x64_sys_getpid)
echo "getpid entry count $before -> $after"
[ $((after - before)) = 1000 ] || fail "1000 getpid calls counted $((after - before)) times"
kjit detach > /dev/null || fail "the second detach"
kjit detach 2> /tmp/d.err && fail "a third detach found a session attached"
grep -q 'nothing is attached' /tmp/d.err || fail "third detach: $(cat /tmp/d.err)"
workload getpid 1000 || fail "getpid after detach"

# rmmod with a session whose removal fails twice (first in rmmod itself,
# whose module is going): the unload waits and tries again, once a second
kjit attach __x64_sys_getpid > /dev/null || fail "attach 2"
echo 2 > $hook
dmesg -c > /dev/null
unload_kjit
dmesg | grep 'unload waits until every diversion is removed' ||
	fail "rmmod did not wait for the diversion"
dmesg | grep -c 'detach stopped' | grep -qx 2 || fail "not two failed tries at rmmod"
workload getpid 1000 || fail "getpid after rmmod"
grep -q '^kjit ' /proc/modules && fail "kjit still loaded"
echo "detach and rmmod stopped while a diversion stayed, and finished after"
