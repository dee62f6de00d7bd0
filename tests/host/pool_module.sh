#!/bin/sh
# pool_module.sh - kjit_pool.ko is data only: the code pool, a NOBITS text
# section objtool cannot read, so the Makefile builds it with objtool off
# (OBJECT_FILES_NON_STANDARD). Code the compiler would add to it (a
# sanitizer's constructor: KCSAN's calls __tsan_init) then keeps its
# `jmp __x86_return_thunk` unpatched, which the kernel reports on
# mitigated CPUs ("WARNING: ... __warn_thunk: Unpatched return thunk in
# use"), and retpoline or IBT sites go unrecorded. Every kjit_pool.ko built
# under BUILD/mod must have no executable byte outside .kjit_pool_text.
# Usage: pool_module.sh BUILD     (prints one KJIT-RESULT line)
BUILD=$1
n=0 bad=""
for ko in "$BUILD"/mod/*/kjit_pool/kjit_pool.ko; do
	[ -f "$ko" ] || continue
	n=$((n + 1))
	# [Nr] Name Type Address Off Size ES Flg ...: executable, with bytes
	code=$(readelf -SW "$ko" | sed 's/^ *\[ *[0-9]*\]//' |
		awk '$2 == "PROGBITS" && $7 ~ /X/ && $1 != ".kjit_pool_text" &&
			$5 !~ /^0+$/ { printf "%s 0x%s bytes; ", $1, $5 }')
	[ -n "$code" ] && bad="$bad${ko#"$BUILD"/mod/}: $code"
done
if [ $n = 0 ]; then
	echo "KJIT-RESULT FAIL host.pool_module no kjit_pool.ko under $BUILD/mod (make modules)"
elif [ -n "$bad" ]; then
	echo "KJIT-RESULT FAIL host.pool_module code outside the pool, which objtool never patches: $bad"
else
	echo "KJIT-RESULT PASS host.pool_module $n kjit_pool.ko, none with code outside .kjit_pool_text"
fi
