#!/bin/sh
# kernels-report.sh - docs/results/kernels.md: the micro-benchmark's targets
# table of every kernel side by side, one row per case and kernel, from the
# micro.md files bench/run.sh wrote (docs/results/micro.md for the first
# kernel of scripts/kernels, docs/results/NAME/micro.md for the others).
# Usage: bench/kernels-report.sh BUILD_DIR RESULTS_DIR
set -u
BUILD=$1
OUT=$2
first=$(head -n 1 "$BUILD/cache/kernels" | cut -d' ' -f1)
args=""
for name in $(cut -d' ' -f1 "$BUILD/cache/kernels"); do
	rel=$name/micro.md
	[ "$name" = "$first" ] && rel=micro.md
	[ -f "$OUT/$rel" ] && args="$args $name=$rel"
done
{
	echo "# Micro-benchmark on each kernel"
	echo
	echo "The targets tables of the micro-benchmark (bench/micro.sh) for every"
	echo "kernel kjit supports, one row per case and kernel, each from its own"
	echo "file, which says when and how it was measured. TCG numbers are TCG"
	echo "numbers: see those files for the noise (a negative kjit cost is below"
	echo "it)."
	echo
	for a in $args; do
		f=$OUT/${a#*=}
		printf -- '- %s: %s (`%s`)\n' "${a%%=*}" \
			"$(sed -n 's/^Measured \([^:]*\): \(Debian [^ ]*\).*/\1, \2/p' "$f" | head -n 1)" \
			"docs/results/${a#*=}"
	done
	echo
	for a in $args; do
		sed -n '/^## Targets/,/^## Raw/p' "$OUT/${a#*=}" | sed "s/^/${a%%=*} /"
	done | awk '
		# keep the first table header, rows grouped by case in the
		# order of the first table, one row per kernel
		{ k = $1; sub(/^[^ ]* /, "") }
		/^\| case / { if (!hdr) { hdr = 1; h1 = $0; sub(/^\| case \|/, "| case | kernel |", h1) } next }
		/^\| --- / { if (!sep) { sep = $0; sub(/^\| --- \|/, "| --- | --- |", sep) } next }
		/^\| / {
			split($0, f, "|"); c = f[2]; gsub(/ /, "", c)
			if (!(c in seen)) { seen[c] = 1; order[n++] = c }
			row = $0; sub(/^\| [^|]* \|/, "| " c " | " k " |", row)
			rows[c] = rows[c] row "\n"
		}
		END { print h1; print sep; for (i = 0; i < n; i++) printf "%s", rows[order[i]] }'
} > "$OUT/kernels.md"
