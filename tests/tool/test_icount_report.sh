#!/bin/sh
# test_icount_report.sh - host test of bench/icount-report.sh on fixtures
# of two -icount boots of bench/micro.sh (tests/tool/fixtures/icount-*.out,
# cut from real output): the instructions-per-block row, and the
# reproducibility check, which must pass at 0.3% (run B) and fail at 2%
# (run C, one median changed).
# Usage: test_icount_report.sh ROOT
root=$1
fx=$root/tests/tool/fixtures
GROUP=tool.icount_report
. "$root/tests/tool/result.sh"
out=$(sh "$root/bench/icount-report.sh" "$fx/icount-a.out" "$fx/icount-b.out")
rc=$?
row='| getpid | 2.00 | 321 | 4.5 | 10.5 | 6.0 | 518.3 | 402.4 | 157 |'
ok=0; printf '%s\n' "$out" | grep -qF -- "$row" && ok=1
result row $ok "missing: $row"
ok=0; [ $rc = 0 ] && printf '%s\n' "$out" | grep -q '^Within 1%: yes' && ok=1
result within_1pct $ok "rc=$rc: $(printf '%s\n' "$out" | tail -n 2)"
out=$(sh "$root/bench/icount-report.sh" "$fx/icount-a.out" "$fx/icount-c.out")
rc=$?
ok=0; [ $rc = 1 ] && printf '%s\n' "$out" | grep -q '^NOT within 1%' && ok=1
result over_1pct_fails $ok "rc=$rc: $(printf '%s\n' "$out" | tail -n 2)"
exit $fail
