# attach_limits - no silent cliffs. A deep attach at __x64_sys_read with a
# tiny --deep-max leaves callees native and says so in plain words, with
# the number the statistics count (deep_over_funcs: distinct callees), in
# `kjit detach`, `kjit stat`, `kjit report` (text, JSON, CSV's stderr),
# `kjit record` and `kjit compare`; a tiny --max-blocks and --cache-kb do
# the same for the block map and the code cache. With the default limits
# the same workload leaves nothing native for lack of room, and follows at
# least the callees the tiny table turned away.
# kernels: once
# timeout: 300
. /tests/lib.sh
load_kjit

# --- deep table: limit 4
kjit attach --deep --deep-max 4 __x64_sys_read > /tmp/a.out || fail "attach --deep-max 4"
cat /tmp/a.out
grep -q '^limits: deep table 4 functions, code cache [0-9]* KiB and block map [0-9]* blocks per CPU.*MiB reserved$' /tmp/a.out ||
	fail "attach: no limits line"
workload -c 0 pipe 200
kjit detach > /tmp/d.out || fail "detach"
cat /tmp/d.out
n=$(live_json deep_over_funcs)
times=$(live_json deep_over_budget)
funcs=$(live_json deep_funcs)
echo "deep-max 4: followed $funcs, left native $n callee(s), $times refusal(s)"
[ "${funcs:-0}" = 4 ] || fail "deep table of 4 holds ${funcs:-?} functions"
[ "${n:-0}" -gt 0 ] || fail "no callee left native with --deep-max 4"
[ "$times" -ge "$n" ] || fail "$times refusals < $n distinct callees"
# the module remembers at most limit + 1 distinct callees, so 5 or more
# read "at least 5" (KASAN's bigger read path turns away exactly 5)
least=""
[ "$n" -gt 4 ] && least="at least "
line="$least$n callee(s) ran natively because the deep table was full (limit 4 functions; --deep-max raises it)"
grep -qxF "$line" /tmp/d.out || fail "detach does not say: $line"
kjit stat > /tmp/s.out
grep -qxF "$line" /tmp/s.out || fail "stat does not say it"
grep -q "^deep mode: 4 callee(s) followed of at most 4 (room held for 4), $least$n left native (deep table full; $times time(s)); 0 call(s) run natively while the table grew$" /tmp/s.out ||
	fail "stat deep line"
kjit report --live > /tmp/r.out
grep -qxF "# $line" /tmp/r.out || fail "report does not say it"
kjit report --live --csv > /dev/null 2> /tmp/csv.err
grep -qxF "kjit report: $line" /tmp/csv.err || fail "report --csv does not say it on stderr"
[ "$(live_json hit)" = 1 ] || fail "JSON limits.hit is not 1"

# --- default limits: nothing native for lack of room, and every callee
# the tiny table turned away is followed now (the same workload)
kjit attach --deep __x64_sys_read > /tmp/a.out || fail "attach (defaults)"
cat /tmp/a.out
workload -c 0 pipe 200
kjit detach > /tmp/d.out || fail "detach (defaults)"
cat /tmp/d.out
grep -q '^nothing ran natively for lack of room (deep table [0-9]*/16384 functions; fullest CPU: code cache [0-9]*/2048 KiB, block map [0-9]*/32768 blocks' /tmp/d.out ||
	fail "defaults: no 'nothing ran natively for lack of room' line"
[ "$(live_json deep_over_budget)" = 0 ] && [ "$(live_json hit)" = 0 ] || fail "defaults: a limit was hit"
all=$(live_json deep_funcs)
echo "defaults: followed $all callees (the tiny table: 4 + $n turned away)"
[ "$all" -ge $((4 + n)) ] || fail "defaults follow $all < 4 + $n callees"

# --- block map: 16 blocks per CPU
kjit attach --deep --max-blocks 16 __x64_sys_read > /dev/null || fail "attach --max-blocks 16"
workload -c 0 pipe 50
kjit detach > /tmp/d.out
cat /tmp/d.out
m=$(live_json block_map_full)
[ "${m:-0}" -gt 0 ] || fail "block map of 16 never full"
grep -qxF "$m block entries ran natively because the block map was full (limit 16 blocks per CPU; --max-blocks raises it)" /tmp/d.out ||
	fail "detach does not say the block map was full"
kjit stat | grep -q "^  fallback map_full  *$m  block map full (--max-blocks raises it)$" || fail "stat map_full"
nb=$(kjit report --live --csv | tail -n +2 | wc -l)
[ "$nb" -le $((16 * $(nproc))) ] || fail "$nb blocks with 16 per CPU on $(nproc) CPUs"

# --- code cache: 4 KiB per CPU
kjit attach --deep --cache-kb 4 __x64_sys_read > /dev/null || fail "attach --cache-kb 4"
workload -c 0 pipe 50
kjit detach > /tmp/d.out
cat /tmp/d.out
c=$(live_json code_cache_full)
[ "${c:-0}" -gt 0 ] || fail "code cache of 4 KiB never full"
grep -qxF "$c block entries ran natively because the code cache was full (limit 4 KiB per CPU; --cache-kb raises it)" /tmp/d.out ||
	fail "detach does not say the code cache was full"
kjit stat | sed -n 's/^cache bytes: [0-9]* (\(.*\))$/\1/p' | tr ',' '\n' |
	awk -F= '$2 > 4096 {exit 1}' || fail "a CPU used more than 4 KiB of code"

# --- record and compare say it at the end of their run
kjit record --deep --deep-max 4 -f __x64_sys_read -o /tmp/l.data -- workload -c 0 pipe 50 2> /tmp/rec.err ||
	fail "record --deep-max 4"
cat /tmp/rec.err
grep -Eq '^kjit record: (at least )?[0-9]+ callee\(s\) ran natively because the deep table was full \(limit 4 functions; --deep-max raises it\)$' /tmp/rec.err ||
	fail "record does not say it"
r=$(sed -n 's/^stat deep_over_funcs //p' /tmp/l.data)
# (more than the limit turned away saturates at limit + 1: "at least 5")
msg="$r callee(s) ran natively because the deep table was full (limit 4 functions; --deep-max raises it)"
grep -qxF -e "kjit record: $msg" -e "kjit record: at least $msg" /tmp/rec.err ||
	fail "record's number is not the file's deep_over_funcs ($r)"
kjit report -i /tmp/l.data | grep -qxF -e "# $msg" -e "# at least $msg" ||
	fail "report -i does not say it"
insmod /lib/kjit/kjit_kprobes.ko || fail "insmod kjit_kprobes"
kjit compare --deep --deep-max 4 -f __x64_sys_read -n 1 -- workload -c 0 pipe 20 > /tmp/c.out || fail "compare --deep-max 4"
grep -Eq '^# (at least )?[0-9]+ callee\(s\) ran natively because the deep table was full \(limit 4 functions; --deep-max raises it\)$' /tmp/c.out ||
	fail "compare does not say it"
rmmod kjit_kprobes

# --- out of range: refused by the tool, nothing attached
kjit attach --cache-kb 3 vfs_read 2> /dev/null; [ $? = 2 ] || fail "--cache-kb 3: usage"
kjit attach --deep-max 5 vfs_read 2> /dev/null; [ $? = 2 ] || fail "--deep-max without --deep: usage"
unload_kjit
