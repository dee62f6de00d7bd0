#!/bin/sh
# lines-report.sh - docs/results/lines.md from the `lines` part of
# make bench (bench/lines.sh in the guest, scripts/kernel-lines.sh on the
# host): what the LMbench-style suite ran of the kernel, in source lines.
# Usage: bench/lines-report.sh BUILD RELEASE DATE CPU
set -u
BUILD=$1 REL=$2 DATE=$3 CPU=$4
T=$BUILD/bench-lines.txt M=$BUILD/bench-lines
echo "# The LMbench-style suite in the kernel's source lines"
echo
echo "Recorded $DATE: Debian $REL in qemu-system-x86_64 (TCG) on a host with"
echo "$CPU; lines from the kernel's own -dbg vmlinux (Debian's"
echo "linux-image-$REL-dbg) with libdw on the host. Command:"
echo "\`make bench KJIT_DBG=1\` (or \`BENCH_ONLY=lines make bench KJIT_DBG=1\`"
echo "for this part alone; guest script bench/lines.sh, mapping by"
echo "scripts/kernel-lines.sh). In the guest:"
echo
echo '```'
sed -n 's/^RECORD //p' "$T"
sed -n 's/^RECORD-OUT //p' "$T"
echo '```'
echo
echo "The entry points are the suite's system calls (\`lmbench -l\`):"
echo "$(sed -n 's/^ENTRIES //p' "$T" | head -n 1)."
not=$(sed -n 's/^NOT //p' "$T" | head -n 1)
[ -z "$not" ] || echo "Left out, as kjit list says: $not"
echo "The scope is record's default: the suite and the processes it forks,"
echo "in task context."
echo
echo "## Totals"
echo
echo "kjit's own count (\`kjit report --lcov\`, stderr) and lcov's count of the"
echo "same tracefile (\`lcov --summary\`), which the bench checks are equal:"
echo
echo '```'
cat "$M/lcov.err" 2> /dev/null
grep -E '^ *(lines|functions|branches)' "$M/lcov-summary.txt" 2> /dev/null
echo '```'
echo
echo "## The report's head"
echo
echo '```'
sed -n 's/^REPORT //p' "$T"
echo '```'
echo
echo "## Blocks without a source line, and why"
echo
n=$(grep -c 'unmapped:' "$M/lines.txt" 2> /dev/null)
echo "${n:-0} counted block(s) have no line; the reasons, with how many blocks:"
echo
echo '```'
sed -n 's/.*unmapped: //p' "$M/lines.txt" 2> /dev/null | sort | uniq -c | sort -rn
echo '```'
echo
echo "Their functions:"
echo
echo '```'
awk '/unmapped:/ { sub(/\+.*/, "", $1); print $1 }' "$M/lines.txt" 2> /dev/null | sort | uniq -c | sort -rn | head -n 20
echo '```'
echo
echo "## The source files with the most lines run"
echo
echo "| file | lines run | lines | functions run |"
echo "| --- | --- | --- | --- |"
awk -F: '
	/^SF:/ { f = substr($0, 4); sub(/.*\/linux-source-[0-9.]*\//, "", f) }
	/^LH:/ { lh = $2 } /^LF:/ { lf = $2 } /^FNH:/ { fh = $2 }
	/^end_of_record/ { print lh, lf, fh + 0, f; lh = lf = fh = 0 }' "$M/kernel.info" |
	sort -k1,1nr | head -n 25 | awk '{ print "| " $4 " | " $1 " | " $2 " | " $3 " |" }'
echo
echo "The HTML pages (genhtml --branch-coverage, with the sources of"
echo "Debian's linux-source package) are written to"
echo "\`build/bench-lines/html/index.html\`; they are not committed."
