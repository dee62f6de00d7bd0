#!/bin/sh
# run-host.sh - run the host test programs and collect their result lines.
#
# Usage: run-host.sh RESULTS_DIR PROGRAM...
# Each program prints "KJIT-RESULT PASS|FAIL|SKIP name [detail]" lines and exits
# non-zero on failure. A program that exits non-zero (a crash, say) without any
# FAIL line gets one in its name, so nothing fails silently. Full output goes
# to RESULTS_DIR/host.log, result lines to RESULTS_DIR/host.results.
set -u
dir=$1
shift
log=$dir/host.log
res=$dir/host.results
mkdir -p "$dir"
: > "$log"
: > "$res"
status=0
for prog in "$@"; do
	name=host.$(basename "$prog")
	echo "== $prog" >> "$log"
	out=$(mktemp)
	"$prog" > "$out" 2>&1
	rc=$?
	cat "$out" >> "$log"
	grep -a '^KJIT-RESULT ' "$out" | tee -a "$res"
	if [ $rc != 0 ]; then
		status=1
		grep -aq '^KJIT-RESULT FAIL' "$out" ||
			echo "KJIT-RESULT FAIL $name exited with status $rc (see $log)" | tee -a "$res"
	fi
	if ! grep -aq '^KJIT-RESULT ' "$out" && [ $rc = 0 ]; then
		echo "KJIT-RESULT FAIL $name printed no result" | tee -a "$res"
		status=1
	fi
	rm -f "$out"
done
exit $status
