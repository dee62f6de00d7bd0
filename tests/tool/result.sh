# result.sh - sourced by the shell tests of tests/tool: result NAME OK DETAIL
# prints "KJIT-RESULT PASS|FAIL $GROUP.NAME [DETAIL]" (OK: 1 passes) and
# sets fail=1 on a failure; the test exits $fail.
fail=0
result() {
	if [ "$2" = 1 ]; then
		echo "KJIT-RESULT PASS $GROUP.$1"
	else
		echo "KJIT-RESULT FAIL $GROUP.$1 $3"
		fail=1
	fi
}
