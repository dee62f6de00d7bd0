# rw_alias - the code cache's writable alias (a vmap of the cache's pages,
# docs/design.md "Review findings") exists only while kjit may write
# through it: the trampolines' alias goes as soon as they are written,
# each CPU's cache alias at detach, once no dispatcher can run. Counted in
# /proc/vmallocinfo, where each alias is a vmap made by
# kjit_region_alloc_code. The executable code itself goes at detach too,
# once quiesce has moved every task out of it - the detaching task's own
# return addresses included (its ioctl enters through the deep-attached
# __x64_sys_ioctl here): counted as the vmalloc regions of the cache's
# size (an odd --cache-kb, so no other region shares it).
# timeout: 60
. /tests/lib.sh
aliases() { grep -c 'kjit_region_alloc_code' /proc/vmallocinfo; }
# possible CPUs (each has a cache), from a list like "0-1" or "0,2-3"
ncpu=$(tr ',' '\n' < /sys/devices/system/cpu/possible |
	awk -F- '{ n += (NF == 2 ? $2 - $1 + 1 : 1) } END { print n }')
# vmalloc size of a 1234 KiB cache: whole pages plus the guard page
CACHE_KB=1234
csize=$(( (CACHE_KB * 1024 + 4095) / 4096 * 4096 + 4096 ))
code_regions() { awk -v s=$csize '$2 == s && / vmalloc / && !/ vmap/' /proc/vmallocinfo | wc -l; }
load_kjit
n0=$(aliases)
kjit attach --deep --cache-kb $CACHE_KB ksys_read vfs_read __x64_sys_ioctl > /dev/null || fail "attach"
workload -c 0 read 50 || fail "reads"
n1=$(aliases)
c1=$(code_regions)
kjit detach || fail "detach"
n2=$(aliases)
c2=$(code_regions)
workload -c 0 read 50 || fail "reads after detach"
kjit report --live > /dev/null || fail "report after detach"
unload_kjit
echo "writable aliases: loaded $n0, attached $n1 (possible CPUs: $ncpu), detached $n2"
echo "executable cache regions: attached $c1, detached $c2"
[ "$n0" = 0 ] || fail "aliases before any session: $n0"
[ "$n1" = "$ncpu" ] || fail "attached: $n1 aliases, want one per CPU's cache ($ncpu), none for the trampolines"
[ "$n2" = 0 ] || fail "detached: $n2 writable aliases left"
[ "$c1" = "$ncpu" ] || fail "attached: $c1 code regions of $csize bytes, want one per CPU ($ncpu)"
[ "$c2" = 0 ] || fail "detached: $c2 executable code regions still mapped"
