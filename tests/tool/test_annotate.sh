#!/bin/sh
# test_annotate.sh - host test of `kjit annotate` and `report --uncovered`
# on a synthetic recording of ann_func (tests/tool/fixtures/annotate),
# built here the way the kernel is built (-mcmodel=kernel, -pg -mfentry,
# retpoline and return thunks) and linked at a kernel address with stubs
# for what it calls; kjit.data carries its bytes and symbols as record
# stores them. Oracles, none of them kjit's: objdump -d (instruction
# boundaries; call and jump targets by symbol), addr2line -f (source
# lines), sed (source text), and the script's own blocks: basic blocks
# cut from objdump's listing, given counts by a rule, so the count of
# every instruction is known here. Usage: test_annotate.sh ROOT KJIT
root=$1
kjit=$2
fx=$root/tests/tool/fixtures/annotate
t=$(mktemp -d /tmp/kjit-annotate.XXXXXX)
[ -n "$KEEP" ] || trap 'rm -rf "$t"' EXIT
fail=0
res() { # res NAME OK DETAIL
	if [ "$2" = 1 ]; then echo "KJIT-RESULT PASS tool.annotate.$1"; else
		echo "KJIT-RESULT FAIL tool.annotate.$1 $3"; fail=1; fi
}
for p in gcc ld objdump objcopy addr2line nm od; do
	command -v $p >/dev/null || { echo "KJIT-RESULT SKIP tool.annotate no $p"; exit 0; }
done
gcc -O2 -g -fno-pic -mcmodel=kernel -fcf-protection=none -mindirect-branch=thunk-extern \
	-mfunction-return=thunk-extern -pg -mfentry -fno-asynchronous-unwind-tables \
	-c "$fx/annmod.c" -o "$t/annmod.o" &&
	gcc -c "$fx/annstub.S" -o "$t/annstub.o" &&
	ld -Ttext=0xffffffff81000000 -e ann_func -o "$t/ann.elf" "$t/annstub.o" "$t/annmod.o" ||
	{ echo "KJIT-RESULT FAIL tool.annotate.build fixture does not build"; exit 1; }
objcopy -O binary --only-section=.text "$t/ann.elf" "$t/text.bin"
nm -n -S "$t/ann.elf" | awk '$NF == "ann_func" { print $1, $2 }' > "$t/fn"
read -r start size < "$t/fn"
tbase=$(objdump -h "$t/ann.elf" | awk '$2 == ".text" { print $4 }')
# objdump's instructions of ann_func: "ADDR MNEMONIC TARGET_ADDR <SYM>"
objdump -d -M intel --no-show-raw-insn "$t/ann.elf" |
	awk '/^[0-9a-f]+ <ann_func>:/ { on = 1; next } /^[0-9a-f]+ </ { on = 0 }
	on && /^ *[0-9a-f]+:\t/ { a = $1; sub(/:$/, "", a); t = ""; s = ""
		if (match($0, /<[^>]+>/)) { s = substr($0, RSTART + 1, RLENGTH - 2); t = $3 }
		print a, $2, (t == "" ? "-" : t), (s == "" ? "-" : s) }' > "$t/insns"

# kjit.data: the function, its bytes (and the 16 after, as far as .text
# goes), the symbols it reaches, and blocks cut from objdump's listing:
# leaders are the entry after the fentry site, jump targets and whatever
# follows a branch, call or return; a block that is padding (a nop
# first) is left out; block i (in address order) ran 2 + i times, but
# every third one never ran (not written, as kjit writes only what it
# translated). Addresses are ffffffff8XXXXXXX: the arithmetic is on the
# low 32 bits (awk's numbers are doubles).
hi=ffffffff
lo() { echo $((0x$(echo "$1" | cut -c9-16))); }
s0=$(lo $start)
awk -v s=$s0 -v size=$((0x$size)) -v hi=$hi '
	# offsets from the function start: small integers (mawk makes
	# "2.16426e+09" of an array index past 2^31)
	function off(h,  i, v) { v = 0; h = substr(h, 9)
		for (i = 1; i <= length(h); i++) v = v * 16 + index("0123456789abcdef", substr(h, i, 1)) - 1
		return v - s }
	BEGIN { n = 0 }
	{ a[n] = off($1); m[n] = $2; tg[n] = ($3 == "-" ? -1 : off($3)); n++ }
	END {
		lead[5] = 1
		for (i = 0; i < n; i++) {
			if (m[i] ~ /^(j|call|ret)/ && i + 1 < n) lead[a[i + 1]] = 1
			if (m[i] ~ /^j/ && tg[i] >= 0 && tg[i] < size) lead[tg[i]] = 1
		}
		k = -1; ended = 0
		for (i = 0; i < n; i++) {
			if (a[i] < 5) continue
			if ((a[i] in lead) || k < 0 || ended) { k++; bs[k] = a[i]; bi[k] = 0; first[k] = m[i] }
			bi[k]++; bend[k] = (i + 1 < n ? a[i + 1] : size)
			ended = (m[i] ~ /^(j|call|ret)/)
			blk[i] = k
		}
		kept = 0
		for (j = 0; j <= k; j++) {
			if (first[j] ~ /^nop/) { cnt[j] = 0; continue }
			c = kept % 3 == 2 ? 0 : 2 + kept; kept++
			cnt[j] = c
			if (c) printf "block 0x%s%08x 0 %d %d %d 1\n", hi, s + bs[j], c, bend[j] - bs[j], bi[j] > "/dev/stderr"
		}
		for (i = 0; i < n; i++) printf "%s%08x %d\n", hi, s + a[i], ((i in blk) ? cnt[blk[i]] : 0)
	}' "$t/insns" > "$t/expect" 2> "$t/blocks"
off=$(( s0 - $(lo $tbase) ))
len=$(( 0x$size + 16 ))
od -An -v -tx1 -j $off -N $len "$t/text.bin" | tr -d ' \n' |
	awk '{ for (o = 0; o < length($0) / 2; o += 128) printf "code 0 0x%x %s\n", o, substr($0, 2 * o + 1, 256) }' > "$t/code"
nm -n "$t/ann.elf" | awk -v f=ann_func 'BEGIN { n = 0 } $2 == "T" { a[n] = $1; s[n] = $3; n++ }
	END { for (i = 0; i + 1 < n; i++) if (s[i] != f && a[i + 1] != a[i]) printf "sym 0x%s 0x%s %s\n", a[i], a[i + 1], s[i] }' > "$t/syms"
{
	printf 'kjit-data 2\nkernel 6.1.0-annotate\nboot_id not-this-boot\ntime 2026-01-01T00:00:00Z\ncommand annotate test\n'
	printf 'func 0x%s 0x%s%08x -1 -1 ann_func\n' $start $hi $((s0 + 0x$size))
	printf 'entry 0 0x%s%08x\nnative_counts yes\nnative 0 ftrace_site 2\nnative_holder 0 a Kprobe\n' $hi $((s0 + 5))
	cat "$t/syms" "$t/code" "$t/blocks"
	echo end
} > "$t/k.data"
[ -s "$t/expect" ] && [ "$(grep -c '^block ' "$t/blocks")" -ge 5 ] ||
	{ echo "KJIT-RESULT FAIL tool.annotate.fixture no blocks from objdump's listing"; exit 1; }

# 1. the listing: objdump's instructions, each with the count the blocks give it
"$kjit" annotate -i "$t/k.data" ann_func > "$t/a.txt" 2> "$t/err"
rc=$?
res runs "$([ $rc = 0 ] && echo 1)" "exit $rc: $(head -3 "$t/err")"
# "COUNT  0xADDR  +0xOFF  TEXT": COUNT is a number, '-' (never ran) or empty
awk '/^ *[-0-9]* +0x[0-9a-f]+  \+0x/ {
		c = ($1 ~ /^0x/) ? "" : $1; a = ($1 ~ /^0x/) ? $1 : $2
		sub(/^0x/, "", a); txt = $0; sub(/^.*\+0x[0-9a-f]+ +/, "", txt)
		print a, (c == "" ? "." : c), txt }' "$t/a.txt" > "$t/ours"
cut -d' ' -f1 "$t/ours" > "$t/ours.addr"
cut -d' ' -f1 "$t/insns" > "$t/objdump.addr"
res instructions "$([ -s "$t/ours.addr" ] && cmp -s "$t/ours.addr" "$t/objdump.addr" && echo 1)" \
	"instruction addresses differ from objdump's: $(diff "$t/ours.addr" "$t/objdump.addr" | head -4 | tr '\n' ' ')"
bad=$(paste -d' ' "$t/ours" "$t/expect" | awk 'BEGIN { n = 0 } { want = $(NF); got = $2
	if (got == "-" || got == ".") got = 0
	if (got != want) { print $1 ": " $2 " want " want; n++ } } END { exit n > 0 }')
res counts "$([ -z "$bad" ] && [ -s "$t/ours" ] && echo 1)" "$(echo "$bad" | head -3 | tr '\n' ' ')"
# 2. call and jump targets named as objdump names them (Zydis calls je
# jz: the mnemonics are compared under objdump's names)
bad=$(paste -d'|' "$t/ours" "$t/insns" | awk -F'|' 'BEGIN { n = 0
		al["jz"] = "je"; al["jnz"] = "jne"; al["jnb"] = "jae"; al["jnbe"] = "ja"
		al["jnl"] = "jge"; al["jnle"] = "jg" }
	{ split($2, d, " "); if (d[4] == "-") next
	txt = $1; sub(/^[^ ]+ [^ ]+ /, "", txt); sub(/ +<- __fentry__ site$/, "", txt)
	split(txt, w, " "); mn = (w[1] in al) ? al[w[1]] : w[1]
	if (mn " " w[2] != d[2] " " d[4] || split(txt, w, " ") != 2) {
		print d[1] ": kjit \"" txt "\" objdump \"" d[2] " <" d[4] ">\""; n++ } }
	END { exit n > 0 }')
named=$(awk '$4 != "-"' "$t/insns" | wc -l)
res targets_by_symbol "$([ -z "$bad" ] && [ "$named" -ge 6 ] && echo 1)" \
	"($named named by objdump) $(echo "$bad" | head -3 | tr '\n' ' ')"
grep -q " call __x86_indirect_thunk_r13$" "$t/ours" && grep -q " jmp __x86_return_thunk$" "$t/ours" &&
	grep -Eq " jmp ann_func\+0x[0-9a-f]+$" "$t/ours" && grep -q " jmp ann_tail$" "$t/ours"
res thunks_and_tail "$([ $? = 0 ] && echo 1)" "$(grep -E ' (call|jmp) ' "$t/ours" | head -4 | tr '\n' ' ')"
upper=$(awk '{ $1 = $2 = ""; print }' "$t/ours" | grep -E '0x[0-9a-f]*[A-F]')
res hex_lower_case "$([ -z "$upper" ] && grep -q ', 0x[0-9a-f]' "$t/ours" && echo 1)" "$upper"
grep -Eq '^ +0  0x[0-9a-f]+  \+0x0 +call __fentry__    <- __fentry__ site$' "$t/a.txt"
res fentry_site "$([ $? = 0 ] && echo 1)" "$(grep -m1 '+0x0 ' "$t/a.txt")"
# 3. static blocks: the count is the largest of their instructions' (> 0),
# or 'never ran' where every instruction's is 0; shares add up to 100%
awk 'NR == FNR { want[$1] = $2; next }
	/^block [0-9]+ ann_func\+0x[0-9a-f]+: / { if (cur != "") print cur, max; cur = $0; max = 0; next }
	/^not reached/ { if (cur != "") print cur, max; cur = ""; next }
	cur != "" && /\+0x/ { a = ($1 ~ /^0x/) ? $1 : $2; sub(/^0x/, "", a); if (want[a] > max) max = want[a] }
	END { if (cur != "") print cur, max }' "$t/expect" "$t/a.txt" > "$t/blk"
bad=$(awk '{ max = $NF; never = / never ran /
	if (never && max != 0) print "never ran, but " max ": " $0
	if (!never) { c = $4; if (c != max || c == 0) print "count " c " want " max ": " $0 } }' "$t/blk")
nran=$(grep -c ' executions* (' "$t/blk")
nnever=$(grep -c ': never ran' "$t/blk")
res block_counts "$([ -z "$bad" ] && [ "$nran" -ge 3 ] && [ "$nnever" -ge 2 ] && echo 1)" \
	"ran $nran, never $nnever; $(echo "$bad" | head -2 | tr '\n' ' ')"
share=$(grep -o '([0-9.]*%)' "$t/blk" | tr -d '()%' | awk '{ s += $1 } END { printf "%.1f", s }')
res shares "$(awk -v s=$share 'BEGIN { print (s > 99.4 && s < 100.6) }')" "shares add up to $share%"
grep -Eq "^ann_func 0x[0-9a-f]+-0x[0-9a-f]+ \\($((0x$size)) bytes\\): $((nran + nnever)) blocks, $nran ran, $nnever never ran; 2 calls, " "$t/a.txt"
res header "$([ $? = 0 ] && echo 1)" "$(grep -m1 '^ann_func ' "$t/a.txt")"
grep -qx '  ran natively 2x: its ftrace site was held by a Kprobe' "$t/a.txt"
res native_line "$([ $? = 0 ] && echo 1)" "$(sed -n 4,6p "$t/a.txt" | tr '\n' '|')"
# 4. report --uncovered: exactly the blocks annotate says never ran
"$kjit" report -i "$t/k.data" --uncovered > "$t/r.txt" 2> "$t/err"
sed -n 's/^block [0-9]* \(ann_func+0x[0-9a-f]*\): never ran.*/\1/p' "$t/a.txt" > "$t/never.a"
awk '/^uncovered/ { on = 1; next } on && /^  ann_func\+0x/ { print $1 }' "$t/r.txt" > "$t/never.r"
res uncovered "$([ -s "$t/never.a" ] && cmp -s "$t/never.a" "$t/never.r" && echo 1)" \
	"annotate: $(tr '\n' ' ' < "$t/never.a") report: $(tr '\n' ' ' < "$t/never.r")"
grep -Eq "^ann_func: $nnever of $((nran + nnever)) static blocks never ran$" "$t/r.txt"
res uncovered_summary "$([ $? = 0 ] && echo 1)" "$(grep '^ann_func:' "$t/r.txt")"
"$kjit" report -i "$t/k.data" --uncovered --json > "$t/r.json" 2> /dev/null
n=$(grep -c '"function": "ann_func", "offset": [0-9]*, .*"insns": [0-9]*' "$t/r.json")
res uncovered_json "$([ "$n" -ge "$(wc -l < "$t/never.a")" ] && grep -q '"uncovered": \[' "$t/r.json" && echo 1)" \
	"$n uncovered rows in JSON"
# 5. JSON: the same counts, blocks that never ran, targets
"$kjit" annotate -i "$t/k.data" --json ann_func > "$t/a.json" 2> "$t/err"
sed -n 's/.*{"offset": [0-9]*, "address": "0x\([0-9a-f]*\)", "len": [0-9]*, "count": \([0-9]*\), .*/\1 \2/p' \
	"$t/a.json" | sort > "$t/json.cnt"
sort "$t/expect" > "$t/expect.sorted"
res json_counts "$(cmp -s "$t/json.cnt" "$t/expect.sorted" && echo 1)" \
	"$(diff "$t/json.cnt" "$t/expect.sorted" | head -4 | tr '\n' ' ')"
nj=$(grep -c '"ran": false' "$t/a.json")
res json_never_ran "$([ "$nj" = "$nnever" ] && [ "$nj" -ge 1 ] && echo 1)" "JSON $nj, text $nnever"
bad=$(awk '$3 != "-"' "$t/insns" | while read -r a m tg s; do
	grep -q "\"address\": \"0x$a\", .*\"target\": \"0x$tg\"" "$t/a.json" || echo "$a"; done)
res json_targets "$([ -z "$bad" ] && echo 1)" "targets differ at $bad"
# 6. source lines: each instruction under the line addr2line gives it
"$kjit" annotate -i "$t/k.data" --debuginfo "$t/ann.elf" ann_func > "$t/l.txt" 2> "$t/err"
awk '/^ +; [^ ]+:[0-9]+ / { loc = $2 " " $3; next }
	/^ *[-0-9]* +0x[0-9a-f]+  \+0x/ { a = ($1 ~ /^0x/) ? $1 : $2; sub(/^0x/, "", a); print a, loc }' \
	"$t/l.txt" > "$t/ours.lines"
: > "$t/a2l.lines"
while read -r a rest; do
	addr2line -f -e "$t/ann.elf" "0x$a" | sed 's/ (discriminator [0-9]*)//' | paste -d' ' - - |
		awk -v a=$a '{ print a, $2, $1 }' >> "$t/a2l.lines"
done < "$t/ours.lines"
bad=$(paste -d' ' "$t/ours.lines" "$t/a2l.lines" | awk '$1 != $4 || $2 != $5 || $3 != $6')
nloc=$(grep -c '^ *; ' "$t/l.txt")
res source_lines "$([ -z "$bad" ] && [ "$nloc" -ge 4 ] && echo 1)" \
	"($nloc lines) $(echo "$bad" | head -3 | tr '\n' ' ')"
bad=$(awk '/^ +;   [0-9]+: / { n = $2; sub(/:$/, "", n); txt = $0; sub(/^ +;   [0-9]+: /, "", txt); print n "|" txt }' "$t/l.txt" |
	while IFS='|' read -r n txt; do
		want=$(sed -n "${n}p" "$fx/annmod.c" | sed 's/^[ \t]*//')
		[ "$txt" = "$want" ] || echo "line $n: '$txt' want '$want'"
	done)
res source_text "$([ -z "$bad" ] && grep -q '^ *;   [0-9]*: for (i = 0; i < n; i++) {$' "$t/l.txt" && echo 1)" "$bad"
# 7. bad input: one line and exit 1 (2 for usage)
"$kjit" annotate -i "$t/k.data" no_such_fn > /dev/null 2> "$t/err"
rc=$?
res unknown_function "$([ $rc = 1 ] && [ "$(wc -l < "$t/err")" = 1 ] &&
	grep -q '^kjit annotate: no_such_fn: was not recorded in .*(ann_func)$' "$t/err" && echo 1)" \
	"exit $rc: $(cat "$t/err")"
"$kjit" annotate -i "$t/k.data" > /dev/null 2> "$t/err"
res no_function_usage "$([ $? = 2 ] && grep -q '^kjit annotate: give at least one FUNC' "$t/err" && echo 1)" "$(cat "$t/err")"
grep -v '^code ' "$t/k.data" > "$t/old.data"
"$kjit" annotate -i "$t/old.data" ann_func > /dev/null 2> "$t/err"
rc=$?
res no_code "$([ $rc = 1 ] && grep -q '^kjit annotate: .*old.data has no code of ann_func (an older kjit recorded it)' "$t/err" && echo 1)" \
	"exit $rc: $(cat "$t/err")"
"$kjit" annotate -i "$t/k.data" --debuginfo "$t/none" ann_func > /dev/null 2> "$t/err"
res bad_debuginfo "$([ $? = 1 ] && [ "$(wc -l < "$t/err")" = 1 ] && echo 1)" "$(cat "$t/err")"
"$kjit" report -i "$t/old.data" --uncovered > "$t/r2.txt" 2>&1
res uncovered_without_code "$(grep -q '^ann_func: unknown: its code is not in this file' "$t/r2.txt" && echo 1)" \
	"$(grep ann_func "$t/r2.txt" | tail -2 | tr '\n' ' ')"
# 9. report --uncovered --debuginfo: each block that never ran with its
# source line, addr2line's for the block's first address (the innermost,
# as addr2line prints it without -i); before: no lines
"$kjit" report -i "$t/k.data" --uncovered --debuginfo "$t/ann.elf" > "$t/ru.txt" 2> "$t/err"
awk '/^uncovered/ { on = 1; next } on && /^$/ { exit } on && /^  ann_func\+0x/ { print $2, $NF }' "$t/ru.txt" > "$t/ru.lines"
bad=$(while read -r a loc; do
	want=$(addr2line -e "$t/ann.elf" "$a" | sed 's/ (discriminator [0-9]*)//')
	[ "$loc" = "$want" ] || echo "$a: $loc want $want"
done < "$t/ru.lines")
res uncovered_lines "$([ -s "$t/ru.lines" ] && [ "$(wc -l < "$t/ru.lines")" = "$(wc -l < "$t/never.a")" ] &&
	[ -z "$bad" ] && echo 1)" "$(wc -l < "$t/ru.lines") rows; $(echo "$bad" | head -3 | tr '\n' ' ')"
# 8. report --top from another boot: each hot block disassembled from the
# code the file stored (before: "no disassembly: recorded on another
# boot"), at objdump's instruction addresses, ending where the block does
"$kjit" report -i "$t/k.data" --top 3 > "$t/top.txt" 2> "$t/err"
sed -n 's/^ \{14\}0x\([0-9a-f]*\)  .*/\1/p' "$t/top.txt" > "$t/top.addr"
bad=$(while read -r a; do grep -q "^$a\$" "$t/objdump.addr" || echo "$a"; done < "$t/top.addr")
nb=$(grep -c '^ *[0-9]*  ann_func+0x[0-9a-f]* *0x' "$t/top.txt")
res top_stored_code "$([ -s "$t/top.addr" ] && [ -z "$bad" ] && [ "$nb" = 3 ] &&
	! grep -q 'no disassembly' "$t/top.txt" && echo 1)" \
	"$nb blocks, $(wc -l < "$t/top.addr") instructions, not objdump's: $bad $(grep 'no disassembly' "$t/top.txt")"
"$kjit" report -i "$t/old.data" --top 3 > "$t/top2.txt" 2>&1
res top_without_code "$(grep -q '^(no disassembly of 3 blocks: recorded on another boot' "$t/top2.txt" && echo 1)" \
	"$(grep 'disassembly' "$t/top2.txt")"
exit $fail
