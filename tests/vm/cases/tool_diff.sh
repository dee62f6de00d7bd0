# tool_diff - `kjit diff` on two recordings that differ in one known path:
# one-byte reads of /dev/zero (A) against writes+reads through a pipe (B),
# both under ksys_read and pipe_read: pipe_read runs only in B, so it must
# be "new" among the functions and its blocks covered in B only; the same
# file against itself changes nothing; a file said to be from another
# kernel gives one warning line; cut and garbage files fail in one line.
# kernels: once
# timeout: 90
. /tests/lib.sh
pr=$(pipe_read_fn) || fail "no pipe read function"
load_kjit
mkdir -p /tmp/diff && cd /tmp/diff || fail "mkdir"
kjit record -f ksys_read "$pr" -o a.data -- workload read 200 2> /tmp/e.out ||
	{ cat /tmp/e.out; fail "record A"; }
kjit record -f ksys_read "$pr" -o b.data -- workload pipe 200 2> /tmp/e.out ||
	{ cat /tmp/e.out; fail "record B"; }
kjit diff -n 1000 a.data b.data > /tmp/d.txt 2> /tmp/e.out || { cat /tmp/e.out; fail "diff"; }
cat /tmp/d.txt
[ -s /tmp/e.out ] && { cat /tmp/e.out; fail "diff of one kernel warned"; }
grep -Eq "^  $pr +0 +[0-9]+ +\+[0-9]+ +new\$" /tmp/d.txt || fail "$pr not new in B"
sed -n '/^Blocks covered in B only/,/^$/p' /tmp/d.txt | grep -q "^  $pr+0x" ||
	fail "$pr blocks not covered in B only"
sed -n '/^Blocks covered in A only/,/^$/p' /tmp/d.txt | grep -q "^  $pr+0x" &&
	fail "$pr covered in A"
calls=$(awk -v f="$pr" '$1 == f {print $3; exit}' /tmp/d.txt)
[ "${calls:-0}" -ge 200 ] || fail "$pr executions in B ${calls:-0} < 200"
kjit diff --json a.data b.data > /tmp/d.json || fail "diff --json"
grep -q '"same_kernel": true' /tmp/d.json || fail "json same_kernel"
grep -Eq "\{\"name\": \"$pr\", \"a\": 0, \"b\": [0-9]+, \"change\": [0-9]+, \"relative\": null\}" /tmp/d.json ||
	fail "json $pr"
sed -n '/"only_b"/,$p' /tmp/d.json | grep -q "\"function\": \"$pr\"" || fail "json only_b"
kjit diff a.data a.data > /tmp/s.txt || fail "diff with itself"
grep -q '^Functions that changed most (0 of 2 changed):' /tmp/s.txt || { cat /tmp/s.txt; fail "self diff changed"; }

# deep mode: callees of ksys_read differ the same way
if kjit record --deep -f ksys_read -o da.data -- workload read 100 2> /dev/null &&
	kjit record --deep -f ksys_read -o db.data -- workload pipe 100 2> /dev/null; then
	kjit diff -n 1000 da.data db.data > /tmp/dd.txt || fail "deep diff"
	grep -Eq "^  $pr +0 +[0-9]+ +\+[0-9]+ +new\$" /tmp/dd.txt ||
		{ cat /tmp/dd.txt; fail "deep: $pr not new in B"; }
fi

sed 's/^kernel .*/kernel 0.0.0-other/' b.data > other.data
kjit diff a.data other.data > /dev/null 2> /tmp/e.out || fail "diff of two kernels"
[ "$(wc -l < /tmp/e.out)" = 1 ] || fail "two kernels: not one line"
grep -q "^kjit diff: warning: a.data is from kernel $(uname -r), other.data from kernel 0.0.0-other" /tmp/e.out ||
	{ cat /tmp/e.out; fail "two kernels: message"; }
head -c 300 a.data > cut.data
kjit diff a.data cut.data 2> /tmp/e.out; [ $? = 1 ] || fail "cut file: status"
grep -Eq '^kjit diff: cut.data: file is cut short' /tmp/e.out || { cat /tmp/e.out; fail "cut message"; }
head -c 200 /dev/urandom > junk.data
kjit diff junk.data b.data 2> /tmp/e.out; [ $? = 1 ] || fail "garbage: status"
grep -qx 'kjit diff: junk.data: not a kjit data file' /tmp/e.out || { cat /tmp/e.out; fail "garbage message"; }
kjit diff a.data nofile.data 2> /tmp/e.out; [ $? = 1 ] || fail "missing: status"
grep -q '^kjit diff: cannot open nofile.data: No such file or directory$' /tmp/e.out || fail "missing message"
cd /tmp
unload_kjit
