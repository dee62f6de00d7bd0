#!/bin/sh
# run.sh - `make bench`: measure, then write docs/results/.
#   - translator speed and expansion on the host (build/host/bench_translate)
#   - a report's coverage as sessions grow, host (build/host/bench_report_scale:
#     docs/results/report-scale.md)
#   - counting on silicon: ns per executed block, old and new counters, on
#     this host's CPU (build/host/bench_silicon: docs/results/silicon.md)
#   - one indirect branch lookup hit on silicon (build/host/bench_ibl:
#     docs/results/ibl.md)
#   - one call through the entry trampoline, with and without a scope
#     prologue, on silicon (build/host/bench_entry: docs/results/entry.md)
#   - micro: ns per system call natively, under kjit and under Kprobes on the
#     same blocks, in one guest boot (bench/micro.sh)
#   - icount: the micro cases again in two deterministic boots (QEMU
#     -icount shift=0,sleep=off, one vCPU: the guest clock counts executed
#     instructions), reported as instructions added per executed block for
#     kjit and Kprobes, and checked to repeat within 1% (icount.md, by
#     bench/icount-report.sh)
#   - timecost: the instructions a timed call adds under kjit --time,
#     function_graph and a kprobe + kretprobe pair, one -icount boot
#     (bench/timecost.sh, bench/timecost-report.sh: timecost.md)
#   - lmbench-icount: the LMbench-style suite once more in a deterministic
#     boot, native vs kjit deep vs Kprobes in instructions per operation
#     (lmbench-icount.md, by bench/lmbench-icount-report.sh); not part of
#     a plain `make bench`: BENCH_ONLY=lmbench-icount
#   - lines (KJIT_DBG=1 or BENCH_ONLY=lines, with the kernel's -dbg
#     vmlinux): the suite once under a deep kjit record, its blocks in the
#     kernel's source lines, lcov totals and genhtml pages (bench/lines.sh,
#     scripts/kernel-lines.sh, reported by bench/lines-report.sh: lines.md)
#   - share (BENCH_ONLY=share; not part of a plain `make bench`: the
#     single-stepped windows take ~30 min): what share of the kernel code
#     run under the suite's entry points kjit counted, against an
#     independent oracle - the host single-steps the guest through QEMU's
#     gdb stub (build/host/bench_share) in the windows that lmbench -K
#     counts with kjit (bench/share.sh, bench/share-report.sh: share.md)
#   - lmbench: an LMbench-style suite natively, under kjit deep counting and
#     under Kprobes on kjit's blocks, stress-ng native vs kjit, translator
#     time, cache bytes and attach times, in a second boot (bench/lmbench.sh,
#     reported by bench/lmbench-report.sh: lmbench.md, memory.md, PNG plots)
# Usage: bench/run.sh BUILD_DIR [KERNEL]
# KERNEL: a name of scripts/kernels (default: the first); results of any
# other kernel go to docs/results/KERNEL/.
# BENCH_ONLY=micro, BENCH_ONLY=icount, BENCH_ONLY=lmbench,
# BENCH_ONLY=lmbench-icount, BENCH_ONLY=silicon (with ibl and entry),
# BENCH_ONLY=ibl, BENCH_ONLY=entry, BENCH_ONLY=timecost, BENCH_ONLY=lines
# or BENCH_ONLY=share
# runs that part alone (its files only are rewritten).
# LMBENCH_CONF="REPS=3 MS=50 ..." overrides bench/lmbench.sh's settings (for
# a quick look; the committed results use the defaults).
set -u
BUILD=$1
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
FIRST=$(head -n 1 "$BUILD/cache/kernels" | cut -d' ' -f1)
KNAME=${2:-$FIRST}
KVER=$(awk -v k="$KNAME" '$1 == k { print $2 }' "$BUILD/cache/kernels")
[ -n "$KVER" ] || { echo "bench: no kernel '$KNAME' (make deps)" >&2; exit 1; }
export KJIT_KVER=$KVER
OUT=$ROOT/docs/results
[ "$KNAME" = "$FIRST" ] || OUT=$OUT/$KNAME
mkdir -p "$OUT"
DATE=$(date -u +%Y-%m-%d)
CPU=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
QVER=$(qemu-system-x86_64 --version | sed -n '1s/.*version \([0-9.]*\).*/\1/p')

ONLY=${BENCH_ONLY:-}
status=0 lm_status=0 sil_status=0 ic_status=0
if [ -z "$ONLY" ]; then
echo "bench: translator (host)"
"$BUILD/host/bench_translate" > "$BUILD/bench_translate.txt" 2>&1
{
	echo "# Translator speed and expansion (host)"
	echo
	echo "Measured $DATE on $CPU (one core), kernel image $KVER."
	echo "Command: \`make bench\` (runs \`build/host/bench_translate\`)."
	echo
	echo '```'
	cat "$BUILD/bench_translate.txt"
	echo '```'
} > "$OUT/translator.md"
fi

if [ -z "$ONLY" ] || [ "$ONLY" = report ]; then
echo "bench: a report's coverage as sessions grow (host)"
"$BUILD/host/bench_report_scale" > "$BUILD/bench_report_scale.txt" 2>&1
{
	echo "# A report's coverage as sessions grow (host)"
	echo
	echo "Measured $DATE on $CPU (one core): a synthetic session of N"
	echo "functions, 10 static blocks each, every block run once, 20,000"
	echo "stored symbols; the time to build every function's CFG and mark"
	echo "its covered blocks (session_coverage(), report --uncovered)."
	echo "Command: \`make bench\` or \`BENCH_ONLY=report make bench\` (runs"
	echo "\`build/host/bench_report_scale\`, bench/report_scale.c)."
	echo
	echo '```'
	cat "$BUILD/bench_report_scale.txt"
	echo '```'
} > "$OUT/report-scale.md"
fi

if [ -z "$ONLY" ] || [ "$ONLY" = silicon ]; then
echo "bench: counters on silicon (host CPU)"
"$BUILD/host/bench_silicon" --markdown "$BUILD/bench_silicon.md" \
	> "$BUILD/bench_silicon.txt" 2>&1
sil=$?
{
	echo "# Counting on silicon: cost per executed block"
	echo
	echo "Measured $DATE on this host's CPU ($CPU, $(nproc) CPUs), natively:"
	echo "no emulator. Command: \`make bench\` (runs"
	echo "\`build/host/bench_silicon\`; source: tests/host/bench_silicon.c)."
	echo
	echo "Code emitted by jit/ in the module's configuration (native-call mode,"
	echo "the module's counter sequences and flags handling, per-CPU counters with"
	echo "the GS base set by arch_prctl: at 64-bit %gs offsets as alloc_percpu()"
	echo "gives, \`movabs\` + \`incq %gs:(%reg)\`, and at 32-bit ones as the near"
	echo "area gives, \`incq %gs:disp32\`: kmod/pcpu_near.h), for blocks shaped"
	echo "like the stock vmlinux's: every vmlinux block is translated as the"
	echo "module does and its shape recorded (instructions, flags live at the"
	echo "counter, a dead register or a saved one, counter moved into the block,"
	echo "terminator); each program is 256 blocks drawn from those shapes and"
	echo "rebuilt from register-only instructions that get the same counter"
	echo "sequence (fidelity 100% below means every synthetic block did). jcc and"
	echo "jmp go to the next block, calls to one-block leaf functions."
	echo "The blocks are ALU-only and their counters stay in L1: a worst case"
	echo "for hiding the counter's cost, which memory-bound kernel code hides"
	echo "partly."
	echo
	echo "Each round runs every configuration once, in rotating order; \"added\""
	echo "is (configuration - native) / blocks executed in that round, \"counter"
	echo "alone\" (configuration - kjit without counting) / blocks; the"
	echo "median and [10th, 90th percentile] over 1001 rounds of ~70,000"
	echo "blocks each. Cycles are TSC ticks (the host exposes no core cycle"
	echo "counter to user space here); ns from the TSC rate measured against"
	echo "CLOCK_MONOTONIC. Blocks per run come from the counters, and the old"
	echo "and the new counters agree exactly."
	echo
	echo "| blocks | configuration | native ns/block | added ns/block | added TSC cycles | counter alone ns/block |"
	echo "| --- | --- | --- | --- | --- | --- |"
	cat "$BUILD/bench_silicon.md"
	echo
	echo "Goal (issue 14): at most 1 ns added per block with the flags dead,"
	echo "2.5 ns with them live."
	echo
	echo '```'
	cat "$BUILD/bench_silicon.txt"
	echo '```'
} > "$OUT/silicon.md"
cat "$OUT/silicon.md"
[ $sil = 0 ] || sil_status=1
fi
if [ -z "$ONLY" ] || [ "$ONLY" = silicon ] || [ "$ONLY" = ibl ]; then
echo "bench: one indirect branch lookup hit on silicon (host CPU)"
"$BUILD/host/bench_ibl" > "$BUILD/bench_ibl.txt" 2>&1 || sil_status=1
{
	echo "# One indirect branch lookup hit on silicon"
	echo
	echo "Measured $DATE on this host's CPU ($CPU, $(nproc) CPUs), natively:"
	echo "no emulator. Command: \`make bench\` (\`BENCH_ONLY=ibl\` alone; runs"
	echo "\`build/host/bench_ibl\`; source: tests/host/bench_ibl.c)."
	echo
	echo "A translated indirect branch pushes its target and jumps to"
	echo "kjit_dispatch_entry (or, for an indirect call, whose flags are dead,"
	echo "kjit_dispatch_entry_nf), whose fast path probes this CPU's lookup"
	echo "table: one 8-byte word per slot, target and continuation 32 bits each"
	echo "(kmod/dispatch_entry.S, kmod/ibl.h). The benchmark runs those hit paths"
	echo "instruction for instruction in user space, with the table reached"
	echo "through %gs as in the kernel, against the native indirect jump they"
	echo "replace. Beside them: the probe it replaced (16-byte slots read twice"
	echo "under pushfq/cli/popfq; \`cli\` is privileged and left out, so that"
	echo "row is a lower bound) and an inline prediction of the site's target"
	echo "(cmp, jne, jmp), as DynamoRIO inlines its lookup."
	echo "Median and [10th, 90th percentile] over the rounds."
	echo
	cat "$BUILD/bench_ibl.txt"
	echo
	echo "How often it matters: docs/results/lmbench-icount.md counts the"
	echo "lookup hits per 1,000 executed blocks on the LMbench-style suite."
} > "$OUT/ibl.md"
cat "$OUT/ibl.md"
fi
if [ -z "$ONLY" ] || [ "$ONLY" = silicon ] || [ "$ONLY" = entry ]; then
echo "bench: the entry trampoline and the scope prologue on silicon (host CPU)"
"$BUILD/host/bench_entry" > "$BUILD/bench_entry.txt" 2>&1 || sil_status=1
{
	echo "# The way into an attached function, on silicon"
	echo
	echo "Measured $DATE on this host's CPU ($CPU, $(nproc) CPUs), natively:"
	echo "no emulator. Command: \`make bench\` (\`BENCH_ONLY=entry\` alone; runs"
	echo "\`build/host/bench_entry\`; source: tests/host/bench_entry.c)."
	echo
	echo "Every attached function's __fentry__ call lands in one shared entry"
	echo "trampoline (codecache/entry.h) that finds the function's translation"
	echo "for this CPU. A scoped session (\`kjit record\` by default: the"
	echo "command and what it forks; \`-p\`, \`-C\`) puts a prologue in"
	echo "front of it that sends calls from outside the scope back to the"
	echo "function's own code. The benchmark runs the bytes kjit_entry_emit()"
	echo "writes, with the per-CPU area at a real GS base, for a function"
	echo "whose body and translation are one \`ret\` each: the rows differ"
	echo "only in the way in. Median and [10th, 90th percentile] over the"
	echo "rounds, per call. Every trampoline has the exiting guard (a task"
	echo "past exit_notify() is sent back native, counted: its own row);"
	echo "\"no exiting guard\" is the trampoline without it, in the same run."
	echo "Since 11-28 an every-task or CPU session keeps kjit's own"
	echo "processes out (kmod/own.h) with a prologue too: \"every task but"
	echo "kjit's own\" is what \`kjit attach -a\` emits now; \"no scope\" is"
	echo "\`--count-kjit\`."
	echo
	grep -v "^KJIT-RESULT" "$BUILD/bench_entry.txt"
} > "$OUT/entry.md"
cat "$OUT/entry.md"
fi
[ "$ONLY" = silicon ] || [ "$ONLY" = ibl ] || [ "$ONLY" = entry ] && exit $sil_status

if [ -z "$ONLY" ] || [ "$ONLY" = micro ]; then

echo "bench: micro (guest, TCG)"
sh "$ROOT/tests/vm/run.sh" --build "$BUILD" --kernel "$KNAME" --log "$BUILD/bench-console.log" \
	--results "$BUILD/bench.results" "$HERE/micro.sh" > "$BUILD/bench-micro.txt" 2>&1
status=$?
{
	echo "# Micro-benchmark: counting every block of a system call path"
	echo
	echo "Measured $DATE: Debian $KVER in qemu-system-x86_64 -accel tcg,thread=single"
	echo "-cpu max -smp 2 (software emulation: TCG numbers are TCG numbers, not"
	echo "hardware numbers) on a host with $CPU."
	echo "Command: \`make bench\` (guest script bench/micro.sh). Each TIME line is the"
	echo "median (min, max) of 7 runs (5 for read-deep); PERBLOCK is (configuration - native) divided"
	echo "by the blocks executed per operation, which kjit counts itself; ratio is"
	echo "Kprobes' added cost over kjit's. The workload is pinned to CPU 0."
	echo "Under TCG the native time of one case varies by 10-50% between"
	echo "runs of one boot (see min/max); a negative or very small PERBLOCK for"
	echo "kjit means its cost was below that noise, not that it is free."
	echo
	echo "Configurations per case: native (mean of a timing first and one"
	echo "last, native-again), kjit without counting (KJIT_ATTACH_NO_COUNT),"
	echo "kjit counting every block, Kprobes on the same block addresses, and"
	echo "one Kprobe per attached function's entry."
	echo
	echo "## Targets (ratios measured in the same run)"
	echo
	sh "$HERE/micro-report.sh" "$BUILD/bench-micro.txt"
	echo
	echo "## Raw lines"
	echo
	echo '```'
	grep -E '^(CASE|TIME|NOCOUNT|ENTRYPROBE|BLOCKS_PER_OP|PERBLOCK|SUMMARY)' "$BUILD/bench-micro.txt"
	echo '```'
} > "$OUT/micro.md"
cat "$OUT/micro.md"
# every kernel's targets table side by side (docs/results/kernels.md)
sh "$HERE/kernels-report.sh" "$BUILD" "$ROOT/docs/results"
fi
[ "$ONLY" = micro ] && exit $status

if [ -z "$ONLY" ] || [ "$ONLY" = icount ]; then
echo "bench: micro, deterministic (guest, TCG -icount, two boots)"
for r in a b; do
	sh "$ROOT/tests/vm/run.sh" --build "$BUILD" --kernel "$KNAME" --icount \
		--log "$BUILD/bench-icount-$r-console.log" \
		--results "$BUILD/bench-icount-$r.results" "$HERE/micro.sh" \
		> "$BUILD/bench-icount-$r.txt" 2>&1 || ic_status=1
done
{
	echo "# Deterministic guest overhead: instructions per executed block"
	echo
	echo "Measured $DATE: Debian $KVER in qemu-system-x86_64 -accel tcg"
	echo "-icount shift=0,sleep=off -cpu max -smp 1 (QEMU $QVER), kernel booted with"
	echo "\`nokaslr\` so that each boot lays it out alike. With -icount shift=0 the"
	echo "guest's clocks advance exactly 1 ns per executed instruction and"
	echo "sleep=off stops them while the vCPU idles, so every guest timing below"
	echo "is a count of executed instructions, not time: the same workload gives"
	echo "the same figure in every boot (checked below: two boots). Instructions"
	echo "are not cycles: a \`lock incq\` and a plain \`incq\` are one"
	echo "instruction each; docs/results/silicon.md gives what each of kjit's"
	echo "counter sequences costs on silicon. One vCPU: QEMU cannot run -icount"
	echo "with multi-threaded TCG."
	echo
	echo "Command: \`BENCH_ONLY=icount make bench\` (guest script bench/micro.sh, as"
	echo "for micro.md, in two boots under \`tests/vm/run.sh --icount\`; tables by"
	echo "bench/icount-report.sh). Per case: instructions added per executed"
	echo "block = (configuration - native) / blocks kjit counted per operation,"
	echo "median of 7 runs (5 for read-deep); native is the mean of the case's"
	echo "first and last native timing. \"counting alone\" is kjit counting"
	echo "minus kjit without counting (KJIT_ATTACH_NO_COUNT): the counter"
	echo "sequences (docs/design.md, \"Counting\"). kjit's own added"
	echo "instructions include entering and leaving the cache: the ftrace"
	echo "direct call to the trampoline and the jump back to the caller, charged"
	echo "to the blocks of the operation."
	echo
	sh "$HERE/icount-report.sh" "$BUILD/bench-icount-a.txt" "$BUILD/bench-icount-b.txt"
	[ $? = 0 ] || ic_status=1
	echo
	echo "## Raw lines (run A)"
	echo
	echo '```'
	grep -E '^(CASE|TIME|BLOCKS_PER_OP|SUMMARY)' "$BUILD/bench-icount-a.txt"
	echo '```'
} > "$OUT/icount.md"
cat "$OUT/icount.md"
cat "$BUILD/bench-icount-a.results" "$BUILD/bench-icount-b.results"
fi
[ "$ONLY" = icount ] && exit $ic_status

if [ -z "$ONLY" ] || [ "$ONLY" = timecost ]; then
echo "bench: the cost of timing a call (guest, TCG -icount, one boot)"
tc_status=0
sh "$ROOT/tests/vm/run.sh" --build "$BUILD" --kernel "$KNAME" --icount \
	--log "$BUILD/bench-timecost-console.log" \
	--results "$BUILD/bench-timecost.results" "$HERE/timecost.sh" \
	> "$BUILD/bench-timecost.txt" 2>&1 || tc_status=1
{
	echo "# The cost of timing a call: kjit --time, function_graph, kretprobes"
	echo
	echo "Measured $DATE: Debian $KVER in qemu-system-x86_64 -accel tcg"
	echo "-icount shift=0,sleep=off -cpu max -smp 1 (QEMU $QVER), \`nokaslr\`: a"
	echo "guest ns is one executed instruction, so every figure below counts"
	echo "instructions, not time (on silicon a kprobe's int3 trap costs far more"
	echo "than its one instruction; docs/results/micro.md has silicon-style"
	echo "times)."
	echo
	echo "Command: \`BENCH_ONLY=timecost make bench\` (guest script"
	echo "bench/timecost.sh, table by bench/timecost-report.sh). The workload:"
	echo "one-byte read()s of /dev/zero (\`workload time read 2000\`, its own"
	echo "ns per read; each figure the fewest of 5 such timings, as background"
	echo "work only adds to one: the RUNS lines below give all five), natively"
	echo "and with every function under"
	echo "\`__x64_sys_read\` timed: kjit \`attach --time --deep\` (which also"
	echo "counts every block; kjit-count is \`--deep\` without \`--time\`),"
	echo "ftrace's function_graph with set_graph_function=__x64_sys_read"
	echo "(durations on), and a kprobe plus a kretprobe event on each function"
	echo "kjit timed that kprobes take. Calls timed per read: kjit's own"
	echo "report, the function_graph trace's entries, the kprobe events"
	echo "recorded (each tool times what it can: kjit also static call"
	echo "trampolines, function_graph no notrace function). Native: the mean"
	echo "of the timings just before and after each tool's."
	echo
	sh "$HERE/timecost-report.sh" "$BUILD/bench-timecost.txt"
	echo
	echo "## Raw lines"
	echo
	echo '```'
	grep -E '^(SETTLED|TIMECOST|PROBE|RUNS)' "$BUILD/bench-timecost.txt"
	echo '```'
} > "$OUT/timecost.md"
cat "$OUT/timecost.md"
cat "$BUILD/bench-timecost.results"
fi
[ "$ONLY" = timecost ] && exit $tc_status

# pack_extra: what the lmbench boot needs beyond the rig's image, as one
# archive (tests/vm/run.sh --extra copies one file into /tests/): the
# settings and, when installed here, stress-ng with its libraries.
pack_extra() {
	d=$BUILD/bench/extra
	rm -rf "$d" && mkdir -p "$d/tests" || return 1
	printf '%s\n' "${LMBENCH_CONF:-}" > "$d/tests/lmbench.conf"
	if command -v stress-ng > /dev/null; then
		mkdir -p "$d/usr/bin" && cp "$(command -v stress-ng)" "$d/usr/bin/"
		ldd "$(command -v stress-ng)" | sed -n 's/.*=> \(\/[^ ]*\).*/\1/p' |
		while read -r lib; do
			mkdir -p "$d$(dirname "$lib")" && cp -L "$lib" "$d$lib"
		done
	fi
	(cd "$d" && tar -cf ../lmbench-extra.tar .)
}

if [ "$ONLY" = lmbench-icount ]; then
	echo "bench: LMbench-style suite, deterministic (guest, TCG -icount)"
	LMBENCH_CONF=${LMBENCH_CONF:-ROUNDS=1 REPS=3 MS=100 KP_REPS=3 KP_MS=100 STRESS=0 MEMORY=1 MEM_MS=50 ATTACHTIME=0}
	pack_extra || exit 1
	sh "$ROOT/tests/vm/run.sh" --build "$BUILD" --kernel "$KNAME" --icount \
		--log "$BUILD/bench-lmicount-console.log" \
		--results "$BUILD/bench-lmicount.results" \
		--extra "$BUILD/bench/lmbench-extra.tar" \
		"$HERE/lmbench.sh" > "$BUILD/bench-lmicount.txt" 2>&1
	st=$?
	{
		echo "# LMbench-style suite, deterministic: instructions per operation"
		echo
		echo "Measured $DATE: Debian $KVER in qemu-system-x86_64 -accel tcg"
		echo "-icount shift=0,sleep=off -cpu max -smp 1 (QEMU $QVER), nokaslr: the guest's clocks count executed"
		echo "instructions (1 ns each), so LMbench's times are instruction counts"
		echo "and repeat from boot to boot (docs/testing.md, \"Deterministic"
		echo "timing\"). Instructions are not cycles: kjit's counter sequences and"
		echo "its lookup probe cost what docs/results/silicon.md measures, and"
		echo "Kprobes' int3 traps cost far more than their instruction count"
		echo "on silicon."
		echo
		echo "Command: \`BENCH_ONLY=lmbench-icount make bench\` (bench/lmbench.sh with"
		echo "\`$LMBENCH_CONF\`; table by bench/lmbench-icount-report.sh). kjit deep-counts"
		echo "every block under the suite's system call entry points (kjit.ko"
		echo "$(sed -n 's/^PARAMS kjit.ko \([^;]*\);.*/\1/p' "$BUILD/bench-lmicount.txt"));"
		# how many of the translated blocks the Kprobes covered
		kpn=$(sed -n 's/^KPROBES note: .*the \([0-9]*\) most executed blocks are probed, \([0-9]*\) are not.*/\1 \2/p' \
			"$BUILD/bench-lmicount.txt" | head -n 1)
		kpcov=""
		[ -n "$kpn" ] && kpcov=$(echo "$kpn" | awk '{ t = $1 + $2; printf ": here %d of the %d (%.0f%%)", $1, t, 100 * $1 / t }')
		echo "Kprobes count on the blocks kjit translated (at most 4096, the most"
		echo "executed$kpcov). One vCPU, so the two-process benchmarks switch on it."
		echo
		# what one block and one lookup hit cost on silicon, for the
		# report's estimate (from this tree's committed results; a
		# missing row is said, and fails the run)
		costs=$(sh "$HERE/silicon-costs.sh" "$ROOT") || st=1
		env $costs sh "$HERE/lmbench-icount-report.sh" "$BUILD/bench-lmicount.txt"
		echo
		echo '```'
		grep -E '^(SECTION|LM|STATS|KPROBES|SETTLED|SECTION-FAILED)' "$BUILD/bench-lmicount.txt"
		echo '```'
	} > "$OUT/lmbench-icount.md"
	cat "$OUT/lmbench-icount.md" "$BUILD/bench-lmicount.results"
	exit $st
fi

# share: kjit's counts against a single-stepping oracle (see the top)
if [ "$ONLY" = share ]; then
	echo "bench: share of the code under the suite's entry points that kjit counted (guest, TCG, single-stepped)"
	port=$((20000 + $$ % 20000))
	rm -f "$BUILD/bench-share-windows.txt"
	# SHARE_BENCHES="lat_pipe lat_ctx_2p_0k ...": only those windows (the
	# whole suite takes up to 2 hours: lat_proc_fork alone over 30 min)
	extra=
	if [ -n "${SHARE_BENCHES:-}" ]; then
		echo "$SHARE_BENCHES" > "$BUILD/share-benches"
		extra="--extra $BUILD/share-benches"
	fi
	# interrupts are masked while the host steps: minutes for the long
	# windows, which the lockup and RCU stall detectors would report
	KJIT_VM_APPEND="nowatchdog rcupdate.rcu_cpu_stall_suppress=1" \
	KJIT_VM_GDB=$port \
	KJIT_VM_HELPER="$BUILD/host/bench_share $port $BUILD/bench-share-windows.txt" \
		sh "$ROOT/tests/vm/run.sh" --build "$BUILD" --kernel "$KNAME" \
		--log "$BUILD/bench-share-console.log" \
		--results "$BUILD/bench-share.results" $extra \
		"$HERE/share.sh" > "$BUILD/bench-share.txt" 2>&1
	st=$?
	{
		echo "# Share of the kernel code under the roots that kjit counted"
		echo
		echo "Measured $DATE: Debian $KVER in qemu-system-x86_64 -accel tcg -cpu max"
		echo "-smp 1 (QEMU $QVER), on this host (\`$CPU\`)."
		echo
		echo "Command: \`BENCH_ONLY=share make bench\` (bench/share.sh in the guest,"
		echo "build/host/bench_share on the host, table by bench/share-report.sh)."
		echo "kjit deep-attaches the LMbench-style suite's system call entry points"
		echo "(the roots; \`exc_page_fault\` is refused: noinstr). Per benchmark,"
		echo "\`lmbench -K\` runs a warm-up, zeroes kjit's counters and runs a window"
		echo "of a few operations between two marker system calls, then reads what"
		echo "kjit counted in it (block executions, and the original instructions"
		echo "they ran). The oracle is independent of kjit: the host single-steps"
		echo "the same window through QEMU's gdb stub and counts every instruction"
		echo "of the kernel's own text that ran natively under a root - on the"
		echo "stack of a task inside a root call, at or below the root's frame -"
		echo "and the blocks they make (a new block after any control transfer or"
		echo "jump). kjit's code (the cache, trampolines, dispatcher: module"
		echo "memory) is not kernel text and is not counted; the roots' own entry"
		echo "sites and the retpoline thunk kjit's trampoline jumps through are"
		echo "kjit's way in and are shown apart. QEMU masks interrupts while it"
		echo "steps, so no interrupt handler runs inside a window."
		echo
		echo "blocks counted = kjit's block executions / (those + native block"
		echo "entries under the roots); insns counted, the same in instructions."
		echo
		[ -z "${SHARE_BENCHES:-}" ] || echo "Windows of $SHARE_BENCHES only (SHARE_BENCHES)."
		echo
		# no share at all where the oracle did not step the windows
		sh "$HERE/share-report.sh" "$BUILD/bench-share.txt" "$BUILD/bench-share-windows.txt" || st=1
		echo
		echo '```'
		grep -E '^(KJIT-SHARE|SHARE-FAILED|deep mode|nothing ran)' "$BUILD/bench-share.txt"
		grep -E '^WINDOW' "$BUILD/bench-share-windows.txt"
		echo '```'
	} > "$OUT/share.md"
	cat "$OUT/share.md" "$BUILD/bench-share.results"
	exit $st
fi

# lines: the suite's kernel code in source lines, lcov and HTML, with the
# kernel's -dbg vmlinux (KJIT_DBG=1: make bench fetches it first)
if [ "$ONLY" = lines ] || { [ -z "$ONLY" ] && [ -n "${KJIT_DBG:-}" ]; }; then
	echo "bench: the LMbench-style suite in the kernel's source lines (guest, TCG; host, libdw)"
	sh "$ROOT/tests/vm/run.sh" --build "$BUILD" --kernel "$KNAME" --log "$BUILD/bench-lines-console.log" \
		--results "$BUILD/bench-lines.results" "$HERE/lines.sh" > "$BUILD/bench-lines.txt" 2>&1
	li_status=$?
	sed -n 's/^KJIT-DATA //p' "$BUILD/bench-lines.txt" > "$BUILD/bench-lines.data"
	HEAD=12 sh "$ROOT/scripts/kernel-lines.sh" "$BUILD" "$KVER" "$BUILD/bench-lines.data" \
		"$BUILD/bench-lines" > "$BUILD/bench-lines-map.txt" 2>&1 || li_status=1
	cat "$BUILD/bench-lines-map.txt"
	sh "$HERE/lines-report.sh" "$BUILD" "$KVER" "$DATE" "$CPU" > "$OUT/lines.md"
	cat "$OUT/lines.md" "$BUILD/bench-lines.results"
	[ "$ONLY" = lines ] && exit $li_status
	[ $li_status = 0 ] || status=1
fi

echo "bench: LMbench-style suite, stress-ng, translator memory (guest, TCG)"
pack_extra || exit 1
sh "$ROOT/tests/vm/run.sh" --build "$BUILD" --kernel "$KNAME" --log "$BUILD/bench-lmbench-console.log" \
	--results "$BUILD/bench-lmbench.results" --extra "$BUILD/bench/lmbench-extra.tar" \
	"$HERE/lmbench.sh" > "$BUILD/bench-lmbench.txt" 2>&1
lm_status=$?
sh "$HERE/lmbench-report.sh" "$BUILD" "$OUT"
cat "$BUILD/bench-lmbench.results"
sed -n '/^## The suite/,/^## What was/p' "$OUT/lmbench.md"
[ $status = 0 ] && [ $lm_status = 0 ] && [ $sil_status = 0 ] && [ $ic_status = 0 ]
