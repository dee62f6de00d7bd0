# lines - source lines of module code: kjit_linetest.ko (built with -g; the
# loop of linemod_outer calls an inlined helper) is loaded, linemod_outer is
# recorded while the module's "run" parameter calls it, and report
# --debuginfo with the unstripped .ko must give every counted block the
# functions and line numbers that binutils' addr2line -i -f gives for the
# same offset on the host (tests/linetest.expect, made by run.sh), inline
# chain included. File names are not compared: binutils 2.40 names the
# wrong file of a DWARF 5 CU that includes another .c (llvm-symbolizer and
# libdw agree with each other there). Then --lcov: exit 0 with lines found;
# the data file carries the kernel's and the module's build-ids, and the
# module's finds its .ko under KJIT_DEBUG_DIR; without debug info the report
# says why once. kjit annotate with the .ko interleaves the same lines.
# kernels: once
# timeout: 120
. /tests/lib.sh
[ -e /lib/kjit/kjit_linetest.ko ] || skip "kjit_linetest.ko not built"
[ -s /tests/linetest.expect ] || skip "no addr2line expectation"
load_kjit
insmod /lib/kjit/kjit_linetest.ko || fail "insmod kjit_linetest"
cd /tmp || fail cd
kjit record -f linemod_outer -o /tmp/l.data -- \
	sh -c 'echo 20 > /sys/module/kjit_linetest/parameters/run' 2> /tmp/e ||
	{ cat /tmp/e; fail "record"; }
grep -q '^build_id [0-9a-f]\{40\}$' /tmp/l.data || fail "no kernel build_id in the data file"
dbg=/lib/kjit/debug/kjit_linetest.ko
bid=$(cat /tests/linetest.buildid)
grep -qx "module_build_id kjit_linetest $bid" /tmp/l.data ||
	fail "module build-id: want $bid, data file: $(grep module_build_id /tmp/l.data)"
# found by that build-id under a debug directory, with no --debuginfo
mkdir -p /tmp/dbg/.build-id/${bid%${bid#??}}
cp $dbg /tmp/dbg/.build-id/${bid%${bid#??}}/${bid#??}.debug
KJIT_DEBUG_DIR=/tmp/dbg kjit report -i /tmp/l.data | grep -q '^  kjit_linetest:linemod_outer+0x[0-9a-f]* [0-9]*  .*linemod.c:[0-9]* linemod_helper$' ||
	fail "no lines through the module's build-id"
kjit report -i /tmp/l.data --debuginfo $dbg > /tmp/r || fail "report --debuginfo"
# "  FUNC+0xOFF COUNT  FILE:LINE FN" / "      inlined in FN at FILE:LINE"
# -> "OFF FN LINE FN LINE ..."
awk '/^source lines \(/ { on = 1; next } !on { next }
	/^  [^ ]+[+]0x/ { if (cur) print cur; split($1, a, "[+]0x"); cur = a[2] " " $4 " " $3; next }
	/inlined in/ { cur = cur " " $3 " " $5 } END { if (cur) print cur }' /tmp/r |
	sed 's# [^ ]*:\([0-9]*\)# \1#g' > /tmp/ours
sed 's# [^ ]*:\([0-9]*\)# \1#g' /tests/linetest.expect > /tmp/want
n=0 bad=0 inl=0
while read -r off rest; do
	n=$((n + 1))
	want=$(grep "^$off " /tmp/want)
	[ "$off $rest" = "$want" ] || { bad=$((bad + 1)); echo "block +0x$off: kjit '$rest', addr2line '${want#* }'"; }
	case $rest in *" "*" "*" "*) inl=$((inl + 1)) ;; esac
done < /tmp/ours
echo "lines: $n blocks of linemod_outer, $inl with an inline chain, $bad differ from addr2line"
sed -n '/^source lines/,$p' /tmp/r | head -12
[ $n -ge 3 ] || fail "only $n blocks mapped"
[ $inl -ge 1 ] || fail "no block with an inlined frame"
[ $bad = 0 ] || fail "$bad block(s) differ from addr2line"
# kjit annotate interleaves the same lines: above every instruction, the
# function and line addr2line gives its offset (innermost frame)
kjit annotate -i /tmp/l.data --debuginfo $dbg linemod_outer > /tmp/a || fail "annotate --debuginfo"
awk '/^ +; [^ ]+:[0-9]+ / { split($2, fl, ":"); fn = $3; sub(/,$/, "", fn); loc = fn " " fl[2]; next }
	/^ *[-0-9]* +0x[0-9a-f]+  \+0x/ { for (i = 1; i <= NF; i++) if ($i ~ /^\+0x/) print substr($i, 4), loc }' /tmp/a > /tmp/aloc
n=0 bad=0
while read -r off fn line; do
	n=$((n + 1))
	want=$(awk -v o=$off '$1 == o { split($3, fl, ":"); print $2, fl[2] }' /tests/linetest.expect)
	[ -n "$want" ] || { n=$((n - 1)); continue; } # padding past the function
	[ "$fn $line" = "$want" ] || { bad=$((bad + 1)); echo "annotate +0x$off: '$fn $line', addr2line '$want'"; }
done < /tmp/aloc
echo "annotate: $n instructions of linemod_outer, $bad under another line than addr2line's"
grep -m3 '^ *; ' /tmp/a
[ $n -ge 10 ] && [ $bad = 0 ] || fail "annotate's source lines differ from addr2line ($bad of $n)"
grep -Eq '^ +; [^ ]*linemod.c:[0-9]+ linemod_helper, inlined in linemod_outer$' /tmp/a ||
	fail "annotate: no line of the inlined helper"
kjit report -i /tmp/l.data --debuginfo $dbg --lcov > /tmp/k.info 2> /tmp/le || { cat /tmp/le; fail "--lcov"; }
cat /tmp/le
grep -q 'lines [1-9][0-9]* of [1-9][0-9]* hit' /tmp/le || fail "lcov totals"
grep -q '^end_of_record$' /tmp/k.info && grep -q '^FNDA:1,linemod_outer$' /tmp/k.info ||
	fail "tracefile: $(head -5 /tmp/k.info | tr '\n' ' ')"
c=$(kjit report -i /tmp/l.data | grep -c '^source lines: unavailable: no debug info for kernel')
[ "$c" = 1 ] || fail "without debug info: $c 'unavailable' lines"
rmmod kjit_linetest
unload_kjit
