#!/bin/sh
# kernel-lines.sh - a kjit recording of kernel code in the kernel's own
# sources, with its -dbg vmlinux (scripts/deps.sh --dbg): what
# `make demo KJIT_DBG=1` and `make bench KJIT_DBG=1` end with. Writes into OUT:
#   lines.txt          kjit report --debuginfo vmlinux (ends with its
#                      "source lines" section: every counted block's
#                      file:line and inline chain, or why it has none)
#   kernel.info        kjit report --lcov (kjit's totals: lcov.err)
#   lcov-summary.txt   lcov --summary of it, which must agree with kjit
#   src/               the files the tracefile names, from the kernel's
#                      linux-source tarball (SF lines point there)
#   html/              genhtml --branch-coverage pages
# and prints what it did in a few lines; HEAD=N (default 16) lines of the
# source lines section among them.
# Usage: scripts/kernel-lines.sh BUILD RELEASE DATA OUT
# Exit 1 when a step fails, or when lcov and kjit count different totals.
set -u
BUILD=$1 REL=$2 DATA=$3 OUT=$4
HEAD=${HEAD:-16}
KJIT=$BUILD/tools/kjit
VML=$BUILD/cache/dbg-$REL/vmlinux
TARBALL=$BUILD/cache/dbg-$REL/linux-source.tar.xz

[ -s "$VML" ] || { echo "== no $VML (make dbg, or scripts/deps.sh $BUILD --dbg NAME)"; exit 1; }
[ -s "$DATA" ] || { echo "== no recording in $DATA"; exit 1; }
rm -rf "$OUT"
mkdir -p "$OUT"

# lines: the text report with its source lines section
"$KJIT" report -i "$DATA" --debuginfo "$VML" > "$OUT/lines.txt" || exit 1
echo "== the recording's blocks in the kernel's sources (-dbg vmlinux,"
echo "   libdw; every counted block has a line or says why not)"
sed -n '/^source lines/,$p' "$OUT/lines.txt" | head -n "$HEAD"
echo "   ... (all of it: $OUT/lines.txt)"

# lcov: kjit's totals (its stderr) must be lcov's own count of the tracefile
"$KJIT" report -i "$DATA" --lcov --debuginfo "$VML" > "$OUT/kernel.info" 2> "$OUT/lcov.err" ||
	{ cat "$OUT/lcov.err"; exit 1; }
lk=$(sed -n 's/.*lines \([0-9]*\) of \([0-9]*\) hit, branches \([0-9]*\) of \([0-9]*\) hit.*/\1 \2 \3 \4/p' "$OUT/lcov.err")
lcov --rc lcov_branch_coverage=1 --summary "$OUT/kernel.info" > "$OUT/lcov-summary.txt" 2>&1
ll=$(sed -n 's/.*lines.*(\([0-9]*\) of \([0-9]*\) lines).*/\1 \2/p' "$OUT/lcov-summary.txt")
lb=$(sed -n 's/.*branches.*(\([0-9]*\) of \([0-9]*\) branches).*/\1 \2/p' "$OUT/lcov-summary.txt")
echo "   kjit --lcov: $(grep -o 'lines [0-9]* of [0-9]* hit, branches [0-9]* of [0-9]* hit' "$OUT/lcov.err");" \
	"lcov --summary: $ll lines, $lb branches (hit, total)"
[ -n "$ll" ] && [ "$ll $lb" = "$lk" ] || { echo "== lcov and kjit disagree"; exit 1; }

# sources: each SF path loses leading directories until the rest is a file
# of the tarball (debian/build/build_amd64_none_amd64/fs/pipe.c -> fs/pipe.c)
sources() {
	[ -s "$TARBALL" ] || return 1
	[ -s "$TARBALL.list" ] || tar -tJf "$TARBALL" > "$TARBALL.list" || return 1
	top=$(head -n 1 "$TARBALL.list" | cut -d/ -f1)
	mkdir -p "$OUT/src"
	awk -v list="$TARBALL.list" -v dir="$OUT/src/$top" -v want="$OUT/src.want" '
		BEGIN { while ((getline l < list) > 0) { sub(/^[^\/]*\//, "", l); have[l] = 1 } }
		/^SF:/ {
			q = substr($0, 4)
			while (q != "" && !(q in have))
				q = index(q, "/") ? substr(q, index(q, "/") + 1) : ""
			if (q != "") { print q > want; print "SF:" dir "/" q; next }
		}
		{ print }' "$OUT/kernel.info" > "$OUT/kernel.info.tmp" &&
		mv "$OUT/kernel.info.tmp" "$OUT/kernel.info" || return 1
	[ -s "$OUT/src.want" ] || return 1
	sort -u "$OUT/src.want" | sed "s|^|$top/|" > "$OUT/src.members"
	tar -xJf "$TARBALL" -C "$OUT/src" -T "$OUT/src.members"
}
nosrc=--no-source
sources && nosrc=

if command -v genhtml > /dev/null &&
	genhtml --quiet --branch-coverage $nosrc -o "$OUT/html" "$OUT/kernel.info" \
		> "$OUT/genhtml.log" 2>&1; then
	echo "== HTML coverage: $OUT/html/index.html"
	echo "   (lcov tracefile: $OUT/kernel.info${nosrc:+; no kernel sources: counts only})"
else
	echo "== genhtml could not make HTML of $OUT/kernel.info (see $OUT/genhtml.log)"
	exit 1
fi
