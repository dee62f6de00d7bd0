# lmbench - the LMbench-style suite (tests/vm/progs/lmbench.c) natively, under
# kjit deep counting at the system call entry points it uses, and under
# counting Kprobes on the blocks kjit translated, all in one boot; stress-ng
# native vs kjit deep; the translator's time and cache per workload; the time
# to attach N functions. Native and kjit runs alternate in ROUNDS rounds,
# so that a change in the host's load between them (TCG shares the host)
# hits both; the report takes each round's kjit/native ratio. bench/run.sh turns the output into
# docs/results/lmbench.md and docs/results/memory.md.
#
# bench/run.sh hands in /tests/lmbench-extra.tar: stress-ng with its
# libraries and /tests/lmbench.conf (these settings). Without it the
# defaults below hold and stress-ng is skipped. Every section runs even when
# one fails; the case fails at the end.
# timeout: 1500
. /tests/lib.sh
ROUNDS=3            # native, kjit; native, kjit; ...
REPS=5 MS=200       # lmbench: repetitions, milliseconds per repetition
KP_REPS=5 KP_MS=200 # the same under Kprobes
KP_MAX=4096         # most Kprobes armed (kjit_kprobes' limit)
# the whole suite follows ~1000 callees and translates ~8000 blocks a CPU:
# kjit.ko's defaults (deep_max=4096 max_blocks=16384 cache_kb=2048) hold
# it; the stats lines' over_budget, fallback_full, fallback_map_full and
# pcpu_full say if anything ran natively for lack of room
KJIT_PARAMS=""
KJIT_SKIP="" # benchmarks not run under kjit (and so not under Kprobes)
SNG_ROUNDS=2 SNG_SECS=4 SNG_STRESSORS="null pipe fork mmap" SNG_OPTS="--mmap-bytes 2m"
MEM_MS=100
ATTACH_N="1 8 32 64" ATTACH_REPS=3
STRESS=1 MEMORY=1 ATTACHTIME=1 # sections after the suite (0: skip)
[ -f /tests/lmbench-extra.tar ] && tar -xf /tests/lmbench-extra.tar -C /
[ -f /tests/lmbench.conf ] && . /tests/lmbench.conf
bad=""
failed() { bad="$bad $*;"; echo "SECTION-FAILED $*"; }
stamp() { date -u +%H:%M:%S; }
SKIP=""
for b in $KJIT_SKIP; do SKIP="$SKIP -x $b"; done
round=1
suite() { # suite CONFIG REPS MS [lmbench options]
	echo "SECTION $1 reps=$2 ms=$3 round=$round $(stamp)"
	c=$1 r=$2 t=$3
	shift 3
	lmbench -c 0 -r "$r" -t "$t" "$@" || failed "lmbench $c"
}

load_kjit $KJIT_PARAMS
insmod /lib/kjit/kjit_kprobes.ko || fail "insmod kjit_kprobes.ko"
echo "PARAMS kjit.ko ${KJIT_PARAMS:-defaults}; not under kjit: ${KJIT_SKIP:-none}"
ENTRIES=$(lmbench -l)
echo "ENTRIES $ENTRIES"
icount_settle

attached=1
while [ $round -le $ROUNDS ] && [ $attached = 1 ]; do
	suite native "$REPS" "$MS"
	if kjitbench attach -d $ENTRIES; then
		suite kjit "$REPS" "$MS" $SKIP
		kjitbench stats suite || failed "stats"
		kjitbench detach || failed "detach"
	else
		failed "attach"
		attached=0
	fi
	round=$((round + 1))
done

# Kprobes on the blocks of the last round's kjit session
if [ $attached = 1 ]; then
	echo "SECTION kprobes-arm $(stamp)"
	kjitbench kprobes-on -n "$KP_MAX" 90 || failed "kprobes-on"
	suite kprobes "$KP_REPS" "$KP_MS" $SKIP
	kjitbench kprobes-off || failed "kprobes-off"
fi

# stress-ng: bogo operations per second, native then kjit deep, in rounds
stressng() { # stressng CONFIG ROUND
	for s in $SNG_STRESSORS; do
		stress-ng --$s 1 $SNG_OPTS --taskset 0 -t "${SNG_SECS}s" \
			--metrics-brief --temp-path /tmp > /tmp/sng.out 2>&1 ||
			{ cat /tmp/sng.out; failed "stress-ng $1 $s"; continue; }
		awk -v c="$1" -v r="$2" -v s="$s" '$4 == s && $5 ~ /^[0-9]+$/ {
			print "SNG", c, s, $5, $6, $(NF-1), r }' /tmp/sng.out
	done
}
if [ "$STRESS" != 1 ]; then
	echo "SECTION stress-ng skipped: STRESS=$STRESS"
elif command -v stress-ng > /dev/null; then
	echo "SECTION stress-ng secs=$SNG_SECS $(stamp)"
	echo "SNGVERSION $(stress-ng --version)"
	echo "SNGCMD stress-ng --STRESSOR 1 $SNG_OPTS --taskset 0 -t ${SNG_SECS}s --metrics-brief --temp-path /tmp"
	r=1
	while [ $r -le $SNG_ROUNDS ]; do
		stressng native $r
		if kjitbench attach -d $ENTRIES; then
			stressng kjit $r
			kjitbench stats stress-ng || failed "stats"
			kjitbench detach || failed "detach"
		else
			failed "attach (stress-ng)"
		fi
		r=$((r + 1))
	done
else
	echo "SECTION stress-ng skipped: not in the guest image"
fi

# translation time and cache bytes per workload: one deep session per
# benchmark, attached at that benchmark's entry points only. A calibrated run
# translates the path; then a run of as many operations with the counters
# zeroed gives the blocks executed per operation (MEMRUN ... ops=).
[ "$MEMORY" = 1 ] && echo "SECTION memory ms=$MEM_MS $(stamp)"
for b in $(lmbench -L); do
	[ "$MEMORY" = 1 ] || break
	case " $KJIT_SKIP " in *" $b "*) continue ;; esac
	kjitbench attach -d $(lmbench -l "$b") || { failed "attach $b"; continue; }
	lmbench -c 0 -r 1 -t "$MEM_MS" "$b" > /tmp/lm.out || failed "lmbench $b"
	it=$(sed -n 's/.* iters=\([0-9]*\).*/\1/p' /tmp/lm.out)
	kjitbench reset || failed "reset $b"
	lmbench -c 0 -r 1 -n "${it:-1}" "$b" > /tmp/lm.out || failed "lmbench -n $b"
	sed 's/^LM /MEMRUN /' /tmp/lm.out
	kjitbench stats "$b" || failed "stats $b"
	kjitbench detach > /dev/null || failed "detach $b"
done
# why stat and fstat have one block: their callees cannot be followed
kjit list __do_sys_newstat __do_sys_newfstat | sed 's/^/LIST /'

if [ "$ATTACHTIME" = 1 ]; then
	echo "SECTION attach-time $(stamp)"
	kjitbench attach-time -r "$ATTACH_REPS" $ATTACH_N || failed "attach-time"
fi

echo "SECTION end $(stamp)"
rmmod kjit_kprobes
unload_kjit
[ -z "$bad" ] || fail "failed:$bad"
