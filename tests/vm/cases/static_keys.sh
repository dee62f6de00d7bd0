# static_keys - kernel code that changes under us: kmem_cache_alloc is
# translated while its tracepoint is off (the static-key site is a nop),
# then the tracepoint is enabled (the kernel patches the site into a jmp)
# while kjit stays attached. The translated code must take the new branch:
# the trace buffer must see an event for every allocation the workload
# made from the cache, and kjit must have counted the tracepoint's block.
# Then the tracepoint is disabled again and the events must stop.
# kernels: spot
# timeout: 200
. /tests/lib.sh
T=/sys/kernel/tracing
E=$T/events/kmem/kmem_cache_alloc/enable
[ -e $E ] || fail "no kmem_cache_alloc tracepoint"
F=$(slab_alloc) || fail "no slab allocator entry"
load_kjit
kjit attach $F > /dev/null || fail "attach $F"
workload -c 0 openclose 300 || fail "warm-up"
echo > $T/trace
echo 1 > $E
workload -c 0 openclose 300 || fail "workload with the tracepoint on"
echo 0 > $E
on=$(grep -c 'kmem_cache_alloc:' $T/trace)
echo > $T/trace
workload -c 0 openclose 300 || fail "workload with the tracepoint off again"
off=$(grep -c 'kmem_cache_alloc:' $T/trace)
kjit detach
kjit stat | grep -E 'blocks translated|fallback refused'
echo "events with the tracepoint on: $on, after it was turned off: $off"
[ "$on" -ge 300 ] || fail "translated code ran a stale static-key site: $on events for 300+ allocations"
[ "$off" -lt 10 ] || fail "events kept coming after the tracepoint was disabled: $off"
unload_kjit
