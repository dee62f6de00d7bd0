# attach-scale - how long kjit takes to attach and to detach many
# functions: 1 to 64 system call entry points (kjitbench attach-time, as in
# docs/results/memory.md), 100 and 1,000 functions spread over the
# kernel, the ~2,100 functions of eight patterns, and every instrumentable
# function (6.1: the first 8192, its ftrace's bound); then the tool itself,
# patterns to "attached" and back. Nothing else runs. Results in
# docs/results/attach-scale.md; run with
#   make vm-test KJIT_KERNEL=6.1 VM_CASES=bench/attach-scale.sh
# timeout: 2400
. /tests/lib.sh
load_kjit
set -f
pats="vfs_* __x64_sys_* *_read* tcp_* proc_* seq_* kernfs_* pipe_*"
kjit list --ok '*' > /tmp/all.list || fail "list *"
kjit list --ok $pats > /tmp/pats.list || fail "list $pats"
uniq_n() { awk '/^0x/ { print $1 }' "$1" | sort -u | wc -l; }
echo "FUNCTIONS all=$(uniq_n /tmp/all.list) patterns=$(uniq_n /tmp/pats.list) ncpu=$(nproc)"
echo "SECTION ioctl"
kjitbench attach-time -r 5 1 8 32 64 | grep -v '^REFUSED' || fail "attach-time"
kjitbench attach-list -r 5 /tmp/all.list 100 1000 | grep -v '^REFUSED' || fail "attach-list"
kjitbench attach-list -r 5 /tmp/pats.list 0 | grep -v '^REFUSED' || fail "attach-list patterns"
kjitbench attach-list -r 3 /tmp/all.list 0 | grep -v '^REFUSED' || fail "attach-list all"
echo "SECTION tool"
now() { awk '{ printf "%d\n", $1 * 1000 }' /proc/uptime; }
tool() { # tool NAME ARGS...: kjit attach ARGS, then kjit detach, 3 times
	name=$1
	shift
	for i in 1 2 3; do
		t0=$(now)
		kjit attach "$@" > /tmp/o.out 2> /dev/null || fail "kjit attach $*"
		t1=$(now)
		kjit detach > /dev/null || fail "kjit detach"
		t2=$(now)
		echo "TOOL $name $(head -n 1 /tmp/o.out) attach_ms=$((t1 - t0)) detach_ms=$((t2 - t1))"
	done
}
tool patterns $pats
tool all --best-effort '*'
unload_kjit
