#!/bin/sh
# silicon-costs.sh - what one executed block and one lookup-table hit cost
# on this host's silicon, from the committed results, for the silicon
# estimate of bench/lmbench-icount-report.sh:
#  - a block: docs/results/silicon.md, the vmlinux mix with the module's
#    counter form ("kjit, per-CPU near (disp32)": tests/host/bench_silicon.c
#    names its rows), ns added per block over native;
#  - a hit: docs/results/ibl.md, "ibl (hit)" (the probe that saves the
#    flags: an upper bound for the flags-dead one), ns added over native.
# Prints "KB_BLOCK_NS=X KB_IBL_NS=Y"; exits 1, naming the row it could not
# find, when either is missing (a renamed row must not drop the estimate
# without a word).
# Usage: bench/silicon-costs.sh ROOT
root=${1:?usage: $0 ROOT}
sil=$root/docs/results/silicon.md
ibl=$root/docs/results/ibl.md
block=$(sed -n 's/^| vmlinux mix | kjit, per-CPU near (disp32) | [0-9.]* | \([0-9.]*\) .*/\1/p' "$sil" 2>/dev/null | head -n 1)
hit=$(sed -n 's/^| ibl (hit) | [^|]* | [0-9.]* | [0-9.]* | \([0-9.]*\) .*/\1/p' "$ibl" 2>/dev/null | head -n 1)
st=0
[ -n "$block" ] || { echo "silicon-costs: no 'vmlinux mix | kjit, per-CPU near (disp32)' row in $sil" >&2; st=1; }
[ -n "$hit" ] || { echo "silicon-costs: no 'ibl (hit)' row in $ibl" >&2; st=1; }
[ $st = 0 ] && echo "KB_BLOCK_NS=$block KB_IBL_NS=$hit"
exit $st
