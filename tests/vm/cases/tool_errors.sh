# tool_errors - the tool's failures that need no session: module not
# loaded, not root, no /proc/kcore or kallsyms (KJIT_SYSROOT pointing at an
# empty tree stands for a kernel without them), help and usage. Each is one
# clear line on stderr and a non-zero status, never an empty success.
# timeout: 40
. /tests/lib.sh
unload_kjit
one_line() { [ "$(wc -l < /tmp/e.out)" = 1 ] || { cat /tmp/e.out; fail "$1: not one line"; }; }
for c in "attach vfs_read" "detach" "stat" "reset" "report --live" "version" \
	"record -f vfs_read -- true" "compare -f vfs_read -- true"; do
	kjit $c > /tmp/o.out 2> /tmp/e.out && fail "kjit $c without the module succeeded"
	grep -q '/dev/kjit not found: is kjit.ko loaded? (insmod kjit.ko)' /tmp/e.out ||
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
unload_kjit
