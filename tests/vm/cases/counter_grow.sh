# counter_grow - the per-CPU counter table grows with use (kmod/pcpu.h):
# memory for the first chunk of counters at attach, more chunks from a
# worker while translated code runs, and counts exact wherever a block's
# counter lies. kjit.pcpu_chunk=64 makes chunks small, so a deep read path
# (~170 blocks) spreads its counters over several chunks that came after
# attach, and every block of read and pipe_read equals Kprobes' count. With
# the defaults, a small attach holds one chunk of 4096, of 49152 at most. Then with the
# worker held back (pcpu_grow_delay_ms=300), blocks translated before
# their chunk came count with lock incq (said as such: "while the per-CPU
# counter table was growing") - and still equal Kprobes'.
# tcg: multi
# kernels: once
# timeout: 400
. /tests/lib.sh
pr=$(pipe_read_fn) || fail "no pipe read function"
crosscheck() {
	kjitcount -c 0 -d -e -x -O -C "$pr" piperead 300 __x64_sys_read \
		> /tmp/k.out 2>&1
	rc=$?
	grep -E '^(ENTRY|SUMMARY|MISSING)|MISMATCH' /tmp/k.out
	[ $rc = 0 ] || { cat /tmp/k.out; fail "$1: counts disagree with Kprobes"; }
	n=$(grep -c "^BLOCK $pr+.* OK\$" /tmp/k.out)
	[ "$n" -ge 10 ] || fail "$1: only $n $pr blocks matched exactly"
}
# The defaults: one chunk (4096 counters) at attach, of 49152 at most,
# all in the near area (kmod/pcpu_near.h: two CPUs, 1 MiB apart), so every
# block counts with one incq %gs:disp32.
load_kjit
kjit attach __x64_sys_getpid > /tmp/a.out || fail "attach"
cat /tmp/a.out
workload getpid 100 || fail "getpid"
held=$(live_json pcpu_held)
slots=$(live_json pcpu_slots)
kjit stat > /tmp/s.out || fail "stat"
grep '^  counter' /tmp/s.out
kjit detach > /dev/null || fail "detach"
unload_kjit
echo "defaults: counters with memory $held, limit $slots"
[ "${held:-0}" = 4096 ] || fail "held at attach: '${held}', not one chunk of 4096"
[ "${slots:-0}" -ge 49152 ] || fail "limit ${slots:-0} below the default's 49152"
dmesg | grep 'kjit: counters:' | tail -1 > /tmp/c.line
cat /tmp/c.line
# Up to 6.14 the per-CPU symbols are zero-based (__per_cpu_start is 0) and
# %gs bases are direct-map addresses: any page is within 2 GiB of them on
# these guests. Since 6.15 a base is the distance from the kernel image's
# per-CPU section to the CPU's copy, and only pages a little below the
# first copy and up to 4 GiB above it are in reach (on a 1 GiB guest the
# top ~150 MiB, which the page allocator hands out last): there kjit says
# why it has no near area and counts through a register.
zero_based=$(awk '$3 == "__per_cpu_start" { print ($1 ~ /^0+$/) ? 1 : 0 }' /proc/kallsyms)
near=1
if grep -q 'the first 49152 in the near area' /tmp/c.line; then
	grep -q '^  counter  gs_disp32/' /tmp/s.out || fail "no translation counts with incq %gs:disp32"
	grep -q '^  counter  gs_reg' /tmp/s.out && fail "a translation counts through a register"
elif [ "$zero_based" = 0 ] && grep -q 'no near area (pages beyond 2 GiB of the CPU bases)' /tmp/c.line; then
	echo "NOTE: per-CPU bases not zero-based (6.15+): no near area here"
	near=0
	grep -q '^  counter  gs_reg' /tmp/s.out || fail "no translation counts through a register"
else
	fail "the defaults' counters are not all in the near area"
fi
# Chunks of 64: a deep read path's counters lie in many chunks that came
# after attach, some blocks on lock incq while the worker was late; the
# first two chunks (1 KiB) in the near area, the rest from alloc_percpu().
load_kjit pcpu_chunk=64 pcpu_near_kb=1
insmod /lib/kjit/kjit_kprobes.ko || fail "insmod kjit_kprobes.ko"
kjit attach --deep __x64_sys_read __x64_sys_write > /dev/null || fail "attach"
workload -c 0 pipe 100 || fail "pipe"
workload -c 0 read 100 || fail "read"
held=$(live_json pcpu_held)
growing=$(live_json pcpu_growing)
kjit stat > /tmp/s.out || fail "stat"
grep -E '^(counters|  counter)' /tmp/s.out
dmesg | grep 'kjit: counters:' | tail -1
kjit detach > /dev/null || fail "detach"
echo "chunks of 64: counters with memory $held; translations counted while growing: $growing"
[ "${held:-0}" -gt 128 ] || fail "the counter table did not grow: held ${held:-0}"
[ $near = 0 ] || grep -q '^  counter  gs_disp32/' /tmp/s.out || fail "no near counter (gs_disp32) used"
# alloc_percpu() chunks lie beyond a disp32 of %gs on Debian's kernels
# (counted through a register); a small kernel's first per-CPU chunk can
# hold them within reach (the KCSAN kernel's), and the module says so
if ! grep -q '^  counter  gs_reg' /tmp/s.out; then
	dmesg | grep 'kjit: counters: alloc_percpu() chunk [0-9]* lies within a disp32' ||
		fail "no alloc_percpu() counter (gs_reg) used, and none said to lie within a disp32"
	echo "NOTE: alloc_percpu() chunks within a disp32 of %gs here: no register form"
fi
crosscheck "grown counters"
rmmod kjit_kprobes
unload_kjit
load_kjit pcpu_chunk=64 pcpu_grow_delay_ms=300 near_counters=0
insmod /lib/kjit/kjit_kprobes.ko || fail "insmod kjit_kprobes.ko"
kjit attach --deep __x64_sys_read > /dev/null || fail "attach (late worker)"
workload -c 0 read 50 || fail "read"
growing=$(live_json pcpu_growing)
kjit detach > /tmp/d.out || fail "detach (late worker)"
cat /tmp/d.out
echo "late worker: $growing translation(s) counted with lock incq while the table grew"
[ "${growing:-0}" -gt 0 ] || fail "no translation waited for its counter: the late path was not taken"
grep -q 'while the per-CPU counter table was growing' /tmp/d.out ||
	fail "detach did not say the counter table was growing"
crosscheck "late worker"
rmmod kjit_kprobes
unload_kjit
