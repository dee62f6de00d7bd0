#!/bin/sh
# shell.sh - make shell's guest (tests/vm/run.sh --shell) as a user types
# into it: once the prompt is there, `kjit check` (kjit is loaded: nothing
# stops it) and `exit`, which must power the guest off.
# Usage: shell.sh ROOT BUILD      (prints one KJIT-RESULT line)
ROOT=$1
BUILD=$2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
kname=$(head -n 1 "$BUILD/cache/kernels" | cut -d' ' -f1)
# type: wait for the prompt in the output, then send the commands
type_in() {
	i=0
	while ! grep -q 'kjit-guest# ' "$T/out" 2> /dev/null; do
		i=$((i + 1))
		[ $i -lt 600 ] || return 0
		sleep 0.5
	done
	printf 'kjit check > /tmp/c.out; echo "check-rc=$?"; tail -n 1 /tmp/c.out\nexit\n'
	i=0 # stdin open until the guest is down
	while ! grep -q 'reboot: Power down' "$T/out" && [ $i -lt 240 ]; do
		i=$((i + 1))
		sleep 0.5
	done
}
type_in | timeout 300 sh "$ROOT/tests/vm/run.sh" --build "$BUILD" --kernel "$kname" --shell > "$T/out" 2>&1
rc=$?
if [ $rc = 0 ] && grep -q '^check-rc=0' "$T/out" &&
	grep -q 'kjit check: nothing stops kjit here' "$T/out" && grep -q 'reboot: Power down' "$T/out"; then
	echo "KJIT-RESULT PASS host.shell $kname: prompt, kjit check found nothing stopping kjit, exit powered off"
else
	echo "KJIT-RESULT FAIL host.shell (exit $rc) $(tr -d '\r' < "$T/out" | tail -n 5 | tr '\n' '|')"
	exit 1
fi
