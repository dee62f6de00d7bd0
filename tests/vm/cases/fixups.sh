# fixups - instructions with exception-table entries run from the cache
# and fault there (issue 15, part 1): the cache's copies have entries of
# their own (kjit_pool.ko's table), so each fault is fixed up as natively
# and counting goes on past it. Deep-attached read, write, ioctl and
# pread64 under `workload faults` (tests/vm/progs/workload_ops.h): a read
# into an unmapped page (copy_to_user faults at once), a write of 16 bytes
# across into it (a partial copy_from_user), ioctl(FIONBIO) on a bad pointer
# (get_user), a read of MSR 0x802 through msr.ko (rdmsr_safe: #GP, the
# x2APIC being off), reads of /dev/zero across into it and into it
# (clear_user: 8 bytes, then EFAULT; under TCG its alternative is a call
# that carries the exception-table entry, refused before: read_zero ran
# natively from there on; clear_user's callees are not checked exactly:
# exec's padzero calls them too). Every call gives what it gives natively (EFAULT, EIO),
# every block of the roots and of the functions named below is
# cross-checked against a Kprobe on its address (kjitcount -O: a Kprobe on
# every other callee's block judged nothing, any count passes there, and
# on make sanitize's kernel they took the case past its limit), and the
# functions only this workload reaches - those holding the faulting
# instructions and their fixups - must match exactly, and each of their
# static blocks that runs must lie in a block kjit counted (before: those
# instructions ran natively, `refused fixup`, and kjit counted nothing of
# their functions after them). kjit stat says how many such instructions ran
# from the cache, and that none was refused for its fixup.
# timeout: 400
. /tests/lib.sh
[ -e /lib/kjit/msr.ko ] || fail "no msr.ko in the guest (tests/vm/run.sh copies the kernel's)"
insmod /lib/kjit/msr.ko || fail "insmod msr.ko"
workload faults 20 || fail "natively, the faults do not give what they should"
roots="__x64_sys_read __x64_sys_write __x64_sys_ioctl __x64_sys_pread64"
load_kjit
kjit attach --deep $roots > /dev/null || fail "deep attach"
workload -c 0 faults 200 || fail "under kjit, the faults do not give what they do natively"
kjit stat > /tmp/stat.out
kjit report --live --csv > /tmp/k.csv || fail "report"
kjit detach > /dev/null
grep -E '^exception fixups|refused +fixup' /tmp/stat.out
n=$(sed -n 's/^exception fixups: \([0-9]*\) instruction.*/\1/p' /tmp/stat.out)
[ "${n:-0}" -gt 0 ] || fail "no instruction with an exception-table entry ran from the cache"
! grep -qE 'refused +fixup' /tmp/stat.out || fail "instructions refused for their fixup"
# the functions with the faulting instructions, where this kernel has them
args=""
for f in native_read_msr_safe __rdmsr_safe_on_cpu rdmsr_safe_on_cpu __get_user_4 \
	__get_user_handle_exception read_zero; do
	grep -q " [tT] $f\$" /proc/kallsyms && args="$args -C $f"
done
echo "checked exactly:$args"
# every static block of those functions (kjit blocks: the CFG from
# /proc/kcore), probed too: each that runs must lie in a block kjit counted
# (kjitcount -S) - kjitcount compares only the blocks kjit has, and before,
# the instructions after a fault's fixup were in none
for f in $args; do
	[ "$f" = -C ] && continue
	kjit blocks "$f" | sed -n 's/^block [0-9]* \([^ ]*+0x[0-9a-f]*\) 0x\([0-9a-f]*\) .*/\1 \2/p'
done > /tmp/static
insmod /lib/kjit/kjit_kprobes.ko || fail "insmod kjit_kprobes.ko"
kjitcount -c 0 -d -x -O -S /tmp/static $args faults 200 $roots > /tmp/d.out 2>&1
rc=$?
grep -E '^(SUMMARY|MISSING|STATIC)|MISMATCH' /tmp/d.out
rmmod kjit_kprobes
unload_kjit
[ $rc = 0 ] || { cat /tmp/d.out; fail "counts around faults disagree with Kprobes"; }
for f in $args; do
	[ "$f" = -C ] && continue
	grep -q "^BLOCK $f+0x[0-9a-f]* kjit=[1-9][0-9]* kprobe=[0-9]* OK$" /tmp/d.out ||
		fail "no block of $f matched a Kprobe"
done
grep -q '^STATIC .* counted by kjit$' /tmp/d.out || fail "no static block ran"
rmmod msr
