# lines - the LMbench-style suite once under `kjit record --deep` at the
# system call entry points it uses, scoped as record scopes by default (the
# suite and the processes it forks). The recording goes to the host as
# "KJIT-DATA " lines; bench/run.sh maps it to the kernel's source lines with
# the -dbg vmlinux (make bench KJIT_DBG=1, or BENCH_ONLY=lines):
# docs/results/lines.md.
# timeout: 900
. /tests/lib.sh
REPS=1 MS=50
load_kjit
# the entry points kjit can instrument (exc_page_fault is noinstr: the
# page faults are counted below handle_mm_fault)
ENTRIES=$(kjit list $(lmbench -l) | awk '$2 == "yes" { print $3 }' | tr '\n' ' ')
echo "ENTRIES $ENTRIES"
echo "NOT $(kjit list $(lmbench -l) | awk '$1 ~ /^0x/ && $2 != "yes"' | tr -s ' ' | tr '\n' ';')"
echo "RECORD kjit record --deep -f <the entries> -o /tmp/lm.data -- lmbench -c 0 -r $REPS -t $MS"
kjit record --deep -f $ENTRIES -o /tmp/lm.data -- lmbench -c 0 -r $REPS -t $MS \
	> /tmp/lm.out 2>&1 || { cat /tmp/lm.out; fail "kjit record"; }
sed 's/^/RECORD-OUT /' /tmp/lm.out
kjit report -i /tmp/lm.data > /tmp/lm.txt || fail "kjit report"
awk 'NF == 0 { if (++blank == 2) exit } { print "REPORT " $0 }' /tmp/lm.txt | head -n 40
sed 's/^/KJIT-DATA /' /tmp/lm.data
unload_kjit
