#!/bin/bash
# bench/mps/facts_gpu.sh - issue 39, step 1: what NVIDIA MPS is to RM and to
# its control daemon, on one GPU (stock driver, root).  Writes under $OUT:
#   transcripts.txt  every control command gpuctl sends, with the daemon's
#                    stdout, stderr and exit status (tests/mps/ replays them)
#   facts.txt        the TSGs of server and clients (sched list), which ones
#                    carry a client's work (a client's matmul rate while its
#                    TSGs, then the server's, are off the runlist), which
#                    timeslice orders MPS work against a non-MPS process,
#                    a client of another uid, a server killed under a client
# Needs: gpuctl ($GPUCTL), python3 with torch, cc (xsched), nvidia-cuda-mps-control.
set -u
D=$(dirname "$(readlink -f "$0")")
R=$(cd "$D/../.." && pwd)
OUT=${OUT:-/tmp/mps-out}; mkdir -p "$OUT"
W=${W:-/tmp/mps-facts}; rm -rf "$W"; mkdir -p "$W"
GPUCTL=${GPUCTL:-gpuctl}
MPSC=$(command -v nvidia-cuda-mps-control || echo /usr/local/nvidia/bin/nvidia-cuda-mps-control)
P=$W/pipe L=$W/log
mkdir -p "$P" "$L"
G() { timeout 20 "$GPUCTL" "$@"; }
log() { echo "== $(date +%T.%N | cut -c1-12) $*"; }
now() { python3 -c 'import time; print("%.3f" % time.monotonic())'; }
PIDS=""
cleanup() {
	for p in $PIDS; do kill -CONT "$p" 2>/dev/null; kill -9 "$p" 2>/dev/null; done
	printf 'quit\n' | CUDA_MPS_PIPE_DIRECTORY=$P timeout 10 "$MPSC" >/dev/null 2>&1
	G sched unload >/dev/null 2>&1
}
trap cleanup EXIT
TR=$OUT/transcripts.txt; : >"$TR"
T() {	# T LABEL LINE...: one connection to the daemon, LINEs on its stdin
	local label=$1 rc t0 t1; shift
	t0=$(date +%s%N)
	printf '%s\n' "$@" | CUDA_MPS_PIPE_DIRECTORY=$P CUDA_MPS_LOG_DIRECTORY=$L timeout 15 "$MPSC" \
		>"$W/t.out" 2>"$W/t.err"; rc=$?
	t1=$(date +%s%N)
	{ echo "### $label"; for l in "$@"; do echo "> $l"; done; echo "rc $rc"
	  echo "ms $(( (t1 - t0) / 1000000 ))"
	  sed 's/^/1|/' "$W/t.out"; sed 's/^/2|/' "$W/t.err"; echo; } >>"$TR"
	cat "$W/t.out"
}
exec > >(tee "$OUT/facts.txt") 2>&1
log "machine"; nvidia-smi --query-gpu=name,driver_version,memory.used,memory.total --format=csv,noheader
log "binary $MPSC"; ls -la "$MPSC" "$(dirname "$MPSC")"/nvidia-cuda-mps-server 2>&1
{ echo "### version"; echo "> -v"; timeout 5 "$MPSC" -v >"$W/v" 2>&1; echo "rc $?"; sed 's/^/1|/' "$W/v"; echo; } >>"$TR"
cc -O2 -o "$W/xsched" "$R/bench/lcbe/xsched.c" || exit 1
grep -q " /sys/fs/bpf bpf " /proc/mounts || mount -t bpf bpf /sys/fs/bpf
G sched unload >/dev/null 2>&1
G sched watch || exit 1

log "no daemon yet"
T "no daemon" get_server_list >/dev/null
log "start the daemon"
{ echo "### start"; echo "> -d"; CUDA_MPS_PIPE_DIRECTORY=$P CUDA_MPS_LOG_DIRECTORY=$L timeout 10 "$MPSC" -d >"$W/s.out" 2>&1
  echo "rc $?"; sed 's/^/1|/' "$W/s.out"; echo; } >>"$TR"
sleep 0.5
{ echo "### start again"; echo "> -d"; CUDA_MPS_PIPE_DIRECTORY=$P CUDA_MPS_LOG_DIRECTORY=$L timeout 10 "$MPSC" -d >"$W/s.out" 2>&1
  echo "rc $?"; sed 's/^/1|/' "$W/s.out"; echo; } >>"$TR"
ps -eo pid,ppid,uid,comm,args | grep -E "mps" | grep -v grep
log "pipe dir"; ls -la "$P" "$L"; stat -c '%A %U %n' "$P"/* 2>&1
for d in /proc/[0-9]*; do
	if tr '\0' '\n' <"$d/environ" 2>/dev/null | grep -qx "CUDA_MPS_PIPE_DIRECTORY=$P"; then
		echo "env: pid ${d#/proc/} comm $(cat "$d/comm")"; fi
done
T "servers, none" get_server_list >/dev/null
T "default thread pct" get_default_active_thread_percentage >/dev/null
T "set default thread pct" "set_default_active_thread_percentage 50" >/dev/null
T "default thread pct after" get_default_active_thread_percentage >/dev/null
T "set default thread pct bad" "set_default_active_thread_percentage 150" >/dev/null
T "set default thread pct 100" "set_default_active_thread_percentage 100" >/dev/null
T "default pinned" "get_default_device_pinned_mem_limit 0" >/dev/null
T "set default pinned" "set_default_device_pinned_mem_limit 0 4G" >/dev/null
T "default pinned after" "get_default_device_pinned_mem_limit 0" >/dev/null
T "unknown" "no_such_command" >/dev/null
T "client list of no server" "get_client_list 999999" >/dev/null
T "server status of no server" "get_server_status 999999" >/dev/null
T "two lines" get_server_list get_default_active_thread_percentage >/dev/null
T "thread pct of no server" "get_active_thread_percentage 999999" >/dev/null

log "a client (mpsa), and a non-MPS process (plain)"
PROC_COMM=mpsa CUDA_MPS_PIPE_DIRECTORY=$P CUDA_MPS_LOG_DIRECTORY=$L python3 "$D/rate.py" 200 "$W/mpsa.log" >"$W/mpsa.out" 2>&1 &
A=$!; PIDS="$PIDS $A"
PROC_COMM=plain python3 "$D/rate.py" 200 "$W/plain.log" >"$W/plain.out" 2>&1 &
B=$!; PIDS="$PIDS $B"
for i in $(seq 600); do grep -q ready "$W/mpsa.out" && grep -q ready "$W/plain.out" && break; sleep 0.1; done
cat "$W/mpsa.out" "$W/plain.out" | grep -v "^$" | head -5
SPID=$(T "servers, one" get_server_list | head -1 | tr -dc 0-9)
log "server pid '$SPID'"
ps -o pid,ppid,uid,comm,args -p "$SPID" 2>&1
T "client list" "get_client_list $SPID" >/dev/null
T "device client list" "get_device_client_list $SPID" >/dev/null
T "device client list all" get_device_client_list >/dev/null
T "server status" "get_server_status $SPID" >/dev/null
T "thread pct" "get_active_thread_percentage $SPID" >/dev/null
T "set thread pct" "set_active_thread_percentage $SPID 50" >/dev/null
T "thread pct after" "get_active_thread_percentage $SPID" >/dev/null
T "set thread pct 100" "set_active_thread_percentage $SPID 100" >/dev/null
T "pinned" "get_device_pinned_mem_limit $SPID 0" >/dev/null
log "TSGs"; G sched list; G -j sched list >"$W/list.json"; cp "$W/list.json" "$OUT/list_one_client.json"
python3 - "$W/list.json" "$SPID" "$A" "$B" "$W" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
rows = d if isinstance(d, list) else next(v for v in d.values() if isinstance(v, list))
for name, pid in (("server", sys.argv[2]), ("client", sys.argv[3]), ("plain", sys.argv[4])):
    with open("%s/%s.spec" % (sys.argv[5], name), "w") as f:
        for r in rows:
            if str(r["pid"]) == pid:
                f.write("%s %s %s %s\n" % (r["pid"], r["fd"], r["client"][2:], r["tsg"][2:]))
EOF
wc -l "$W"/*.spec
win() {	# win LABEL SECONDS: both processes' rates over the next SECONDS
	local a b; a=$(now); sleep "$2"; b=$(now)
	echo "$1: mpsa $(python3 "$D/rate_win.py" "$W/mpsa.log" "$a" "$b"); plain $(python3 "$D/rate_win.py" "$W/plain.log" "$a" "$b")"
}
log "runlist: which TSGs carry the client's work"
win "both on" 1.5
for who in server client plain; do
	[ -s "$W/$who.spec" ] || { echo "no TSGs of $who"; continue; }
	"$W/xsched" var "$W/$who.spec" sched off
	win "$who TSGs off" 1.5
	"$W/xsched" var "$W/$who.spec" sched on
	win "$who back on" 1.0
done
log "timeslices: what orders MPS work against a non-MPS process"
G sched set-timeslice --pid "$SPID" 200 | tail -1; G sched set-timeslice --pid "$B" 8000 | tail -1
win "server 200us, plain 8000us" 2
G sched set-timeslice --pid "$SPID" 8000 | tail -1; G sched set-timeslice --pid "$B" 200 | tail -1
win "server 8000us, plain 200us" 2
G sched set-timeslice --pid "$SPID" 2048 >/dev/null; G sched set-timeslice --pid "$B" 2048 >/dev/null
G sched set-timeslice --pid "$A" 200 | tail -1
win "client 200us (server, plain 2048)" 2
G sched set-timeslice --pid "$A" 8000 | tail -1
win "client 8000us" 2
G sched set-interleave --pid "$SPID" high | tail -1; G sched set-interleave --pid "$B" low | tail -1
win "server high, plain low" 2
G sched set-interleave --pid "$SPID" medium >/dev/null; G sched set-interleave --pid "$B" medium >/dev/null
G sched list

log "client priority and thread percentage (rates alone and side by side)"
kill -STOP "$B"
PROC_COMM=mpsp1 CUDA_MPS_CLIENT_PRIORITY=1 CUDA_MPS_PIPE_DIRECTORY=$P python3 "$D/rate.py" 200 "$W/mpsp1.log" >"$W/mpsp1.out" 2>&1 &
C=$!; PIDS="$PIDS $C"
PROC_COMM=mpst25 CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=25 CUDA_MPS_PIPE_DIRECTORY=$P python3 "$D/rate.py" 200 "$W/mpst25.log" >"$W/mpst25.out" 2>&1 &
E=$!; PIDS="$PIDS $E"
for i in $(seq 600); do grep -q ready "$W/mpsp1.out" && grep -q ready "$W/mpst25.out" && break; sleep 0.1; done
T "client list, three" "get_client_list $SPID" >/dev/null
rates() { local a b; a=$(now); sleep "$2"; b=$(now); echo -n "$1:"
	for n in mpsa mpsp1 mpst25; do echo -n " $n $(python3 "$D/rate_win.py" "$W/$n.log" "$a" "$b" | cut -d' ' -f2)"; done; echo; }
kill -STOP "$C" "$E"; rates "mpsa alone" 1.5
kill -CONT "$E"; kill -STOP "$A"; rates "mpst25 alone" 1.5
kill -CONT "$A"; kill -STOP "$E"; kill -CONT "$C"; rates "mpsa + mpsp1" 2
kill -CONT "$E"; kill -STOP "$C"; rates "mpsa + mpst25" 2
kill -CONT "$C" "$B"

log "a client of another uid (65534) while root's server runs"
chmod 755 "$W" "$P" "$L" 2>/dev/null
setpriv --reuid=65534 --regid=65534 --clear-groups env HOME=/tmp PROC_COMM=nobodyc CUDA_MPS_PIPE_DIRECTORY=$P \
	python3 "$D/rate.py" 30 /tmp/nobody.log >"$W/nobody.out" 2>&1 &
N=$!; PIDS="$PIDS $N"
sleep 6
T "servers, other uid waiting" get_server_list >/dev/null
echo "nobody: $(tail -2 "$W/nobody.out")"; tail -5 "$L/control.log"
log "root's clients end"
kill -9 "$A" "$C" "$E" 2>/dev/null; wait "$A" "$C" "$E" 2>/dev/null
for i in $(seq 100); do grep -q ready "$W/nobody.out" && break; sleep 0.2; done
echo "nobody after: $(tail -2 "$W/nobody.out")"
T "servers, other uid" get_server_list >/dev/null
S2=$(tail -n +1 "$TR" | awk '/^### servers, other uid$/{f=1;next} f&&/^1\|/{print substr($0,3); exit}')
ps -o pid,uid,comm -p "$S2" 2>&1
tail -8 "$L/control.log"
log "the server killed under its client"
kill -9 "$S2" 2>/dev/null; sleep 2
echo "nobody client after kill: $(tail -3 "$W/nobody.out")"; kill -0 "$N" 2>/dev/null && echo "client alive" || echo "client gone"
T "servers, after kill" get_server_list >/dev/null
tail -5 "$L/control.log"
kill -9 "$N" 2>/dev/null
log "quit"
T "quit" quit >/dev/null
sleep 1
ps -eo pid,comm | grep -E "mps" || echo "no mps process left"
T "after quit" get_server_list >/dev/null
log "logs"; tail -40 "$L/control.log"; ls -la "$P" "$L"
cp "$L/control.log" "$OUT/control.log" 2>/dev/null
log end
