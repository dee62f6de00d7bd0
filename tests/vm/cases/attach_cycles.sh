# attach_cycles - attach, run, detach, rmmod, insmod, 50 times, while a
# workload keeps both vCPUs inside the instrumented functions. The kernel
# must not notice (the rig checks its log) and the workload must never fail.
# Multi-threaded TCG: both vCPUs really run translated code while the
# other attaches, detaches and unloads. It was single-threaded for a while:
# one full run of three under multi-threaded TCG hung in
# unregister_ftrace_direct()'s synchronize_rcu_tasks() when every diverted
# function had an ftrace registration of its own (docs/testing.md, "Single-
# and multi-threaded TCG"); with one for all of them, 5 of 5 runs passed.
# Takes ~165 s on 6.1 and ~225 s on 6.12 (single-threaded: ~285 s and
# ~395 s); most of it is the module's load and unload and detach's own
# waits, per cycle.
# tcg: multi
# timeout: 700
. /tests/lib.sh
workload -c 0 pipe 100000000 & w0=$!
workload -c 1 getpid 1000000000 & w1=$!
i=0
while [ $i -lt 50 ]; do
	load_kjit
	kjit attach __x64_sys_getpid pipe_read pipe_write vfs_read > /dev/null ||
		fail "attach, cycle $i"
	workload read 200 || fail "workload under kjit, cycle $i"
	if [ $((i % 2)) = 0 ]; then
		kjit detach || fail "detach, cycle $i"
	fi
	# odd cycles: rmmod while still attached
	unload_kjit
	i=$((i + 1))
done
kill -0 $w0 && kill -0 $w1 || fail "a background workload died"
kill $w0 $w1
echo "50 attach/detach/rmmod cycles under load"
