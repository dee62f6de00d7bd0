# plots.gp - the PNG plots of docs/results/, from data files that
# bench/lmbench-report.sh writes. Run as
#   gnuplot -e "dat='BUILD/bench'; out='docs/results'" bench/plots.gp
# overhead.dat: benchmark, kjit deep / native, Kprobes / native ("-": none)
# perblock.dat: micro case, kjit ns per block, Kprobes ns per block ("-":
#               at or below zero, i.e. within TCG's noise)
set terminal pngcairo size 1100,600 font "sans,10" noenhanced
set datafile missing "-"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set logscale y
set grid ytics
set key top left
set xtics rotate by -35 scale 0

set output out."/lmbench-overhead.png"
set title "LMbench-style suite under TCG: slowdown against native (log scale; 2x is the target for kjit deep)"
set ylabel "time / native time (bandwidth: native / measured)"
set yrange [0.5:*]
plot dat."/overhead.dat" using 2:xtic(1) title "kjit deep counting" lc rgb "#2a7ab0", \
     "" using 3 title "Kprobes on kjit's blocks" lc rgb "#d9822b", \
     2 with lines dt 2 lc rgb "#b02a2a" title "2x", \
     1 with lines lc rgb "#444444" notitle

if (perblock_ok) {
	set output out."/perblock.png"
	set title "Added cost per executed block, bench/micro.sh (log scale; kprobes-opt=1 allows optimized Kprobes; no kjit bar: at or below TCG noise)"
	set ylabel "ns per block executed"
	set yrange [0.1:*]
	plot dat."/perblock.dat" using 2:xtic(1) title "kjit" lc rgb "#2a7ab0", \
	     "" using 3 title "Kprobes" lc rgb "#d9822b"
}
