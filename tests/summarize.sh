#!/bin/sh
# summarize.sh - the verdict of `make test`: count every result line of the
# host and VM runs, list the failures, and end with "N passed, N failed".
# A suite whose results file is missing (its build failed) counts as a failure.
# Exit status 1 if anything failed or nothing passed.
# Usage: summarize.sh [--no-host] RESULTS_DIR KERNEL... (the kernels
# vm-test ran on; --no-host: no host tests were run, as in make sanitize)
set -u
suites=host
[ "$1" = --no-host ] && { suites=""; shift; }
dir=$1
shift
for k in "$@"; do suites="$suites vm-$k"; done
for suite in $suites; do
	[ -s "$dir/$suite.results" ] ||
		echo "KJIT-RESULT FAIL $suite.suite no results: build or run failed (see make's output)" \
			>> "$dir/missing.results"
done
cat "$dir"/*.results > "$dir/all.txt" 2>/dev/null
passed=$(grep -c '^KJIT-RESULT PASS' "$dir/all.txt")
failed=$(grep -c '^KJIT-RESULT FAIL' "$dir/all.txt")
skipped=$(grep -c '^KJIT-RESULT SKIP' "$dir/all.txt")
echo
echo "== test summary (details: $dir)"
[ -s "$dir/pace" ] &&
	echo "  host pace (case limits x factor; docs/testing.md): $(paste -sd, "$dir/pace" | sed 's/,/, /g')"
grep '^KJIT-RESULT SKIP' "$dir/all.txt" | sed 's/^KJIT-RESULT /  /'
grep '^KJIT-RESULT FAIL' "$dir/all.txt" | sed 's/^KJIT-RESULT /  /'
# the last line is exactly "N passed, N failed" (CI reads it); skips
# are listed above it and counted on the line before
[ "$skipped" -gt 0 ] && echo "$skipped skipped (listed above)"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ] && [ "$passed" -gt 0 ]
