# scope - who a session counts (issue 16, part 1). A noise process calls
# getpid() without end on CPU 0 all along; each scoped session must count
# exactly the workload's own calls, never the noise's:
#   record (default scope): COMMAND and what it forks, 1000 calls in one
#     process, 3 x 300 in a process, its child and grandchild, 2 x 500 in
#     two threads of one process; with --deep the callee's entry too;
#   record -a: every task; more than 1000 (the noise counted: the oracle
#     that the scoped counts above mean something);
#   attach -p PID: that process (exec'd from a shell held on a fifo), not
#     a workload run beside it; kjit stat names the scope;
#   attach -C 1: everything on CPU 1, nothing on CPU 0;
#   errors: -p of no process, -C of no CPU, -a with -p.
# The oracle is the workload's own loop count (workload getpid N makes N
# getpid() system calls and nothing else does).
# kernels: once
# timeout: 300
. /tests/lib.sh
load_kjit
cd /tmp || fail "cd"
F=__x64_sys_getpid
# count FILE FUNC: the entry block's count of FUNC in a recorded FILE
count() {
	kjit report -i "$1" --csv | awk -F, -v f="$2" '$1 == f && $8 == 1 { print $4 }'
}

workload -c 0 getpid 2000000000 & noise=$!
trap 'kill $noise 2> /dev/null' EXIT
sleep 1
kill -0 $noise || fail "the noise process did not start"

kjit record -f $F -o c.data -- workload getpid 1000 2> e.out || { cat e.out; fail "record"; }
n=$(count c.data $F)
echo "command scope: $F entered ${n:-0}x (want 1000)"
[ "$n" = 1000 ] || fail "command scope counted ${n:-0}, not the command's 1000"
grep -Eq '^scope command \(pid [0-9]+ and the processes it forks\)$' c.data || fail "data file: $(grep ^scope c.data)"
kjit report -i c.data | grep -Eq '^# scope: command \(pid [0-9]+ and the processes it forks\)$' ||
	fail "report: no scope line"

kjit record -f $F -o k.data -- workload forkpid 300 2> e.out || { cat e.out; fail "record forkpid"; }
n=$(count k.data $F)
echo "children: $F entered ${n:-0}x (want 900)"
[ "$n" = 900 ] || fail "a process, its child and grandchild counted ${n:-0}, not 3 x 300"

kjit record -f $F -o t.data -- workload threadpid 500 2> e.out || { cat e.out; fail "record threads"; }
n=$(count t.data $F)
echo "threads: $F entered ${n:-0}x (want 1000)"
[ "$n" = 1000 ] || fail "two threads counted ${n:-0}, not 2 x 500"

if kjit record --deep -f $F -o d.data -- workload getpid 1000 2> e.out; then
	n=$(count d.data $F)
	# the callee that reads the pid: 6.1 and 6.12 both call it
	m=$(count d.data __task_pid_nr_ns)
	echo "deep: $F ${n:-0}x, __task_pid_nr_ns ${m:-0}x (want 1000 each)"
	[ "$n" = 1000 ] || fail "deep: $F counted ${n:-0}"
	[ "$m" = 1000 ] || fail "deep: the callee counted ${m:-0}: the scope is not inherited"
else
	grep -q 'deep mode' e.out || { cat e.out; fail "record --deep"; }
fi

kjit record -a -f $F -o a.data -- workload getpid 1000 2> e.out || { cat e.out; fail "record -a"; }
n=$(count a.data $F)
echo "system-wide: $F entered ${n:-0}x (the command's 1000 and the noise's)"
[ "${n:-0}" -gt 1000 ] || fail "-a counted ${n:-0}: the noise was not counted, so the scoped counts prove nothing"
grep -qx 'scope system-wide, kjit left out' a.data || fail "-a: $(grep ^scope a.data)"

# -p: a process held before its exec, so that it makes no other call
rm -f go; mkfifo go || fail "mkfifo"
sh -c 'read x < go; exec workload getpid 2000' & p=$!
for i in $(seq 50); do grep -q fifo /proc/$p/wchan 2> /dev/null && break; sleep 0.1; done
kjit attach -p $p $F > /dev/null || fail "attach -p $p"
kjit stat | grep -qx 'scope: the processes given with -p' || fail "stat: $(kjit stat | grep ^scope)"
workload getpid 300 || fail "workload beside"
echo go > go
wait $p || fail "the -p process failed"
n=$(entry_count $F)
kjit detach || fail "detach -p"
echo "-p $p: $F entered ${n:-0}x (want 2000)"
[ "$n" = 2000 ] || fail "-p counted ${n:-0}, not the process's 2000"

kjit attach -C 1 $F > /dev/null || fail "attach -C 1"
workload -c 1 getpid 1000 || fail "workload on CPU 1"
workload -c 0 getpid 700 || fail "workload on CPU 0"
n=$(entry_count $F)
kjit stat | grep -qx "scope: the CPUs given with -C, kjit left out" || fail "stat -C: $(kjit stat | grep ^scope)"
kjit detach || fail "detach -C"
echo "-C 1: $F entered ${n:-0}x (want 1000: CPU 1's calls, none of CPU 0's)"
[ "$n" = 1000 ] || fail "-C 1 counted ${n:-0}"

kjit attach -p 4000000 $F 2> e.out && fail "-p of no process attached"
grep -qx "kjit attach: -p 4000000: no such process" e.out || fail "message: $(cat e.out)"
kjit attach -C 4095 $F 2> e.out && fail "-C 4095 attached"
grep -q "kjit attach: -C 4095: no such CPU (this machine has CPUs 0-" e.out || fail "message: $(cat e.out)"
kjit attach -a -p 1 $F 2> e.out; [ $? = 2 ] || fail "-a -p: not a usage error"
kjit stat 2> /dev/null | grep -q 'state: attached' && fail "an error left a session attached"
unload_kjit
