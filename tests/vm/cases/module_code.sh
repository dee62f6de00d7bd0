# module_code - translated module code keeps its module: attaching to a
# module's function, or following a call into one in deep mode, pins the
# module (rmmod is refused while kjit is attached, allowed after detach),
# so no translation can outlive the code it was made from. The module's
# blocks are counted exactly: its ioctl handler runs once per ioctl.
# A module's init text is freed whatever its refcount, so deep mode never
# follows into it (nor into a module that is not live yet).
# kernels: spot
# timeout: 180
. /tests/lib.sh
load_kjit
insmod /lib/kjit/kjit_kprobes.ko || fail "insmod kjit_kprobes"

# attached: kp_ioctl itself
kjit attach kp_ioctl > /dev/null || fail "attach kp_ioctl"
workload -c 0 modioctl 200 || fail "ioctls"
rmmod kjit_kprobes 2> /dev/null && fail "rmmod of an attached module's code must be refused"
kjit detach
n=$(entry_count kp_ioctl)
[ "$n" = 200 ] || fail "kp_ioctl entry counted $n times for 200 ioctls"
rmmod kjit_kprobes || fail "rmmod after detach"

# deep: followed from vfs_ioctl through the indirect call to kp_ioctl
insmod /lib/kjit/kjit_kprobes.ko || fail "insmod kjit_kprobes again"
kjit attach --deep __x64_sys_ioctl > /dev/null || fail "attach --deep"
workload -c 0 modioctl 200 || fail "ioctls (deep)"
rmmod kjit_kprobes 2> /dev/null && fail "rmmod of a followed module must be refused"
kjit detach
n=$(entry_count kp_ioctl)
echo "kp_ioctl entries: attached 200 of 200, followed $n"
[ "${n:-0}" -ge 200 ] || fail "deep mode did not follow into kp_ioctl ($n)"
rmmod kjit_kprobes || fail "rmmod after deep detach"

# deep: do_one_initcall calls a module's init function (init text)
kjit attach --deep do_one_initcall > /dev/null || fail "attach --deep do_one_initcall"
dmesg -c > /dev/null
insmod /lib/kjit/kjit_rigtest.ko action=addr || fail "insmod kjit_rigtest"
init=$(dmesg | sed -n 's/.*kjit_rigtest: init at \([0-9a-f]*\).*/\1/p')
[ -n "$init" ] || fail "kjit_rigtest did not say where its init is"
kjit detach
rmmod kjit_rigtest || fail "rmmod kjit_rigtest"
n=$(kjit report --live --csv | awk -F, 'NR > 1 { print $3 }' | wc -l)
[ "$n" -gt 0 ] || fail "nothing translated under do_one_initcall"
# (equal-length lowercase hex strings compare as numbers)
lo=$(printf '0x%016x' $((0x$init)))
hi=$(printf '0x%016x' $((0x$init + 64)))
in_init=$(kjit report --live --csv |
	awk -F, -v lo="$lo" -v hi="$hi" 'NR > 1 && $3 >= lo && $3 < hi')
echo "do_one_initcall: $n blocks, init text at 0x$init ($lo..$hi)"
kjit report --live --csv | awk -F, 'NR > 1 && !seen[$1]++ { print "  " $1 " " $3 }' | head -40
[ -z "$in_init" ] || fail "deep mode translated module init text: $in_init"
# The init function's own callees (its pr_info) are reached only through it
# (a freed init function's blocks have no name left to report them by).
kjit report --live --csv | grep -q '^[a-z_]*printk' &&
	fail "deep mode followed into module init text: its printk callees ran from the cache"
unload_kjit
