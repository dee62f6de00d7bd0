# faults - page faults and exception-table fixups raised under translated
# code behave as natively: with kjit recording deep at read, write and
# clock_nanosleep (glibc's nanosleep() calls it), every call handed a bad
# user pointer returns EFAULT (the fault is taken in copy_to_user and
# copy_from_user, from the cache: the copies have exception-table entries
# of their own), the pipe keeps its data, nothing oopses, and each entry
# block counts the workload's calls exactly: 600 reads, 600 writes, 300
# clock_nanosleeps. Exact counts of every block around faults: the fixups
# case.
# kernels: spot
# timeout: 200
. /tests/lib.sh
workload efault 50 || fail "natively: EFAULT expected"
load_kjit
kjit record --deep -f __x64_sys_read __x64_sys_write __x64_sys_clock_nanosleep \
	-o /tmp/f.data -- workload -c 0 efault 300 > /tmp/r.out 2>&1 ||
	{ cat /tmp/r.out; fail "under kjit: a bad pointer did not give EFAULT"; }
kjit report -i /tmp/f.data | head -n 5
for fw in __x64_sys_read:600 __x64_sys_write:600 __x64_sys_clock_nanosleep:300; do
	f=${fw%:*} want=${fw#*:}
	n=$(entry_count_in /tmp/f.data $f)
	echo "$f entry: ${n:-0} for $want calls"
	[ "${n:-0}" = "$want" ] || fail "$f's entry counted ${n:-0} times for $want calls"
done
unload_kjit
