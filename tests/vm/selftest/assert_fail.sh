# assert_fail - a case whose assertion fails: the rig must report FAIL.
# timeout: 30
. /tests/lib.sh
[ 1 = 2 ] || fail "deliberate assertion failure"
