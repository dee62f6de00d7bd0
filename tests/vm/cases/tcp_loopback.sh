# tcp_loopback - TCP over loopback with read and write deep-attached. The
# path reads the clocksource through an indirect call that deep mode
# follows (read_hpet under TCG): a block of the translated read_hpet that
# exits to the dispatcher inside its locked section once deadlocked both
# vCPUs, because the dispatcher timed translations with ktime_get, which
# reads the HPET too. Now the dispatcher calls nothing that takes a lock
# (kmod/dispatch.c); 200 round trips must complete, with the clocksource
# reached from the cache.
# kernels: spot
# timeout: 200
. /tests/lib.sh
load_kjit
kjit attach --deep __x64_sys_read __x64_sys_write > /dev/null || fail "attach"
lmbench -c 0 -r 1 -n 200 lat_tcp || fail "lat_tcp under deep read/write"
kjit detach || fail "detach"
cs=$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)
n=$(kjit report --live --csv | awk -F, -v f="read_$cs" '$1 == f { s += $4 } END { print s + 0 }')
echo "clocksource $cs: blocks of read_$cs run from the cache $n times"
[ "$cs" != hpet ] || [ "$n" -gt 0 ] || fail "read_hpet was not reached from the cache"
unload_kjit

