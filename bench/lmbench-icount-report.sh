#!/bin/sh
# lmbench-icount-report.sh - the tables of docs/results/lmbench-icount.md,
# from one boot of bench/lmbench.sh under QEMU -icount shift=0,sleep=off
# (tests/vm/run.sh --icount): the guest clock advances 1 ns per executed
# instruction, so LMbench's "us" per operation are thousands of
# instructions and its MB/s are MB per 10^9 instructions.
#
# Prints, as markdown:
#  - per benchmark: native, kjit (deep counting under every entry point)
#    and Kprobes (on kjit's blocks) per operation, and their slowdowns
#    (configuration / native; native / configuration for bandwidth), with
#    the geometric means; the median over rounds of each round's figure;
#  - the kjit session of the last round: blocks executed, indirect branch
#    lookups served by the table and dispatcher entries per 1,000 blocks,
#    what ran natively for lack of room, and the instructions its
#    translations took (mostly in the untimed warm-up runs the kjit
#    column leaves out) beside the instructions of its timed runs;
#  - when the memory section ran (MEMORY=1: one deep session per benchmark
#    at its own entry points, MEMRUN/STATS lines), per benchmark: blocks
#    executed per operation, lookup-table hits and dispatcher entries per
#    operation and per 1,000 blocks, and translator refusals; with
#    KB_BLOCK_NS and KB_IBL_NS set (what one executed block's counting and
#    one lookup hit cost on silicon: docs/results/silicon.md, ibl.md), an
#    estimate of what kjit adds per operation on silicon, from those two
#    costs alone.
# Usage: bench/lmbench-icount-report.sh LMBENCH_OUTPUT
[ $# = 1 ] || { echo "usage: $0 LMBENCH_OUTPUT" >&2; exit 2; }
awk -v bns="${KB_BLOCK_NS:-}" -v ins="${KB_IBL_NS:-}" '
function kv(line, key) {
	if (!match(line, " " key "=[^ ]*")) return ""
	return substr(line, RSTART + length(key) + 2, RLENGTH - length(key) - 2)
}
function med(list,   a, n, i, j, t) {
	n = split(list, a, " ")
	for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) {
		t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
function fmt(x) { return x >= 100 ? sprintf("%.0f", x) : x >= 10 ? sprintf("%.1f", x) : sprintf("%.2f", x) }
/^SECTION / { sec = $2 }
/^SECTION kjit / { timed = 0 } # the timed kjit runs of the last round
/^LM / && sec == "kjit" && $4 == "us" { timed += $3 * 1000 * kv($0, "ops") }
/^LM / && (sec == "native" || sec == "kjit" || sec == "kprobes") {
	if (!($2 in seen)) { seen[$2] = 1; order[n++] = $2 }
	v[sec, $2] = v[sec, $2] " " $3; unit[$2] = $4
}
/^STATS suite / { st = $0 }
/^MEMRUN / { memops[$2] = kv($0, "ops"); mem[nm++] = $2 }
/^STATS / && $2 != "suite" && ($2 in memops) { mst[$2] = $0 }
/^REFUSALS / && $2 != "suite" { ref[$2] = ref[$2] " " $3 }
END {
	print "| benchmark | unit | native | kjit | Kprobes | kjit / native | Kprobes / native |"
	print "| --- | --- | --- | --- | --- | --- | --- |"
	gk = gp = 0; nk = np = 0
	for (i = 0; i < n; i++) {
		b = order[i]; u = unit[b] == "us" ? "k insns/op" : "MB per 10^9 insns"
		na = med(v["native", b]); kj = med(v["kjit", b]); kp = med(v["kprobes", b])
		rk = rp = "-"
		if (na > 0 && kj > 0) { rk = unit[b] == "us" ? kj / na : na / kj; gk += log(rk); nk++ }
		if (na > 0 && kp > 0) { rp = unit[b] == "us" ? kp / na : na / kp; gp += log(rp); np++ }
		printf "| %s | %s | %s | %s | %s | %s | %s |\n", b, u, fmt(na),
			(kj > 0 ? fmt(kj) : "-"), (kp > 0 ? fmt(kp) : "-"),
			(rk == "-" ? "-" : sprintf("%.3f", rk)), (rp == "-" ? "-" : sprintf("%.2f", rp))
	}
	printf "| **geometric mean** | | | | | **%.3f** | **%.2f** |\n", (nk ? exp(gk / nk) : 0), (np ? exp(gp / np) : 0)
	# a mean over fewer rows than the table has says so
	if (nk < n || np < n)
		printf "\nThe geometric means lack rows: kjit / native over %d of %d benchmarks, Kprobes / native over %d of %d (a \"-\" above: no figure).\n", nk, n, np, n
	if (st == "") exit
	ex = kv(st, "executions")
	print ""
	printf "The last round'"'"'s kjit session (whole suite): %d functions followed under %d entry points, %d blocks translated, %.0f block executions.\n", kv(st, "deep_funcs"), kv(st, "funcs"), kv(st, "translated"), ex
	if (ex > 0) {
		printf "Per 1,000 executed blocks: %.2f indirect branches served by the lookup table, %.3f dispatcher entries.\n", 1000 * kv(st, "lookup_hits") / ex, 1000 * kv(st, "dispatches") / ex
	}
	tr = kv(st, "translate_ns") + 0
	if (tr > 0)
		printf "Translation: %d blocks took %.1f M instructions (%.0f a block), most in the untimed warm-up runs that the kjit column leaves out; the timed kjit runs of the latency benchmarks executed %.1f M instructions, so the translation is %.1f%% of them.\n", kv(st, "translated"), tr / 1e6, tr / (kv(st, "translated") > 0 ? kv(st, "translated") : 1), timed / 1e6, (timed > 0 ? 100 * tr / timed : 0)
	printf "Left native for lack of room: %d callees (deep table full; %d refusals), %d blocks (code cache full), %d blocks (block map full); %d blocks counted with lock incq (per-CPU counter table full), %d while it grew.\n", kv(st, "over_funcs"), kv(st, "over_budget"), kv(st, "fallback_full"), kv(st, "fallback_map_full"), kv(st, "pcpu_full"), kv(st, "pcpu_growing")
	if (!nm) exit
	print ""
	print "Per benchmark, one deep session at its own entry points, counters zeroed before a run of as many operations as a 50-ms run made:"
	print ""
	sil = bns != "" && ins != ""
	printf "| benchmark | blocks/op | lookup hits/op | dispatcher entries/op | lookup hits per 1,000 blocks | refusals (dispatcher) |%s\n", (sil ? " silicon estimate: ns added per op |" : "")
	printf "| --- | --- | --- | --- | --- | --- |%s\n", (sil ? " --- |" : "")
	for (i = 0; i < nm; i++) {
		b = mem[i]; o = memops[b]; s = mst[b]
		if (o <= 0 || s == "") continue
		e = kv(s, "executions")
		printf "| %s | %.1f | %.2f | %.3f | %.2f | %s |", b, e / o,
			kv(s, "lookup_hits") / o, kv(s, "dispatches") / o,
			(e > 0 ? 1000 * kv(s, "lookup_hits") / e : 0),
			(b in ref ? substr(ref[b], 2) : "none")
		if (sil)
			printf " %.0f |", e / o * bns + kv(s, "lookup_hits") / o * ins
		printf "\n"
	}
	if (sil) {
		print ""
		printf "Silicon estimate = blocks/op x %s ns (counting and linking, one executed block: silicon.md, vmlinux mix, per-CPU) + lookup hits/op x %s ns (one hit: ibl.md). It leaves out entering and leaving the cache through the ftrace trampolines, dispatcher entries and cache effects: a lower bound, for scale, not a measurement.\n", bns, ins
	}
}' "$1"
