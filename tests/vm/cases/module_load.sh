# module_load - kjit.ko loads, answers the version ioctl, refuses a
# non-root caller, and unloads; ten times in a row.
# kernels: once
# timeout: 60
. /tests/lib.sh
i=0
while [ $i -lt 10 ]; do
	load_kjit
	kjit version | grep -q 'module: kjit' || fail "version ioctl"
	unload_kjit
	i=$((i + 1))
done
load_kjit
# An unprivileged user cannot even open /dev/kjit (mode 0600, CAP_SYS_ADMIN).
out=$(su -s /bin/sh nobody -c 'kjit version' 2>&1) && fail "nobody could use /dev/kjit"
echo "$out"
echo "$out" | grep -q 'permission denied' || fail "non-root: unclear error"
unload_kjit
# IBT: every function kjit found by name is called through a gate. On an IBT
# kernel (6.12) some of them are sealed (their endbr64 turned into a NOP at
# boot) - the gates are what keeps those calls alive on CET hardware - and
# on a kernel without IBT (6.1) none is.
line=$(dmesg | grep 'kjit: .* kernel functions found by name' | tail -n 1)
echo "$line"
[ -n "$line" ] || fail "no gate report at load"
sealed=$(echo "$line" | sed -n 's/.*; \([0-9]*\) of them sealed.*/\1/p')
case $line in
*"(IBT kernel)"*) [ "${sealed:-0}" -gt 0 ] || fail "IBT kernel, but no gated function is sealed" ;;
*"(no IBT)"*) [ "${sealed:-1}" = 0 ] || fail "sealed functions on a kernel without IBT" ;;
*) fail "gate report without the kernel's IBT state" ;;
esac
