# lib.sh - helpers for in-guest test cases (sourced: . /tests/lib.sh).
# A case fails by exiting non-zero; `fail` says why first.

fail() { echo "FAIL: $*"; exit 1; }

# skip REASON: this case cannot apply to this kernel; counted as skipped.
skip() { echo "SKIP: $*"; echo "$*" > /tmp/skip; exit 77; }

# load_kjit: insmod kjit_pool.ko (the code cache's memory) and kjit.ko,
# unless they are loaded already.
load_kjit() {
	[ -e /dev/kjit ] && return 0
	grep -q '^kjit_pool ' /proc/modules ||
		insmod /lib/kjit/kjit_pool.ko || fail "insmod kjit_pool.ko"
	insmod /lib/kjit/kjit.ko "$@" || fail "insmod kjit.ko"
	[ -e /dev/kjit ] || fail "/dev/kjit missing after insmod"
}

# unload_kjit: rmmod kjit.ko. kjit_pool.ko stays for the next load (it
# holds no code while kjit.ko is out; loading it takes ~1 s under TCG:
# 26 MiB to allocate and clear); unload_pool removes it.
unload_kjit() {
	[ -e /dev/kjit ] || return 0
	rmmod kjit || fail "rmmod kjit"
}

unload_pool() {
	grep -q '^kjit_pool ' /proc/modules || return 0
	rmmod kjit_pool || fail "rmmod kjit_pool"
}

# json_field FILE KEY: the first number under "KEY" in a saved JSON report.
# live_json KEY: the same in the live session's statistics and limits
# (`kjit stat --json`: the "stats" of `kjit report --live --json`, without
# the report's reading of every function), or nothing.
json_field() {
	sed -n "s/.*\"$2\": \([0-9]*\).*/\1/p" "$1" | head -n 1
}
live_json() {
	kjit stat --json > /tmp/live.json && json_field /tmp/live.json "$1"
}

# entry_count FUNC / entry_off FUNC: the count / offset of FUNC's entry
# block (the block run first on each call: +5 after the __fentry__ site,
# +9 behind endbr64 on IBT kernels, +0 for a deep callee) in the live
# session's report. FUNC may be a module's function, which the report names
# with its module (FUNC [MODULE], or MODULE:FUNC).
# entry_count_in DATA FUNC: the same in a recording (kjit record -o DATA).
entry_field() {
	if [ "${3:-}" ]; then set -- "$1" "$2" -i "$3"; else set -- "$1" "$2" --live; fi
	kjit report "$3" ${4:+"$4"} --csv | awk -F, -v f="$1" -v c="$2" '
		{ n = $1; sub(/ \[.*\]$/, "", n); sub(/^.*:/, "", n) }
		n == f && $8 == 1 { print $c }'
}
entry_count() { entry_field "$1" 4; }
entry_off() { entry_field "$1" 2; }
entry_count_in() { entry_field "$2" 4 "$1"; }

# first_func NAME...: the first NAME that is a function of this kernel.
# Cases pick functions by role through it where kernels renamed them
# (6.10's allocation profiling: kmem_cache_alloc -> kmem_cache_alloc_noprof).
first_func() {
	for f; do
		grep -q " [tT] $f\$" /proc/kallsyms && { echo "$f"; return 0; }
	done
	return 1
}
# The slab allocator's entry, whose tracepoint is a static-key site.
slab_alloc() { first_func kmem_cache_alloc_noprof kmem_cache_alloc; }
# The function pipe(2)'s reads go through (6.16+: anon_pipe_read).
pipe_read_fn() { first_func anon_pipe_read pipe_read; }
# The function pipe(2)'s writes go through (6.16+: anon_pipe_write).
pipe_write_fn() { first_func anon_pipe_write pipe_write; }

# keep FILE...: the rig copies FILE to the host after the case, into
# build/results/boots/KERNEL.BOOT.files/CASE/ (run.sh: next to the boot's
# results file), e.g. a kjit.data to read with the host's kjit.
keep() { mkdir -p /keep && cp "$@" /keep/; }

# expect_fail CMD...: CMD must exit non-zero.
# icount_mode: true when the guest runs under QEMU -icount (run.sh
# --icount): its clocks count executed instructions, 1 ns each.
icount_mode() { [ -e /tests/icount ]; }
# icount_settle: under -icount a timing counts every instruction the one
# vCPU runs, the kernel's own background work included, and on 6.12 that
# work doubles a getpid timing for the first seconds after boot. Wait until
# two timings of 20000 getppid calls in a row agree within 0.2% (a no-op
# outside icount_mode; needs the lmbench guest program).
icount_settle() {
	icount_mode || return 0
	_prev=0 _i=0
	while [ $_i -lt 40 ]; do
		_cur=$(lmbench -c 0 -r 1 -n 20000 lat_syscall_null | awk '$1 == "LM" { print $3 }')
		if awk -v a="$_prev" -v b="$_cur" 'BEGIN { d = a - b; if (d < 0) d = -d
			exit !(b > 0 && d <= 0.002 * b) }'; then
			echo "SETTLED after $_i timings: getppid $_cur us/op"
			return 0
		fi
		_prev=$_cur _i=$((_i + 1))
		sleep 1
	done
	fail "the guest never settled under -icount (getppid: $_prev, $_cur us/op)"
}
expect_fail() { if "$@"; then fail "expected failure: $*"; fi; }
