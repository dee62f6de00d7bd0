# own_tasks - kjit does not count itself (issue 38 item 7): kjit's own
# processes (every kjit command tells kjit.ko so first, KJIT_IOC_SELF on
# a /dev/kjit it holds open) are left out of a system-wide (-a, attach's
# default) or CPU (-C) session, as perf leaves out its own work; the
# test programs that attach and run their workload in-process (kjitcount)
# are counted as before. Before, a `kjit report
# --live` during a system-wide session counted its own reading of
# kallsyms (98,205 kallsyms_expand_symbol calls in the trial).
# The function is kallsyms_open(), entered once per open of /proc/kallsyms:
# every kjit report reads kallsyms, and nothing else in the guest does
# but this case's own `cat`s, so every count is exact:
#   attach (default scope): two kjit reports count 0, three cats 3;
#   attach -C 0,1 (every CPU): the same;
#   attach --count-kjit: a report's own open is counted (the oracle that
#     the reads above do reach the function);
#   record -a of a command that opens kallsyms twice: exactly 2, though
#     the recorder reads kallsyms and the code while attached;
#   --count-kjit with -p, or record without -a or -C: refused.
# kernels: once
# timeout: 300
. /tests/lib.sh
F=$(first_func kallsyms_open) || fail "no kallsyms_open in kallsyms"
load_kjit
cd /tmp || fail "cd"
# live: the entry block's count of F in the attached session
live() {
	kjit report --live --csv | awk -F, -v f="$F" '$1 == f && $8 == 1 { print $4 }'
}
opens() {
	for i in $(seq "$1"); do cat /proc/kallsyms > /dev/null; done
}

for scope in "" "-C 0,1"; do
	kjit attach $scope $F > /dev/null || fail "attach $scope $F"
	kjit stat | grep '^scope' > /tmp/scope.out
	grep -q ", kjit left out\$" /tmp/scope.out ||
		fail "attach ${scope:--a}: stat does not say kjit is left out: $(cat /tmp/scope.out)"
	a=$(live); b=$(live)
	echo "attach ${scope:--a}: two kjit reports: ${a:-0}, ${b:-0} (want 0)"
	[ "${b:-0}" = 0 ] || fail "attach ${scope:--a}: kjit's own reads of kallsyms were counted (${b:-0})"
	opens 3
	n=$(live)
	echo "attach ${scope:--a}: 3 cats: ${n:-0} (want 3)"
	[ "$n" = 3 ] || fail "attach ${scope:--a}: 3 opens by cat counted ${n:-0}"
	kjit detach > /dev/null || fail "detach"
done

kjit attach --count-kjit $F > /dev/null || fail "attach --count-kjit"
kjit stat | grep '^scope' | tee /tmp/scope.out
grep -qx 'scope: system-wide' /tmp/scope.out || fail "stat does not say kjit is counted: $(cat /tmp/scope.out)"
a=$(live); b=$(live)
echo "attach --count-kjit: two kjit reports: ${a:-0}, ${b:-0} (want more than 0)"
[ "${b:-0}" -ge 1 ] || fail "--count-kjit: a report's own open was not counted (${b:-0}): the other checks prove nothing"
kjit detach > /dev/null || fail "detach"

kjit record -a -f $F -o a.data -- sh -c 'cat /proc/kallsyms > /dev/null; cat /proc/kallsyms > /dev/null' 2> e.out ||
	{ cat e.out; fail "record -a"; }
n=$(kjit report -i a.data --csv | awk -F, -v f="$F" '$1 == f && $8 == 1 { print $4 }')
echo "record -a: 2 cats: ${n:-0} (want 2)"
[ "$n" = 2 ] || fail "record -a counted ${n:-0}, not the command's 2 opens"
grep -qx 'scope system-wide, kjit left out' a.data || fail "record -a: $(grep ^scope a.data)"
kjit report -i a.data | grep -q "^# scope: system-wide, kjit left out (every task on every CPU but kjit's own" ||
	fail "record -a: report header: $(kjit report -i a.data | grep '^# scope')"

kjit attach --count-kjit -p 1 $F 2> e.out && fail "--count-kjit with -p was accepted"
grep -q 'add -a or -C' e.out || { cat e.out; fail "--count-kjit with -p: no reason"; }
kjit record --count-kjit -f $F -- true 2> e.out && fail "record --count-kjit without -a was accepted"
grep -q 'add -a or -C' e.out || { cat e.out; fail "record --count-kjit: no reason"; }
unload_kjit
