#!/bin/sh
# icount-report.sh - the deterministic tables of docs/results/icount.md,
# from two boots of bench/micro.sh under QEMU -icount shift=0,sleep=off
# (tests/vm/run.sh --icount): the guest clock advances 1 ns per executed
# instruction, so every kjitcount TIME figure is instructions per operation.
#
# Prints, as markdown:
#  - per case, the instructions added per executed block (configuration -
#    native, divided by the blocks kjit counted per operation) for kjit
#    without counting, kjit counting, counting alone (kjit - no count),
#    int3 Kprobes and optimized Kprobes on the same blocks, and one Kprobe
#    per function entry (per operation); from run A;
#  - reproducibility: every TIME median of run A against run B, the largest
#    relative difference, and whether it is within 1% (exit status 1 if not).
# "native" is the mean of the case's first and last native timings, as
# kjitcount uses. kjit's figures come from the kprobes-optimization=0 pass
# (the =1 pass measures them again: both are in the raw lines).
# Usage: bench/icount-report.sh RUN_A_OUTPUT RUN_B_OUTPUT
[ $# = 2 ] || { echo "usage: $0 RUN_A RUN_B" >&2; exit 2; }
awk '
FNR == 1 { run++ }
/^CASE / { name = $2; opt = $3; sub("kprobes-optimization=", "", opt)
	if (run == 1 && !((name) in seen)) { seen[name] = 1; order[n++] = name } }
/^TIME / {
	v = $3; sub("^median=", "", v)
	t[run, name, opt, $2] = v
	key[name SUBSEP opt SUBSEP $2] = 1
}
/^BLOCKS_PER_OP / { bpo[run, name, opt] = $2 }
function native(r, c, o) { return (t[r, c, o, "native"] + t[r, c, o, "native-again"]) / 2 }
function per(r, c, o, mode) {
	if (!((r, c, o, mode) in t) || bpo[r, c, o] <= 0) return "-"
	return sprintf("%.1f", (t[r, c, o, mode] - native(r, c, o)) / bpo[r, c, o])
}
function cnt(r, c, o) {
	if (bpo[r, c, o] <= 0) return "-"
	return sprintf("%.1f", (t[r, c, o, "kjit"] - t[r, c, o, "kjit-nocount"]) / bpo[r, c, o])
}
END {
	print "| case | blocks/op | native insns/op | kjit, no counting | kjit counting | counting alone | int3 Kprobes | optimized Kprobes | entry Kprobe insns/op |"
	print "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"
	for (i = 0; i < n; i++) {
		c = order[i]
		printf "| %s | %.2f | %.0f | %s | %s | %s | %s | %s | %.0f |\n", c,
			bpo[1, c, 0], native(1, c, 0), per(1, c, 0, "kjit-nocount"),
			per(1, c, 0, "kjit"), cnt(1, c, 0), per(1, c, 0, "kprobes"),
			per(1, c, 1, "kprobes"),
			t[1, c, 0, "kprobe-entry"] - native(1, c, 0)
	}
	worst = 0; cmp = 0; missing = 0
	for (k in key) {
		split(k, p, SUBSEP)
		a = t[1, p[1], p[2], p[3]]; b = t[2, p[1], p[2], p[3]]
		if (a == "" || b == "") { missing++; continue }
		d = (a > b ? a - b : b - a) / (a > 0 ? a : 1)
		cmp++
		if (d > worst) { worst = d; wk = p[1] " " p[3] " (kprobes-optimization=" p[2] "): " a " vs " b }
	}
	print ""
	printf "Reproducibility: %d medians (instructions per operation) of run A compared with run B; the largest difference is %.3f%%", cmp, worst * 100
	if (worst > 0) printf " (%s)", wk
	print "."
	if (missing) printf "%d medians are in one run only.\n", missing
	if (!cmp || missing || worst > 0.01) { print "NOT within 1%."; exit 1 }
	print "Within 1%: yes."
}' "$1" "$2"
