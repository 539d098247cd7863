#!/bin/sh
# gpuctl trace and stat, bpf backend, against the model's stock-driver trace points.
. "$(dirname "$0")/../lib.sh"
G=$GPUCTL
T=$T_DIR

uvmsim reset va_blocks 64 batch 64 >/dev/null || fail "uvmsim reset" "failed"

expect_exit 0 $G probe
expect_out "probe names the trace backend" "trace backend +bpf"

# stat for a command: counts of the command's faults
expect_exit 0 $G -j stat -- uvmsim run seq blocks 4
expect_json "stat -- CMD"
expect_json_eq "stat -- CMD: its exit status in the document" .command_status 0
expect_json_expr "stat counts gpu faults" 'j["counters"]["gpu_faults"] > 0 and j["backend"] == "bpf"'
expect_json_expr "stat counts batches and replays" 'j["counters"]["fault_batches"] > 0 and j["counters"]["replays"] > 0'
expect_json_expr "stat counts bytes to the GPU and prefetch" 'j["counters"]["bytes_htod"] > 0 and j["counters"]["prefetch_bytes"] > 0'
expect_exit 0 $G stat -x , -- uvmsim run stride blocks 2
expect_out "stat -x CSV" "^[0-9]+,,gpu_faults$"
expect_exit 0 $G stat -I 100 --interval-count 2 -- sleep 1
expect_out "stat -I intervals" "gpu_faults"
# one grammar: -I100, -x, --interval-count=N, a duration with its unit, -j after the object
expect_exit 0 $G stat -I100 -x, --interval-c=1 -- sh -c 'uvmsim run seq blocks 1; sleep 0.5'
expect_out "stat -I100 -x, (perf's spellings)" "^[0-9.]+,[0-9]+,,gpu_faults$"
expect_exit 0 $G stat -j --duration=300ms
expect_json_expr "stat -j --duration=300ms: system-wide, no command" 'j["command_status"] is None and j["schema_version"] == 2'
expect_exit 3 $G stat -j -- sh -c 'uvmsim run seq blocks 1 >/dev/null; exit 3'
expect_json_eq "stat -- CMD: a failing command's status in the document" .command_status 3
# -r N: perf's repeat, with the means and their spread
expect_exit 0 $G stat -r 3 -- uvmsim run seq blocks 2
expect_out "stat -r 3: says 3 runs" "^ Performance counter stats for 'uvmsim run seq blocks 2' \(3 runs, backend bpf\):$"
expect_out "stat -r 3: a mean with its spread" "^ +[0-9,]+ +gpu_faults .*\( \+- +[0-9]+\.[0-9][0-9]% \)$"
expect_out "stat -r 3: elapsed mean +- its deviation" "^ +[0-9.]+ \+- [0-9.]+ seconds time elapsed +\( \+- +[0-9.]+% \)$"
expect_exit 0 $G -j stat -r 3 -- uvmsim run seq blocks 2
expect_json_expr "stat -j -r 3: 3 runs, per run, means" \
	'j["runs"] == 3 and len(j["per_run"]) == 3 and j["counters"]["gpu_faults"] == sum(r["counters"]["gpu_faults"] for r in j["per_run"]) / 3'
expect_json_expr "stat -j -r 3: stddev and spread_pct per counter, every command_status 0" \
	'j["stddev"]["gpu_faults"] >= 0 and j["spread_pct"]["gpu_faults"] >= 0 and j["command_status"] == 0 and all(r["command_status"] == 0 for r in j["per_run"])'
expect_exit 0 $G stat -r 2 -x, -- uvmsim run seq blocks 1
expect_out "stat -r 2 -x,: mean, unit, name, spread" "^[0-9]+\.[0-9][0-9],,gpu_faults,[0-9]+\.[0-9][0-9]%$"
# a failing run ends the repetition, and its status is stat's
expect_exit 4 $G -j stat -r 5 -- sh -c 'uvmsim run seq blocks 1 >/dev/null; exit 4'
expect_json_expr "stat -r 5, the command fails: one run of 5, its status" \
	'j["runs"] == 1 and j["runs_asked"] == 5 and j["command_status"] == 4'
# -o FILE: the counts in the file (written whole), the command's output on the terminal
expect_exit 0 $G stat -o $T/stat.txt -- sh -c 'echo chatter; uvmsim run seq blocks 1 >/dev/null'
expect_out "stat -o: the command's output stays on stdout" "^chatter$"
grep -q "gpu_faults" $T/stat.txt && grep -q "seconds time elapsed" $T/stat.txt &&
	ok "stat -o: the counts are in the file" || fail "stat -o" "$(head -c 300 $T/stat.txt)"
expect_exit 0 $G -j stat -r 2 -o $T/stat.json -- uvmsim run seq blocks 1
OUT=$(cat $T/stat.json)
expect_json_expr "stat -j -r 2 -o: the document in the file, stamped" 'j["runs"] == 2 and j["schema_version"] == 2'
ln -sf $T/stat.txt $T/stat.link
expect_exit 1 $G stat -o $T/stat.link -- true && expect_stderr_line "stat -o through a link"
[ -L $T/stat.link ] && grep -q gpu_faults $T/stat.txt && ok "stat -o: the link and its target untouched" ||
	fail "stat -o link" "changed"
expect_exit 2 $G stat -r 2 -- && expect_stderr_line "stat -r without a command"

# live traces
uvmsim reset va_blocks 64 batch 64 >/dev/null
expect_exit 0 $G trace faults -- uvmsim run seq blocks 2
expect_out "trace faults: event lines" " fault +0x[0-9a-f]+ +read"
expect_out "trace faults: batch latency histogram" "batch service latency"
expect_out "trace faults: hot ranges" "hottest 2 MiB ranges"
expect_exit 0 $G -j trace faults --max-events 5 -- uvmsim run random blocks 4
n=$(printf '%s\n' "$OUT" | grep -c '"event":"fault"')
[ "$n" = 5 ] && ok "--max-events 5 gives 5 fault lines" || fail "--max-events" "$n lines"
printf '%s\n' "$OUT" | while read -r line; do
	printf '%s' "$line" | python3 -m json.tool >/dev/null 2>&1 || { echo "bad: $line"; exit 1; }
done && ok "trace -j: every line is JSON" || fail "trace -j" "a line is not JSON"
uvmsim reset va_blocks 64 >/dev/null
expect_exit 0 $G trace migrations -- uvmsim run seq blocks 2
expect_out "trace migrations: cause fault" " migration .* fault "
uvmsim reset va_blocks 64 >/dev/null
expect_exit 0 $G trace prefetch -- uvmsim run seq blocks 2
expect_out "trace prefetch: prefetch migrations" " migration .* prefetch "
uvmsim reset va_blocks 64 >/dev/null
expect_exit 0 $G trace replays -- uvmsim run seq blocks 2
expect_out "trace replays" " replay "
uvmsim reset va_blocks 64 gpu_chunks 2 >/dev/null
expect_exit 0 $G trace evictions -- uvmsim run seq blocks 8
expect_out "trace evictions" " eviction "

# record and report
uvmsim reset va_blocks 64 batch 64 >/dev/null
expect_exit 0 $G trace record -o $T/rec -- uvmsim run stride blocks 4 stride 8
expect_exit 0 $G trace report -i $T/rec
expect_out "report: header" "^record: version 2, .*backend bpf"
expect_out "report: summary" "gpu faults"
live=$(printf '%s\n' "$OUT" | grep "gpu faults")
expect_exit 0 $G -j trace report -i $T/rec
expect_json "report -j"
expect_exit 0 $G trace report -i $T/rec --format events
expect_out "report --format events" " fault "
expect_exit 0 $G trace report -i $T/rec --svg $T/heat.svg
grep -q "<svg" $T/heat.svg && ok "report --svg writes an SVG" || fail "svg" "no svg"
expect_exit 0 $G trace report -i $T/rec --format model
printf '%s\n' "$OUT" >$T/model.trace
expect_out "report --format model" "^[0-9a-f]+ r 0$"
uvmsim reset va_blocks 64 >/dev/null
uvmsim run trace file $T/model.trace >/dev/null && ok "the model replays the recorded trace" || fail "model replay" "uvmsim failed"
uvmsim reset va_blocks 64 >/dev/null
# record version 2 (issue 44): the process's name and its allocations, as the
# recorder saw them, in the record; the picture draws them
expect_exit 0 $G trace record -o $T/rec2 -- uvmsim run seq blocks 8 hold_ms 300
expect_exit 0 $G trace report -i $T/rec2 --format csv
expect_out "record v2: the process named in its rows" '^[0-9]+,fault,[0-9]+,"uvmsim",'
expect_out "record v2: its managed allocation" '^[0-9]+,alloc,[0-9]+,"uvmsim",,"",0x[0-9a-f]+,[1-9][0-9]*,'
expect_exit 0 $G trace report -i $T/rec2 --svg $T/rec2.svg
grep -q 'allocation of uvmsim (pid [0-9]*)' $T/rec2.svg && ok "record v2: the picture names the allocation's process" ||
	fail "v2 svg" "$(grep -o 'class="seglabel"[^<]*<[^<]*<[^<]*' $T/rec2.svg | head -3)"
expect_exit 0 $G trace report -i $T/rec2 --format chrome
expect_json "record v2: chrome JSON"
$G trace record -o - -- uvmsim run seq blocks 1 2>/dev/null | $G trace report -i - >$T/pipe.out
grep -q "gpu faults" $T/pipe.out && ok "record -o - | report -i -" || fail "pipe mode" "$(cat $T/pipe.out)"
# a command that writes to stdout: its output goes to stderr, the stream stays clean
$G trace record -o - -- sh -c 'echo chatter; uvmsim run seq blocks 1' 2>$T/pipe.err | $G trace report -i - >$T/pipe.out
grep -q "gpu faults" $T/pipe.out && ok "record -o -: a chatty command does not corrupt the record" ||
	fail "record -o - with a chatty command" "$(cat $T/pipe.out)"
grep -q "^chatter$" $T/pipe.err && ok "record -o -: the command's stdout went to stderr" ||
	fail "record -o - chatter" "$(cat $T/pipe.err)"
expect_exit 0 $G -j stat -- sh -c 'echo chatter; uvmsim run seq blocks 1'
expect_json "-j stat -- a chatty command: stdout is only JSON"
expect_err "-j stat: the command's stdout went to stderr" "^chatter$"

# bad input
expect_exit 1 $G trace faults -p 999999
expect_stderr_line "no such pid"
expect_exit 1 $G trace faults --backend uvm-tools -p 1
expect_stderr_line "pid without a GPU context"
echo "not a record" >$T/bad
expect_exit 1 $G trace report -i $T/bad
expect_stderr_line "not a record"
head -c 200 $T/rec >$T/trunc
expect_exit 1 $G trace report -i $T/trunc
expect_stderr_line "truncated record"
expect_exit 2 $G stat -I 0
expect_stderr_line "interval 0"
expect_exit 2 $G trace faults --duration 0
expect_exit 2 $G trace faults -p 1 -- true
expect_exit 1 $G -j trace report -i $T/bad
expect_json "error under -j"
expect_exit 1 $G trace record -o /nonexistent/dir/f -- true
expect_stderr_line "unwritable output"

# --- an unprivileged user (uid 65534) ------------------------------------------
# Every command that needs capabilities: one line naming them, exit 1, nothing
# created; the read-only ones work.  busybox su needs the user in /etc/passwd.
grep -q '^nobody:' /etc/passwd 2>/dev/null ||
	echo 'nobody:x:65534:65534:nobody:/nonexistent:/bin/sh' >>/etc/passwd
grep -q '^nogroup:' /etc/group 2>/dev/null || echo 'nogroup:x:65534:' >>/etc/group
NB=/tmp/nobody-cwd
rm -rf $NB && mkdir -p $NB && chown 65534:65534 $NB
cp $T/rec $NB/rec.in && chmod 644 $NB/rec.in
# nobody CMD...: runs CMD as uid 65534 in $NB
nobody() { su -s /bin/sh nobody -c "cd $NB && exec $*"; }
bpffs_list() { find /sys/fs/bpf | sort; }
bpffs_list >$T/bpffs.before
ls -A $NB >$T/nb.before
while read -r args; do
	expect_exit 1 nobody "$G" $args
	expect_stderr_line "nobody: $args"
	case $ERR in *"needs CAP_BPF and CAP_PERFMON, or CAP_SYS_ADMIN; missing: CAP_BPF, CAP_PERFMON"*)
		ok "nobody: $args: names the capabilities" ;;
	*) fail "nobody: $args" "capability not named: $ERR" ;; esac
done <<LIST
trace faults
trace migrations -- true
trace evictions -p 1
trace replays --backend bpf -- true
trace prefetch --duration 1
trace tsg --device /dev/uvm_model_rm
trace tsg --device /dev/uvm_model_rm -- true
trace record -- true
trace record -o $NB/x.rec
trace record tsg --device /dev/uvm_model_rm
stat
stat -p 1
stat -I 100 -- true
stat --backend bpf
LIST
expect_exit 1 nobody "$G" -j trace faults -- true
expect_json "nobody: -j trace faults: the error is JSON"
expect_exit 1 nobody "$G" trace faults --backend uvm-tools -- true
expect_stderr_line "nobody: uvm-tools, no device"
for args in "probe" "-j probe" "trace report -i rec.in" "-j trace report -i rec.in" \
	"trace help" "stat help" "probe help"; do
	expect_exit 0 nobody "$G" $args
done
expect_exit 0 nobody "$G" -j probe
expect_json_eq "nobody: probe says CAP_BPF is not held" ".capabilities[0].held" false
expect_json_eq "nobody: probe verdict: no exporter without capabilities" ".verdict.exporter.available" false
[ "$(ls -A $NB)" = "$(cat $T/nb.before)" ] && ok "nobody: nothing created in the working directory" ||
	fail "nobody created" "$(ls -A $NB)"
bpffs_list >$T/bpffs.after
cmp -s $T/bpffs.before $T/bpffs.after && ok "nobody: nothing created in bpffs" ||
	fail "nobody bpffs" "$(diff $T/bpffs.before $T/bpffs.after)"

# read-only commands create nothing, as root either
HERE=$(pwd)
mkdir -p $T/ro && cd $T/ro || fail "cd" "$T/ro"
uvmsim reset va_blocks 64 >/dev/null
for args in "probe" "trace report -i $T/rec" "trace report -i $T/rec --format events" \
	"stat --duration 1" "trace faults --max-events 1 -- uvmsim run seq blocks 1" \
	"trace tsg --device /dev/uvm_model_rm -- true" "trace help"; do
	$G $args >/dev/null 2>&1 || fail "root: $args" "exit $?"
done
[ -z "$(ls -A $T/ro)" ] && ok "read-only commands create nothing in the working directory" ||
	fail "read-only created" "$(ls -A $T/ro)"
bpffs_list >$T/bpffs.after
cmp -s $T/bpffs.before $T/bpffs.after && ok "read-only commands create nothing in bpffs" ||
	fail "read-only bpffs" "$(diff $T/bpffs.before $T/bpffs.after)"
cd "$HERE" || exit 1

# --- trace tsg: the rm backend on the model's RM device ------------------------
# rmclient plays a CUDA process: -n TSGs, -r its own timeslice, -e one round
# (set, free the first TSG, free the client with the rest), -w wait for SIGHUP.
export GPUCTL_RM_DEVICE=/dev/uvm_model_rm
RMC=${RMCLIENT:-tests/model/rmclient}
[ -x "$RMC" ] || RMC=$(command -v rmclient)
cp "$RMC" $T/tsgapp && cp "$RMC" $T/other && cp "$RMC" $T/schedapp && cp "$RMC" $T/later
# wait_for FILE REGEX: up to 10 s
wait_for() {
	i=0
	while ! grep -Eq "$2" "$1" 2>/dev/null; do
		i=$((i + 1)); [ $i -gt 200 ] && return 1; sleep 0.05
	done
}
# tsg_line EVENT TSG: the live line of that event on that TSG handle
tsg_line() { printf '%s\n' "$OUT" | grep -E " $1 +0x[0-9a-f]+ +$2 "; }

if [ ! -c /dev/uvm_model_rm ]; then
	fail "model RM device" "/dev/uvm_model_rm missing"
	summary
fi
expect_exit 0 $G probe
expect_out "probe: rm backend works" "rm \(TSG events\) +yes"
# its tracepoints load, but without its RM device it is no, and so is sched
expect_exit 0 env GPUCTL_RM_DEVICE=/nonexistent $G probe
expect_out "probe without the RM device: rm no" "rm \(TSG events\) +no: RM device /nonexistent missing"
expect_out "probe without the RM device: sched verdict no" "^  sched +no: RM device /nonexistent missing"
printf '%s\n' "$OUT" | grep -q "rm (TSG events) *yes" && fail "probe without the RM device: never yes" "$OUT" ||
	ok "probe without the RM device: never yes"

# -- CMD: the command's TSGs, its own timeslice, a free and a client free
expect_exit 0 $G trace tsg -- sh -c "exec $T/tsgapp -n 2 -r 500 -e >$T/c.out"
printf '%s\n' "$OUT" | sed 's/^/# /'
ready=$(grep '^ready ' $T/c.out)
P=$(printf '%s' "$ready" | sed 's/.*pid=\([0-9]*\).*/\1/')
C=$(printf '%s' "$ready" | sed 's/.*client=\(0x[0-9a-f]*\).*/\1/')
T1=$(printf '%s' "$ready" | sed 's/.*tsgs=\(0x[0-9a-f]*\),.*/\1/')
T2=$(printf '%s' "$ready" | sed 's/.*tsgs=0x[0-9a-f]*,\(0x[0-9a-f]*\).*/\1/')
[ -n "$P" ] && [ -n "$T2" ] && ok "the client says its handles" || fail "client" "$ready"
n=$(printf '%s\n' "$OUT" | grep -c " $P tsgapp  *tsg_new  *$C ")
[ "$n" = 2 ] && ok "tsg_new: 2 lines with pid, comm and client" || fail "tsg_new" "$n lines"
tsg_line tsg_new "$T1" >/dev/null && tsg_line tsg_new "$T2" >/dev/null &&
	ok "tsg_new names both TSG handles" || fail "tsg_new handles" "$T1 $T2"
tsg_line tsg_set "$T1" | grep -q " $P tsgapp .* timeslice 500us$" &&
	tsg_line tsg_set "$T2" | grep -q "timeslice 500us$" &&
	ok "tsg_set: the app's own timeslice on both" || fail "tsg_set" "no timeslice 500us lines"
tsg_line tsg_free "$T1" | grep -q " -$" && ok "tsg_free: the TSG freed alone" ||
	fail "tsg_free alone" "$(tsg_line tsg_free "$T1")"
tsg_line tsg_free "$T2" | grep -q " with its client$" && ok "tsg_free: with its client" ||
	fail "tsg_free client" "$(tsg_line tsg_free "$T2")"
expect_out "summary: created" "^  tsgs created +2$"
expect_out "summary: freed" "^  tsgs freed +2$"
expect_out "summary: settings" "^  tsg settings +2$"
expect_out "summary: per process" "^  $P +tsgapp +2 +2 +2$"

# -j: one object per line, the summary last
expect_exit 0 $G -j trace tsg -- sh -c "exec $T/tsgapp -n 2 -r 300 -i 2 -e >/dev/null"
bad=0
printf '%s\n' "$OUT" | while read -r line; do
	printf '%s' "$line" | "$JSONCHECK" || exit 1
done || bad=1
[ $bad = 0 ] && ok "trace tsg -j: every line is JSON" || fail "tsg -j" "$OUT"
all=$OUT
OUT=$(printf '%s\n' "$all" | grep '"event":"tsg_set"' | grep '"control":"interleave"' | head -n 1)
expect_json_eq "-j tsg_set: interleave" .value 2
expect_json_eq "-j tsg_set: comm" .comm tsgapp
OUT=$(printf '%s\n' "$all" | grep '"event":"tsg_new"' | head -n 1)
expect_json_eq "-j tsg_new: seq" .seq 1
case $(json_get .tsg) in 0x*) ok "-j tsg_new: tsg handle" ;; *) fail "-j tsg handle" "$OUT" ;; esac
n=$(printf '%s\n' "$all" | grep -c '"event":"tsg_set"')
[ "$n" = 4 ] && ok "-j: 4 settings (timeslice and interleave on 2 TSGs)" || fail "-j settings" "$n"
OUT=$(printf '%s\n' "$all" | tail -n 1)
expect_json_eq "-j summary: created" .summary.tsgs.created 2
expect_json_eq "-j summary: freed" .summary.tsgs.freed 2
expect_json_eq "-j summary: process comm" ".summary.tsgs.processes[0].comm" tsgapp
expect_json_eq "-j summary: process settings" ".summary.tsgs.processes[0].settings" 4

# --max-events
expect_exit 0 $G -j trace tsg --max-events 3 -- sh -c "exec $T/tsgapp -n 4 -r 100 -e >/dev/null"
n=$(printf '%s\n' "$OUT" | grep -c '"event":"tsg_')
[ "$n" = 3 ] && ok "tsg --max-events 3 gives 3 lines" || fail "tsg --max-events" "$n lines"

# record / report
expect_exit 0 $G trace record tsg -o $T/tsg.rec -- sh -c "exec $T/tsgapp -n 2 -r 400 -e >/dev/null"
expect_exit 0 $G trace report -i $T/tsg.rec
expect_out "report: rm header" "^record: version 2, .*backend rm, events tsg"
expect_out "report: created" "^  tsgs created +2$"
expect_out "report: settings" "^  tsg settings +2$"
expect_exit 0 $G trace report -i $T/tsg.rec --format events
expect_out "report events: tsg_set" " tsg_set .* timeslice 400us$"
expect_out "report events: tsg_free with client" " tsg_free .* with its client$"
expect_exit 0 $G -j trace report -i $T/tsg.rec
expect_json_eq "report -j: freed" .summary.tsgs.freed 2
$G trace record tsg -o - -- sh -c "exec $T/tsgapp -n 1 -e >/dev/null" 2>/dev/null |
	$G trace report -i - >$T/tsgpipe.out
grep -Eq "tsgs created +1$" $T/tsgpipe.out && ok "record tsg -o - | report -i -" ||
	fail "tsg pipe" "$(cat $T/tsgpipe.out)"

# record all tsg (issue 44): UVM events and TSG events in one record from one
# command, system-wide as a co-location run is recorded (bpf beside rm); the
# TSG events on the bpf clock: the TSGs made before the faults come first
uvmsim reset va_blocks 64 >/dev/null
$G trace record all tsg -o $T/both.rec --duration 6 >$T/both.out 2>$T/both.err &
BR=$!
wait_for $T/both.err '^Tracing' || fail "record all tsg" "did not start: $(cat $T/both.err)"
grep -q "^Tracing all+tsg with the bpf+rm backend system-wide" $T/both.err &&
	ok "record all tsg: both backends, one trace" || fail "record all tsg start" "$(cat $T/both.err)"
$T/tsgapp -n 2 -r 600 -e >/dev/null
uvmsim run seq blocks 4 hold_ms 300 >/dev/null
wait $BR
rc=$?
[ $rc = 0 ] && ok "record all tsg: exit 0" || fail "record all tsg exit" "$rc: $(cat $T/both.err)"
expect_exit 0 $G trace report -i $T/both.rec
expect_out "record all tsg: one header, both backends" "^record: version 2, .*backend bpf\+rm, events all\+tsg"
expect_out "record all tsg: the faults" "^  gpu faults +[1-9][0-9]* "
expect_out "record all tsg: the TSGs" "^  tsgs created +2$"
expect_out "record all tsg: the TSGs' settings" "^  tsg settings +2$"
expect_out "record all tsg: the TSG process by name" "^  [0-9]+ +tsgapp +2 +2 +2$"
expect_exit 0 $G trace report -i $T/both.rec --format csv
printf '%s\n' "$OUT" >$T/both.csv
expect_out "record all tsg csv: uvmsim's faults" '^[0-9]+,fault,[0-9]+,"uvmsim",'
expect_out "record all tsg csv: uvmsim's allocation" '^[0-9]+,alloc,[0-9]+,"uvmsim",'
expect_out "record all tsg csv: tsgapp's TSGs" '^[0-9]+,tsg_new,[0-9]+,"tsgapp",'
tn=$(grep -m1 ',tsg_new,' $T/both.csv | cut -d, -f1)
tf=$(grep -m1 ',fault,' $T/both.csv | cut -d, -f1)
[ -n "$tn" ] && [ -n "$tf" ] && [ "$tn" -lt "$tf" ] && [ $((tf - tn)) -lt 5000000000 ] &&
	ok "record all tsg: TSG and fault times on one clock (tsg_new $tn ns, first fault $tf ns)" ||
	fail "record all tsg clock" "tsg_new '$tn' first fault '$tf'"
expect_exit 0 $G trace report -i $T/both.rec --svg $T/both.svg
[ "$(grep -c 'class="tsg"' $T/both.svg)" = 2 ] && grep -q 'allocation of uvmsim (pid [0-9]*)' $T/both.svg &&
	ok "record all tsg svg: the TSG timeline under uvmsim's allocation" ||
	fail "record all tsg svg" "$(grep -c 'class="tsg"' $T/both.svg) TSG rows"
expect_exit 0 $G trace report -i $T/both.rec --format chrome
expect_json "record all tsg: chrome JSON"
n=$(printf '%s\n' "$OUT" | grep -c '"cat":"tsg","ph":"X"')
[ "$n" = 2 ] && ok "record all tsg chrome: a span per TSG" || fail "record all tsg chrome" "$n TSG spans"
expect_exit 2 $G trace record all tsg --backend rm -o $T/no.rec -- true
expect_stderr_line "record all tsg --backend rm"
[ ! -e $T/no.rec ] && ok "record all tsg --backend rm: no record made" || fail "record all tsg rm" "file made"

# -p PID: that process only, from when the trace starts; ends when it exits
$T/tsgapp -n 1 -r 700 -w -e >$T/w.out 2>&1 &
WP=$!
wait_for $T/w.out '^waiting' || fail "-p client" "not waiting"
$G trace tsg -p $WP >$T/p.out 2>$T/p.err &
TRP=$!
wait_for $T/p.err '^Tracing' || fail "trace -p" "did not start: $(cat $T/p.err)"
$T/other -n 1 -r 900 -e >/dev/null
kill -HUP $WP
wait $TRP
rc=$?
OUT=$(cat $T/p.out)
printf '%s\n' "$OUT" | sed 's/^/# /'
[ $rc = 0 ] && ok "trace tsg -p ends 0 when the process exits" || fail "-p exit" "$rc: $(cat $T/p.err)"
expect_out "-p: tsg_new of the process" " $WP tsgapp +tsg_new "
expect_out "-p: its timeslice" " $WP tsgapp +tsg_set .* timeslice 700us$"
expect_out "-p: its free" " $WP tsgapp +tsg_free "
printf '%s\n' "$OUT" | grep -q " other " && fail "-p" "another process's TSG traced" ||
	ok "-p: another process's TSGs are not traced"
wait $WP 2>/dev/null

# a process killed holding its TSGs: RM frees them as its file closes, which
# no ioctl shows; the trace reports them freed at exit
$T/tsgapp -n 2 -w >$T/k.out 2>&1 &
KP=$!
wait_for $T/k.out '^waiting' || fail "kill client" "not waiting"
$G trace tsg -p $KP >$T/k.out2 2>$T/k.err &
TRK=$!
wait_for $T/k.err '^Tracing' || fail "trace -p" "did not start: $(cat $T/k.err)"
kill -HUP $KP
wait_for $T/k.out '^ready' || fail "kill client" "not ready"
kill -9 $KP
wait $TRK
n=$(grep -c " tsg_free .* at exit$" $T/k.out2)
[ "$n" = 2 ] && ok "killed process: its 2 TSGs reported freed at exit" ||
	fail "freed at exit" "$n: $(cat $T/k.out2 $T/k.err)"

# errors: one line each
expect_exit 1 env GPUCTL_RM_DEVICE=/nonexistent $G trace tsg
expect_stderr_line "RM device missing"
case $ERR in *"/nonexistent"*"GPUCTL_RM_DEVICE"*) ok "missing device named, with the way out" ;;
*) fail "device message" "$ERR" ;; esac
expect_exit 1 $G trace tsg --device /nonexistent -- true
expect_stderr_line "--device missing"
expect_exit 1 env GPUCTL_RM_DEVICE=/nonexistent $G -j trace tsg
expect_json "RM device error under -j"
expect_exit 2 $G trace tsg --backend uvm-tools -- true
expect_stderr_line "tsg with uvm-tools"
case $ERR in *"only the rm backend"*) ok "uvm-tools refusal names rm" ;; *) fail "uvm-tools msg" "$ERR" ;; esac
expect_exit 2 $G trace tsg --backend bpf
expect_stderr_line "tsg with bpf"
expect_exit 2 $G trace faults --backend rm -- true
expect_stderr_line "rm for faults"
expect_exit 2 $G trace tsg -p 1 -- true
expect_exit 1 $G trace tsg -p 999999
expect_stderr_line "tsg: no such pid"

# a pinned sched watcher is left alone, while trace tsg runs and after
expect_exit 0 $G sched watch
$G trace tsg >$T/sw.out 2>$T/sw.err &
TRS=$!
wait_for $T/sw.err '^Tracing' || fail "system-wide trace" "did not start: $(cat $T/sw.err)"
$T/schedapp -n 1 >$T/schedapp.out 2>&1 &
SP=$!
wait_for $T/schedapp.out '^ready' || fail "schedapp" "not ready"
expect_exit 0 $G sched list
expect_out "sched list sees a TSG made while trace tsg runs" " schedapp "
expect_exit 0 $G sched set-timeslice --pid $SP 600
expect_out "sched set-timeslice works while trace tsg runs" "RM applied 600 us"
kill -INT $TRS
wait $TRS
rc=$?
[ $rc = 0 ] && ok "system-wide trace tsg ends 0 on SIGINT" || fail "SIGINT" "$rc"
grep -q " $SP schedapp  *tsg_new " $T/sw.out && ok "system-wide trace saw the TSG" ||
	fail "system-wide" "$(cat $T/sw.out)"
grep -q " tsg_set " $T/sw.out && fail "gpuctl's own control" "traced as the app's" ||
	ok "gpuctl sched's control is not traced as the app's"
[ -e /sys/fs/bpf/gpuctl/sched/link_sys_enter ] && ok "the sched watcher's pins stay" ||
	fail "pins" "gone after trace tsg"
$T/later -n 1 >$T/later.out 2>&1 &
LP=$!
wait_for $T/later.out '^ready' || fail "later" "not ready"
expect_exit 0 $G sched list
expect_out "after trace tsg: the sched watcher still records new TSGs" " later "
expect_out "after trace tsg: the timeslice gpuctl set" " schedapp .* 600us "
kill $SP $LP 2>/dev/null
wait $SP $LP 2>/dev/null
$G sched unload >/dev/null 2>&1

summary
