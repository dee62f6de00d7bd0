# left_loaded - a case that exits 0 but leaves kjit attached and a helper
# module loaded: the rig must fail it (and unload them for the next case).
# timeout: 60
. /tests/lib.sh
load_kjit
insmod /lib/kjit/kjit_kprobes.ko || fail "insmod kjit_kprobes"
kjit attach __x64_sys_getpid > /dev/null || fail "attach"
exit 0
