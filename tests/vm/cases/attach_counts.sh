# attach_counts - kjit attached to real syscall paths counts a pinned,
# deterministic workload of K calls: every function's entry block counts
# exactly K, and every block's count equals that of a Kprobe on its address
# (kjit_kprobes.ko, run separately on the same workload).
# kernels: spot
# timeout: 300
. /tests/lib.sh
pr=$(pipe_read_fn) || fail "no pipe read function"
pw=$(pipe_write_fn) || fail "no pipe write function"
load_kjit
insmod /lib/kjit/kjit_kprobes.ko || fail "insmod kjit_kprobes.ko"
total=0
check() { # check KJITCOUNT-ARGS...
	kjitcount "$@" > /tmp/kc.out 2>&1
	rc=$?
	cat /tmp/kc.out
	[ $rc = 0 ] || fail "kjitcount $*"
	n=$(sed -n 's/^SUMMARY .*crosschecked=\([0-9]*\).*/\1/p' /tmp/kc.out)
	[ "${n:-0}" -gt 0 ] || fail "nothing cross-checked for $*"
	total=$((total + n))
}
check -c 0 -e -x getpid 1000 __x64_sys_getpid
check -c 0 -e -x read 1000 ksys_read vfs_read
check -c 0 -e -x fstat 1000 vfs_fstat
check -c 0 -e -x openclose 500 do_sys_openat2 __x64_sys_close
check -c 0 -e -x pipe 500 "$pr" "$pw"
echo "blocks cross-checked against kprobes: $total, mismatches: 0"
kjit stat
rmmod kjit_kprobes || fail "rmmod kjit_kprobes"
unload_kjit
