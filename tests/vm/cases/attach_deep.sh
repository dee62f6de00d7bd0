# attach_deep - deep mode: attached at __x64_sys_read, a one-byte read from
# a pipe is followed into ksys_read, vfs_read, the indirect call to
# pipe_read, and the locking, security and wake-up code beneath them. The
# blocks of the attached function and of pipe_read are cross-checked
# against a Kprobe on each address: they (only ever reached from this read
# path here) must match exactly; the other callees are also called from
# elsewhere (the measuring ioctls, timers) or take time-dependent paths
# (atime), so they are not judged, and get no Kprobe (kjitcount -O: on
# make sanitize's KASAN kernel a Kprobe on each of their ~3,000 blocks
# took the case past its limit).
# tcg: multi
# kernels: spot
# timeout: 400
. /tests/lib.sh
pr=$(pipe_read_fn) || fail "no pipe read function"
load_kjit
insmod /lib/kjit/kjit_kprobes.ko || fail "insmod kjit_kprobes.ko"
kjitcount -c 0 -d -e -x -O -C "$pr" piperead 300 __x64_sys_read > /tmp/d.out 2>&1
rc=$?
grep -E '^(ENTRY|SUMMARY|MISSING)|MISMATCH' /tmp/d.out
[ $rc = 0 ] || { cat /tmp/d.out; fail "deep counts disagree with Kprobes"; }
# the mutex's entry: mutex_lock_nested where lockdep is on (make sanitize)
mfn=$(first_func mutex_lock_nested mutex_lock) || fail "no mutex_lock in kallsyms"
for f in ksys_read vfs_read "$pr" "$mfn"; do
	grep -q "^BLOCK $f+0x" /tmp/d.out || fail "deep mode did not reach $f"
done
n=$(grep -c "^BLOCK $pr+.* OK\$" /tmp/d.out)
[ "$n" -ge 10 ] || fail "only $n $pr blocks matched exactly"
echo "functions reached: $(sed -n 's/^BLOCK \([^+]*\)+.*/\1/p' /tmp/d.out | sort -u | wc -l)"
rmmod kjit_kprobes
unload_kjit
# Deep attach, run, detach, rmmod: 5 cycles while another task keeps
# reading and writing a pipe on the other vCPU (through the same root).
workload -c 1 pipe 100000000 & w=$!
i=0
while [ $i -lt 5 ]; do
	load_kjit
	kjitcount -c 0 -d piperead 50 __x64_sys_read > /dev/null ||
		fail "deep cycle $i"
	unload_kjit
	i=$((i + 1))
done
kill -0 $w || fail "the background pipe workload died"
kill $w
echo "5 deep attach/detach/rmmod cycles under load"
