# ioctl_fuzz - random ioctl sequences and arguments against /dev/kjit from two
# processes at once, beside a process busy in the attached system calls
# (kjitfuzz: only documented errnos, outputs in bounds, a failed request
# changes nothing), then unprivileged (EPERM for every request, unknown
# commands too). Afterwards kjit must still count exactly and unload clean.
# The later steps run even when the fuzzer failed.
# kernels: once
# timeout: 180
. /tests/lib.sh
load_kjit
why=""
kjitfuzz -t 25 -j 2 || why="kjitfuzz"
kjitfuzz -t 3 -j 2 -u || why="$why${why:+, }kjitfuzz -u"
kjitcount -c 0 -e getpid 1000 __x64_sys_getpid > /tmp/kc.out 2>&1
rc=$?
cat /tmp/kc.out
[ $rc = 0 ] || fail "kjitcount after the fuzzing"
grep -q '^ENTRY __x64_sys_getpid kjit=1000 expected=1000 .* OK$' /tmp/kc.out ||
	fail "getpid not counted exactly after the fuzzing"
unload_kjit
[ -z "$why" ] || fail "$why (replay: the seed line above)"
