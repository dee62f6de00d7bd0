#!/bin/sh
# test_share_report.sh - host test of bench/share-report.sh on fixtures
# (tests/tool/fixtures/share/, cut from docs/results/share.md of two runs):
# a real run (2026-11-25, 13 benchmarks) gives its 97.85%; a run whose
# oracle stepped nothing (every window 1 step: bench_share read the
# guest's roots before the guest had written them) must give no share at
# all - it once printed 100.00% - and exit non-zero, naming the windows.
# Usage: test_share_report.sh ROOT
root=$1
fx=$root/tests/tool/fixtures/share
GROUP=tool.share_report
. "$root/tests/tool/result.sh"
out=$(sh "$root/bench/share-report.sh" "$fx/good-guest.out" "$fx/good-windows.txt")
rc=$?
ok=0; [ $rc = 0 ] && printf '%s\n' "$out" | grep -q '^All windows: 80448 of 82213 block executions .* (97.85%)' && ok=1
result real_run $ok "rc=$rc: $(printf '%s\n' "$out" | tail -n 2)"
ok=0; printf '%s\n' "$out" | grep -qF '| lat_pipe | 3 |' && ok=1
result real_run_rows $ok "no lat_pipe row"
out=$(sh "$root/bench/share-report.sh" "$fx/blind-guest.out" "$fx/blind-windows.txt")
rc=$?
ok=0; [ $rc != 0 ] && ! printf '%s\n' "$out" | grep -q '%' && ok=1
result blind_oracle_no_share $ok "rc=$rc: $(printf '%s\n' "$out" | tail -n 3)"
ok=0; printf '%s\n' "$out" | grep -q '^The oracle did not step .*lat_syscall_null' && ok=1
result blind_oracle_said $ok "$(printf '%s\n' "$out" | tail -n 2)"
exit $fail
