# time_exact - timed calls checked against executed instructions (issue
# 40 item 4). Under QEMU -icount (shift=0) a TSC cycle is one executed
# instruction, so kjit's figures can be set beside the workload's own clock,
# per call of a root ROOT (kjit.time_max=1: ROOT alone timed, its callees
# followed and counted), each the fewest cycles of K rounds of N calls
# (background work only adds to a round; the fewest must repeat):
#   Dn  the workload's own rdtsc around N calls, native;
#   Dt  the same with ROOT timed;
#   B   the instructions ROOT's call tree runs natively, by kjit: the sum
#       over its blocks of the count x the block's instructions (both the
#       module's: kjit_block_info count and n_insns);
#   I   ROOT's inclusive cycles (kjit --time).
# Then (Dt - I) - (Dn - B) is what kjit adds outside the timed window: the
# entry trampoline, the guard and the timing stubs' edges. It cannot depend
# on what runs inside, so it must be the same for roots whose trees differ
# and call the same thunks (below), exactly. A timed window that missed or
# double-booked a callee, or a block counted wrong, would show as the
# difference. Also exact: ROOT's calls, counted and timed, are N a round,
# and B is the same counted alone and timed.
# tcg: icount
# timeout: 400
. /tests/lib.sh
icount_mode || skip "needs QEMU -icount (a TSC cycle is then one executed instruction)"
# KCSAN picks the accesses it watches at random: no two rounds repeat there
grep -q ' __tsan_read8$' /proc/kallsyms &&
	skip "KCSAN kernel: its random watchpoints make no two rounds alike"
unload_kjit
load_kjit time_max=1
icount_settle
K=${EXACT_ROUNDS:-5}
N=${EXACT_N:-500}
stopped() { # PID: wait until it is stopped (or gone: 1)
	for i in $(seq 600); do
		st=$(sed 's/.*) //' /proc/$1/stat 2> /dev/null | cut -c1)
		case $st in T) return 0 ;; Z | "") return 1 ;; esac
		sleep 0.05
	done
	fail "workload $1 never stopped"
}
# measure ROOT OP MODE: K rounds of N OPs, MODE native, count (attach
# --deep ROOT) or time (--deep --time, kjit.time_max=1: ROOT alone timed,
# its callees counted); one line a round in /tmp/m.MODE.OP:
# "TSC B CALLS INCL ICALLS": the round's cycles, the sum over its blocks of
# count x instructions, ROOT's calls counted, its inclusive cycles, its
# calls timed
measure() {
	root=$1 op=$2 mode=$3 out=/tmp/m.$3.$2
	: > $out
	workload rounds $K $op $N > /tmp/w.out &
	w=$!
	stopped $w || fail "workload $op ended at once"
	case $mode in
	count) kjit attach --deep -p $w $root > /dev/null || fail "attach --deep $root" ;;
	time) kjit attach --deep --time -p $w $root > /dev/null || fail "attach --time $root" ;;
	esac
	kill -CONT $w
	r=0
	while :; do
		stopped $w && alive=1 || alive=0
		if [ $r -gt 0 ]; then
			[ $mode = native ] && echo "0 0 0 0" > /tmp/m.row || {
				kjit report --live --csv 2> /dev/null | awk -F, -v f=$root '
					NR > 1 { b += $4 * $6; if ($1 == f && $8 == 1) c += $4 }
					END { printf "%.0f %.0f", b, c }' > /tmp/m.row
				if [ $mode = time ]; then
					kjit report --live --time --csv 2> /dev/null | awk -F, -v f=$root '
						$1 == f { printf " %s %s", $3, $2; n = 1 }
						END { if (!n) printf " 0 0" }' >> /tmp/m.row
				else
					printf " 0 0" >> /tmp/m.row
				fi
			}
			echo "$(row_tsc $r) $(cat /tmp/m.row)" >> $out
		fi
		[ $alive = 1 ] || break
		[ $mode = native ] || kjit reset > /dev/null || fail "reset"
		r=$((r + 1))
		kill -CONT $w
	done
	wait $w || fail "workload rounds $op"
	[ $mode = native ] || kjit detach > /dev/null || fail "detach"
	echo "$mode $op:"; cat $out
}
row_tsc() { sed -n "s/^round $1 tsc=//p" /tmp/w.out; }
# fewest MODE OP: the round of the fewest cycles ("TSC B CALLS INCL
# ICALLS"); fails unless another round repeats it
fewest() {
	sort -n -k1,1 /tmp/m.$1.$2 | awk 'NR == 1 { r = $0; t = $1 } NR > 1 && $1 == t { n++ }
		END { if (n) print r }'
}
: > /tmp/exact
# The roots compared: ksys_read and vfs_read (ksys_read's tree is
# vfs_read's and 86 to 94 instructions more: fdget_pos, its own body).
# Measured and printed, not compared: read_zero and __x64_sys_getpid,
# whose outside part is 1 instruction a call more on 6.12 and 8 to 9 on
# 6.1: the native tree of a read runs the kernel's retpoline thunks for
# its indirect calls (f_op->read, and on 6.1 the LSM hooks), which are no
# block of it, so B leaves them out (`jmp *%rax`, 1 instruction, on 6.12;
# call, mov, ret on 6.1). A root that ends in a tail call (rw_verify_area,
# security_file_permission) returns through its untimed callee: its calls
# stay open, lost, so it cannot be a root here.
for pair in ksys_read:read vfs_read:read read_zero:read \
	__x64_sys_getpid:getpid; do
	root=${pair%%:*} op=${pair#*:}
	for mode in native count time; do
		measure $root $op $mode
		m=$(fewest $mode $op)
		[ -n "$m" ] || fail "$root, $mode: no two rounds agree: $(tr '\n' ' ' < /tmp/m.$mode.$op)"
		eval "r_$mode=\$m"
	done
	set -- $r_native; dn=$1
	set -- $r_count; dc=$1 bc=$2 cc=$3
	set -- $r_time; dt=$1 bt=$2 ct=$3 incl=$4 it=$5
	[ "$cc" = $N ] && [ "$ct" = $N ] && [ "$it" = $N ] ||
		fail "$root: calls counted $cc, counted when timed $ct, timed $it, for $N"
	[ "$bc" = "$bt" ] || fail "$root: its tree ran $bc instructions counted, $bt timed"
	awk -v f=$root -v n=$N -v dn=$dn -v dc=$dc -v dt=$dt -v b=$bc -v i=$incl 'BEGIN {
		printf "%s: per call native %.1f, tree %.1f, counted %.1f (+%.1f), timed %.1f (+%.1f); inclusive %.1f = tree + %.1f; outside the window %.1f\n",
			f, dn / n, b / n, dc / n, (dc - dn) / n, dt / n, (dt - dc) / n, i / n, (i - b) / n, ((dt - i) - (dn - b)) / n
		if (f == "ksys_read" || f == "vfs_read") print f, ((dt - i) - (dn - b)) / n >> "/tmp/exact" }'
done
cat /tmp/exact
awk 'NR == 1 || $2 < lo { lo = $2 } NR == 1 || $2 > hi { hi = $2 }
	END { printf "outside the window: %.1f to %.1f instructions a call\n", lo, hi; exit !(hi == lo) }' /tmp/exact ||
	fail "what kjit adds outside the timed window differs by root: the inclusive times or the counts are off"
unload_kjit
