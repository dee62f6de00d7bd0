# tool_list - `kjit list`: globs over kallsyms (modules included), each
# function marked with the reason kjit.ko would refuse it; the reasons agree
# with the module's own (an attach of one function per reason is refused
# with the same words); tracefs/debugfs are mounted by the tool when absent;
# no match, bad usage and not root fail with one clear line.
# timeout: 120
. /tests/lib.sh
load_kjit
kjit list 'vfs_rea*' > /tmp/l.out || fail "list vfs_rea*"
cat /tmp/l.out
grep -Eq '^0xffffffff[0-9a-f]{8} yes  vfs_read$' /tmp/l.out || fail "vfs_read not listed as instrumentable"
tail -n 1 /tmp/l.out | grep -Eq '^# [0-9]+ functions?, [0-9]+ instrumentable$' || fail "no summary line"

kjit list '*' > /tmp/all.out || fail "list *"
tail -n 1 /tmp/all.out
grep -q ' no   entry_SYSCALL_64  entry text$' /tmp/all.out || fail "entry_SYSCALL_64 not entry text"
grep -q ' no   exc_page_fault  noinstr text$' /tmp/all.out || fail "exc_page_fault not noinstr text"
grep -q ' no   bsearch  used by kjit.s dispatcher$' /tmp/all.out || fail "bsearch not a dispatcher dependency"
grep -q ' no   kjit:kjit_[a-z_]*  part of kjit$' /tmp/all.out || fail "no [kjit] function marked part of kjit"
grep -q 'unknown: ' /tmp/all.out && fail "a reason was unknown with tracefs and debugfs mounted"

# aliases (several names at one address) get one answer: the module sees
# only the address. getpid's syscall wrappers share theirs on both kernels,
# and available_filter_functions names only one of them.
awk '$1 ~ /^0x/ { why = $2; for (i = 4; i <= NF; i++) why = why " " $i
	if ($1 in seen && seen[$1] != why) { print "alias disagrees: " $0 " vs " seen[$1]; bad = 1 }
	seen[$1] = why } END { exit bad }' /tmp/all.out || fail "aliases at one address disagree"
kjit list '*sys_getpid' > /tmp/g.out || fail "list *sys_getpid"
cat /tmp/g.out
grep -Eq ' yes  __x64_sys_getpid$' /tmp/g.out || fail "__x64_sys_getpid not listed as instrumentable"
kjit attach __x64_sys_getpid > /dev/null || fail "__x64_sys_getpid refused"
kjit detach > /dev/null

# module:glob selects a module; vmlinux:glob the kernel proper
kjit list 'kjit:*' | grep -v '^#' | grep -v '^ADDRESS' | grep -vq 'part of kjit' &&
	fail "kjit:* lists a function not marked part of kjit"
kjit list 'vmlinux:vfs_read' | grep -q ' vfs_read$' || fail "vmlinux:vfs_read"

# the module refuses with the reason list gave (one function per reason)
for why in 'on the kprobe blacklist' 'not traceable (no __fentry__ site at its start)' \
	'entry text' 'noinstr text'; do
	fn=$(grep -F "  $why" /tmp/all.out | grep -v ':' | head -n 1 | awk '{print $3}')
	[ -n "$fn" ] || fail "no function listed as '$why'"
	addr=$(grep -F " $fn  $why" /tmp/all.out | head -n 1 | awk '{print $1}')
	kjit attach "$addr" 2> /tmp/a.err && { kjit detach; fail "$fn ($why) was attached"; }
	cat /tmp/a.err
	grep -qF "refused by kjit.ko: $why" /tmp/a.err || fail "module's reason for $fn differs from '$why'"
done
# and accepts one that list calls instrumentable
kjit attach vfs_read > /dev/null || fail "vfs_read listed instrumentable but refused"
kjit detach

# tracefs/debugfs: the tool mounts them itself
umount /sys/kernel/tracing; umount /sys/kernel/debug
kjit list vfs_read | grep -q ' yes  vfs_read$' || fail "list without tracefs/debugfs mounted"
[ -e /sys/kernel/tracing/available_filter_functions ] || fail "tracefs not remounted"

# CALL_PADDING kernels (6.12) give the padding before each function a
# symbol, __pfx_<function>: never listed, never attached.
if grep -q ' __pfx_vfs_read$' /proc/kallsyms; then
	kjit list '*vfs_read' > /tmp/p.out || fail "list *vfs_read"
	grep -q '__pfx_' /tmp/p.out && fail "padding listed as a function"
	grep -q ' vfs_read$' /tmp/p.out || fail "vfs_read not listed"
	kjit attach __pfx_vfs_read 2> /tmp/e.out && fail "attached padding"
	cat /tmp/e.out
	grep -q 'not a function: the padding before one' /tmp/e.out || fail "padding: unclear reason"
else
	echo "no __pfx_ symbols: this kernel has no CALL_PADDING"
fi

kjit list 'zz_no_such_fn*' 2> /tmp/e.out && fail "no match must fail"
grep -q 'no kernel function matches' /tmp/e.out || fail "no-match message"
kjit list 2> /tmp/e.out; [ $? = 2 ] || fail "list without a pattern: usage status 2"
su nobody -c "/bin/kjit list vfs_read" 2> /tmp/e.out &&
	fail "non-root list must fail"
cat /tmp/e.out
grep -q 'shows no addresses: kjit needs root' /tmp/e.out || fail "non-root message"
[ $(wc -l < /tmp/e.out) = 1 ] || fail "non-root: more than one line"
unload_kjit
