# attach_cycles - attach, run, detach, rmmod, insmod, 10 times, while a
# workload keeps both vCPUs inside the instrumented functions. The kernel
# must not notice (the rig checks its log) and the workload must never fail.
# Multi-threaded TCG: both vCPUs really run translated code while the
# other attaches, detaches and unloads. It was single-threaded for a while:
# one full run of three under multi-threaded TCG hung in
# unregister_ftrace_direct()'s synchronize_rcu_tasks() when every diverted
# function had an ftrace registration of its own (docs/testing.md, "Single-
# and multi-threaded TCG"); with one for all of them, 5 of 5 runs passed.
# 50 cycles took ~165 s on 6.1 and ~225 s on 6.12 on the reference host;
# most of it is the module's load and unload and detach's own waits, per
# cycle. make test runs 10 (its budget: docs/testing.md, "Stress loops");
# more cycles are make stress's job.
# tcg: multi
# timeout: 350
. /tests/lib.sh
pr=$(pipe_read_fn) || fail "no pipe read function"
pw=$(pipe_write_fn) || fail "no pipe write function"
workload -c 0 pipe 100000000 & w0=$!
workload -c 1 getpid 1000000000 & w1=$!
i=0
n=10
while [ $i -lt "$n" ]; do
	load_kjit
	kjit attach __x64_sys_getpid "$pr" "$pw" vfs_read > /dev/null ||
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
echo "$n attach/detach/rmmod cycles under load"
