#!/bin/sh
# test_micro_report.sh - host test of bench/micro-report.sh on a fixture of
# kjitcount -t output (tests/tool/fixtures/micro.out): new lines with
# below-noise costs and ratio bounds, and older lines with negative figures;
# the table must never show a negative cost or ratio.
# Usage: test_micro_report.sh ROOT
root=$1
fail=0
out=$(sh "$root/bench/micro-report.sh" "$root/tests/tool/fixtures/micro.out")
check() { # check NAME PATTERN: a table line matches (fixed string)
	if printf '%s\n' "$out" | grep -qF -- "$2"; then
		echo "KJIT-RESULT PASS tool.micro_report.$1"
	else
		echo "KJIT-RESULT FAIL tool.micro_report.$1 missing: $2"
		fail=1
	fi
}
check below_noise '| getpid | below noise (±5.00 ns) | 966.11 | >= 193x (kjit cost below noise) | 100.00 | 50x | 1.010 | below noise (±12.00 ns) |'
check old_negative '| old | below noise | 929.94 | n/a (kjit cost below noise) | 1366.73 | 460x | - | 455.1 |'
if printf '%s\n' "$out" | grep -Eq '\| -[0-9]'; then
	echo "KJIT-RESULT FAIL tool.micro_report.no_negative a negative figure"
	fail=1
else
	echo "KJIT-RESULT PASS tool.micro_report.no_negative"
fi
exit $fail
