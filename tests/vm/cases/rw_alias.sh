# rw_alias - the code cache's writable alias (a vmap of the pages of the
# code pool in kjit_pool.ko, docs/design/code-pool.md) exists only
# while kjit may write through it: from attach to detach, once no
# dispatcher can run (the entry trampoline is written through it too, at
# attach: it has no region or alias of its own). Counted in /proc/vmallocinfo by the function that made each
# vmap. The executable code is module text, mapped as long as
# kjit_pool.ko is loaded, so what detach must do is leave no translation
# in it: every byte int3 again, once quiesce has moved every task out of
# it - the detaching task's own return addresses included (its ioctl
# enters through the deep-attached __x64_sys_ioctl here). Read by `kjit
# decode` at the pool's start (both kjit.ko's and the tool's own decoder,
# from /proc/kcore), where a session's entry trampoline goes, in the first
# chunk it takes (after 16 bytes that hold no code: 16 int3s, then the
# trampoline).
# timeout: 60
. /tests/lib.sh
aliases() { grep -c 'kjit_region_alloc_code\|kjit_pool_open' /proc/vmallocinfo; }
# int3s N: how many of the first N instructions of the pool are int3
int3s() {
	kjit decode --check -n $1 kjit_pool_code > /tmp/dec.out || { cat /tmp/dec.out; fail "decode the pool"; }
	grep -c 'int3' /tmp/dec.out
}
load_kjit
n0=$(aliases)
i0=$(int3s 32)
kjit attach --deep ksys_read vfs_read __x64_sys_ioctl > /dev/null || fail "attach"
workload -c 0 read 50 || fail "reads"
n1=$(aliases)
i1=$(int3s 32)
kjit detach || fail "detach"
n2=$(aliases)
i2=$(int3s 32)
workload -c 0 read 50 || fail "reads after detach"
kjit report --live > /dev/null || fail "report after detach"
# the pool goes only after kjit.ko, which uses it; and can come back
rmmod kjit_pool 2> /dev/null && fail "kjit_pool.ko unloaded under kjit.ko"
unload_kjit
unload_pool
grep -q '^kjit_pool ' /proc/modules && fail "kjit_pool.ko still loaded"
load_kjit
i4=$(int3s 32)
unload_kjit
echo "writable aliases: loaded $n0, attached $n1, detached $n2"
echo "int3 among the pool's first 32 instructions: loaded $i0, attached $i1, detached $i2"
[ "$n0" = 0 ] || fail "aliases before any session: $n0"
[ "$n1" = 1 ] || fail "attached: $n1 aliases, want one (the pool's), none for the trampolines"
[ "$n2" = 0 ] || fail "detached: $n2 writable aliases left"
[ "$i0" = 32 ] || fail "the pool is not int3 at load"
[ "$i1" -lt 32 ] || fail "attached: no trampoline at the pool's start"
[ "$i2" = 32 ] || fail "detached: translated code still in the pool"
[ "$i4" = 32 ] || fail "a fresh kjit_pool.ko is not int3 at load"
