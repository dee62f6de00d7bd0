#!/bin/sh
# micro-report.sh - the targets table of docs/results/micro.md, from the
# output of bench/micro.sh (kjitcount -t lines): per case, kjit's and the
# Kprobes' added cost per executed block and their ratio, the cost of kjit
# without counting relative to native, and one entry Kprobe's added cost.
# Usage: bench/micro-report.sh MICRO_OUTPUT
awk '
/^CASE / { name = $2; opt = $3; sub("kprobes-optimization=", "", opt) }
/^NOCOUNT / { split($2, a, "="); nocount[name] = a[2] }
/^ENTRYPROBE / { split($2, a, "="); entry[name] = a[2] }
/^PERBLOCK / {
	for (i = 2; i <= NF; i++) {
		split($i, a, "=")
		if (a[1] == "kjit") kj[name, opt] = a[2]
		if (a[1] == "kprobes") kp[name, opt] = a[2]
	}
	if (!(name in seen)) { seen[name] = 1; order[n++] = name }
}
function ratio(p, k) { return (k > 0) ? sprintf("%.0fx", p / k) : "n/a (kjit cost below noise)" }
END {
	print "| case | kjit ns/block | int3 Kprobe ns/block | ratio (target >= 50x) | optimized Kprobe ns/block | ratio (target >= 5x) | kjit no-count / native (target <= 1.3 on getpid) | entry Kprobe ns/op |"
	print "| --- | --- | --- | --- | --- | --- | --- | --- |"
	for (i = 0; i < n; i++) {
		c = order[i]
		printf "| %s | %s | %s | %s | %s | %s | %s | %s |\n", c,
			kj[c, 0], kp[c, 0], ratio(kp[c, 0], kj[c, 0]),
			kp[c, 1], ratio(kp[c, 1], kj[c, 1]),
			(c in nocount) ? nocount[c] : "-", (c in entry) ? entry[c] : "-"
	}
}' "$1"
