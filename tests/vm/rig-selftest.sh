#!/bin/sh
# rig-selftest.sh - prove the VM rig cannot pass what it should fail (and
# that a case's kept files reach the host).
# Runs each tests/vm/selftest case in its own boot and expects run.sh to exit
# non-zero with the named failure. Not part of `make test` (it costs ~2 min).
# Usage: rig-selftest.sh BUILD_DIR [KERNEL]
set -u
BUILD=$1
KNAME=${2:-$(head -n 1 "$BUILD/cache/kernels" | cut -d' ' -f1)}
HERE=$(cd "$(dirname "$0")" && pwd)
ok=0 bad=0
# expect CASE TIMEOUT PATTERN [WHY]: run CASE (of selftest/, else of
# cases/); the run must fail, the results must match PATTERN and the console
# log WHY (the case's own reason, which its result line does not carry).
expect() {
	res=$BUILD/vm/selftest-$1.results
	case=$HERE/selftest/$1.sh
	[ -e "$case" ] || case=$HERE/cases/$1.sh
	if sh "$HERE/run.sh" --build "$BUILD" --kernel "$KNAME" --log "$BUILD/vm/selftest-$1.log" \
		--results "$res" --timeout "$2" "$case" > /dev/null 2>&1; then
		echo "KJIT-RESULT FAIL rig.$1 the rig passed a run that must fail"
		bad=$((bad + 1))
	elif grep -Eq "$3" "$res" &&
		{ [ -z "${4:-}" ] || grep -aEq "$4" "$BUILD/vm/selftest-$1.log"; }; then
		echo "KJIT-RESULT PASS rig.$1 ($(grep -E "$3" "$res" | head -n 1))"
		ok=$((ok + 1))
	else
		echo "KJIT-RESULT FAIL rig.$1 failed, but not as expected: $(cat "$res")"
		bad=$((bad + 1))
	fi
}
expect assert_fail 120 'FAIL vm\..*\.assert_fail exit status 1 \(FAIL: deliberate assertion failure\)$'
expect guest_warning 120 'FAIL vm\..*\.guest_warning .*kernel log: .*WARNING:'
expect guest_hang 60 'FAIL vm\..*\.guest_hang no result'
expect left_loaded 60 'FAIL vm\..*\.left_loaded left loaded: kjit_kprobes kjit$'
expect case_timeout 90 'FAIL vm\..*\.case_timeout timed out after [0-9]+s \(8 s x pace [0-9.]+\) in: sleep 60' \
	'casewatch: +\+ +[0-2] s +1\.[0-9]+ s +sleep[[:space:]]*$'
# A case marked `# tcg: multi` is refused, not booted, on a QEMU older than 10
# (here a stand-in that says it is 7.2).
fake=$BUILD/vm/fake-qemu-7.2
printf '#!/bin/sh\necho "QEMU emulator version 7.2.22"\n' > "$fake" && chmod +x "$fake"
export KJIT_VM_QEMU="$fake"
expect old_qemu 60 'FAIL vm\..*\.old_qemu multi-threaded TCG needs QEMU >= 10, .* is 7.2.22'
unset KJIT_VM_QEMU
# tcg_parallel fails when its vCPUs take turns (everything forced onto
# single-threaded TCG): it can tell real parallelism from none.
export KJIT_VM_TCG=tcg,thread=single
expect tcg_parallel 150 'FAIL vm\..*\.tcg_parallel exit status 1' 'FAIL: CPU . .*in each of 3 tries: the vCPUs took turns'
unset KJIT_VM_TCG
# A file a case keeps (lib.sh's keep) reaches the host whole, next to the
# boot's results file (a run that must pass).
res=$BUILD/vm/selftest-keep_files.results
rm -rf "$BUILD/vm/selftest-keep_files.files"
if sh "$HERE/run.sh" --build "$BUILD" --kernel "$KNAME" --log "$BUILD/vm/selftest-keep_files.log" \
	--results "$res" --timeout 90 "$HERE/selftest/keep_files.sh" > /dev/null 2>&1; then
	want=$(sed -n 's/^KEEP-SUM \([0-9a-f]*\).*/\1/p' "$BUILD/vm/selftest-keep_files.log" | head -n 1)
	got=$(sha256sum < "$BUILD/vm/selftest-keep_files.files/keep_files/blob" 2> /dev/null | cut -d' ' -f1)
else
	want=run got=failed
fi
if [ -n "$want" ] && [ "$want" = "$got" ]; then
	echo "KJIT-RESULT PASS rig.keep_files (sha256 $got)"
	ok=$((ok + 1))
else
	echo "KJIT-RESULT FAIL rig.keep_files kept file ${got:-missing}, guest said ${want:-nothing}"
	bad=$((bad + 1))
fi
echo "$ok passed, $bad failed"
[ $bad = 0 ]
