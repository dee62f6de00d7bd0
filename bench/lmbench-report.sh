#!/bin/sh
# lmbench-report.sh - turn the guest output of bench/lmbench.sh into
# docs/results/lmbench.md and docs/results/memory.md, and plot
# docs/results/lmbench-overhead.png and perblock.png with gnuplot
# (bench/plots.gp; the data files stay in BUILD/bench/).
#
# Usage: bench/lmbench-report.sh BUILD OUT_DIR
#   reads BUILD/bench-lmbench.txt, and BUILD/bench-micro.txt (bench/micro.sh)
#   for the per-block plot when it is there.
# Slowdown, everywhere: configuration time / native time; for bandwidth
# (MB/s) native / configuration, so that above 1 is always slower.
set -u
BUILD=$1
OUT=$2
HERE=$(cd "$(dirname "$0")" && pwd)
IN=$BUILD/bench-lmbench.txt
DAT=$BUILD/bench
mkdir -p "$DAT" "$OUT"
KVER=${KJIT_KVER:-$(cat "$BUILD/cache/kver")}
DATE=$(date -u +%Y-%m-%d)
CPU=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
QEMU=$(qemu-system-x86_64 --version | head -n 1)

# The awk helpers every table uses: number formats and LMbench's names.
AWKLIB='
function fmt(x) {
	if (x == "" || x == "-") return "-"
	if (x >= 100) return sprintf("%.0f", x)
	if (x >= 10) return sprintf("%.1f", x)
	return sprintf("%.2f", x)
}
function pretty(n) {
	if (n == "lat_ctx_2p_0k") return "lat_ctx -s 0 2 (per switch)"
	if (n == "lat_pagefault") return "lat_pagefault (per fault)"
	if (n == "lat_mmap") return "lat_mmap 4m"
	if (n ~ /^lat_(pipe|unix|tcp)$/) return n " (round trip)"
	if (n ~ /^lat_(syscall|sig|proc)_/) { sub(/_/, "\001", n); sub(/_/, " ", n);
		sub(/\001/, "_", n) }
	return n
}
function kv(line, key) {
	if (!match(line, " " key "=[^ ]*")) return ""
	return substr(line, RSTART + length(key) + 2, RLENGTH - length(key) - 2)
}
function or_dash(x) { return x == "" ? "-" : x }
'

header() { # header TITLE
	echo "# $1"
	echo
	echo "Measured $DATE: Debian's $KVER kernel in $QEMU,"
	echo "\`-accel tcg,thread=single -cpu max -smp 2 -m 1G\` (software emulation:"
	echo "TCG numbers are TCG numbers, not hardware numbers), on a host with"
	echo "$CPU (2 cores, shared with other work)."
}

# lm_data: one row per benchmark, in BUILD/bench/lmbench.tsv:
#   name unit native kjit kprobes kjit/native kprobes/native native-spread
#   iters(native kjit kprobes) per-round-kjit/native
# native and kjit: the median over rounds of each round's median;
# kjit/native: the median over rounds of that round's ratio (the two runs of
# a round are minutes apart at most); native-spread: slowest / fastest native
# round. "-": not measured. Also overhead.dat for the plot.
lm_data() {
	awk "$AWKLIB"'
	function slow(x, nat) { return unit[b] == "MB/s" ? nat / x : x / nat }
	function median(a, k,   i, j, t) {
		for (i = 2; i <= k; i++)
			for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
		return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
	}
	function over_rounds(c,   k, r, a) {
		k = 0
		for (r = 1; r <= rounds; r++) if ((c, r, b) in v) a[++k] = v[c, r, b]
		return k ? median(a, k) : "-"
	}
	/^SECTION / {
		sec = $2; r = 0
		if (sec == "native" || sec == "kjit") r = kv($0, "round") + 0
		if (r > rounds) rounds = r
		next
	}
	/^LM / {
		if (!($2 in unit)) { order[++n] = $2; unit[$2] = $4 }
		v[sec, r, $2] = $3; it[sec, $2] = kv($0, "iters")
	}
	END {
		for (i = 1; i <= n; i++) {
			b = order[i]
			nat = over_rounds("native"); kj = over_rounds("kjit")
			kp = ("kprobes", 0, b) in v ? v["kprobes", 0, b] : "-"
			k = 0; list = ""; lo = hi = ""
			for (r = 1; r <= rounds; r++) {
				if (("native", r, b) in v) {
					x = v["native", r, b] + 0
					if (lo == "" || x < lo) lo = x
					if (hi == "" || x > hi) hi = x
				}
				if (!(("native", r, b) in v) || !(("kjit", r, b) in v)) continue
				q[++k] = slow(v["kjit", r, b], v["native", r, b])
				list = list (list == "" ? "" : ",") sprintf("%.2f", q[k])
			}
			rk = k ? median(q, k) : "-"
			rp = kp != "-" && nat != "-" ? slow(kp, nat) : "-"
			sp = lo != "" ? (unit[b] == "MB/s" ? hi / lo : hi / lo) : "-"
			printf "%s %s %s %s %s %s %s %s %s %s %s %s\n", b, unit[b], nat, kj,
			    kp, rk, rp, sp, or_dash(it["native", b]), or_dash(it["kjit", b]),
			    or_dash(it["kprobes", b]), or_dash(list)
		}
	}' "$IN" > "$DAT/lmbench.tsv"
	awk "$AWKLIB"'
	{ printf "\"%s%s\" %s %s\n", pretty($1), ($4 == "-" ? " (not run)" : ""), $6, $7 }' \
	    "$DAT/lmbench.tsv" > "$DAT/overhead.dat"
}

# lm_table: the Markdown table, geometric means and the verdict.
lm_table() {
	awk "$AWKLIB"'
	function run(x) { return x == "-" ? "not run" : fmt(x) }
	function cell(r) { return r == "-" ? "-" : sprintf("%.2f", r) }
	function gmean(sum, n) { return n ? sprintf("%.2f", exp(sum / n)) : "-" }
	BEGIN {
		print "| benchmark | unit | native | kjit deep | Kprobes | kjit deep / native | Kprobes / native | kjit / native by round | native spread | operations per repetition: native / kjit / Kprobes |"
		print "| --- | --- | ---: | ---: | ---: | ---: | ---: | --- | ---: | --- |"
	}
	{
		printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s / %s / %s |\n",
		    pretty($1), $2, fmt($3), run($4), run($5), cell($6), cell($7),
		    $12, cell($8), $9, $10, $11
		if ($6 != "-") { gk += log($6); nk++; worst[$1] = $6 }
		if ($7 != "-") { gp += log($7); np++ }
		if ($8 != "-") { gn += log($8); nn++ }
	}
	END {
		printf "| **geometric mean** (benchmarks) | | | | | **%s** (%d) | **%s** (%d) | | %s (%d) | |\n",
		    gmean(gk, nk), nk, gmean(gp, np), np, gmean(gn, nn), nn
		print ""
		g = nk ? exp(gk / nk) : 0
		printf "**Target: LMbench-style suite with deep counting within 2x of native on the geometric mean.** "
		if (!nk)
			print "Not measured (no kjit run)."
		else if (g <= 2)
			printf "**Met** in this run: %.2fx over %d benchmarks (%.0f%% below the 2x bound).\n", g, nk, 100 * (2 - g) / 2
		else
			printf "**Not met** in this run: %.2fx over %d benchmarks, %.0f%% over the 2x bound.\n", g, nk, 100 * (g - 2) / 2
		for (k = 0; k < 3; k++) {
			best = ""
			for (b in worst) if (best == "" || worst[b] > worst[best]) best = b
			if (best == "") break
			list = list (k ? ", " : "") pretty(best) sprintf(" %.2fx", worst[best])
			delete worst[best]
		}
		if (list != "") printf "The largest kjit slowdowns: %s.\n", list
	}' "$DAT/lmbench.tsv"
}

# session_facts: what was attached, refused, followed and probed.
session_facts() {
	awk "$AWKLIB"'
	/^PARAMS / { sub(/^PARAMS /, ""); params = $0 }
	/^ENTRIES / { sub(/^ENTRIES /, ""); entries = $0 }
	/^REFUSED / && !refused_seen[$2]++ { ref = ref sprintf("- `%s` refused: %s (errno %d)\n", $2, substr($0, index($0, $4)), -$3) }
	/^ATTACHED / && !att { att = $2 " of " $4 }
	/^STATS suite / { st = $0; rf = "" }
	/^REFUSALS suite / { rf = rf " " $3 }
	/^KPROBES blocks=/ { kp = $0 }
	/^KPROBES refused_errno/ { kpr = kpr " " substr($0, 9) }
	/^KPROBES optimized=/ { kpo = $0 }
	/^KPROBES off / { kpoff = $0 }
	/^SECTION-FAILED / { sub(/^SECTION-FAILED /, ""); fails = fails "- failed: " $0 "\n" }
	/^LMFAIL / { fails = fails "- " $0 "\n" }
	END {
		printf "kjit.ko parameters and exclusions: %s.\n\n", params
		printf "Attached (deep, best effort) at the entry points the suite uses, %s attached:\n`%s`\n\n", att, entries
		printf "%s\n", ref
		if (st != "") {
			printf "The last round'"'"'s kjit session over the whole suite: %s blocks, %s deep callees followed (%s left native: over the budget), %s translations taking %.0f us each on average, %s bytes of code cache (both CPUs), %s dispatches that ran a block natively because the translator refused it (by reason:%s).\n\n",
			    kv(st, "blocks"), kv(st, "deep_funcs"), kv(st, "over_budget"),
			    kv(st, "translated"), kv(st, "ns_per_block") / 1000,
			    kv(st, "cache_bytes"), kv(st, "fallback_refused"), (rf == "" ? " none" : rf)
		}
		if (kp != "") {
			printf "Kprobes: armed %s of the %s blocks that session translated (%s refused by register_kprobe:%s; %s not armed: kjit_kprobes takes at most 4096, so the most executed ones were chosen, covering %s%% of the block executions kjit counted). Optimized by the kernel: %s (kprobes-optimization=%s). Arming took %.0f s and disarming %.0f s (expedited RCU during both, not during measurement).\n\n",
			    kv(kp, "armed"), kv(kp, "blocks"), kv(kp, "refused"),
			    (kpr == "" ? " none" : kpr), kv(kp, "capped"),
			    kv(kp, "covered_pct"), kv(kpo, "optimized"),
			    kv(kpo, "optimization"), kv(kp, "arm_ms") / 1000,
			    kv(kpoff, "disarm_ms") / 1000
		}
		if (fails != "") printf "Failures in this run:\n%s\n", fails
	}' "$IN"
}

# sng_table: stress-ng bogo operations per second, native vs kjit deep, by
# round (each round: native, then kjit).
sng_table() {
	grep -q '^SNG ' "$IN" || { echo "stress-ng was not run (not installed on the host)."; return; }
	sed -n 's/^SNGVERSION //p' "$IN" | head -n 1
	echo
	awk "$AWKLIB"'
	BEGIN {
		print "| stressor | round | native bogo ops/s | kjit deep bogo ops/s | slowdown (native / kjit) |"
		print "| --- | ---: | ---: | ---: | ---: |"
	}
	$1 == "SNG" {
		v[$2, $3, $7] = $6; if ($7 > rounds) rounds = $7
		if (!($3 in seen)) { seen[$3] = 1; o[++n] = $3 }
	}
	END {
		for (i = 1; i <= n; i++) {
			s = o[i]; g = 0; k = 0
			for (r = 1; r <= rounds; r++) {
				a = v["native", s, r]; b = v["kjit", s, r]; q = "-"
				if (a != "" && b > 0) { q = sprintf("%.2f", a / b); g += log(a / b); k++ }
				printf "| %s | %d | %s | %s | %s |\n", s, r, or_dash(a), or_dash(b), q
			}
			if (k) printf "| %s | geometric mean | | | **%.2f** |\n", s, exp(g / k)
		}
	}' "$IN"
}

write_lmbench_md() {
	set -- $(sed -n 's/^SECTION native reps=\([0-9]*\) ms=\([0-9]*\).*/\1 \2/p' "$IN")
	R=${1:-?} MS=${2:-?} ROUNDS=$(($# / 2))
	set -- $(sed -n 's/^SECTION kprobes reps=\([0-9]*\) ms=\([0-9]*\).*/\1 \2/p' "$IN")
	KR=${1:-?} KMS=${2:-?}
	{
		header "LMbench-style suite: native, kjit deep counting, Kprobes"
		cat <<-EOF
		Command: \`make bench\`, which boots the guest once for this suite
		(guest script \`bench/lmbench.sh\`, program \`tests/vm/progs/lmbench.c\`,
		run as \`lmbench -c 0 -r $R -t $MS\`; under Kprobes \`-r $KR -t $KMS\`; under
		kjit and Kprobes with \`-x\` for the benchmarks kjit does not run).
		LMbench is not packaged in Debian; the suite follows its method and
		metric names: each benchmark calibrates an operation count that fills
		$MS ms, then reports the median of the repetitions. Everything is pinned to
		CPU 0, so a ping-pong is two context switches on one CPU. Units: us per
		operation, MB/s (2^20 bytes) for bw_pipe. The operation count adapts
		to the configuration's speed: **under Kprobes fewer operations were
		timed per repetition** (last column; native and kjit: the last
		round's); the medians are measured at those counts, never
		extrapolated. Native and kjit runs alternate in $ROUNDS rounds (native,
		kjit; native, kjit; ...) so that changes in the shared host's load hit
		both: native and kjit are the medians over rounds, "kjit deep / native"
		is the median of the rounds' own ratios (listed by round), and
		"native spread" (slowest / fastest native round) shows TCG's run-to-run
		noise on this host, which applies to every ratio here. Kprobes ran
		once, after the rounds, on the blocks of the last kjit session;
		"Kprobes / native" is against the native median.

		## The suite

		EOF
		lm_table
		echo
		echo "## What was attached, refused and probed"
		echo
		session_facts
		echo "## stress-ng (external workload), native vs kjit deep"
		echo
		echo "Each stressor runs alone on CPU 0, natively and then with kjit"
		echo "deep-attached at the same entry points as the suite (real-time bogo"
		echo "ops/s): \`$(sed -n 's/^SNGCMD //p' "$IN" | head -n 1)\`."
		echo
		sng_table
		echo
		limits
		echo
		echo "Plots: [lmbench-overhead.png](lmbench-overhead.png) (slowdown per"
		echo "benchmark), [perblock.png](perblock.png) (added cost per executed block,"
		echo "kjit vs Kprobes, from [micro.md](micro.md)). Translator time, code-cache"
		echo "bytes and attach times: [memory.md](memory.md)."
	} > "$OUT/lmbench.md"
}

# limits: what this run shows about the causes, from its own data.
limits() {
	echo "## What limits it"
	echo
	cost_table
	echo
	awk "$AWKLIB"'
	/^LMSKIP / && !skip[$2]++ { s = s (s == "" ? "" : ", ") pretty($2) }
	/^LIST / { list = list "  " substr($0, 6) "\n" }
	/^STATS lat_syscall_(stat|fstat) / { one[$2] = kv($0, "blocks") }
	/^STATS suite / { tr = kv($0, "ns_per_block"); n = kv($0, "translated") }
	END {
		if (s != "")
			printf "- Not run under kjit: %s (KJIT_SKIP in bench/lmbench.sh).\n", s
		if (one["lat_syscall_stat"] == 1 || one["lat_syscall_fstat"] == 1) {
			printf "- `lat_syscall stat` and `fstat` translate one block each: the wrappers call `__do_sys_newstat`/`__do_sys_newfstat`, which deep mode cannot follow (`kjit list`):\n\n```\n%s```\n  so their kernel work runs natively and their ratios show only the entry cost.\n", list
		}
		if (n != "")
			printf "- Translation is a one-time cost, %.0f us per block under TCG (%s translations in the suite session); the calibration runs absorb it, but a benchmark whose path keeps reaching new blocks (exec, fork, mmap: new page-table and file paths) pays it inside its timed runs.\n", tr / 1000, n
		printf "- TCG noise: compare each ratio with the native spread column (slowest / fastest native round of the same boot); a ratio within that spread of 1 is not a measured cost.\n"
	}' "$IN"
}

# cost_table: the added time per operation split over the blocks executed
# per operation (counted by kjit in the benchmark's own session, MEMRUN).
cost_table() {
	awk "$AWKLIB"'
	function us(x, unit) { return unit == "MB/s" ? 65536 / (x * 1048576) * 1e6 : x }
	FILENAME ~ /tsv$/ { u[$1] = $2; nat[$1] = $3; kj[$1] = $4; kp[$1] = $5; rk[$1] = $6; o[++n] = $1; next }
	/^MEMRUN / { ops[$2] = kv($0, "ops") }
	/^STATS / { ex[$2] = kv($0, "executions") }
	END {
		print "Added time per operation, split over the blocks executed per operation (kjit'"'"'s own count in the benchmark'"'"'s separate session, [memory.md](memory.md); it includes the peer process'"'"' and setup'"'"'s system calls):"
		print ""
		print "| benchmark | blocks executed per operation | kjit added us per operation ((kjit / native - 1) x native) | kjit added ns per block | Kprobes added ns per block |"
		print "| --- | ---: | ---: | ---: | ---: |"
		for (i = 1; i <= n; i++) {
			b = o[i]
			if (kj[b] == "-" || !(b in ops) || ops[b] <= 0) continue
			bpo = ex[b] / ops[b]
			ak = (rk[b] - 1) * us(nat[b], u[b])
			kjb = kpb = "-"
			if (bpo >= 2) {
				per[b] = ak * 1000 / bpo
				kjb = sprintf("%.0f", per[b])
				if (kp[b] != "-")
					kpb = sprintf("%.0f", (us(kp[b], u[b]) - us(nat[b], u[b])) * 1000 / bpo)
			} else {
				one = one (one == "" ? "" : ", ") pretty(b)
			}
			printf "| %s | %.1f | %.2f | %s | %s |\n", pretty(b), bpo, ak, kjb, kpb
		}
		if (one != "")
			printf "\n%s: one block per operation (the wrapper; deep mode cannot follow its callee, see below), so no per-block figure; the Kprobe set, taken from the whole suite, also covers path-walk code they share with open, which kjit runs natively here.\n", one
		for (k = 0; k < 3; k++) {
			best = ""
			for (b in per) if (best == "" || per[b] > per[best]) best = b
			if (best == "") break
			top = top (k ? ", " : "") sprintf("%s %.0f ns", pretty(best), per[best])
			delete per[best]
		}
		if (top != "")
			printf "\nHighest kjit cost per executed block: %s. Where that is well above bench/micro.sh'"'"'s isolated per-block cost below, something besides the counter increments costs time; this run does not separate the candidates: dispatcher entries (refused blocks, indirect branches, first entries), translations still happening inside the timed runs, and TCG noise.\n", top
	}' "$DAT/lmbench.tsv" "$IN"
	if [ -f "$BUILD/bench-micro.txt" ]; then
		echo
		echo "For scale, bench/micro.sh's isolated per-block costs this run (ns;"
		echo "kjit, Kprobes, one line per case and kprobes-optimization):"
		echo
		echo '```'
		grep -E '^(CASE|PERBLOCK)' "$BUILD/bench-micro.txt" | paste - - | sed 's/\t/  /'
		echo '```'
	fi
}

# memory_md: translation time and cache per workload, attach times.
write_memory_md() {
	{
		header "Translator time, code-cache memory and attach time (kjit.ko, in the guest)"
		cat <<-EOF
		Command: \`make bench\` (guest script \`bench/lmbench.sh\`). For each
		benchmark of [lmbench.md](lmbench.md) a deep session is attached at
		that benchmark's entry points only (\`lmbench -l BENCH\`), the benchmark
		runs once calibrated (\`lmbench -c 0 -r 1 -t 100 BENCH\`: calibration
		plus one 100 ms repetition), then, with the block counters zeroed
		(KJIT_IOC_RESET, which leaves the statistics), as many operations again
		(\`-n\`: the blocks executed per operation of lmbench.md come from
		this run), and KJIT_IOC_STATS is read: translations
		(a block translated on both CPUs counts twice: each CPU has its own
		cache), translate_ns / translated, and the code-cache bytes used
		(bytes[], summed over CPUs). Blocks: distinct blocks (KJIT_IOC_BLOCKS).
		Attached functions are system-wide: other tasks' calls (the shell,
		kjitbench) are translated and counted too.

		## Per workload

		| workload | entry points | deep callees followed | blocks | translations | translate time (ms) | us per translation | cache bytes | bytes per translation | dispatches run natively: refused / cache full |
		| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |
		EOF
		awk "$AWKLIB"'
		/^SECTION memory/ { mem = 1 }
		/^SECTION attach-time/ { mem = 0 }
		/^ATTACHED / { att = $2 }
		/^STATS / && (mem || $2 == "suite" || $2 == "stress-ng") {
			name = pretty($2); n = att
			if ($2 == "suite") name = sprintf("**whole suite, round %d**", ++suite)
			if ($2 == "stress-ng") name = sprintf("**stress-ng, round %d**", ++sng)
			if ($2 == "suite" || $2 == "stress-ng") n = kv($0, "funcs")
			printf "| %s | %s | %s | %s | %s | %.1f | %.0f | %s | %.0f | %s / %s |\n",
			    name, n,
			    kv($0, "deep_funcs"), kv($0, "blocks"),
			    kv($0, "translated"), kv($0, "translate_ns") / 1e6,
			    kv($0, "ns_per_block") / 1000, kv($0, "cache_bytes"),
			    kv($0, "bytes_per_block"), kv($0, "fallback_refused"),
			    kv($0, "fallback_full")
		}' "$IN"
		echo
		awk "$AWKLIB"'
		/^STATS suite / && kv($0, "translate_ns") > 0 {
			n = kv($0, "translated"); t = kv($0, "translate_ns")
			printf "Guest translation rate, whole suite round %d: %d translations in %.1f ms: %.0f blocks/s, %.1f us/block (docs/results/translate-guest.md).\n",
			    ++r, n, t / 1e6, n * 1e9 / t, t / 1e3 / n
		}' "$IN"
		echo
		echo "Entry points: functions attached (exc_page_fault, which the fault"
		echo "benchmarks also name, is refused as noinstr text and not counted)."
		echo
		echo "## Time to attach and detach N system call entry points"
		echo
		echo "\`kjitbench attach-time -r 3 1 8 32 64\`: best-effort attach of the first N"
		echo "of 64 \`__x64_sys_*\` entry points (kjitbench's list), then detach,"
		echo "3 times each; median (min-max) wall time of the ioctl. Nothing runs"
		echo "between attach and detach beyond what the system does by itself."
		echo
		echo "| N | attached | shallow attach ms | shallow detach ms | deep attach ms | deep detach ms |"
		echo "| ---: | ---: | ---: | ---: | ---: | ---: |"
		awk "$AWKLIB"'
		/^ATTACHTIME / {
			n = kv($0, "n"); m = kv($0, "mode")
			if (!(n in seen)) { seen[n] = 1; o[++k] = n }
			got[n] = kv($0, "attached")
			a[n, m] = sprintf("%s (%s-%s)", kv($0, "attach_ms"), kv($0, "attach_min"), kv($0, "attach_max"))
			d[n, m] = sprintf("%s (%s-%s)", kv($0, "detach_ms"), kv($0, "detach_min"), kv($0, "detach_max"))
		}
		END {
			for (i = 1; i <= k; i++) {
				n = o[i]
				printf "| %s | %s | %s | %s | %s | %s |\n", n, got[n],
				    a[n, "shallow"], d[n, "shallow"], a[n, "deep"], d[n, "deep"]
			}
		}' "$IN"
		grep '^REFUSED __x64' "$IN" | sort -u | sed 's/^REFUSED /- refused: /'
		echo
		awk "$AWKLIB"'
		/^ATTACHTIME mode=shallow/ {
			n = kv($0, "n") + 0
			if (!lo || n < lo) { lo = n; a0 = kv($0, "attach_min"); d0 = kv($0, "detach_min") }
			if (n > hi) { hi = n; a1 = kv($0, "attach_min"); d1 = kv($0, "detach_min") }
		}
		END {
			if (hi > lo)
				printf "From %d to %d functions (shallow, fastest of the repetitions), attach grows by %.1f ms and detach by %.1f ms per function.\n",
				    lo, hi, (a1 - a0) / (hi - lo), (d1 - d0) / (hi - lo)
		}' "$IN"
	} > "$OUT/memory.md"
}

# perblock_data: micro.sh's PERBLOCK lines as plot data (1 when there are).
perblock_data() {
	[ -f "$BUILD/bench-micro.txt" ] || { echo 0; return; }
	awk '
	/^CASE / { c = $2 ", kprobes-opt=" substr($3, length($3)) }
	/^PERBLOCK / {
		k = substr($2, 6) + 0; p = substr($4, 9) + 0
		printf "\"%s\" %s %s\n", c, (k > 0 ? k : "-"), (p > 0 ? p : "-")
	}' "$BUILD/bench-micro.txt" > "$DAT/perblock.dat"
	[ -s "$DAT/perblock.dat" ] && echo 1 || echo 0
}

plots() {
	command -v gnuplot > /dev/null || { echo "bench: gnuplot missing: no plots"; return; }
	ok=$(perblock_data)
	gnuplot -e "dat='$DAT'; out='$OUT'; perblock_ok=$ok" "$HERE/plots.gp"
}

lm_data
write_lmbench_md
write_memory_md
plots
