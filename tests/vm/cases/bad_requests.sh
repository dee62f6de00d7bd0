# bad_requests - every malformed, oversized, out-of-order or unprivileged
# request to /dev/kjit gets its errno and leaves the state unchanged; every
# function kjit must not instrument is refused with its reason.
# kernels: once
# timeout: 120
. /tests/lib.sh
load_kjit
kjitbad || fail "kjitbad"
unload_kjit
