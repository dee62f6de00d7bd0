# livepatch - kjit steps aside when a livepatch module loads (docs/design.md,
# "Livepatch"). Livepatch switches a task to a new function only once the
# old one is off its stack, judged by a reliable stack walk against the old
# function's addresses; a task in a translated copy has a kjit_pool.ko
# frame there instead (a reliable one: the cache has ORC entries), which
# livepatch would take for "safe" while the task still runs old code. Here
# a task sleeps in kjit_lptarget's lpt_wait(), followed by a deep attach of
# its caller (its frame in the cache), and kjit_lptest.ko patches
# lpt_wait(): kjit must detach as the livepatch comes (its cache return
# addresses moved back to lpt_wait), so the transition waits for the
# sleeper to leave lpt_wait, and ends once it is woken. Before, the
# transition ended while the task still slept in the old copy.
# timeout: 120
. /tests/lib.sh
P=/sys/module/kjit_lptarget/parameters
L=/sys/kernel/livepatch/kjit_lptest
[ -e /lib/kjit/kjit_lptest.ko ] || fail "kjit_lptest.ko not built"
insmod /lib/kjit/kjit_lptarget.ko || fail "insmod kjit_lptarget.ko"
load_kjit
kjit attach --deep kjit_lptarget:set_sleep > /dev/null || fail "deep attach set_sleep"
sh -c "echo 1 > $P/sleep" &
s=$!
# whatever happens, the sleeper is woken (its output holds the case open)
trap 'echo 1 > $P/wake 2> /dev/null' EXIT
sleep 1
t=$(pgrep -P $s) || t=$s
cat /proc/$t/stack > /tmp/before.stk
echo "== the sleeper, attached:"; cat /tmp/before.stk
grep -q 'lpt_wait+0x[0-9a-f]*+0x.*\[kjit_pool\]' /tmp/before.stk ||
	fail "the sleeper is not in the cache's copy of lpt_wait"
insmod /lib/kjit/kjit_lptest.ko || fail "insmod kjit_lptest.ko"
sleep 2
tr1=$(cat $L/transition)
cat /proc/$t/stack > /tmp/during.stk
echo "== the sleeper, livepatch loaded (transition $tr1):"; cat /tmp/during.stk
kjit stat | head -n 1 > /tmp/state
cat /tmp/state
grep -q 'detached by kjit.ko: a livepatch module loaded' /tmp/state ||
	fail "kjit did not detach for the livepatch"
[ "$tr1" = 1 ] || fail "the transition ended while the sleeper was in the old lpt_wait"
echo 1 > $P/wake
wait $s
n=0
while [ "$(cat $L/transition)" != 0 ] && [ $n -lt 50 ]; do sleep 0.2; n=$((n + 1)); done
tr2=$(cat $L/transition)
echo "transition: $tr1 while the sleeper slept, $tr2 once it was woken"
echo 0 > $L/enabled
n=0
while [ -e $L ] && [ "$(cat $L/transition 2> /dev/null)" != 0 ] && [ $n -lt 50 ]; do sleep 0.2; n=$((n + 1)); done
sleep 1
rmmod kjit_lptest || fail "rmmod kjit_lptest"
unload_kjit
rmmod kjit_lptarget || fail "rmmod kjit_lptarget"
grep -q '\[kjit_pool\]' /tmp/during.stk && fail "the sleeper still returns into the cache"
grep -q 'lpt_wait+0x' /tmp/during.stk || fail "the sleeper's stack does not show lpt_wait"
[ "$tr2" = 0 ] || fail "the transition did not end once the sleeper left lpt_wait"
