# lib.sh - helpers for in-guest test cases (sourced: . /tests/lib.sh).
# A case fails by exiting non-zero; `fail` says why first.

fail() { echo "FAIL: $*"; exit 1; }

# load_kjit: insmod kjit.ko unless it is loaded already.
load_kjit() {
	[ -e /dev/kjit ] && return 0
	insmod /lib/kjit/kjit.ko "$@" || fail "insmod kjit.ko"
	[ -e /dev/kjit ] || fail "/dev/kjit missing after insmod"
}

unload_kjit() {
	[ -e /dev/kjit ] || return 0
	rmmod kjit || fail "rmmod kjit"
}

# expect_fail CMD...: CMD must exit non-zero.
expect_fail() { if "$@"; then fail "expected failure: $*"; fi; }
