# native_runs - a function that ran natively is never a silent zero (issue
# 16, part 5). Recorded deep under __x64_sys_read while a Kprobe sits on
# pipe_read's entry (kprobe_events, enabled before the record), pipe_read's
# entry guard sends every call native: `record` must end with one warning
# line, and the report, in text and JSON, must say for pipe_read how often
# it ran natively and why ("ran natively Nx: its ftrace site was held by a
# Kprobe"), from the module's per-function count. Oracle: the Kprobe's own
# hits over the record (kprobe_profile): kjit's N is at least the
# workload's 300 reads and at most those hits. The per-function counts add
# up to the session's fallback total. Then with an IPMODIFY ftrace user on
# pipe_read (the way livepatch holds a function) the reason names it; and
# with nothing on the site nothing is native: no warning, no line.
# timeout: 200
. /tests/lib.sh
pr=$(pipe_read_fn) || fail "no pipe read function"
T=/sys/kernel/tracing
hits() { awk '$1 == "kjit_nr" { print $2 }' $T/kprobe_profile; }
load_kjit
cd /tmp || fail "cd"
echo "p:kjit/kjit_nr $pr" >> $T/kprobe_events || fail "kprobe"
echo 1 > $T/events/kjit/kjit_nr/enable || fail "enable kprobe"
h0=$(hits)
kjit record --deep -f __x64_sys_read -o n.data -- workload -c 0 piperead 300 2> e.out ||
	{ cat e.out; fail "record"; }
h1=$(hits)
echo 0 > $T/events/kjit/kjit_nr/enable
echo '-:kjit/kjit_nr' >> $T/kprobe_events
cat e.out
k=$((h1 - h0))
kjit report -i n.data > r.txt || fail "report"
kjit report -i n.data --json > r.json || fail "report --json"
grep -A1 "^$pr (deep) " r.txt
# the function's row, then "  ran natively Nx: WHY" under it
n=$(awk -v f="$pr" 'index($0, f " (deep) ") == 1 { getline; if ($1 == "ran" && $2 == "natively") { sub(/x:?$/, "", $3); print $3 } }' r.txt)
echo "$pr ran natively ${n:-?}x by kjit's count; the Kprobe hit $k times over the record"
[ -n "$n" ] || fail "the report does not say that $pr ran natively"
[ "$n" -ge 300 ] && [ "$n" -le "$k" ] || fail "native count $n outside [300, Kprobe hits $k]"
grep -A1 "^$pr (deep) " r.txt | grep -q "ran natively ${n}x: its ftrace site was held by a Kprobe" ||
	fail "the reason does not name the Kprobe"
[ "$(grep -c '^kjit record: warning: .*ran natively' e.out)" = 1 ] || fail "record: no one-line warning"
grep '^kjit record: warning:' e.out | grep -q "$pr ${n}x" || fail "record warning does not name $pr ${n}x"
grep -q "\"name\": \"$pr\", .*\"native\": {\"total\": $n, .*\"ftrace_site\": $n[,}].*\"why\": \"its ftrace site was held by a Kprobe\"" r.json ||
	fail "JSON: no native count $n for $pr"
# the per-function counts add up to the module's total for the reason
tot=$(awk '$1 == "stat" && $2 == "fallback.ftrace_site" { print $3 }' n.data)
sum=$(awk '$1 == "native" && $3 == "ftrace_site" { s += $4 } END { print s + 0 }' n.data)
[ "$tot" = "$sum" ] || fail "fallback.ftrace_site $tot, per-function sum $sum"
kjit report -i n.data --csv > /dev/null 2> c.err || fail "csv"
grep -q "$pr ran natively ${n}x" c.err || fail "csv: nothing on stderr about the native runs"

# an IPMODIFY holder is named as such
insmod /lib/kjit/kjit_ipmodify.ko func="$pr" || fail "IPMODIFY on $pr"
kjit record --deep -f __x64_sys_read -o i.data -- workload -c 0 piperead 100 2> e.out ||
	{ cat e.out; fail "record under IPMODIFY"; }
rmmod kjit_ipmodify
kjit report -i i.data | grep -A1 "^$pr (deep) " > i.txt
cat i.txt
grep -Eq '^  ran natively [0-9]+x: its ftrace site was held by an IPMODIFY ftrace user' i.txt ||
	fail "IPMODIFY holder not named"

# nothing on the site: pipe_read runs from the cache, and nothing is said
# about it (blocks the translator refuses elsewhere, such as a copy with
# an exception-table fixup, may still be named: they do run natively)
kjit record --deep -f __x64_sys_read -o c.data -- workload -c 0 piperead 100 2> e.out ||
	{ cat e.out; fail "clean record"; }
cat e.out
grep 'warning:' e.out | grep -q -e "$pr" -e 'ftrace site' && fail "warning about $pr without a holder"
kjit report -i c.data > c.txt || fail "clean report"
grep -q "^$pr (deep) " c.txt || fail "$pr not followed in the clean record"
grep -A1 "^$pr (deep) " c.txt | grep -q '^  ran natively' && fail "$pr said to run natively"
grep -q 'ftrace site' c.txt && fail "an ftrace site held in the clean record: $(grep 'ftrace site' c.txt)"
grep -qx 'native_counts yes' c.data || fail "no native_counts line"
grep -q '^native [0-9]* ftrace_site' c.data && fail "ftrace_site native runs in the clean record"
unload_kjit
