# fault_sleeping - a task asleep in a page fault that translated code
# raised (a user copy's, waiting for userfaultfd) survives detach and
# rmmod (issue 35, item 1): the IP its exception frame saved, on the copy
# of an instruction with an exception-table entry, is moved to the
# original instruction, which runs again natively once the fault is
# resolved. Before the fix, detach filled the code with int3 under it and
# the kernel panicked when the fault completed. Once with detach then
# rmmod, once with rmmod straight away; /dev/zero (clear_user) and a pipe
# (copy_to_user).
# kernels: spot
# timeout: 150
. /tests/lib.sh
run() { # run HOW FILE
	load_kjit
	kjit attach --deep __x64_sys_read > /dev/null || fail "attach"
	uffdread $2 > /tmp/u.out 2>&1 & u=$!
	i=0
	while ! grep -q 'asleep in a fault' /tmp/u.out && [ $i -lt 100 ]; do
		sleep 0.2
		i=$((i + 1))
	done
	cat /tmp/u.out
	grep -q 'asleep in a fault' /tmp/u.out || fail "$1 $2: the reader never slept in its fault"
	dmesg -c > /dev/null
	[ $1 = detach ] && { kjit detach > /dev/null || fail "detach"; }
	unload_kjit
	dmesg | grep 'stopped in a fault in the code cache resume at the original' ||
		fail "$1 $2: no task moved out of a fault in the cache (the test did not exercise the path)"
	kill -USR1 $u
	wait $u || fail "$1 $2: the reader's read did not complete natively: $(cat /tmp/u.out)"
	cat /tmp/u.out
}
run detach /dev/zero
run rmmod /dev/zero
mkfifo /tmp/fifo
# a pipe with data waiting: the copy to the user page is copy_to_user's
(while :; do echo data; sleep 0.1; done > /tmp/fifo) & f=$!
run detach /tmp/fifo
kill $f 2> /dev/null || :
echo "a task asleep in a fault in the cache survived detach and rmmod"
