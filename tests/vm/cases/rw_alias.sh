# rw_alias - the code cache's writable alias (a vmap of the cache's pages,
# docs/design.md "Review findings") exists only while kjit may write
# through it: the trampolines' alias goes as soon as they are written,
# each CPU's cache alias at detach, once no dispatcher can run. Counted in
# /proc/vmallocinfo, where each alias is a vmap made by
# kjit_region_alloc_code.
# timeout: 60
. /tests/lib.sh
aliases() { grep -c 'kjit_region_alloc_code' /proc/vmallocinfo; }
# possible CPUs (each has a cache), from a list like "0-1" or "0,2-3"
ncpu=$(tr ',' '\n' < /sys/devices/system/cpu/possible |
	awk -F- '{ n += (NF == 2 ? $2 - $1 + 1 : 1) } END { print n }')
load_kjit
n0=$(aliases)
kjit attach ksys_read vfs_read > /dev/null || fail "attach"
workload -c 0 read 50 || fail "reads"
n1=$(aliases)
kjit detach || fail "detach"
n2=$(aliases)
workload -c 0 read 50 || fail "reads after detach"
kjit report --live > /dev/null || fail "report after detach"
unload_kjit
echo "writable aliases: loaded $n0, attached $n1 (possible CPUs: $ncpu), detached $n2"
[ "$n0" = 0 ] || fail "aliases before any session: $n0"
[ "$n1" = "$ncpu" ] || fail "attached: $n1 aliases, want one per CPU's cache ($ncpu), none for the trampolines"
[ "$n2" = 0 ] || fail "detached: $n2 writable aliases left"
