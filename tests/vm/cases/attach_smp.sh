# attach_smp - the same workload on both vCPUs at once while attached: each
# CPU translates into its own cache, and the per-CPU counts add up to the
# total (entry blocks = 2K, seen on both CPUs), equal to the Kprobes counts.
# tcg: multi
# kernels: spot
# timeout: 300
. /tests/lib.sh
pr=$(pipe_read_fn) || fail "no pipe read function"
pw=$(pipe_write_fn) || fail "no pipe write function"
load_kjit
insmod /lib/kjit/kjit_kprobes.ko || fail "insmod kjit_kprobes.ko"
kjitcount -p -e -x getpid 2000 __x64_sys_getpid || fail "getpid on both CPUs"
kjitcount -p -e -x pipe 500 "$pr" "$pw" || fail "pipe on both CPUs"
kjitcount -p -e -x read 1000 ksys_read vfs_read || fail "read on both CPUs"
rmmod kjit_kprobes
unload_kjit
