#!/bin/sh
# run-host.sh - run the host test programs and collect their result lines.
#
# Usage: run-host.sh RESULTS_DIR PROGRAM...
# Each program prints "KJIT-RESULT PASS|FAIL|SKIP name [detail]" lines and exits
# non-zero on failure. A program that exits non-zero (a crash, say) without any
# FAIL line gets one in its name, so nothing fails silently. Full output goes
# to RESULTS_DIR/host.log, result lines to RESULTS_DIR/host.results, each
# program's wall time to RESULTS_DIR/host.times.
set -u
dir=$1
shift
log=$dir/host.log
res=$dir/host.results
mkdir -p "$dir"
: > "$log"
: > "$res"
: > "$dir/host.times" # "host.PROGRAM SECONDS" per program
status=0
for prog in "$@"; do
	name=host.$(basename "$prog")
	echo "== $prog" >> "$log"
	out=$(mktemp)
	t0=$(date +%s)
	"$prog" > "$out" 2>&1
	rc=$?
	cat "$out" >> "$log"
	echo "$name $(($(date +%s) - t0))" >> "$dir/host.times"
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
