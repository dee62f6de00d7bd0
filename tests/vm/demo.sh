# demo - what kjit can do so far: load the module, show its version, and
# decode a system call's entry with the module's Zydis next to user space's.
# timeout: 60
. /tests/lib.sh
echo "== kjit demo on $(uname -r), $(nproc) CPUs"
load_kjit
kjit version
echo
echo "== __x64_sys_getpid and vfs_read, decoded in the kernel and in user space"
kjit decode --check -n 12 __x64_sys_getpid vfs_read || fail "decode"
unload_kjit
echo
echo "== (translation, counting and the Kprobes comparison arrive with the translator and code cache)"
