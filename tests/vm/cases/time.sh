# time - a timed session (attach/record --time, kmod/timing.h): calls,
# inclusive, exclusive and virtual time per function, checked against what
# shares nothing with kjit's clock work:
#  - calls: the workload's own count, exactly;
#  - the call tree: with nothing left open, the root's inclusive
#    cycles equal the sum of every timed function's exclusive cycles (each
#    call's time is its own plus its timed callees'), exactly;
#  - the histogram: its buckets sum to the calls, exactly;
#  - the clock: each nanosleep(100 us) takes at least 100 us (the hrtimer's
#    promise), and all of them together no more than the workload measured
#    with CLOCK_MONOTONIC around its loop; virtual time is at most
#    inclusive, and a sleeping call's is less than half its elapsed time;
#  - the call paths (report --folded): every one under the root, their
#    exclusive times summing to the root's inclusive (to the ns a line),
#    and in kjit.data each function's paths summing to its calls and
#    exclusive cycles, exactly;
#  - record --time keeps it in kjit.data (report -i --time says the same);
#    an untimed session says how to get one.
# A kernel that marked its TSC unstable (6.1 under TCG: "TSCs
# unsynchronized"; it then left the TSC as clocksource) must refuse --time, saying so; the rest is skipped there.
# timeout: 200
. /tests/lib.sh
load_kjit
# (the kernel's clocksource then is not the TSC; the boot's log is cleared
# before each case)
cs=$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)
echo "clocksource: $cs"
if [ "$cs" != tsc ]; then
	kjit attach --time __x64_sys_getpid > /dev/null 2> /tmp/e.out && fail "--time attached on an unstable TSC"
	cat /tmp/e.out
	grep -q 'cannot time this session' /tmp/e.out || fail "no word of why: $(cat /tmp/e.out)"
	dmesg | grep -q 'kjit: --time refused: the kernel marked its TSC unstable' || fail "no reason in the log"
	kjit stat 2>&1 | grep -q 'no session' || fail "a refused --time left a session"
	unload_kjit
	skip "the kernel marked its TSC unstable: --time refused, as it must be"
fi
held() { # CMD...: CMD, stopped before its exec (no system call of the
	# shell's own after the attach); its pid in $held, `go` starts it;
	# its output in /tmp/held.out
	sh -c 'kill -STOP $$; exec "$@"' sh "$@" > /tmp/held.out &
	held=$!
	for i in $(seq 50); do
		[ "$(sed 's/.*) //' /proc/$held/stat 2> /dev/null | cut -c1)" = T ] && return 0
		sleep 0.1
	done
	fail "the held process did not stop"
}
go() { kill -CONT "$1"; }
col() { # CSV FUNC N: field N of FUNC's row
	awk -F, -v f="$2" -v n="$3" '$1 == f { print $n }' "$1"
}
sum_col() { # CSV N: field N summed over the rows
	awk -F, -v n="$2" 'NR > 1 { s += $n } END { printf "%.0f\n", s }' "$1"
}
json_num() { # JSON KEY: the session's KEY
	sed -n "s/.*\"$2\": \([0-9]*\).*/\1/p" "$1" | head -n 1
}
hist_ok() { # JSON: every function's buckets sum to its calls
	tr -d '\n' < "$1" | sed 's/{"function"/\n&/g' | awk '
		/"function"/ {
			c = $0; sub(/.*"calls": /, "", c); sub(/,.*/, "", c)
			h = $0; sub(/.*"hist": \[/, "", h); sub(/\].*/, "", h)
			n = split(h, b, ", "); s = 0
			for (i = 1; i <= n; i++) s += b[i]
			if (s != c) { print "buckets " s " calls " c; bad = 1 }
		} END { exit bad }'
}
tree_exact() { # CSV ROOT WHAT: incl(ROOT) == sum of excl, calls untimed 0
	r=$(col "$1" "$2" 3); e=$(sum_col "$1" 4)
	echo "$3: incl($2) $r cycles, sum of excl $e"
	[ -n "$r" ] && [ "$r" = "$e" ] || fail "$3: incl($2) $r != sum of the exclusive times $e"
}

# 1. deep reads of /dev/zero: calls and the call tree
held workload read 1000; w=$held
kjit attach --time --deep -p $w __x64_sys_read > /tmp/a.out || fail "attach --time"
go $w
wait $w || fail "workload read"
kjit report --live --time > /tmp/r.txt || fail "report --time"
kjit report --live --time --csv > /tmp/r.csv || fail "report --time --csv"
kjit report --live --time --json > /tmp/r.json || fail "report --time --json"
head -n 12 /tmp/r.txt
[ "$(col /tmp/r.csv __x64_sys_read 2)" = 1000 ] || fail "calls of __x64_sys_read: $(col /tmp/r.csv __x64_sys_read 2), not 1000"
[ "$(col /tmp/r.csv ksys_read 2)" = 1000 ] || fail "calls of ksys_read (deep): $(col /tmp/r.csv ksys_read 2), not 1000"
# a read may schedule (cond_resched): __switch_to, entered on the next
# task's stack, is untimed then (docs/design/timing.md); nothing is lost
echo "calls untimed $(json_num /tmp/r.json untimed), left open $(json_num /tmp/r.json lost)"
[ "$(json_num /tmp/r.json lost)" = 0 ] || fail "calls left open: $(json_num /tmp/r.json lost)"
tree_exact /tmp/r.csv __x64_sys_read "read"
awk -F, 'NR > 1 && ($5 > $3 || $4 > $3) { print; bad = 1 } END { exit bad }' /tmp/r.csv ||
	fail "a function's virtual or exclusive time above its inclusive"
hist_ok /tmp/r.json || fail "histogram buckets do not sum to the calls"
# the call paths as folded stacks: every one under the one root, and
# their exclusive times adding up to the root's inclusive time (each line
# rounded to the ns)
kjit report --live --folded > /tmp/f.txt || fail "report --folded"
head -n 5 /tmp/f.txt
grep -q '^__x64_sys_read;ksys_read;vfs_read ' /tmp/f.txt || fail "no path __x64_sys_read;ksys_read;vfs_read"
grep -v '^__x64_sys_read[; ]' /tmp/f.txt && fail "a path not under __x64_sys_read"
awk -v incl="$(col /tmp/r.csv __x64_sys_read 6)" '{ s += $NF; n++ } END {
	d = s - incl; if (d < 0) d = -d
	printf "folded: %d paths, %.0f ns in all; incl(__x64_sys_read) %.0f ns\n", n, s, incl
	exit !(n > 0 && d <= n) }' /tmp/f.txt || fail "the folded stacks' times do not add up to the root's"
kjit stat > /tmp/st.txt || fail "stat"
grep '^timed: ' /tmp/st.txt
grep -q "^timed: $(($(wc -l < /tmp/r.csv) - 1)) functions called .* 0 left open; call paths [1-9]" /tmp/st.txt ||
	fail "stat's timed line does not match the report"
kjit detach > /dev/null || fail "detach"

# 2. clock_nanosleep(100 us): the clock against the hrtimer and CLOCK_MONOTONIC
held workload time nanosleep 200; w=$held
kjit attach --time -p $w __x64_sys_clock_nanosleep > /dev/null || fail "attach --time nanosleep"
go $w
wait $w || fail "workload nanosleep"
kjit report --live --time --csv > /tmp/n.csv || fail "report --time nanosleep"
cat /tmp/n.csv
per=$(sed -n 's/ns_per_op=//p' /tmp/held.out)
# the workload's own wait does not wake before the hrtimer's 100 us
awk -F, -v per="$per" '$1 == "__x64_sys_clock_nanosleep" {
	printf "nanosleep: %d calls, incl %.0f ns (mean %.0f), virt %.0f ns; the workload measured %.0f ns a call\n", $2, $6, $6 / $2, $8, per
	if ($2 != 200) { print "calls " $2 " not 200"; exit 1 }
	if ($6 / $2 < 100000) { print "a mean call under the 100 us sleep"; exit 1 }
	if ($6 > per * 200) { print "more time inside than the loop took"; exit 1 }
	if ($8 * 2 >= $6) { print "virtual time not under half of the elapsed"; exit 1 }
	found = 1
} END { exit !found }' /tmp/n.csv || fail "nanosleep's times"
kjit report --live --time --json > /tmp/n.json
hist_ok /tmp/n.json || fail "nanosleep's histogram"
kjit detach > /dev/null || fail "detach nanosleep"

# 3. record --time: the data file keeps it, and its call paths: per
# function, the calls and exclusive cycles of its paths sum to its own,
# exactly (when no call found its path full)
kjit record --time --deep -f ksys_read -o /tmp/t.data -- workload read 300 2> /tmp/e.out || { cat /tmp/e.out; fail "record --time"; }
kjit report -i /tmp/t.data --time --csv > /tmp/d.csv || fail "report -i --time"
cat /tmp/d.csv
[ "$(col /tmp/d.csv ksys_read 2)" = 300 ] || fail "recorded calls of ksys_read: $(col /tmp/d.csv ksys_read 2), not 300"
grep -q '^timing ' /tmp/t.data || fail "no timing line in kjit.data"
awk '$1 == "tfunc" { c[$2] = $3; e[$2] = $5 }
	$1 == "tpaths" { full = $4 }
	$1 == "tpath" { pc[$4] += $5; pe[$4] += $7; n++ }
	END {
		if (full != 0 || n == 0) { print "paths full " full ", " n " paths"; exit 1 }
		for (f in c) if (pc[f] != c[f] || pe[f] != e[f]) {
			print "function " f ": calls " c[f] " excl " e[f] ", its paths " pc[f] " and " pe[f]; bad = 1 }
		for (f in pc) if (!(f in c)) { print "paths of function " f " with no tfunc"; bad = 1 }
		printf "paths: %d, summing to each function'"'"'s calls and exclusive time\n", n
		exit bad }' /tmp/t.data || fail "the paths do not sum to their functions"

# 4. an untimed session says how to get one
kjit record -f ksys_read -o /tmp/u.data -- workload read 3 2> /dev/null || fail "record"
kjit report -i /tmp/u.data --time > /dev/null 2> /tmp/e.out && fail "report --time of an untimed session must fail"
grep -q -- '--time' /tmp/e.out || fail "no word of --time: $(cat /tmp/e.out)"
unload_kjit
