# ftrace_order - the other order of ftrace_sites: another ftrace user holds a
# function's __fentry__ site first (an IPMODIFY holder, whose ftrace_ops gets
# a trampoline of its own, or a Kprobe on pipe_read's entry), kjit translates
# the function in deep mode while it is held, then the user leaves (its
# trampoline is freed). The translation must not have copied a call to that
# trampoline, and the entry guard's verdict must not outlive the user:
# pipe_read runs from the cache, counted, once the site is free again.
# timeout: 200
. /tests/lib.sh
pr=$(pipe_read_fn) || fail "no pipe read function"
T=/sys/kernel/tracing
entries() { entry_count "$pr"; }
guarded() { kjit stat | awk '$1 == "fallback" && $2 == "ftrace_site" { print $3 }'; }
load_kjit
# (not a tracing instance's function tracer: creating and removing an
# instance leaves the top-level buffer recording a fraction of later events
# on this kernel - static_keys then saw 168 of ~980 with no kjit involved)
for holder in ipmodify kprobe; do
	if [ $holder = kprobe ]; then
		echo "p:kjit/kjit_order $pr" >> $T/kprobe_events || fail "kprobe"
		echo 1 > $T/events/kjit/kjit_order/enable || fail "enable kprobe"
	else
		insmod /lib/kjit/kjit_ipmodify.ko func="$pr" || fail "IPMODIFY on $pr"
	fi
	kjit attach --deep __x64_sys_read > /dev/null || fail "$holder: attach"
	workload -c 0 piperead 300 || fail "$holder: reads while held"
	e1=$(entries) g1=$(guarded)
	if [ $holder = kprobe ]; then
		echo 0 > $T/events/kjit/kjit_order/enable
		echo '-:kjit/kjit_order' >> $T/kprobe_events || fail "remove kprobe"
	else
		rmmod kjit_ipmodify || fail "rmmod kjit_ipmodify"
	fi
	kjit reset
	workload -c 0 piperead 300 || fail "$holder: reads after the holder left"
	e2=$(entries) g2=$(guarded)
	kjit detach
	echo "$holder: $pr counted/sent native while held $e1/$g1, after $e2/$g2"
	[ "${e1:-0}" = 0 ] && [ "${g1:-0}" -ge 300 ] ||
		fail "$holder: $pr ran from the cache while its site was held"
	[ "${e2:-0}" -ge 300 ] && [ "${g2:-0}" = 0 ] ||
		fail "$holder: $pr stayed native after the holder left ($e2 counted)"
done
unload_kjit
