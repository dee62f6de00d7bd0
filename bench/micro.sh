# micro - the cost of counting every basic block of a system call's path:
# native vs kjit without counting vs kjit vs Kprobes on the same block
# addresses (int3 Kprobes, then optimized ones) vs one Kprobe per function
# entry, median of 7 runs each, one guest boot. The last case is
# deep mode: every block under __x64_sys_read for a one-byte pipe read.
# timeout: 1800
. /tests/lib.sh
load_kjit
insmod /lib/kjit/kjit_kprobes.ko || fail "insmod kjit_kprobes.ko"
icount_settle
run() { # run NAME OP N FUNC...
	name=$1
	shift
	for opt in 0 1; do
		echo $opt > /proc/sys/debug/kprobes-optimization
		echo "CASE $name kprobes-optimization=$opt"
		kjitcount -c 0 -t 7 -x "$@" || fail "$name"
	done
}
run getpid getpid 20000 __x64_sys_getpid
run read read 5000 ksys_read vfs_read
run fstat fstat 5000 vfs_fstat __x64_sys_newfstat
run openclose openclose 2000 do_sys_openat2 __x64_sys_close
run pipe pipe 2000 pipe_read pipe_write
# deep: everything a one-byte pipe read does under __x64_sys_read
for opt in 0 1; do
	echo $opt > /proc/sys/debug/kprobes-optimization
	echo "CASE read-deep kprobes-optimization=$opt"
	kjitcount -c 0 -d -t 5 -x piperead 1000 __x64_sys_read > /tmp/deep.out ||
		{ cat /tmp/deep.out; fail "read-deep"; }
	grep -E '^(TIME|NOCOUNT|ENTRYPROBE|BLOCKS_PER_OP|PERBLOCK|SUMMARY)' /tmp/deep.out
done
kjit stat
rmmod kjit_kprobes
unload_kjit
