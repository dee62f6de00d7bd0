#!/bin/sh
# test_silicon_costs.sh - host test of bench/silicon-costs.sh: it finds what
# one executed block and one lookup hit cost on silicon in the committed
# docs/results (silicon.md, ibl.md), as bench/run.sh's deterministic suite
# needs for its silicon estimate; and it fails, naming what is missing,
# where they are not there (a renamed row once dropped the estimate from
# docs/results/lmbench-icount.md without a word).
# Usage: test_silicon_costs.sh ROOT
root=$1
GROUP=tool.silicon_costs
. "$root/tests/tool/result.sh"
out=$(sh "$root/bench/silicon-costs.sh" "$root" 2>&1)
rc=$?
ok=0
[ $rc = 0 ] && printf '%s\n' "$out" |
	grep -qE '^KB_BLOCK_NS=[0-9]+\.[0-9]+ KB_IBL_NS=[0-9]+\.[0-9]+$' && ok=1
result committed_results $ok "rc=$rc: $out"
empty=$(mktemp -d)
mkdir -p "$empty/docs/results"
out=$(sh "$root/bench/silicon-costs.sh" "$empty" 2>&1)
rc=$?
ok=0
[ $rc = 1 ] && printf '%s\n' "$out" | grep -q 'silicon.md' && ok=1
result missing_row_fails $ok "rc=$rc: $out"
rm -rf "$empty"
exit $fail
