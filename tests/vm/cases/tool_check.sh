# tool_check - kjit check on the guest's own kernel: before loading (the
# modules in /lib/kjit found built for this kernel, the insmod to run),
# loaded (nothing stops kjit; the function count is ftrace's own), and two
# refusals with their fixes: kernel addresses hidden (kptr_restrict=2) and
# a user who is not root. The refusals that cannot be staged in a guest
# (lockdown, module signatures, another kernel's modules, a kernel without
# direct calls) are host tests on fake machines (tests/tool/test_check.sh).
# timeout: 60
. /tests/lib.sh
unload_kjit
unload_pool # an earlier case may leave it
rel=$(uname -r)
check() { # check WANT_STATUS [ARGS...]: kjit check into /tmp/c.out
	want=$1
	shift
	kjit check "$@" > /tmp/c.out 2>&1
	rc=$?
	cat /tmp/c.out
	[ $rc = "$want" ] || fail "kjit check $*: exit $rc, want $want"
}
has() { grep -qF -- "$1" /tmp/c.out || fail "kjit check: no '$1'"; }

check 1 --modules /lib/kjit
has "kjit check: $rel"
has "no    modules    kjit and kjit_pool are not loaded; /lib/kjit/kjit.ko is built for this kernel"
has "fix: insmod /lib/kjit/kjit_pool.ko; insmod /lib/kjit/kjit.ko"
has "ok    kernel     Linux"
has "kjit_pool.ko will take 26 MiB: a code pool of 16 MiB for all CPUs"
has "kjit check: 1 thing stops kjit here"

load_kjit
check 0
has "ok    modules    kjit and kjit_pool are loaded"
has "ok    device     /dev/kjit: this user may use it"
has "ok    kallsyms   addresses visible"
n=$(wc -l < /sys/kernel/tracing/available_filter_functions)
has "info  functions  $n ftrace can divert"
has "kjit_pool.ko takes 26 MiB: a code pool for all CPUs and its exception and ORC tables; a session by default: 2048 KiB of code cache and 32768 blocks per CPU"
has "kjit check: nothing stops kjit here"

kr=$(cat /proc/sys/kernel/kptr_restrict)
echo 2 > /proc/sys/kernel/kptr_restrict
check 1
echo "$kr" > /proc/sys/kernel/kptr_restrict
has "no    kallsyms   addresses hidden from this user (kptr_restrict=2)"
has "fix: sysctl kernel.kptr_restrict=1, and run kjit as root"

su nobody -c "/bin/kjit check" > /tmp/c.out 2>&1 && fail "non-root kjit check found nothing stopping kjit"
cat /tmp/c.out
has "no    device     /dev/kjit: this user may not open it (root only)"
has "fix: run kjit as root"
unload_kjit
