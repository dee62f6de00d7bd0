# tool_blocks - `kjit blocks FUNC`: static basic blocks with disassembly and
# edges, from /proc/kcore; branch targets named by symbol, hex in lower
# case. Every block kjit.ko translates while the function
# runs starts where a static block starts (the CFG finds kjit's leaders),
# and the report's coverage uses these blocks. Errors: unknown and
# ambiguous names, offsets, usage.
# kernels: once
# timeout: 120
. /tests/lib.sh
load_kjit
kjit blocks ksys_read > /tmp/b.out || fail "blocks ksys_read"
head -n 30 /tmp/b.out
head -n 1 /tmp/b.out | grep -Eq '^ksys_read 0x[0-9a-f]{16}-0x[0-9a-f]{16} \([0-9]+ bytes\): [0-9]+ blocks, [0-9]+ edges$' ||
	fail "header line"
n=$(head -n 1 /tmp/b.out | sed 's/.*: \([0-9]*\) blocks.*/\1/')
[ "$n" -ge 5 ] || fail "ksys_read has only $n blocks"
[ "$(grep -c '^block ' /tmp/b.out)" = "$n" ] || fail "block lines != $n"
grep -q '^block 0 ksys_read+0x0 ' /tmp/b.out || fail "block 0 is not the entry"
grep -Eq '^    -> block [0-9]+ ksys_read\+0x[0-9a-f]+ \(taken\)$' /tmp/b.out || fail "no taken edge"
grep -Eq '^    -> block [0-9]+ ksys_read\+0x[0-9a-f]+ \(fallthrough\)$' /tmp/b.out || fail "no fallthrough edge"
grep -Eq '^    0xffffffff[0-9a-f]{8}  (ret|jmp [a-z_])' /tmp/b.out || fail "no ret/jmp disassembled"
# branch targets by symbol (call vfs_read, jmp ksys_read+0x4c), hex in one case
grep -Eq '^    0xffffffff[0-9a-f]{8}  call vfs_read$' /tmp/b.out || fail "call vfs_read not named"
grep -Eq '^    0xffffffff[0-9a-f]{8}  (call|j[a-z]+) 0x' /tmp/b.out && fail "a branch target without a name"
grep -Eq '0x[0-9a-f]*[A-F]' /tmp/b.out && fail "upper-case hex"

# kjit's translated blocks start at static block starts
kjit attach ksys_read vfs_read > /dev/null || fail "attach"
workload read 50 || fail "workload"
kjit detach
kjit blocks vfs_read > /tmp/v.out || fail "blocks vfs_read"
kjit report --live --csv | tail -n +2 > /tmp/r.csv
[ -s /tmp/r.csv ] || fail "no blocks recorded"
while IFS=, read -r fn off addr count len insns cpus entry; do
	[ "$entry" = 1 ] && continue	# the entry after the fentry site
	f=/tmp/b.out; [ "$fn" = vfs_read ] && f=/tmp/v.out
	grep -q "^block [0-9]* $fn+$off " $f || fail "kjit block $fn+$off is not a static block start"
done < /tmp/r.csv
kjit report --live --json | grep -Eq '"name": "ksys_read".*"static_blocks": '"$n"', "covered": [1-9]' ||
	fail "report coverage does not use the $n static blocks"

# static keys: a tracepoint's site has both successors
F=$(slab_alloc) || fail "no slab allocator entry"
kjit blocks $F > /tmp/k.out || fail "blocks $F"
grep "static key" /tmp/k.out | head -n 2
grep -Eq '^    -> .*\(static key(\)|, outside the function\))$' /tmp/k.out ||
	fail "no static key edge in $F"

kjit blocks no_such_fn 2> /tmp/e.out && fail "unknown function"
grep -q 'no_such_fn: no such kernel function' /tmp/e.out || fail "unknown message"
dup=$(awk '($2=="t"||$2=="T") && NF==3 {print $3}' /proc/kallsyms | sort | uniq -d | head -n 1)
kjit blocks "$dup" 2> /tmp/e.out && fail "ambiguous $dup"
cat /tmp/e.out
grep -q "$dup: ambiguous" /tmp/e.out || fail "ambiguous message"
[ "$(grep -c '^kjit blocks:   0x' /tmp/e.out)" -ge 2 ] || fail "candidates not listed"
kjit blocks 2> /dev/null; [ $? = 2 ] || fail "usage status 2"
unload_kjit
