# tool_errors - the tool's failures that need no session: module not
# loaded, not root, no /proc/kcore or kallsyms (KJIT_SYSROOT pointing at an
# empty tree stands for a kernel without them), help and usage. Each is one
# clear line on stderr and a non-zero status, never an empty success.
# Also: record -- false (its status, kjit.data kept), report's choice of
# the live session over ./kjit.data, --version, conflicting options.
# kernels: once
# timeout: 120
. /tests/lib.sh
unload_kjit
one_line() { [ "$(wc -l < /tmp/e.out)" = 1 ] || { cat /tmp/e.out; fail "$1: not one line"; }; }
for c in "attach vfs_read" "detach" "stat" "reset" "report --live" "version" \
	"record -f vfs_read -- true" "compare -f vfs_read -- true"; do
	kjit $c > /tmp/o.out 2> /tmp/e.out && fail "kjit $c without the module succeeded"
	grep -q '/dev/kjit not found: is kjit.ko loaded? (insmod kjit_pool.ko, then kjit.ko)' /tmp/e.out ||
		{ cat /tmp/e.out; fail "kjit $c: module message"; }
	[ -s /tmp/o.out ] && [ "$c" != version ] && fail "kjit $c printed output"
done
load_kjit
kjit attach ksys_read > /dev/null && workload read 5 && kjit detach
for c in "attach vfs_read" "stat" "report --live" "blocks vfs_read" "list vfs_read"; do
	su nobody -c "/bin/kjit $c" > /dev/null 2> /tmp/e.out && fail "non-root kjit $c succeeded"
	one_line "non-root $c"
	grep -Eq 'needs root' /tmp/e.out || { cat /tmp/e.out; fail "non-root $c: message"; }
done
mkdir -p /tmp/empty
KJIT_SYSROOT=/tmp/empty kjit blocks vfs_read 2> /tmp/e.out && fail "no kallsyms"
one_line "no kallsyms"
grep -q 'not found: this kernel has no kallsyms' /tmp/e.out || fail "no kallsyms message"
mkdir -p /tmp/nokcore/proc && cp /proc/kallsyms /tmp/nokcore/proc/
KJIT_SYSROOT=/tmp/nokcore kjit blocks vfs_read 2> /tmp/e.out && fail "no kcore"
one_line "no kcore"
grep -q 'cannot read /tmp/nokcore/proc/kcore: No such file or directory (kernel without CONFIG_PROC_KCORE)' /tmp/e.out ||
	{ cat /tmp/e.out; fail "no kcore message"; }
KJIT_SYSROOT=/tmp/nokcore kjit list vfs_read > /tmp/o.out || fail "list without tracefs files"
grep -q ' no   vfs_read  unknown: cannot read' /tmp/o.out || fail "missing tracefs must say unknown"

kjit --help > /tmp/o.out || fail "--help"
for c in list blocks attach detach record report compare stat; do
	grep -q "^  $c " /tmp/o.out || fail "--help lacks $c"
	kjit help $c | head -n 1 | grep -q "^usage: kjit $c" || fail "help $c"
done
kjit report --help | grep -q -- '--sort count|addr|func' || fail "report --help"
kjit help nosuch 2> /dev/null; [ $? = 2 ] || fail "help of unknown subcommand"
kjit nosuch 2> /tmp/e.out; [ $? = 2 ] || fail "unknown subcommand status"
grep -qx "kjit: unknown subcommand 'nosuch' (kjit --help)" /tmp/e.out || fail "unknown subcommand message"
kjit > /dev/null 2>&1; [ $? = 2 ] || fail "no subcommand: usage"
kjit --version | grep -q '^kjit tool, ABI [0-9]' || fail "--version"
kjit report --json --csv 2> /tmp/e.out; [ $? = 2 ] || fail "--json --csv: usage"
grep -qx 'kjit report: --json and --csv exclude each other' /tmp/e.out || fail "--json --csv message"
kjit report --top x 2> /tmp/e.out; [ $? = 2 ] || fail "--top x: usage"
grep -q "^kjit report: bad value for --top: 'x'" /tmp/e.out || fail "bad value message"

# record -- false: the command's status, and an existing kjit.data is kept
mkdir -p /tmp/rf && cd /tmp/rf || fail "mkdir"
kjit record -f ksys_read -- workload read 5 2> /dev/null || fail "record"
cp kjit.data first.data
kjit record -f ksys_read -- false 2> /tmp/e.out; st=$?
cat /tmp/e.out
[ $st = 1 ] || fail "record -- false exited $st"
grep -qx 'kjit record: kept the existing kjit.data: the command failed (--force or -o FILE saves this recording)' \
	/tmp/e.out || fail "record -- false: message"
cmp -s kjit.data first.data || fail "record -- false overwrote kjit.data"
kjit record -f ksys_read -- sh -c 'exit 3' 2> /dev/null; [ $? = 3 ] || fail "record: status 3 not passed on"
kjit record --force -f ksys_read -- false 2> /dev/null; [ $? = 1 ] || fail "record --force -- false status"
grep -qx 'command false' kjit.data || fail "record --force did not save"
kjit record -f ksys_read -o f.data -- false 2> /dev/null; [ $? = 1 ] || fail "record -o -- false status"
tail -n 1 f.data | grep -qx end || fail "record -o did not save"

# report with no -i: an attached session wins over ./kjit.data, and says so
cp first.data kjit.data
kjit attach ksys_read > /dev/null || fail "attach"
workload read 5
kjit report > /tmp/o.out 2> /tmp/e.out || fail "report while attached"
grep -q '^# kjit report: live session (attached)' /tmp/o.out || fail "report while attached read the file"
grep -qx 'kjit report: showing the attached live session; kjit report -i kjit.data shows the file' /tmp/e.out ||
	{ cat /tmp/e.out; fail "report while attached: no note"; }
kjit report -i kjit.data | grep -q '^# kjit report: kjit.data, recorded' || fail "report -i while attached"
kjit detach > /dev/null
kjit report 2> /tmp/e.out | grep -q '^# kjit report: kjit.data, recorded' || fail "report after detach: not the file"
[ -s /tmp/e.out ] && { cat /tmp/e.out; fail "report after detach: a note"; }
cd /tmp
unload_kjit
