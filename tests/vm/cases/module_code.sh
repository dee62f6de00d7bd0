# module_code - translated module code keeps its module: attaching to a
# module's function, or following a call into one in deep mode, pins the
# module (rmmod is refused while kjit is attached, allowed after detach),
# so no translation can outlive the code it was made from. The module's
# blocks are counted exactly: its ioctl handler runs once per ioctl.
# timeout: 120
. /tests/lib.sh
load_kjit
insmod /lib/kjit/kjit_kprobes.ko || fail "insmod kjit_kprobes"
# (report names a module's function with its module: match the name part)
count() { kjit report --live --csv | awk -F, -v f="$1" -v o="$2" 'index($1, f) && $2 == o { print $4 }'; }

# attached: kp_ioctl itself
kjit attach kp_ioctl > /dev/null || fail "attach kp_ioctl"
workload -c 0 modioctl 200 || fail "ioctls"
rmmod kjit_kprobes 2> /dev/null && fail "rmmod of an attached module's code must be refused"
kjit detach
n=$(count kp_ioctl 0x5)
[ "$n" = 200 ] || fail "kp_ioctl entry counted $n times for 200 ioctls"
rmmod kjit_kprobes || fail "rmmod after detach"

# deep: followed from vfs_ioctl through the indirect call to kp_ioctl
insmod /lib/kjit/kjit_kprobes.ko || fail "insmod kjit_kprobes again"
kjit attach --deep __x64_sys_ioctl > /dev/null || fail "attach --deep"
workload -c 0 modioctl 200 || fail "ioctls (deep)"
rmmod kjit_kprobes 2> /dev/null && fail "rmmod of a followed module must be refused"
kjit detach
n=$(count kp_ioctl 0x0)
echo "kp_ioctl entries: attached 200 of 200, followed $n"
[ "${n:-0}" -ge 200 ] || fail "deep mode did not follow into kp_ioctl ($n)"
rmmod kjit_kprobes || fail "rmmod after deep detach"
unload_kjit
