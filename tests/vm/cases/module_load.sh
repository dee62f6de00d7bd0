# module_load - kjit.ko loads, answers the version ioctl, refuses a
# non-root caller, and unloads; ten times in a row.
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
