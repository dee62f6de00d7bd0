# stack_traces - a stack trace through translated code is as whole and as
# reliable as the native one (docs/design/fixups-and-stacks.md). A reader
# asleep in pipe_read, natively and with __x64_sys_read deep-attached (its
# frames then return into the code cache: pipe_read < vfs_read < ksys_read
# all run translated): /proc/PID/stack has the same frames, the cache's in
# kjit_pool.ko named after the blocks they stand for, down to
# do_syscall_64 - and two more on top: deep mode follows schedule() and
# __schedule(), and the kernel leaves frames out of /proc/PID/stack only
# when their address lies in .sched.text (in_sched_functions()), which the
# cache's copies do not (the reliable walk counts those frames natively
# too, so its counts stay equal); the
# kernel's reliable walk (kjit_stackcheck.ko: arch_stack_walk_reliable(),
# as livepatch uses it) succeeds with the same number of frames. After
# detach quiesce has rewritten the cache return addresses, and the trace is
# the native one again. The same for a perf-style callchain: a Kprobe with
# a stacktrace trigger on pipe_read (a followed callee: its entry guard
# runs it natively under the Kprobe) shows the same functions below
# pipe_read natively, attached and after detach. And a callchain taken
# inside the dispatcher while it translates (a Kprobe with a stacktrace
# trigger on copy_from_kernel_nofault, with which the translator reads the
# code it translates) goes on below kjit_dispatch_entry: to the original
# target it is translating, then the program's frames down to
# do_syscall_64 (or ret_from_fork, on a kernel thread's stack that a switch
# made in the cache entered). Before, every such trace ended at
# kjit_dispatch_entry, on 6.1 as if the stack ended there. And a walk
# from inside the shared entry trampoline, with %rax pushed over the fentry
# call's return address (a Kprobe there, kjit_stackcheck.ko addr=): every
# hit's walk is reliable and goes on to the attached function and
# do_syscall_64. Before, the trampoline had no name to probe by, nor ORC
# entries: it lived in module memory outside any module.
# kernels: spot
# timeout: 150
. /tests/lib.sh
pr=$(pipe_read_fn) || fail "no pipe read function"
# start_sleeper OUTFILE: sets s (the sleeper) and p (its child, asleep in
# pipe_read).
start_sleeper() {
	sleeper > $1 &
	s=$!
	sleep 1
	p=$(sed -n 's/^child \([0-9]*\) asleep/\1/p' $1)
	[ -n "$p" ] || fail "no sleeping child"
}
chain() { grep -q "$pr+" $1 && grep -q 'vfs_read+' $1 && grep -q 'ksys_read+' $1; }
# reliable PID OUT: the reliable walk of PID into OUT; its frame count
reliable() {
	insmod /lib/kjit/kjit_stackcheck.ko pid=$1 2> /dev/null
	dmesg | grep "kjit_stackcheck: pid $1:" | tail -n 1 > $2
	sed -n 's/.*: reliable, \([0-9]*\) frames.*/\1/p' $2
}
# same_frames NATIVE OTHER: OTHER has NATIVE's frames, function by
# function (a translated frame is in kjit_pool.ko, named after the block it
# stands for: "[<0>] pipe_read+0x4c+0x1e/0x40 [kjit_pool]")
same_frames() {
	[ "$(wc -l < $1)" = "$(wc -l < $2)" ] || return 1
	paste -d'|' $1 $2 | while IFS='|' read -r a b; do
		fa=$(echo "$a" | sed 's/^[^]]*\] //; s/+.*//')
		fb=$(echo "$b" | sed 's/^[^]]*\] //; s/+.*//')
		[ "$fa" = "$fb" ] || exit 1
	done
}
# named_pool: wait (50 tries, 0.1 s apart) until kallsyms names a translated block
# of vfs_read, ksys_read and pipe_read ("vfs_read+0x293 [kjit_pool]")
named_pool() {
	i=0
	while [ $i -lt 50 ]; do
		n=$(grep -E " (vfs_read|ksys_read|$pr)\+0x[0-9a-f]+[[:space:]]+\[kjit_pool\]" /proc/kallsyms |
			sed 's/.* \([a-z_]*\)+0x.*/\1/' | sort -u | wc -l)
		[ "$n" -ge 3 ] && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}
# names FILE: the function of each callchain line ("=> vfs_read+0x5e")
names() { sed 's/^ *=> //; s/+.*//' $1; }
load_kjit
start_sleeper /tmp/s0.out
cat /proc/$p/stack > /tmp/native.stk
n0=$(reliable $p /tmp/native.rel)
kill -USR1 $s
wait $s || fail "native sleeper"
chain /tmp/native.stk || { cat /tmp/native.stk; fail "native trace lacks the read chain"; }
kjit attach --deep __x64_sys_read > /dev/null || fail "attach"
start_sleeper /tmp/s1.out
cat /proc/$p/stack > /tmp/attached.stk
grep -Eq '^\[<0>\] __schedule\+.*\[kjit_pool\]$' /tmp/attached.stk ||
	fail "the reader is not asleep in translated __schedule"
# what /proc/PID/stack shows natively: no scheduler frames
grep -Ev '^\[<0>\] (__schedule|schedule)\+.*\[kjit_pool\]$' /tmp/attached.stk > /tmp/attached.nosched
n1=$(reliable $p /tmp/attached.rel)
kjit detach || fail "detach"
cat /proc/$p/stack > /tmp/after.stk
kill -USR1 $s
wait $s || fail "the reader did not complete after detach"
echo "== native:"; cat /tmp/native.stk /tmp/native.rel
echo "== attached:"; cat /tmp/attached.stk /tmp/attached.rel
echo "== after detach:"; cat /tmp/after.stk
[ -n "$n0" ] || fail "the native walk is not reliable"
same_frames /tmp/native.stk /tmp/attached.nosched || fail "the attached trace does not have the native frames"
grep -q 'kjit_pool' /tmp/attached.stk || fail "no translated frame in the attached trace (was the reader in the cache?)"
[ "$n1" = "$n0" ] || fail "reliable walk: $n0 frames natively, ${n1:-unreliable} attached"
chain /tmp/after.stk || fail "after detach the trace is not whole again"

T=/sys/kernel/tracing
E=$T/events/kjit/kjit_stk
# callchain FILE: the first pipe_read stack trace of a one-byte pipe read
callchain() {
	echo > $T/trace
	echo 1 > $E/enable
	workload -c 0 piperead 1 || fail "read for $1"
	echo 0 > $E/enable
	awk '/<stack trace>/ { on++; next } on == 1 && /^ =>/ { print } on > 1 { exit }' $T/trace > $1
}
echo "p:kjit/kjit_stk $pr" >> $T/kprobe_events || fail "kprobe event"
echo stacktrace > $E/trigger || fail "stacktrace trigger"
callchain /tmp/native.cc
kjit attach --deep __x64_sys_read > /dev/null || fail "attach for callchains"
workload -c 0 piperead 10 || fail "warm-up"
# the warm-up's blocks get their names from a worker every 100 ms
# (kmod/symbols.c): a callchain taken before it ran shows kjit_pool_code
named_pool || fail "the warm-up's blocks got no names (50 tries)"
callchain /tmp/attached.cc
kjit detach || fail "detach"
callchain /tmp/after.cc
echo '!stacktrace' > $E/trigger
echo '-:kjit/kjit_stk' >> $T/kprobe_events
echo "== callchains (native, attached, after detach):"
cat /tmp/native.cc /tmp/attached.cc /tmp/after.cc
grep -q '=> vfs_read' /tmp/native.cc || fail "native callchain lacks vfs_read"
grep -q '=> vfs_read+0x' /tmp/attached.cc || fail "no translated frame in the attached callchain"
names /tmp/native.cc > /tmp/native.names
names /tmp/attached.cc > /tmp/attached.names
cmp -s /tmp/native.names /tmp/attached.names || fail "the attached callchain does not have the native functions"
grep -q '=> vfs_read' /tmp/after.cc || fail "after detach the callchain is not whole again"

# the dispatcher's frame: every trace through kjit_dispatch_entry goes on
# to the stack's bottom, through a frame that is not kjit's (the target)
echo 'p:kjit/kjit_rd copy_from_kernel_nofault' >> $T/kprobe_events || fail "kprobe event on copy_from_kernel_nofault"
R=$T/events/kjit/kjit_rd
kjit attach --deep __x64_sys_read > /dev/null || fail "attach for the dispatcher's trace"
# the trigger only now: a trigger fires while its event is still disabled
# (soft mode), and the tool's own reads after its attach ioctl translate
# ~1,000 blocks (~6,000 hits) that would use up the count
echo stacktrace:500 > $R/trigger || fail "stacktrace trigger"
echo > $T/trace
echo 1 > $R/enable
workload -c 0 piperead 1 || fail "read under the dispatcher's trace"
echo 0 > $R/enable
# (read before the event goes: removing it empties the buffer)
# one line per trace: its frames' functions, space-separated
awk '/<stack trace>/ { if (t != "") print t; t = ""; next }
	/^ =>/ { f = $2; sub(/\+.*/, "", f); t = t " " f }
	END { if (t != "") print t }' $T/trace > /tmp/all.tr
# the raw traces (frames one per line, | between traces), for the log
awk '/<stack trace>/ { print "|"; next } /^ =>/ { print }' $T/trace > /tmp/raw.tr
grep ' kjit_dispatch_entry' /tmp/all.tr > /tmp/disp.tr
kjit detach > /dev/null || fail "detach"
echo '!stacktrace:500' > $R/trigger
echo '-:kjit/kjit_rd' >> $T/kprobe_events
n=$(wc -l < /tmp/disp.tr)
echo "== $n traces taken in the dispatcher; the first, raw:"
awk '/kjit_dispatch_entry/ { on = 1 } on && /^\|/ { exit } { if (/^\|/) b = ""; else b = b $0 "\n" } on { printf "%s", b; b = "" }' /tmp/raw.tr
[ "$n" -gt 0 ] || fail "no trace taken in the dispatcher (did the Kprobe fire while translating?)"
# the bottom: a system call's, or a kernel thread's (a switch made in the
# cache runs the next task's half there, on a kthread's stack)
bottom=' kjit_dispatch_entry .* (do_syscall_64|ret_from_fork)'
cut=$(grep -Ecv "$bottom" /tmp/disp.tr)
if [ "$cut" != 0 ]; then
	echo "== the first that stops:"; grep -m 1 -Ev "$bottom" /tmp/disp.tr
	fail "$cut of $n traces in the dispatcher stop before the stack's bottom"
fi
grep -Eq ' kjit_dispatch_entry (kjit|\?)' /tmp/disp.tr &&
	fail "the frame below kjit_dispatch_entry is not the original target"

# the entry trampoline's frame: a Kprobe on its second instruction, after
# push %rax (codecache/entry.h), walks each hit's stack as livepatch would
# (--count-kjit: no prologue, so push %rax is the first instruction; the
# default session's prologue that leaves kjit out moves it past offset 1,
# where insmod failed with EILSEQ)
kjit attach --count-kjit __x64_sys_getpid > /dev/null || fail "attach for the trampoline's trace"
workload getpid 10 || fail "warm-up"
a=$(awk '$3 == "kjit_entry_trampoline" { print $1; exit }' /proc/kallsyms)
[ -n "$a" ] || fail "no kjit_entry_trampoline in /proc/kallsyms"
insmod /lib/kjit/kjit_stackcheck.ko addr=0x$a off=1 ||
	{ dmesg | grep kjit_stackcheck; fail "cannot probe the trampoline"; }
workload getpid 200 || fail "getpid under the trampoline's probe"
rmmod kjit_stackcheck || fail "rmmod kjit_stackcheck"
kjit detach > /dev/null || fail "detach"
dmesg | grep 'kjit_stackcheck: probe at' | tail -n 2 > /tmp/tramp.tr
echo "== walks from inside the entry trampoline:"
cat /tmp/tramp.tr
hits=$(sed -n 's/.*: \([0-9]*\) hits, .*/\1/p' /tmp/tramp.tr)
good=$(sed -n 's/.* hits, \([0-9]*\) reliable.*/\1/p' /tmp/tramp.tr)
[ "${hits:-0}" -ge 200 ] || fail "the trampoline's probe hit ${hits:-0} times for 200 calls"
[ "$good" = "$hits" ] || fail "$((hits - good)) of $hits walks from the trampoline were unreliable"
# its first return address is S+5 in getpid (__do_sys_getpid: the same
# address), found 16 bytes up only from the trampoline's own ORC entry
grep -Eq 'first: __(x64|do)_sys_getpid\+0x[0-9a-f]*/.* < do_syscall_64' /tmp/tramp.tr ||
	fail "the walk from the trampoline does not go on through getpid to do_syscall_64"
unload_kjit
