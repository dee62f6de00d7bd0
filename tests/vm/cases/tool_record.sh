# tool_record - `kjit record` then `kjit report`: the data file (format
# version, kernel, command, functions, blocks, end), report from the file
# in every format and sort order, --top with disassembly, coverage, a file
# from "another boot", cut and foreign files, record errors; ^C, SIGTERM
# and SIGHUP stop the command, and record still detaches and saves; a
# recorder killed with SIGKILL leaves nothing attached.
# kernels: once
# timeout: 120
. /tests/lib.sh
load_kjit
mkdir -p /tmp/rec && cd /tmp/rec || fail "mkdir"
kjit record -f ksys_read vfs_read -- workload read 100 2> /tmp/e.out || { cat /tmp/e.out; fail "record"; }
cat /tmp/e.out
grep -q 'recorded [0-9]* blocks* of 2 functions.* to kjit.data' /tmp/e.out || fail "record summary"
kjit stat | grep -q 'state: detached' || fail "record left the session attached"
head -n 1 kjit.data | grep -qx 'kjit-data 2' || fail "magic line"
grep -qx "kernel $(uname -r)" kjit.data || fail "kernel line"
grep -qx 'command workload read 100' kjit.data || fail "command line"
grep -Eq '^time 20[0-9]{2}-[0-9]{2}-[0-9]{2}T' kjit.data || fail "time line"
grep -Eq '^func 0x[0-9a-f]+ 0x[0-9a-f]+ [0-9]+ [0-9]+ ksys_read$' kjit.data || fail "func line"
tail -n 1 kjit.data | grep -qx end || fail "end line"

kjit report > /tmp/r.txt || fail "report (default file)"
cat /tmp/r.txt
grep -q '^# kjit report: kjit.data, recorded ' /tmp/r.txt || fail "report did not read kjit.data"
calls=$(awk '$1 == "ksys_read" {print $2}' /tmp/r.txt)
[ "${calls:-0}" -ge 100 ] || fail "ksys_read calls ${calls:-0} < 100"
grep -Eq '^ksys_read +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9.]+%$' /tmp/r.txt || fail "no coverage for ksys_read"

kjit report --csv > /tmp/r.csv || fail "csv"
head -n 1 /tmp/r.csv | grep -qx 'function,offset,address,count,len,insns,cpus,entry' || fail "csv header"
c=$(awk -F, '$1 == "ksys_read" && $8 == 1 {print $4}' /tmp/r.csv)
[ "${c:-0}" -ge 100 ] || fail "csv entry count ${c:-0}"
kjit report --csv --sort addr | tail -n +2 | cut -d, -f3 > /tmp/a1
sort /tmp/a1 | cmp -s - /tmp/a1 || fail "--sort addr not ascending"
kjit report --csv --sort count | tail -n +2 | cut -d, -f4 > /tmp/c1
sort -rn /tmp/c1 | cmp -s - /tmp/c1 || fail "--sort count not descending"
kjit report --csv --sort func | tail -n +2 | cut -d, -f1 | uniq | tr '\n' ' ' | grep -qx 'ksys_read vfs_read ' ||
	fail "--sort func"
[ "$(kjit report --csv --top 3 | wc -l)" = 4 ] || fail "--top 3 csv rows"

kjit report --json > /tmp/r.json || fail "json"
grep -q '^  "kjit_report": 1,$' /tmp/r.json || fail "json version"
grep -q '^  "source": "file",$' /tmp/r.json || fail "json source"
grep -q '^  "command": "workload read 100",$' /tmp/r.json || fail "json command"
grep -Eq '^  "scope": "command \(pid [0-9]+ and the processes it forks\)",$' /tmp/r.json || fail "json scope"
grep -Eq '^# scope: command \(pid [0-9]+ and the processes it forks\)$' /tmp/r.txt || fail "text scope"
grep -Eq '^scope command \(pid [0-9]+ and ' kjit.data || fail "kjit.data scope"
kjit record -a -f vfs_read -o /tmp/all.data -- true 2> /dev/null || fail "record -a"
grep -qx 'scope system-wide, kjit left out' /tmp/all.data || fail "record -a: scope"
kjit report -i /tmp/all.data | grep -q "^# scope: system-wide, kjit left out (every task on every CPU but kjit's own" || fail "text scope -a"
grep -Eq '"name": "ksys_read", "start": "0x[0-9a-f]+", .*"coverage": 0\.[0-9]+, "native": \{"total": [0-9]+, ' /tmp/r.json ||
	fail "json function"
[ "$(grep -c '"function": ' /tmp/r.json)" = "$(tail -n +2 /tmp/r.csv | wc -l)" ] || fail "json block count"

kjit report --top 2 > /tmp/t.txt || fail "--top"
cat /tmp/t.txt
[ "$(grep -Ec '^ +[0-9]+  [a-z_]+\+0x[0-9a-f]+ +0x' /tmp/t.txt)" = 2 ] || fail "--top 2 rows"
grep -Eq '^              0xffffffff[0-9a-f]{8}  ' /tmp/t.txt || fail "--top: no disassembly"

kjit record -f vfs_read -o /tmp/rec/other.data -- workload getpid 5 2> /dev/null || fail "record -o"
kjit report -i /tmp/rec/other.data | grep -q 'command: workload getpid 5' || fail "report -i"
# another boot: the hot block from the code the file stored; without the
# code (an older kjit's file), no disassembly, and why
sed 's/^boot_id .*/boot_id another-boot/' kjit.data > old.data
kjit report -i old.data --top 1 > /tmp/o.txt
grep -Eq '^              0xffffffff[0-9a-f]{8}  ' /tmp/o.txt && ! grep -q 'no disassembly' /tmp/o.txt ||
	fail "another boot: no disassembly from the stored code: $(cat /tmp/o.txt)"
grep -v '^code ' old.data > nocode.data
kjit report -i nocode.data --top 1 | grep -q 'no disassembly of 1 block: recorded on another boot' ||
	fail "other boot not detected"
kjit report -i old.data | grep -Eq '^ksys_read .*%$' || fail "recorded coverage lost"
head -n 5 kjit.data > cut.data
kjit report -i cut.data 2> /tmp/e.out && fail "cut file accepted"
grep -qx 'kjit report: cut.data: file is cut short (no end record)' /tmp/e.out || fail "cut message"
echo hello > junk.data
kjit report -i junk.data 2> /tmp/e.out && fail "junk accepted"
grep -q 'not a kjit data file' /tmp/e.out || fail "junk message"
kjit report -i nofile.data 2> /tmp/e.out && fail "missing file"
grep -q 'cannot open nofile.data' /tmp/e.out || fail "missing file message"
kjit report --sort size 2> /dev/null; [ $? = 2 ] || fail "bad --sort: usage"

# deep mode: callees of ksys_read join the session, marked in file and report
if kjit record --deep -f ksys_read -o deep.data -- workload read 20 2> /tmp/e.out; then
	grep -qx 'stat deep 1' deep.data || fail "deep record: no 'stat deep 1'"
	grep -Eq '^deep [0-9]+$' deep.data || fail "deep record: no deep function"
	kjit report -i deep.data | grep -q '^vfs_read (deep) ' || fail "report: vfs_read not followed"
	kjit report -i deep.data --json | grep -q '"name": "vfs_read", .*"deep": true' ||
		fail "json: deep flag"
else
	cat /tmp/e.out
	grep -q 'not supported by this kjit.ko yet' /tmp/e.out || fail "record --deep message"
fi
kjit record -f vfs_read 2> /tmp/e.out; [ $? = 2 ] || fail "record without command: usage"
kjit record -f no_such_fn -- true 2> /tmp/e.out && fail "record unknown function"
grep -q 'no such kernel function' /tmp/e.out || fail "record unknown message"
kjit record -f vfs_read -- /no/such/program 2> /tmp/e.out
grep -q 'cannot run /no/such/program' /tmp/e.out || fail "exec failure not reported"
# ^C (SIGINT to the whole process group) stops the command, not kjit:
# it still detaches and saves
# (setsid execs in place here: the case's commands are not group leaders)
setsid kjit record -f vfs_read -o sig.data -- sh -c 'kill -INT 0; sleep 5' 2> /tmp/e.out
for i in 1 2 3 4 5 6 7 8 9 10; do [ -e sig.data ] && break; sleep 1; done
cat /tmp/e.out
grep -q 'exited with status 130' /tmp/e.out || fail "SIGINT: command status not reported"
tail -n 1 sig.data | grep -qx end || fail "SIGINT: no complete data file"
kjit stat | grep -q 'state: detached' || fail "SIGINT left the session attached"
# --best-effort (record -f '*' on 6.1): what can be attached is, each
# refusal named
kjit record --best-effort -f vfs_read entry_SYSCALL_64 -o be.data -- workload read 10 2> /tmp/e.out ||
	{ cat /tmp/e.out; fail "record --best-effort"; }
grep -q 'entry_SYSCALL_64: refused by kjit.ko: entry text' /tmp/e.out ||
	{ cat /tmp/e.out; fail "record --best-effort: the refusal is not named"; }
kjit report -i be.data --csv | grep -q '^vfs_read,' || fail "record --best-effort: vfs_read not recorded"
# SIGTERM to kjit itself (timeout(1)), and SIGHUP: passed on to the
# command; kjit detaches, saves and says so (it was killed, leaving the
# kernel patched and no file). Sent once the session is attached: on the
# KASAN kernel timeout(1)'s 4 s ran out while record still read kallsyms
for sig in TERM HUP; do
	rm -f sig.data
	kjit record -f vfs_read -o sig.data -- sleep 60 2> /tmp/e.out & t=$!
	i=0
	while [ $i -lt 300 ] && ! kjit stat 2> /dev/null | grep -q 'state: attached'; do
		sleep 0.2
		i=$((i + 1))
	done
	kill -$sig $t || fail "SIG$sig: no kjit record to signal"
	wait $t
	rc=$?
	cat /tmp/e.out
	grep -q "^kjit record: stopped by .* (passed on to sleep); detached$" /tmp/e.out ||
		fail "SIG$sig: record does not say it stopped (exit $rc)"
	tail -n 1 sig.data | grep -qx end || fail "SIG$sig: no complete data file"
	kjit stat | grep -q 'state: detached' || fail "SIG$sig left the session attached"
done
# SIGKILL: the session is the recorder's open /dev/kjit's (KJIT_IOC_OWN),
# so kjit.ko detaches when that goes, however kjit died (the command's
# copy of it closed at exec)
kjit record -f vfs_read -o kill.data -- sleep 61 2> /dev/null & r=$!
i=0
while [ $i -lt 100 ] && ! kjit stat 2> /dev/null | grep -q 'state: attached'; do
	sleep 0.2
	i=$((i + 1))
done
sleep 1
kill -9 $r
wait $r 2> /dev/null
kjit stat | grep -q 'state: detached' || fail "SIGKILL left the session attached"
dmesg | grep 'closed /dev/kjit while attached' || fail "no kernel line for the owner's close"
pkill -f 'sleep 61'
rm -f kjit.data; cd /tmp
unload_kjit
