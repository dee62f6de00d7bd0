# demo - kjit on a stock Debian kernel: attach to real system call paths,
# run a workload, show per-function coverage and the hottest blocks with
# their disassembly; record a pipe read in deep mode (every function it
# reaches under __x64_sys_read); then compare with Kprobes on the same
# blocks.
# timeout: 110
. /tests/lib.sh
ic="" unit=ns mode="TCG timings"
if icount_mode; then
	ic=-I unit=insns mode="instruction counts (QEMU -icount: deterministic)"
fi
echo "== kjit demo: Debian $(uname -r), $(nproc) vCPUs under QEMU TCG${ic:+ -icount shift=0}"
load_kjit
insmod /lib/kjit/kjit_kprobes.ko || fail "insmod kjit_kprobes.ko"
echo
echo "== kjit attach: divert 7 system call paths into the code cache"
kjit attach __x64_sys_getpid ksys_read vfs_read pipe_read pipe_write \
	do_sys_openat2 __x64_sys_close || fail "attach"
echo
echo "== workload: 2000 getpid, 2000 one-byte reads of /dev/zero,"
echo "   500 pipe round trips, 500 open+close of /dev/null"
workload getpid 2000 && workload read 2000 && workload pipe 500 &&
	workload openclose 500 || fail "workload"
kjit detach || fail "detach"
echo
echo "== kjit report --top 4 (calls = entry block count; coverage = share of the"
echo "   function's static basic blocks that executed; hottest blocks disassembled)"
kjit report --top 4 || fail "report"
echo
echo "== kjit stat"
kjit stat
echo
echo "== kjit record --deep: everything a one-byte pipe read does under"
echo "   __x64_sys_read (direct and indirect calls followed into callees)"
kjit record --deep -f __x64_sys_read -o /tmp/deep.data -- workload piperead 500 ||
	fail "record --deep"
kjit report -i /tmp/deep.data > /tmp/deep.txt || fail "report -i"
awk 'NF == 0 { if (++blank == 2) exit } { print }' /tmp/deep.txt | head -n 40
echo "   ($(grep -c . /tmp/deep.txt) lines in all: kjit report -i /tmp/deep.data)"
# for the host, which maps it to the kernel's source lines when it has the
# -dbg vmlinux (make demo KJIT_DBG=1): hidden from the terminal
sed 's/^/KJIT-DATA /' /tmp/deep.data
echo
echo "== source lines and HTML: a module built with -g (kjit_linetest.ko),"
echo "   recorded, its blocks mapped to file:line with libdw; --lcov writes a"
echo "   tracefile that the host turns into HTML with genhtml"
dbg=/lib/kjit/debug/kjit_linetest.ko
if [ -e /lib/kjit/kjit_linetest.ko ] && [ -e $dbg ]; then
	insmod /lib/kjit/kjit_linetest.ko || fail "insmod kjit_linetest.ko"
	kjit record -f linemod_outer -o /tmp/l.data -- \
		sh -c 'echo 20 > /sys/module/kjit_linetest/parameters/run' ||
		fail "record linemod_outer"
	kjit report -i /tmp/l.data --debuginfo $dbg | sed -n '/^source lines/,$p' | head -n 10
	# for the host (tests/vm/run.sh --demo): hidden from the terminal
	kjit report -i /tmp/l.data --lcov --debuginfo $dbg | sed 's/^/KJIT-LCOV /' ||
		fail "report --lcov"
	rmmod kjit_linetest
else
	echo "   (kjit_linetest.ko or its debug copy missing: skipped)"
fi
echo
echo "== kjit vs Kprobes: every block of pipe_read/pipe_write counted both ways"
echo "   (5 x 300 pipe round trips pinned to CPU 0; $mode: medians after a"
echo "   warm-up; a cost within the native runs' spread reads below-noise(±X))"
kjitcount -c 0 -x -t 5 $ic pipe 300 pipe_read pipe_write > /tmp/cmp.out || {
	cat /tmp/cmp.out
	fail "kjit and Kprobes disagree"
}
grep -E '^(TIME|BLOCKS_PER_OP|PERBLOCK)' /tmp/cmp.out
# never a negative cost or ratio (tools/report/noise.c)
grep -Eq "^PERBLOCK kjit=([0-9]+\.[0-9]+|below-noise\(±[0-9.]+\)) $unit kprobes=([0-9]+\.[0-9]+|below-noise\(±[0-9.]+\)) $unit ratio=([0-9]+\.[0-9]|>=[0-9]+\.[0-9]|n/a) noise=[0-9.]+ $unit\$" /tmp/cmp.out ||
	fail "PERBLOCK line"
grep '^BLOCK ' /tmp/cmp.out | head -n 6
echo "   ..."
grep '^SUMMARY' /tmp/cmp.out
rmmod kjit_kprobes
unload_kjit
