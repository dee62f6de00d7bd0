#!/bin/sh
# timecost-report.sh - the table of docs/results/timecost.md from one boot
# of bench/timecost.sh under QEMU -icount shift=0,sleep=off: a guest ns is
# one executed instruction, so each TIMECOST figure is instructions per
# read(). Per tool: instructions added per read (tool - native, native
# the mean of the timings just before and after it), the calls it timed
# per read, and the instructions added per timed call; kjit's timing
# alone is its timed run less its counting run.
# Usage: bench/timecost-report.sh GUEST_OUTPUT
[ $# = 1 ] || { echo "usage: $0 GUEST_OUTPUT" >&2; exit 2; }
awk '
/^TIMECOST / {
	tool = $2; ns = $3; sub("ns_per_op=", "", ns); c = $4; sub("calls_per_op=", "", c)
	if (tool == "native") {
		if (pending != "") { nat[pending] = (prev + ns) / 2; pending = "" }
		prev = ns + 0; next
	}
	t[tool] = ns + 0; calls[tool] = c + 0; before = prev; pending = tool; order[n++] = tool
}
END {
	print "| tool | instructions per read() | added per read | calls timed per read | added per timed call |"
	print "| --- | ---: | ---: | ---: | ---: |"
	printf "| native | %.1f | | | |\n", prev
	for (i = 0; i < n; i++) {
		k = order[i]; a = t[k] - nat[k]
		if (calls[k] > 0)
			printf "| %s | %.1f | %.1f | %.2f | **%.0f** |\n", k, t[k], a, calls[k], a / calls[k]
		else
			printf "| %s | %.1f | %.1f | | |\n", k, t[k], a
	}
	if (calls["kjit"] > 0 && ("kjit-count" in t)) {
		tm = (t["kjit"] - t["kjit-count"]) / calls["kjit"]
		printf "\nkjit timing alone (kjit - kjit-count): %.0f instructions a timed call.\n", tm
		if (calls["fgraph"] > 0)
			printf "function_graph per timed call / kjit per timed call: %.1fx.\n", ((t["fgraph"] - nat["fgraph"]) / calls["fgraph"]) / ((t["kjit"] - nat["kjit"]) / calls["kjit"])
		if (calls["kretprobe"] > 0)
			printf "kprobe + kretprobe per timed call / kjit per timed call: %.1fx.\n", ((t["kretprobe"] - nat["kretprobe"]) / calls["kretprobe"]) / ((t["kjit"] - nat["kjit"]) / calls["kjit"])
	}
}' "$1"
