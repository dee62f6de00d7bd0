# scope_cgroup - attach -G CGROUP (a predicate by cgroup v2): the session
# counts the processes of the cgroup at attach and those they fork, and
# nothing else. A process moved into cgroup "in", held before its exec,
# runs `workload forkpid 300` (it, its child and its grandchild make 300
# getpid calls each); one outside makes 300: the session counts exactly
# 900. A cgroup whose one process never calls
# getpid (a false predicate) counts nothing while 500 calls run outside.
# The report names the scope; -G of a cgroup with no process, or none at
# all, is refused with its reason (and on a kernel without cgroup v2).
# kernels: once
# timeout: 150
. /tests/lib.sh
load_kjit
# A kernel built without cgroups (CONFIG_CGROUPS off) has no cgroup v2 to
# mount: -G must say so, and the rest is skipped there.
if ! grep -qw cgroup2 /proc/filesystems; then
	kjit attach -G /in __x64_sys_getpid > /dev/null 2> /tmp/e.out &&
		fail "-G attached on a kernel without cgroup v2"
	cat /tmp/e.out
	grep -q 'no cgroup v2 hierarchy is mounted' /tmp/e.out ||
		fail "-G without cgroup v2: no word of why: $(cat /tmp/e.out)"
	kjit stat 2>&1 | grep -q 'no session' || fail "a refused -G left a session"
	unload_kjit
	skip "this kernel has no cgroup v2 (CONFIG_CGROUPS off): -G refused, as it must be"
fi
mkdir -p /sys/fs/cgroup
grep -q ' /sys/fs/cgroup cgroup2 ' /proc/mounts ||
	mount -t cgroup2 none /sys/fs/cgroup || fail "mount cgroup2"
mkdir -p /sys/fs/cgroup/in /sys/fs/cgroup/idle /sys/fs/cgroup/empty || fail "mkdir cgroups"
held() { # CMD...: CMD, stopped before its exec; its pid in $held
	sh -c 'kill -STOP $$; exec "$@"' sh "$@" &
	held=$!
	for i in $(seq 50); do
		[ "$(sed 's/.*) //' /proc/$held/stat 2> /dev/null | cut -c1)" = T ] && return 0
		sleep 0.1
	done
	fail "the held process did not stop"
}
calls() {
	kjit report --live --csv 2> /dev/null |
		awk -F, '$1 == "__x64_sys_getpid" && $8 == 1 { s += $4 } END { print s + 0 }'
}

held workload forkpid 300; a=$held
held workload getpid 300; b=$held
echo $a > /sys/fs/cgroup/in/cgroup.procs || fail "move $a into the cgroup"
kjit attach -G /in __x64_sys_getpid > /tmp/a.out || fail "attach -G /in"
cat /tmp/a.out
kill -CONT $a $b
wait $a || fail "the cgroup's workloads"
wait $b || fail "the workload outside"
c=$(calls)
echo "calls counted in cgroup in: $c (its three processes made 900, one outside 300)"
[ "$c" = 900 ] || fail "-G /in counted $c calls, not 900"
kjit report --live > /tmp/r.txt || fail "report"
grep -q 'the processes of a cgroup at attach (-G) and those they fork' /tmp/r.txt ||
	fail "the report does not name the scope: $(head -n 3 /tmp/r.txt)"
kjit detach > /dev/null || fail "detach"

# a false predicate counts nothing
sleep 30 & s=$!
echo $s > /sys/fs/cgroup/idle/cgroup.procs || fail "move $s into idle"
kjit attach -G idle __x64_sys_getpid > /dev/null || fail "attach -G idle"
workload getpid 500 || fail "workload outside"
c=$(calls)
echo "calls counted in cgroup idle: $c (500 outside)"
[ "$c" = 0 ] || fail "-G idle counted $c calls of processes outside it"
kjit detach > /dev/null || fail "detach idle"
kill $s; wait $s 2> /dev/null

kjit attach -G /empty __x64_sys_getpid > /dev/null 2> /tmp/e.out && fail "-G of an empty cgroup attached"
grep -q "no process in it" /tmp/e.out || fail "wrong refusal: $(cat /tmp/e.out)"
kjit attach -G /nosuch __x64_sys_getpid > /dev/null 2> /tmp/e.out && fail "-G of no cgroup attached"
grep -q "no cgroup '/nosuch'" /tmp/e.out || fail "wrong refusal: $(cat /tmp/e.out)"
rmdir /sys/fs/cgroup/in /sys/fs/cgroup/idle /sys/fs/cgroup/empty
unload_kjit
