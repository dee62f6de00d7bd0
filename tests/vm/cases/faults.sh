# faults - page faults and exception-table fixups raised under translated
# code behave as natively: with kjit attached deep at read, write and
# nanosleep, every call handed a bad user pointer returns EFAULT (the fault
# is taken in copy_to_user/copy_from_user, from the cache: the copies have
# exception-table entries of their own), the pipe keeps its data, nothing
# oopses. Exact counts around faults: the fixups case.
# timeout: 200
. /tests/lib.sh
workload efault 50 || fail "natively: EFAULT expected"
load_kjit
kjit attach --deep __x64_sys_read __x64_sys_write __x64_sys_nanosleep > /dev/null ||
	fail "attach"
workload -c 0 efault 300 || fail "under kjit: a bad pointer did not give EFAULT"
kjit detach
kjit stat | grep -E 'blocks translated|fallback refused'
n=$(kjit report --live --csv | awk -F, '$1 == "__x64_sys_read" { s += $4 } END { print s + 0 }')
[ "$n" -ge 600 ] || fail "read's blocks counted $n times, expected the 600 reads to run from the cache"
unload_kjit
