#!/bin/sh
# run.sh - `make bench`: measure, then write docs/results/.
#   - translator speed and expansion on the host (build/host/bench_translate)
#   - micro: ns per system call natively, under kjit and under Kprobes on the
#     same blocks, in one guest boot (bench/micro.sh)
# Usage: bench/run.sh BUILD_DIR
set -u
BUILD=$1
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
OUT=$ROOT/docs/results
mkdir -p "$OUT"
KVER=$(cat "$BUILD/cache/kver")
DATE=$(date -u +%Y-%m-%d)
CPU=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)

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

echo "bench: micro (guest, TCG)"
sh "$ROOT/tests/vm/run.sh" --build "$BUILD" --log "$BUILD/bench-console.log" \
	--results "$BUILD/bench.results" "$HERE/micro.sh" > "$BUILD/bench-micro.txt" 2>&1
status=$?
{
	echo "# Micro-benchmark: counting every block of a system call path"
	echo
	echo "Measured $DATE: Debian $KVER in qemu-system-x86_64 -accel tcg,thread=single"
	echo "-cpu max -smp 2 (software emulation: TCG numbers are TCG numbers, not"
	echo "hardware numbers) on a host with $CPU."
	echo "Command: \`make bench\` (guest script bench/micro.sh). Each TIME line is the"
	echo "median (min, max) of 7 runs; PERBLOCK is (configuration - native) divided"
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
cat "$OUT/translator.md" "$OUT/micro.md"
exit $status
