#!/bin/sh
# micro-report.sh - the targets table of docs/results/micro.md, from the
# output of bench/micro.sh (kjitcount -t lines): per case, kjit's and the
# Kprobes' added cost per executed block and their ratio, the cost of kjit
# without counting relative to native, and one entry Kprobe's added cost.
# No column shows a negative figure: a cost at or below the noise floor
# (kjitcount's "below-noise(±X)", or a figure <= 0 in older output without
# a noise field) reads "below noise (±X ns)", and its ratio is the lower
# bound kjitcount prints (">=R") or n/a.
# Usage: bench/micro-report.sh MICRO_OUTPUT
awk '
/^CASE / { name = $2; opt = $3; sub("kprobes-optimization=", "", opt) }
/^NOCOUNT / { split($2, a, "="); nocount[name] = a[2] }
/^ENTRYPROBE / { v = $2; sub("^added=", "", v); entry[name] = v }
/^PERBLOCK / {
	for (i = 2; i <= NF; i++) {
		eq = index($i, "=")
		if (!eq) continue
		k = substr($i, 1, eq - 1); v = substr($i, eq + 1)
		if (k == "kjit") kj[name, opt] = v
		if (k == "kprobes") kp[name, opt] = v
		if (k == "ratio") rt[name, opt] = v
	}
	if (!(name in seen)) { seen[name] = 1; order[n++] = name }
}
function isnum(v) { return v ~ /^-?[0-9]+(\.[0-9]+)?$/ }
# A cost for the table: the figure, or "below noise (±X ns)".
function cost(v) {
	if (v == "") return "-"
	if (v ~ /^below-noise\(/) {
		sub(/^below-noise\(/, "", v); sub(/\)$/, "", v)
		return "below noise (" v " ns)"
	}
	if (isnum(v) && v + 0 <= 0) return "below noise"
	return v
}
function ratio(r, p, k) {
	if (r ~ /^>=/) { sub(/^>=/, "", r); return sprintf(">= %.0fx (kjit cost below noise)", r) }
	if (r == "n/a") return "n/a (cost below noise)"
	if (isnum(r) && r + 0 > 0) return sprintf("%.0fx", r)
	# older output, without the noise field: only two positive costs
	if (r == "" && isnum(p) && isnum(k) && p + 0 > 0 && k + 0 > 0)
		return sprintf("%.0fx", p / k)
	return "n/a (kjit cost below noise)"
}
END {
	print "| case | kjit ns/block | int3 Kprobe ns/block | ratio (target >= 50x) | optimized Kprobe ns/block | ratio (target >= 5x) | kjit no-count / native (target <= 1.3 on getpid) | entry Kprobe ns/op |"
	print "| --- | --- | --- | --- | --- | --- | --- | --- |"
	for (i = 0; i < n; i++) {
		c = order[i]
		printf "| %s | %s | %s | %s | %s | %s | %s | %s |\n", c,
			cost(kj[c, 0]), cost(kp[c, 0]), ratio(rt[c, 0], kp[c, 0], kj[c, 0]),
			cost(kp[c, 1]), ratio(rt[c, 1], kp[c, 1], kj[c, 1]),
			(c in nocount) ? nocount[c] : "-", (c in entry) ? cost(entry[c]) : "-"
	}
}' "$1"
