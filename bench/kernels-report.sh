#!/bin/sh
# kernels-report.sh - docs/results/kernels.md: the micro-benchmark's targets
# table and the LMbench-style suite's table of every kernel side by side,
# one row per case (benchmark) and kernel, from the files bench/run.sh
# wrote (docs/results/X.md for the first kernel of scripts/kernels,
# docs/results/NAME/X.md for the others).
# Usage: bench/kernels-report.sh BUILD_DIR RESULTS_DIR
set -u
BUILD=$1
OUT=$2
first=$(head -n 1 "$BUILD/cache/kernels" | cut -d' ' -f1)

# path FILE NAME: FILE (micro.md, lmbench.md) of kernel NAME, relative.
path() { if [ "$2" = "$first" ]; then echo "$1"; else echo "$2/$1"; fi; }

# sources FILE: "- NAME: date, kernel (file)" for each kernel that has FILE.
sources() {
	for name in $(cut -d' ' -f1 "$BUILD/cache/kernels"); do
		rel=$(path "$1" "$name")
		[ -f "$OUT/$rel" ] || continue
		printf -- '- %s: %s (`docs/results/%s`)\n' "$name" \
			"$(sed -n 's/^Measured \([^:]*\): \(Debian[^ ]* [^ ]*\).*/\1, \2/p' "$OUT/$rel" | head -n 1)" "$rel"
	done
}

# merge FILE SECTION: the first table after the "## SECTION" line of every
# kernel's FILE, as one table with a kernel column, rows grouped by their
# first cell in the first kernel's order.
merge() {
	for name in $(cut -d' ' -f1 "$BUILD/cache/kernels"); do
		rel=$(path "$1" "$name")
		[ -f "$OUT/$rel" ] || continue
		awk -v s="## $2" '$0 == s { on = 1; next } on && /^\| / { t = 1; print; next } t { exit }' \
			"$OUT/$rel" | sed "s/^/$name /"
	done | awk '
		{ k = $1; sub(/^[^ ]* /, "") }
		NR == 1 || (!hdr && /^\| /) { if (!hdr) { hdr = 1; h1 = $0; sub(/^\|[^|]*\|/, "& kernel |", h1) } }
		/^\| --- |^\| ---: / { if (!sep) { sep = $0; sub(/^\|[^|]*\|/, "& --- |", sep) } next }
		/^\| / {
			if ($0 == h0 || $0 ~ /^\| (case|benchmark) \|/) { h0 = $0; next }
			split($0, f, "|"); c = f[2]
			if (!(c in seen)) { seen[c] = 1; order[n++] = c }
			row = $0; sub(/^\|[^|]*\|/, "|" c "| " k " |", row)
			rows[c] = rows[c] row "\n"
		}
		END { print h1; print sep; for (i = 0; i < n; i++) printf "%s", rows[order[i]] }'
}

{
	echo "# Both kernels side by side"
	echo
	echo "The tables of the micro-benchmark (bench/micro.sh) and of the"
	echo "LMbench-style suite (bench/lmbench.sh) for every kernel kjit supports,"
	echo "one row per case and kernel, each from its kernel's own file, which"
	echo "says when and how it was measured. TCG numbers are TCG numbers: see"
	echo "those files for the noise (a negative kjit cost is below it)."
	echo
	echo "## Micro-benchmark: added cost per executed block"
	echo
	sources micro.md
	echo
	merge micro.md "Targets (ratios measured in the same run)"
	echo
	echo "## LMbench-style suite: kjit deep counting and Kprobes against native"
	echo
	sources lmbench.md
	echo
	merge lmbench.md "The suite"
} > "$OUT/kernels.md"
