# notrace_callees - deep mode follows callees that have no __fentry__ site
# (notrace and outlined inline functions, asm in .text): under the stat
# system call's entry point (stat("/") in a loop), at least one function the report counts is
# absent from ftrace's available_filter_functions, and each such function
# reached only from there counts exactly what a Kprobe on each of its
# blocks counts (kjitcount -C; -O: no Kprobe on the other callees, whose
# counts no check judges). Before, deep mode left every one of them
# native (`allowed()` in kmod/deep.c wanted an ftrace site). On a
# sanitizer kernel, none of them is the sanitizer's runtime.
# timeout: 400
. /tests/lib.sh
T=/sys/kernel/tracing
[ -e $T/available_filter_functions ] || mount -t tracefs tracefs $T || fail "mount tracefs"
entry=$(first_func __x64_sys_newstat __x64_sys_stat)
[ -n "$entry" ] || fail "no stat entry point in kallsyms"
load_kjit
kjit attach --deep "$entry" > /dev/null || fail "deep attach $entry"
workload -c 0 stat 300 || fail "stat"
kjit report --live --csv > /tmp/r.csv || fail "report"
kjit detach || fail "detach"
unload_kjit
# functions with a counted block, and which of them have no ftrace site
awk -F, 'NR > 1 && $4 > 0 { n = $1; sub(/ \[.*\]$/, "", n); sub(/^.*:/, "", n); print n }' /tmp/r.csv |
	sort -u > /tmp/funcs
sed 's/ .*//' $T/available_filter_functions | sort -u > /tmp/traceable
awk 'NR == FNR { t[$1] = 1; next } !($1 in t)' /tmp/traceable /tmp/funcs > /tmp/notrace
echo "functions counted under $entry: $(wc -l < /tmp/funcs); without an ftrace site: $(tr '\n' ' ' < /tmp/notrace)"
[ -s /tmp/notrace ] || fail "no function without an ftrace site was followed"
# on a sanitizer kernel (make sanitize), its runtime stays native
# (KJIT_SANITIZER_PREFIXES): every access the stat path checks calls it
if grep -qE ' (__tsan_read4|__asan_load4(_noabort)?)$' /proc/kallsyms; then
	san=$(grep -E '^(__tsan_|__kcsan_|kcsan_|__asan_|__hwasan_|__kasan_check_|kasan_check_range|kasan_report|__msan_|__sanitizer_cov_)' /tmp/funcs | tr '\n' ' ')
	[ -z "$san" ] || fail "deep mode translated the sanitizer's runtime: $san"
	echo "sanitizer kernel: its runtime stayed native"
fi
# each of them that only stat reaches here: exact against Kprobes
args=""
for f in $(cat /tmp/notrace); do
	# (not the static call trampolines: "static" matches, and a Kprobe
	# there never fires; nor tracepoints' functions:
	# trace_sched_stat_runtime is notrace on make sanitize's kernel, and
	# every context switch calls it)
	case $f in __SCT__* | trace_*) ;; *stat*) args="$args -C $f" ;; esac
done
[ -n "$args" ] || { echo "no stat-only notrace callee to cross-check"; exit 0; }
load_kjit
insmod /lib/kjit/kjit_kprobes.ko || fail "insmod kjit_kprobes.ko"
kjitcount -c 0 -d -e -x -O $args stat 300 "$entry" > /tmp/d.out 2>&1
rc=$?
grep -E '^(ENTRY|SUMMARY|MISSING)|MISMATCH' /tmp/d.out
rmmod kjit_kprobes
unload_kjit
[ $rc = 0 ] || { cat /tmp/d.out; fail "counts of notrace callees disagree with Kprobes"; }
for f in $args; do
	[ "$f" = -C ] && continue
	grep -q "^BLOCK $f+0x.* OK$" /tmp/d.out || fail "no $f block matched a Kprobe exactly"
done
