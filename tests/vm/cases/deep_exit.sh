# deep_exit - deep mode follows a dying task through all of do_exit():
# at its call of exit_tasks_rcu_start() (KJIT_LEAVE_AT in
# kmod/kjit_refusals.h), after which exit_notify() may drop the task from
# the task list that detach scans, translated do_exit() calls kjit's
# helper instead (kmod/exittail.h), which gives the task a slot in a table
# of dying tasks that detach scans too, runs the callee and returns into
# the cache. Before, the call left the cache there and exit_notify(), the
# exit's rest and the last switch ran natively (kjit.exit_tail=0 still
# does that: part 4).
#  1. Under __x64_sys_exit_group, children that fork and _exit():
#     exit_mmap, exit_files, proc_exit_connector (called after the call)
#     and do_task_dead are counted; the block at the call's return address
#     ran once per call of do_exit; kjit stat says how many dying tasks
#     stayed and that none left; do_group_exit, do_exit, exit_mmap,
#     proc_exit_connector and do_task_dead count exactly what a Kprobe on
#     each of their blocks counts (kjitcount -C).
#  2. A child stopped at PTRACE_EVENT_EXIT inside translated do_exit()
#     (sleeper exit) survives detach: its cache return addresses are moved,
#     and it exits natively with its status once resumed.
#  3. Attach and detach 6 times while children exit on both vCPUs and
#     threads reap themselves (off the task list while still running the
#     rest of do_exit() from the cache).
#  4. kjit.exit_tail=0: the call leaves the cache; proc_exit_connector is
#     not counted and the report says that do_exit's rest ran natively.
# tcg: multi
# timeout: 600
. /tests/lib.sh
# a function do_exit calls after its leaving call: proc_exit_connector,
# or where CONFIG_PROC_EVENTS is off (make sanitize's kernels) do_task_dead
after=$(first_func proc_exit_connector do_task_dead) || fail "neither proc_exit_connector nor do_task_dead"
# judged against Kprobes: each once
judged=$(echo do_group_exit do_exit exit_mmap $after do_task_dead | tr ' ' '\n' | awk '!seen[$0]++' | tr '\n' ' ')
load_kjit
kjit attach --deep __x64_sys_exit_group > /dev/null || fail "deep attach"
workload -c 0 forkexit 100 || fail "forkexit"
kjit report --live --csv > /tmp/r.csv || fail "report"
kjit report --live > /tmp/r.txt || fail "text report"
grep 'the rest after its call of exit_tasks_rcu_start' /tmp/r.txt &&
	fail "the report says do_exit's rest ran natively: dying tasks stay"
kjit stat > /tmp/s.txt || fail "stat"
grep '^dying tasks: ' /tmp/s.txt || { cat /tmp/s.txt; fail "kjit stat says nothing of dying tasks"; }
grep -q '^dying tasks: [1-9][0-9]* ran the rest of do_exit() from the cache, 0 left it' /tmp/s.txt ||
	fail "dying tasks did not stay in the cache, or some left"
kjit detach || fail "detach"
funcs() { awk -F, 'NR > 1 && $4 > 0 { n = $1; sub(/ \[.*\]$/, "", n); sub(/^.*:/, "", n); print n }' /tmp/r.csv | sort -u; }
echo "functions counted under exit_group: $(funcs | wc -l)"
for f in do_group_exit do_exit exit_mmap exit_files $after do_task_dead; do
	funcs | grep -qx "$f" || fail "$f not counted under exit_group"
done
# the block at the call's return address ran as often as do_exit was
# entered: every dying task came back into the cache from the helper
kjit blocks do_exit > /tmp/b.out || fail "blocks do_exit"
set -- $(awk '/^    0x[0-9a-f]+  call exit_tasks_rcu_start$/ { c = $1; next }
	c && /^    0x[0-9a-f]+  / { print c, $1; exit }' /tmp/b.out)
[ $# = 2 ] || { grep -n 'exit_tasks_rcu_start' /tmp/b.out; fail "no call of exit_tasks_rcu_start in do_exit"; }
call=$1 ret=$2
echo "do_exit calls exit_tasks_rcu_start at $call, returns to $ret"
awk -F, -v c="$call" -v r="$ret" '
	function h(x,  n, i) {	# the low 32 bits of a hex address (exact in awk)
		x = substr(x, length(x) - 7); n = 0
		for (i = 1; i <= length(x); i++)
			n = n * 16 + index("0123456789abcdef", substr(x, i, 1)) - 1
		return n
	}
	$1 == "do_exit" && $8 == 1 { entry = $4 }
	$1 == "do_exit" && h($3) <= h(c) && h(c) < h($3) + $5 { call = $4 }
	$1 == "do_exit" && h($3) == h(r) { after = $4 }
	END { print "do_exit entered " entry "x, its call block ran " call "x, the block after it " after + 0 "x";
	      exit !(entry > 0 && call == entry && after == entry) }' /tmp/r.csv ||
	fail "not every dying task came back into the cache after exit_tasks_rcu_start"

insmod /lib/kjit/kjit_kprobes.ko || fail "insmod kjit_kprobes.ko"
kjitcount -c 0 -d -e -x -O $(for f in $judged; do printf -- '-C %s ' $f; done) \
	forkexit 100 __x64_sys_exit_group > /tmp/d.out 2>&1
rc=$?
grep -E '^(ENTRY|SUMMARY|MISSING)|MISMATCH' /tmp/d.out
rmmod kjit_kprobes
[ $rc = 0 ] || { cat /tmp/d.out; fail "exit counts disagree with Kprobes"; }
for f in $judged; do
	grep -q "^BLOCK $f+0x.* OK$" /tmp/d.out || fail "no $f block matched a Kprobe exactly"
done

kjit attach --deep __x64_sys_exit_group > /dev/null || fail "deep attach (sleeper)"
sleeper exit > /tmp/sleeper.out & s=$!
sleep 1
cat /tmp/sleeper.out
pid=$(sed -n 's/^child \([0-9]*\) asleep/\1/p' /tmp/sleeper.out)
[ -n "$pid" ] || fail "no child stopped in do_exit"
grep -q do_exit /proc/$pid/stack 2>/dev/null || cat /proc/$pid/stack
dmesg -c > /dev/null
kjit detach || fail "detach under a child stopped in do_exit"
dmesg | grep 'moved out of the code cache' ||
	fail "no return address was moved (the child was not in translated do_exit)"
kill -USR1 $s
wait $s || fail "the child stopped in do_exit did not exit natively"
cat /tmp/sleeper.out

workload -c 0 forkexit 100000000 & w0=$!
workload -c 1 forkexit 100000000 & w1=$!
i=0
while [ $i -lt 6 ]; do
	kjit attach --deep __x64_sys_exit_group __x64_sys_exit > /dev/null ||
		fail "attach, cycle $i"
	workload threadpid 20 || fail "threads under kjit, cycle $i"
	kjit detach || fail "detach, cycle $i"
	i=$((i + 1))
done
kill -0 $w0 && kill -0 $w1 || fail "a background workload died"
kill $w0 $w1
unload_kjit
echo "6 deep attach/detach cycles while children exit on both vCPUs"

load_kjit exit_tail=0
kjit attach --deep __x64_sys_exit_group > /dev/null || fail "deep attach (exit_tail=0)"
workload -c 0 forkexit 50 || fail "forkexit (exit_tail=0)"
kjit report --live --csv > /tmp/r.csv || fail "report (exit_tail=0)"
kjit report --live > /tmp/r.txt || fail "text report (exit_tail=0)"
kjit stat > /tmp/s.txt || fail "stat (exit_tail=0)"
kjit detach || fail "detach (exit_tail=0)"
grep 'the rest after its call of exit_tasks_rcu_start runs natively on every call ([0-9]* calls)' /tmp/r.txt ||
	fail "exit_tail=0: the report does not say that do_exit's rest ran natively"
grep '^dying tasks leave the cache at exit_tasks_rcu_start' /tmp/s.txt ||
	fail "exit_tail=0: kjit stat does not say that dying tasks leave"
funcs | grep -qx $after &&
	fail "exit_tail=0: $after counted: do_exit did not leave the cache"
funcs | grep -qx exit_mmap || fail "exit_tail=0: exit_mmap not counted"
unload_kjit
echo "exit_tail=0: do_exit leaves the cache at exit_tasks_rcu_start"
