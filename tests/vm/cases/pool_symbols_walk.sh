# pool_symbols_walk - kjit_pool.ko's symbol table (the code cache's block
# names, kmod/symbols.c) is neither rewritten nor freed under a walk of it
# (issue 35, item 4). module_kallsyms_on_each_symbol() - kprobe events,
# fprobe and livepatch use it - reads a module's table under module_mutex,
# preemptibly, outside RCU; kjit_kallwalk.ko makes such a walk and pauses
# in it. Before the fix, a detach reset the names while a walk was paused
# on one, and the next attach wrote new names into its slots (the walk saw
# its name change), and rmmod freed the table under a walk (a read of
# freed vmalloc memory).
# timeout: 150
. /tests/lib.sh
walk=/sys/module/kjit_kallwalk/parameters/walk
last_walk() { dmesg | grep 'kjit_kallwalk:' | tail -n 1; }
load_kjit
insmod /lib/kjit/kjit_kallwalk.ko || fail "insmod kjit_kallwalk.ko"

# 1. a detach and a new attach while a walk is paused on a block's name
kjit attach __x64_sys_getpid vfs_read > /dev/null || fail "attach"
workload getpid 100 || fail "getpid"
cat /proc/version > /dev/null
sleep 0.5 # blocks are named every 100 ms
n=$(grep -c '+0x[0-9a-f]*.\[kjit_pool\]$' /proc/kallsyms)
echo "$n block names in kallsyms"
[ "$n" -gt 0 ] || fail "no block names in kallsyms"
echo 4000 > $walk & w=$!
sleep 1
t0=$(cut -d' ' -f1 /proc/uptime)
kjit detach > /dev/null || fail "detach"
t1=$(cut -d' ' -f1 /proc/uptime)
kjit attach vfs_write __x64_sys_getppid > /dev/null || fail "attach 2"
echo x > /tmp/x
sleep 0.5
wait $w
last_walk
echo "detach took $(awk -v a=$t0 -v b=$t1 'BEGIN { print b - a }') s (waits for the walk)"
last_walk | grep -q "paused at #[1-9].*+0x.*: same" ||
	fail "the walk's name changed under it (or it never paused on a block)"
kjit detach > /dev/null || fail "detach 2"

# 2. rmmod while a walk is paused in the table kjit swapped in
kjit attach --deep vfs_read __x64_sys_getpid > /dev/null || fail "attach 3"
cat /proc/version > /dev/null
echo 1 > /sys/module/kjit_kallwalk/parameters/pause_at_first
rmmod kjit & r=$!
while [ -e /dev/kjit ]; do sleep 0.05; done # kjit's exit has begun
echo 3000 > $walk
wait $r || fail "rmmod kjit"
last_walk
last_walk | grep -q 'paused at #1 .*: same' || fail "the walk did not pause, or its name changed"
rmmod kjit_kallwalk || fail "rmmod kjit_kallwalk"
