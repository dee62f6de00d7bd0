#!/bin/sh
# test_lines.sh - host test of source lines (libdw) and `report --lcov` on
# a synthetic recording of linemod_outer (tests/tool/fixtures/lines), built
# here with -g into an ET_REL object as a .ko is. Oracles: `addr2line -i -f`
# for file:line and the inline chain of every block, `lcov --summary` for
# the line and branch totals kjit prints, `genhtml` for the tracefile's
# validity (no warnings). Usage: test_lines.sh ROOT KJIT
root=$1
kjit=$2
fx=$root/tests/tool/fixtures/lines
t=$(mktemp -d /tmp/kjit-lines.XXXXXX)
trap 'rm -rf "$t"' EXIT
fail=0
res() { # res NAME OK DETAIL
	if [ "$2" = 1 ]; then echo "KJIT-RESULT PASS tool.lines.$1"; else
		echo "KJIT-RESULT FAIL tool.lines.$1 $3"; fail=1; fi
}
for p in gcc addr2line objdump nm lcov genhtml; do
	command -v $p >/dev/null || { echo "KJIT-RESULT SKIP tool.lines no $p"; exit 0; }
done
gcc -O2 -g -c -I"$fx" "$fx/linemod.c" -o "$t/linemod.o" || exit 1
size=$(nm -S "$t/linemod.o" | awk '$4 == "linemod_outer" { print $2 }')
base=4096 # blocks at 0xffffffffc0001000 + offset
# One block per instruction, count 1 + offset % 5, except the helper's
# even path (0x1c..0x24 in gcc 12's code: found as the fall-through of the
# first jne) which never ran.
objdump -d --no-show-raw-insn "$t/linemod.o" |
	awk -v size=$((0x$size)) -v base=$base '
	function hex(h,  i, v) { v = 0; for (i = 1; i <= length(h); i++)
		v = v * 16 + index("0123456789abcdef", substr(h, i, 1)) - 1; return v }
	/^ +[0-9a-f]+:\t/ { o = hex(substr($1, 1, length($1) - 1));
		off[n] = o; ins[n] = $2; tgt[n] = $3; n++ }
	END {
		print "kjit-data 2\nkernel 6.1.0-lines\nboot_id x\ntime 2026-01-01T00:00:00Z\ncommand linetest"
		printf "func 0xffffffffc%07x 0xffffffffc%07x 0 0 kjit_linetest:linemod_outer\n", base, base + size
		skip_from = -1
		for (i = 0; i < n; i++) if (ins[i] == "jne" && skip_from < 0) {
			skip_from = off[i + 1]; skip_to = hex(tgt[i]) }
		for (i = 0; i < n; i++) {
			len = (i + 1 < n ? off[i + 1] : size) - off[i]
			if (off[i] >= skip_from && off[i] < skip_to) continue
			printf "block 0xffffffffc%07x 0 %d %d 1 1\n", base + off[i], 1 + off[i] % 5, len
		}
		print "end" }' > "$t/kjit.data"

# 1. every block's lines and inline chain as addr2line -i -f says
"$kjit" report -i "$t/kjit.data" --debuginfo "$t/linemod.o" > "$t/report" 2> "$t/err"
rc=$?
awk '/^source lines \(/ { on = 1; next } on' "$t/report" > "$t/ours"
# ours: "  FUNC+0xOFF COUNT  FILE:LINE FN" then "      inlined in FN at FILE:LINE"
awk '/^  [^ ]+[+]0x/ { if (cur) print cur; split($1, a, "[+]0x"); cur = a[2] " " $4 " " $3; next }
	/inlined in/ { cur = cur " " $3 " " $5 } END { if (cur) print cur }' "$t/ours" > "$t/ours.norm"
: > "$t/a2l.norm"
inl=0
while read -r off rest; do
	a2l=$(addr2line -i -f -e "$t/linemod.o" "0x$off" | sed 's/ (discriminator [0-9]*)//' |
		paste -d' ' - - | tr '\n' ' ' | sed 's/ $//')
	echo "$off $a2l" >> "$t/a2l.norm"
	case $rest in *" "*" "*" "*) inl=1 ;; esac
done < "$t/ours.norm"
n=$(wc -l < "$t/ours.norm")
res report_rc "$([ $rc = 0 ] && echo 1)" "rc=$rc $(cat "$t/err")"
res blocks_mapped "$([ "$n" -ge 10 ] && echo 1)" "$n blocks in the source-lines section"
if [ "$n" -gt 0 ] && cmp -s "$t/ours.norm" "$t/a2l.norm"; then ok=1; else ok=0; fi
res matches_addr2line $ok "$(diff "$t/a2l.norm" "$t/ours.norm" | head -5 | tr '\n' '|')"
res inline_chain $inl "no block with an inlined frame"
# 2. lcov tracefile: lcov --summary and genhtml agree with kjit
"$kjit" report -i "$t/kjit.data" --debuginfo "$t/linemod.o" --lcov > "$t/kjit.info" 2> "$t/lerr"
rc=$?
res lcov_rc "$([ $rc = 0 ] && echo 1)" "rc=$rc $(cat "$t/lerr")"
lcov --rc lcov_branch_coverage=1 --summary "$t/kjit.info" > "$t/sum" 2>&1
lk=$(sed -n 's/.*lines \([0-9]*\) of \([0-9]*\) hit, branches \([0-9]*\) of \([0-9]*\) hit.*/\1 \2 \3 \4/p' "$t/lerr")
ll=$(sed -n 's/.*lines.*(\([0-9]*\) of \([0-9]*\) lines).*/\1 \2/p' "$t/sum")
lb=$(sed -n 's/.*branches.*(\([0-9]*\) of \([0-9]*\) branches).*/\1 \2/p' "$t/sum")
res lcov_lines_agree "$([ -n "$ll" ] && [ "${lk% * *}" = "$ll" ] && echo 1)" "kjit '$lk' lcov '$ll'"
res lcov_branches_agree "$([ -n "$lb" ] && [ "${lk#* * }" = "$lb" ] && echo 1)" "kjit '$lk' lcov '$lb'"
res has_uncovered_line "$(grep -q '^DA:[0-9]*,0$' "$t/kjit.info" && echo 1)" "no DA line with count 0"
# the first jne's not-taken successor never ran: branch 1 of it is 0
res brda_not_taken "$(grep -q '^BRDA:[0-9]*,0,1,0$' "$t/kjit.info" && echo 1)" "$(grep BRDA "$t/kjit.info" | tr '\n' ' ')"
genhtml --branch-coverage -q -o "$t/html" "$t/kjit.info" > "$t/gh" 2>&1
rc=$?
res genhtml_clean "$([ $rc = 0 ] && [ -f "$t/html/index.html" ] && ! grep -qi 'warning\|error' "$t/gh" && echo 1)" "rc=$rc $(head -3 "$t/gh" | tr '\n' '|')"
# 3. without debug info: the report works and says why once; --lcov fails
KJIT_DEBUG_DIR=$t/none "$kjit" report -i "$t/kjit.data" > "$t/nod" 2>&1
rc=$?
c=$(grep -c '^source lines: unavailable: no debug info for kernel 6.1.0-lines' "$t/nod")
res nodebug_report "$([ $rc = 0 ] && [ "$c" = 1 ] && echo 1)" "rc=$rc count=$c"
KJIT_DEBUG_DIR=$t/none "$kjit" report -i "$t/kjit.data" --lcov > "$t/nodl" 2> "$t/nodle"
rc=$?
res nodebug_lcov_fails "$([ $rc = 1 ] && [ "$(wc -l < "$t/nodle")" = 1 ] && echo 1)" "rc=$rc $(cat "$t/nodle")"
"$kjit" report -i "$t/kjit.data" --debuginfo "$t/missing.ko" > /dev/null 2> "$t/mis"
rc=$?
res missing_debuginfo "$([ $rc = 1 ] && grep -q 'missing.ko' "$t/mis" && echo 1)" "rc=$rc"
"$kjit" report -i "$t/kjit.data" --lcov --json > /dev/null 2>&1
res lcov_json_usage "$([ $? = 2 ] && echo 1)" "not a usage error"
# 4. a build-id in the data file finds DIR/.build-id/xx/rest.debug
bid=$(readelf -n "$t/linemod.o" 2>/dev/null | sed -n 's/.*Build ID: //p')
[ -n "$bid" ] || bid=0123456789abcdef0123456789abcdef01234567
mkdir -p "$t/dbg/.build-id/$(echo "$bid" | cut -c1-2)"
cp "$t/linemod.o" "$t/dbg/.build-id/$(echo "$bid" | cut -c1-2)/$(echo "$bid" | cut -c3-).debug"
sed "s/^boot_id x/boot_id x\nbuild_id $bid/" "$t/kjit.data" > "$t/bid.data"
KJIT_DEBUG_DIR=$t/dbg "$kjit" report -i "$t/bid.data" > "$t/bidr" 2>&1
res build_id_lookup "$(grep -q "^source lines (.*/.build-id/" "$t/bidr" && echo 1)" "$(grep '^source' "$t/bidr")"
sed "s/^boot_id x/boot_id x\nmodule_build_id kjit_linetest $bid/" "$t/kjit.data" > "$t/mbid.data"
KJIT_DEBUG_DIR=$t/dbg "$kjit" report -i "$t/mbid.data" > "$t/mbidr" 2>&1
res module_build_id_lookup "$(grep -q "^source lines (.*/.build-id/" "$t/mbidr" && echo 1)" "$(grep '^source' "$t/mbidr")"
exit $fail
