# tool_annotate - `kjit annotate` and `report --uncovered` on the running
# kernel (issue 16, part 4). pipe_read is recorded under `workload -c 0
# pipe 200` (a write then a read each time: the same path 200 times).
# The listing must agree with the report (static blocks, covered, the
# blocks that never ran: report --uncovered lists exactly them), name
# every branch target by symbol (JSON targets checked against
# /proc/kallsyms), write hex in lower case and label the fentry site.
# Oracle for the counts: Kprobes (kprobe_events) in a separate run of the
# same workload, without kjit - every block that never ran gets 0 hits,
# and the last instruction of every block that ran as many as annotate
# gives it. Then annotate of the live attached session, a data file
# without code (this boot: read from /proc/kcore; another boot: one-line
# error) and bad input.
# kernels: once
# timeout: 240
. /tests/lib.sh
pr=$(pipe_read_fn) || fail "no pipe read function"
T=/sys/kernel/tracing
load_kjit
mkdir -p /tmp/ann && cd /tmp/ann || fail "mkdir"
kjit record -f "$pr" -o a.data -- workload -c 0 pipe 200 2> e.out || { cat e.out; fail "record"; }
set -- $(awk -v f="$pr" '$1 == "func" && $6 == f { print $4, $5 }' a.data)
static=$1 covered=$2
[ "${static:-0}" -gt 5 ] && [ "${covered:-0}" -gt 2 ] || fail "no coverage recorded: static '$static' covered '$covered'"
never=$((static - covered))
grep -q '^code 0 0x0 ' a.data && grep -q '^sym 0x' a.data || fail "the data file holds no code"
kjit annotate -i a.data "$pr" > a.txt 2> e.out || { cat e.out; fail "annotate"; }
head -n 40 a.txt
grep -Eq "^$pr 0x[0-9a-f]+-0x[0-9a-f]+ \([0-9]+ bytes\): $static blocks, $covered ran, $never never ran; [0-9]+ calls, " a.txt ||
	fail "header disagrees with the report ($static static, $covered covered): $(grep -m1 "^$pr " a.txt)"
n=$(grep -c "^block [0-9]* $pr+0x[0-9a-f]*: never ran" a.txt)
[ "$n" = "$never" ] || fail "$n blocks marked never ran, the report says $never"
sed -n "s/^block [0-9]* $pr+\(0x[0-9a-f]*\): never ran.*/\1/p" a.txt > never.a
kjit report -i a.data --uncovered > r.txt || fail "report --uncovered"
grep -q "^$pr: $never of $static static blocks never ran$" r.txt || fail "uncovered summary: $(grep "^$pr:" r.txt)"
awk '/^uncovered:/ { n = 5 } n-- > 0' r.txt
grep -m1 -A2 ': never ran' a.txt
tail -n 3 a.txt
sed -n "s/^  $pr+\(0x[0-9a-f]*\) .*/\1/p" r.txt > never.r
cmp -s never.a never.r || fail "report --uncovered lists other blocks than annotate: $(diff never.a never.r | head -5)"
# every branch target named, hex in one case, the fentry site labelled
ins='^ +[-0-9]* +0x[0-9a-f]+  \+0x[0-9a-f]+ +'
grep -E "$ins(call|j[a-z]+) 0x" a.txt && fail "a branch target without a name"
grep -Eq "${ins}call [a-z_]" a.txt || fail "no call named"
grep -Eq "${ins}j[a-z]+ $pr\+0x[0-9a-f]+$" a.txt || fail "no jump named $pr+0x..."
grep -E "$ins" a.txt | grep -E '0x[0-9a-f]*[A-F]' && fail "upper-case hex"
grep -Eq "$ins.*    <- __fentry__ site$" a.txt || fail "fentry site not labelled"
kjit annotate -i a.data --json "$pr" > a.json || fail "annotate --json"
[ "$(grep -c '"ran": false' a.json)" = "$never" ] || fail "JSON: never-ran blocks differ"
k=0
for l in $(sed -n 's/.*"text": "call \([a-z_0-9]*\)", "target": "0x\([0-9a-f]*\)".*/\1:\2/p' a.json | head -n 8); do
	want=$(awk -v n="${l%%:*}" '$3 == n { print $1; exit }' /proc/kallsyms)
	[ "$want" = "${l#*:}" ] || fail "call ${l%%:*}: target ${l#*:}, kallsyms $want"
	k=$((k + 1))
done
[ $k -ge 2 ] || fail "only $k named calls checked"

# Kprobes in a run without kjit: blocks that never ran get no hit; the
# last instruction of a block that ran is hit as often as annotate says
awk -v f="$pr" '$0 ~ ("^block [0-9]+ " f "[+]0x") { if (b != "") print b, last, cnt; b = $3; sub(/:$/, "", b)
		never = ($4 == "never"); last = ""; next }
	/^not reached/ { if (b != "") print b, last, cnt; b = ""; next }
	b != "" && /\+0x/ { n = split($0, w, " "); for (i = 1; i <= n; i++) if (w[i] ~ /^\+0x/) last = substr(w[i], 2)
		cnt = never ? "never" : w[1] }
	END { if (b != "") print b, last, cnt }' a.txt > probes
nb=0 armed=0
while read -r blk last cnt; do
	nb=$((nb + 1))
	echo "p:kjit/ann$nb $pr+$last" >> $T/kprobe_events 2> /dev/null &&
		armed=$((armed + 1)) && echo "$nb $blk $last $cnt" >> armed
done < probes
echo 1 > $T/events/kjit/enable || fail "enable the Kprobes"
workload -c 0 pipe 200 || fail "workload under Kprobes"
echo 0 > $T/events/kjit/enable
awk '$1 ~ /^ann[0-9]+$/ { print substr($1, 4), $2 }' $T/kprobe_profile > hits
echo > $T/kprobe_events
bad=0 nz=0 eq=0
while read -r i blk last cnt; do
	h=$(awk -v i=$i '$1 == i { print $2 }' hits)
	if [ "$cnt" = never ]; then
		nz=$((nz + 1))
		[ "${h:-x}" = 0 ] || { echo "block $blk never ran by kjit, Kprobe at +$last hit $h times"; bad=$((bad + 1)); }
	else
		eq=$((eq + 1))
		d=$((h - cnt)); [ $d -lt 0 ] && d=$((-d))
		[ $d -le 2 ] || { echo "block $blk: kjit $cnt at +$last, Kprobe $h"; bad=$((bad + 1)); }
	fi
done < armed
echo "Kprobes armed on $armed of $nb blocks: $nz never ran, $eq ran; $bad disagree"
[ $bad = 0 ] && [ $nz -ge 1 ] && [ $eq -ge 5 ] || fail "Kprobes disagree with annotate ($bad), or too few checked"

# the live session, attached: the site is kjit's call now, still labelled
kjit attach "$pr" > /dev/null || fail "attach"
workload -c 0 pipe 50 || fail "workload attached"
kjit annotate --live "$pr" > l.txt 2> e.out || { cat e.out; fail "annotate --live"; }
kjit detach > /dev/null
grep -q '^# kjit annotate: live session (attached)$' l.txt || fail "live header"
grep -Eq "$ins.*    <- __fentry__ site$" l.txt || fail "live: fentry site not labelled"
grep -Eq "^block 0 $pr\+0x0: [0-9]+ executions" l.txt || fail "live: entry block did not run"

# a file without code: this boot reads /proc/kcore; another boot cannot
grep -v -e '^code ' -e '^sym ' -e '^keysite ' a.data > old.data
kjit annotate -i old.data "$pr" > o.txt 2> e.out || { cat e.out; fail "annotate of a file without code, same boot"; }
sed -n "s/^block [0-9]* $pr+\(0x[0-9a-f]*\): never ran.*/\1/p" o.txt | cmp -s - never.a ||
	fail "the code read from /proc/kcore gives other blocks"
sed 's/^boot_id .*/boot_id another-boot/' old.data > other.data
kjit annotate -i other.data "$pr" > /dev/null 2> e.out && fail "no code, another boot: accepted"
[ "$(wc -l < e.out)" = 1 ] && grep -q "^kjit annotate: other.data has no code of $pr" e.out ||
	fail "no code message: $(cat e.out)"
kjit annotate -i a.data no_such_fn 2> e.out && fail "unknown function accepted"
grep -q "^kjit annotate: no_such_fn: was not recorded in a.data ($pr)\$" e.out || fail "unknown function: $(cat e.out)"
kjit annotate -i a.data 2> /dev/null; [ $? = 2 ] || fail "no FUNC: not a usage error"
kjit annotate --bogus "$pr" 2> /dev/null; [ $? = 2 ] || fail "bad option: not a usage error"
kjit help annotate | grep -q 'never ran' || fail "help annotate"
cd /tmp
unload_kjit
