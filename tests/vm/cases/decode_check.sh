# decode_check - kjit.ko decodes kernel functions with its own Zydis; the tool
# reads the same text through /proc/kcore (libelf), decodes it with Debian's
# libZydis, and every instruction must agree (address, length, bytes, mnemonic).
# timeout: 60
. /tests/lib.sh
pr=$(pipe_read_fn) || fail "no pipe read function"
load_kjit
FUNCS="vfs_read ksys_write __x64_sys_getpid schedule $(slab_alloc) do_sys_openat2 $pr __x64_sys_close"
kjit decode --check -n 64 $FUNCS > /tmp/decode.out 2>&1
rc=$?
grep '^decode-check' /tmp/decode.out
[ $rc = 0 ] || { cat /tmp/decode.out; fail "decodings differ"; }
n=$(grep -c '^decode-check .*: agree (64 kernel, 64 user, 0 differ)' /tmp/decode.out)
[ "$n" = 8 ] || fail "expected 8 functions x 64 agreeing instructions, got $n"
# Bad input: an unknown symbol is a clear error, not a crash.
expect_fail kjit decode no_such_function_kjit
# Only kernel text is read: a data symbol is refused.
expect_fail kjit decode jiffies_64
unload_kjit
