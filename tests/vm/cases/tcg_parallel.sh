# tcg_parallel - the multi-threaded TCG boot really runs both vCPUs at once.
# `overlap` spins one process on each CPU, each sampling the other's counter
# every few microseconds: under single-threaded TCG the vCPUs take turns on
# one host thread in slices of milliseconds and the other counter stands
# still in nearly every sample (fraction ~0.001); here it must move in at
# least MIN of them (less than 1 only where the host's other load
# deschedules a vCPU thread). The getpid timing (both CPUs against one) is
# shown, not judged: it is ~1.0 with two idle host cores, ~2.0 when taking
# turns, and anything between on a busy host.
# tcg: multi
# timeout: 120
. /tests/lib.sh
MIN=0.05
overlap 5 > /tmp/overlap || fail "overlap"
cat /tmp/overlap
for cpu in 0 1; do
	f=$(sed -n "s/^cpu$cpu .*fraction=//p" /tmp/overlap)
	awk -v f="$f" -v m=$MIN 'BEGIN { exit !(f >= m) }' ||
		fail "CPU $cpu saw CPU $((1 - cpu)) run in a fraction ${f:-?} of its samples (< $MIN): the vCPUs took turns"
done
ns() { sed -n 's/^ns_per_op=//p' "$1"; }
workload -c 0 time getpid 500000 > /tmp/alone || fail "workload alone"
workload -c 0 time getpid 500000 > /tmp/p0 & p0=$!
workload -c 1 time getpid 500000 > /tmp/p1 || fail "workload on CPU 1"
wait $p0 || fail "workload on CPU 0"
echo "getpid: alone $(ns /tmp/alone) ns/call, on both CPUs at once $(ns /tmp/p0) and $(ns /tmp/p1) ns/call"
