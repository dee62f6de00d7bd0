#!/bin/sh
# matrix.sh - run the VM cases on every kernel, a guest more than the host
# has cores at a time (`make vm-test`; docs/testing.md, "The matrix").
#
# Each kernel's cases go into boots (tests/vm/run.sh): the cases marked
# `# tcg: multi` into one multi-threaded boot, those marked `# tcg:
# icount` into one -icount boot (one vCPU), the others into
# single-threaded shards of about SHARD_S seconds each (or --shards N).
# The boots then run side by side in SLOTS slots, a slot a QEMU thread
# that runs vCPUs: a single-threaded boot takes one, a multi-threaded one
# as many as its vCPUs (2). SLOTS (KJIT_VM_SLOTS) is the host's cores and
# one more: a guest waits for timers and grace periods part of the time
# (a single-threaded boot kept 0.70 of a core busy, a multi-threaded one
# 1.1 of two, on a 2-core host with nothing else running), so on 2 cores
# a multi-threaded boot runs beside one single-threaded boot, or three
# single-threaded boots (or two and the host tests) run at once.
# Longer boots start first; a boot's length is what its cases took in the
# last run here (build/vm/case-times), else on the reference host
# (tests/vm/case-times: "vm.KERNEL.CASE SECONDS [LIMIT]" a line, "host
# SECONDS" for the host tests), else a third of their limits.
#
# A case marked `# kernels: once` runs on the first KERNEL only (kjit's
# own logic, nothing new on a second kernel), unless --every-case. On a
# kernel that scripts/kernels marks `spot` (spot-checked: 6.12-rt) only
# the cases marked `# kernels: spot` run, unless --every-case.
#
# Usage: matrix.sh --build DIR --results DIR [--shards N] [--slots N]
#                  [--host CMD] [--every-case] KERNEL... [-- CASE...]
# --host CMD: one more job of one core, CMD run by sh (`make test`: the
# host tests, tests/run-host.sh), its output in RESULTS/boots/host.out.
# Writes, per kernel, RESULTS/vm-KERNEL.results (every boot's results),
# vm-KERNEL-console.log (their console logs, one after the other) and
# vm-KERNEL.results.times; each boot's own files are under RESULTS/boots/.
# Prints a line as each boot starts and ends. Exit status 1 if anything
# failed.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
BUILD="" RES="" SHARDS=${KJIT_VM_SHARDS:-} SLOTS=${KJIT_VM_SLOTS:-} HOST="" EVERY=0
SHARD_S=250 # without --shards: about this many seconds of cases a shard
while [ $# -gt 0 ]; do
	case $1 in
	--host) HOST=$2; shift 2 ;;
	--every-case) EVERY=1; shift ;;
	--build) BUILD=$2; shift 2 ;;
	--results) RES=$2; shift 2 ;;
	--shards) SHARDS=$2; shift 2 ;;
	--slots) SLOTS=$2; shift 2 ;;
	--) shift; break ;;
	*) KERNELS="${KERNELS:-} $1"; shift ;;
	esac
done
[ -n "$BUILD" ] && [ -n "$RES" ] && [ -n "${KERNELS:-}" ] || {
	echo "usage: matrix.sh --build DIR --results DIR KERNEL... [-- CASE...]" >&2
	exit 2
}
[ $# -gt 0 ] || set -- "$HERE"/cases/*.sh
# a bare name (attach_counts) is tests/vm/cases/attach_counts.sh
CASES=""
for c in "$@"; do
	case $c in
	*/* | *.sh) ;;
	*) c=$HERE/cases/$c.sh ;;
	esac
	[ -f "$c" ] || { echo "matrix.sh: no case $c" >&2; exit 2; }
	CASES="$CASES $c"
done
ncpu=$(nproc 2> /dev/null || echo 2)
[ -n "$SLOTS" ] || SLOTS=$((ncpu + 1))
[ "$SLOTS" -ge 1 ] || SLOTS=1
BOOTS=$RES/boots
mkdir -p "$BOOTS"
: > "$RES/pace" # "vm.KERNEL.GROUP FACTOR (MS ms)" per boot (init.sh's KJIT-PACE)
OLD_TIMES=$BUILD/vm/case-times # what the last run here measured
REF_TIMES=$HERE/case-times       # what the reference host measured
mkdir -p "$BUILD/vm"

multi_case() { grep -q '^# tcg: *multi *$' "$1"; }
icount_case() { grep -q '^# tcg: *icount *$' "$1"; }
# A case marked `# kernels: once` tests kjit's own logic (the tool, the
# module's tables and requests), in which the kernel is only the host: it
# runs on the first kernel of the run only (--every-case: on each).
once_case() { grep -q '^# kernels: *once *$' "$1"; }
# A case marked `# kernels: spot` is one whose outcome a spot-checked
# kernel can change (locking and preemption on PREEMPT_RT, SMP, sleeping
# tasks, interrupts, the kernel's code paths); it also runs on every kernel.
spot_case() { grep -q '^# kernels: *spot *$' "$1"; }
spot_kernel() {
	awk -v k="$1" '$1 == k { for (i = 3; i <= NF; i++) if ($i == "spot") f = 1 }
		END { exit !f }' \
		"$HERE/../../scripts/kernels" 2> /dev/null
}
FIRST=${KERNELS# }
FIRST=${FIRST%% *}
case_limit() {
	t=$(sed -n 's/^# timeout: *\([0-9]*\).*/\1/p' "$1" | head -n 1)
	echo "${t:-60}"
}
# times_of NAME: seconds NAME took here last time, else on the reference
# host, else nothing.
times_of() {
	for f in "$OLD_TIMES" "$REF_TIMES"; do
		t=$(awk -v n="$1" '$1 == n { t = $2 } END { if (t != "") printf "%d", t + 1 }' \
			"$f" 2> /dev/null)
		[ -n "$t" ] && { echo "$t"; return; }
	done
}
# case_cost KERNEL CASE: seconds it took (times_of), else a third of its
# limit (what cases take on the reference host, roughly).
case_cost() {
	name=$(basename "$2" .sh)
	t=$(times_of "vm.$1.$name")
	echo "${t:-$(($(case_limit "$2") / 3))}"
}

# The jobs, one line each: COST SLOTS KERNEL GROUP CASE... Single-threaded
# cases are dealt to the shards longest first, each to the shard with
# the least so far.
jobs=$BOOTS/jobs
: > "$jobs"
for k in $KERNELS; do
	multi="" mcost=0 icount="" icost=0
	: > "$BOOTS/$k.single"
	spot=0
	[ $EVERY = 0 ] && spot_kernel "$k" && spot=1
	for c in $CASES; do
		[ $EVERY = 0 ] && [ "$k" != "$FIRST" ] && once_case "$c" && continue
		[ $spot = 1 ] && ! spot_case "$c" && continue
		cost=$(case_cost "$k" "$c")
		if multi_case "$c"; then
			multi="$multi $c" mcost=$((mcost + cost))
		elif icount_case "$c"; then
			icount="$icount $c" icost=$((icost + cost))
		else
			echo "$cost $c" >> "$BOOTS/$k.single"
		fi
	done
	[ -n "$multi" ] && echo "$mcost 2 $k multi$multi" >> "$jobs"
	[ -n "$icount" ] && echo "$icost 1 $k icount$icount" >> "$jobs"
	n=${SHARDS:-$(awk -v s=$SHARD_S '{ t += $1 } END { n = int(t / s + 0.5); print n < 1 ? 1 : n }' \
		"$BOOTS/$k.single")}
	i=0
	while [ $i -lt "$n" ]; do echo 0 > "$BOOTS/$k.shard$i"; i=$((i + 1)); done
	sort -rn "$BOOTS/$k.single" | while read -r cost c; do
		best=0 bcost=""
		i=0
		while [ $i -lt "$n" ]; do
			s=$(head -n 1 "$BOOTS/$k.shard$i")
			if [ -z "$bcost" ] || [ "$s" -lt "$bcost" ]; then best=$i bcost=$s; fi
			i=$((i + 1))
		done
		{ echo $((bcost + cost)); tail -n +2 "$BOOTS/$k.shard$best"; echo "$c"; } \
			> "$BOOTS/$k.shard$best.new"
		mv "$BOOTS/$k.shard$best.new" "$BOOTS/$k.shard$best"
	done
	i=0
	while [ $i -lt "$n" ]; do
		f=$BOOTS/$k.shard$i
		[ "$(wc -l < "$f")" -gt 1 ] &&
			echo "$(head -n 1 "$f") 1 $k single$i $(tail -n +2 "$f" | tr '\n' ' ')" >> "$jobs"
		rm -f "$f"
		i=$((i + 1))
	done
	rm -f "$BOOTS/$k.single"
done
if [ -n "$HOST" ]; then
	cost=$(times_of host)
	echo "${cost:-300} 1 host tests" >> "$jobs"
fi
sort -rn "$jobs" -o "$jobs"

# run_job KERNEL GROUP CASE...: one boot of run.sh, its output to a file;
# the host tests for KERNEL "host".
run_job() {
	k=$1 g=$2
	shift 2
	if [ "$k" = host ]; then
		t=$(date +%s)
		sh -c "$HOST" > "$BOOTS/host.out" 2>&1
		r=$?
		echo "host $(($(date +%s) - t))" > "$BOOTS/host.time"
		return $r
	fi
	tcg="--accel tcg,thread=single --suffix .$g"
	[ "$g" = multi ] && tcg="--accel tcg,thread=multi --suffix .$g"
	[ "$g" = icount ] && tcg=--icount # one -icount boot (suffix .icount)
	# (word splitting of $tcg is meant)
	sh "$HERE/run.sh" --build "$BUILD" --kernel "$k" $tcg \
		--log "$BOOTS/$k.$g-console.log" \
		--results "$BOOTS/$k.$g.results" "$@" > "$BOOTS/$k.$g.out" 2>&1
}

now() { date +%s; }
t0=$(now)
free=$SLOTS running="" rc=0
held1=0 # slots held by one-slot jobs (single-threaded boots, host tests)
cp "$jobs" "$BOOTS/pending"
# Start every job that fits, longest first. A multi-threaded boot that
# does not fit waits for its slots; a later one-slot job goes ahead of it
# only while the slots that one-slot jobs hold leave it room (on 2 cores:
# one single-threaded boot beside a multi-threaded one), so it waits only
# for another multi-threaded boot to end, never for ever.
start_jobs() {
	reserve=0
	: > "$BOOTS/pending.new"
	while read -r cost need k g cases; do
		[ "$need" -gt "$SLOTS" ] && need=$SLOTS
		go=0
		if [ "$need" -le "$free" ]; then
			go=1
			[ "$need" = 1 ] && [ "$reserve" -gt 0 ] &&
				[ $((held1 + 1)) -gt $((SLOTS - reserve)) ] && go=0
		fi
		if [ $go = 0 ]; then
			echo "$cost $need $k $g $cases" >> "$BOOTS/pending.new"
			[ "$need" -gt 1 ] && [ "$reserve" = 0 ] && reserve=$need
			continue
		fi
		free=$((free - need))
		[ "$need" = 1 ] && held1=$((held1 + 1))
		# shellcheck disable=SC2086 # the cases are words
		run_job "$k" "$g" $cases < /dev/null &
		running="$running $!:$need:$k:$g:$(now)"
		if [ "$k" = host ]; then
			echo "vm: +$(($(now) - t0))s start host tests (~${cost}s)"
		else
			set -- $cases
			echo "vm: +$(($(now) - t0))s start $k $g ($# cases, ~${cost}s)"
		fi
	done < "$BOOTS/pending"
	mv "$BOOTS/pending.new" "$BOOTS/pending"
}
while :; do
	start_jobs
	[ -n "$running" ] || break
	sleep 2
	still=""
	for j in $running; do
		pid=${j%%:*} rest=${j#*:}
		need=${rest%%:*} rest=${rest#*:}
		k=${rest%%:*} rest=${rest#*:}
		g=${rest%%:*} since=${rest#*:}
		if kill -0 "$pid" 2> /dev/null; then
			still="$still $j"
			continue
		fi
		wait "$pid" || rc=1
		free=$((free + need))
		[ "$need" = 1 ] && held1=$((held1 - 1))
		if [ "$k" = host ]; then
			r=$RES/host.results
			echo "vm: +$(($(now) - t0))s end   host tests after $(($(now) - since))s:" \
				"$(grep -c '^KJIT-RESULT PASS' "$r" 2> /dev/null) passed," \
				"$(grep -c '^KJIT-RESULT FAIL' "$r" 2> /dev/null) failed"
			grep '^KJIT-RESULT FAIL' "$r" 2> /dev/null | sed 's/^/  /'
			continue
		fi
		r=$BOOTS/$k.$g.results
		pace=$(sed -n 's/^KJIT-PACE \([0-9]*\) ms.*factor \([0-9.]*\).*/\2 (\1 ms)/p' \
			"$BOOTS/$k.$g.out" | head -n 1)
		echo "vm.$k.$g ${pace:-?}" >> "$RES/pace"
		echo "vm: +$(($(now) - t0))s end   $k $g after $(($(now) - since))s" \
			"(pace ${pace:-?}):" \
			"$(grep -c '^KJIT-RESULT PASS' "$r" 2> /dev/null) passed," \
			"$(grep -c '^KJIT-RESULT FAIL' "$r" 2> /dev/null) failed"
		grep '^KJIT-RESULT FAIL' "$r" 2> /dev/null | sed 's/^/  /'
	done
	running=$still
done

# Per kernel: every boot's results, times and console logs in one file.
for k in $KERNELS; do
	cat "$BOOTS/$k".*.results > "$RES/vm-$k.results" 2> /dev/null
	cat "$BOOTS/$k".*.results.times > "$RES/vm-$k.results.times" 2> /dev/null
	cat "$BOOTS/$k".*-console.log > "$RES/vm-$k-console.log" 2> /dev/null
	# a spot-checked kernel given none of its cases (VM_CASES=...)
	awk -v k="$k" '$3 == k { f = 1 } END { exit f }' "$jobs" &&
		echo "KJIT-RESULT SKIP vm.$k.cases none of the cases given runs on $k (spot-checked: the cases marked kernels: spot)" \
			>> "$RES/vm-$k.results"
done
# what this run measured, over what the last runs here did
touch "$OLD_TIMES"
cat "$RES"/vm-*.results.times "$BOOTS/host.time" 2> /dev/null |
	awk 'FNR == NR { new[$1] = $0; next } !($1 in new) { print } END { for (k in new) print new[k] }' \
		- "$OLD_TIMES" 2> /dev/null > "$OLD_TIMES.new"
[ -s "$OLD_TIMES.new" ] && mv "$OLD_TIMES.new" "$OLD_TIMES"
rm -f "$OLD_TIMES.new"
echo "vm: every boot done in $(($(now) - t0))s in $SLOTS slots on $ncpu host cores"
exit $rc
