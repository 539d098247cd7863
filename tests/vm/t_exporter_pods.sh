#!/bin/sh
# issue 35: which pod, container, unit and host a GPU process's series
# belong to.  The guest builds the kubelet's real cgroup v2 hierarchies
# under /sys/fs/cgroup -- the systemd driver's kubepods.slice with a
# burstable and a besteffort pod (containerd scopes), the cgroupfs driver's
# /kubepods/burstable/pod<UID>/<ID> -- and a systemd service's, moves the
# model's GPU processes (uvmsim, rmclient, a UVM file holder) into them,
# and scrapes the exporter: every per-process and TSG series carries
# pod_uid and container_id (two pods' processes of one name tell apart,
# and their faults are the model's), unit, hostname ($NODE_NAME), and with
# --pod-names namespace and pod from /var/log/pods; a process started again
# in its pod keeps the pod's labels.
. "$(dirname "$0")/../lib.sh"

export GPUCTL_RM_DEVICE=/dev/uvm_model_rm
RMC=${RMCLIENT:-tests/model/rmclient}
[ -x "$RMC" ] || RMC=$(command -v rmclient)
G=$(command -v gpuctl)
W=$T_DIR
PORT=9475
URL=http://127.0.0.1:$PORT/metrics
HTTPGET=${HTTPGET:-tests/tools/httpget}
get() { "$HTTPGET" "$1" "${2:-5}"; }
CG=/sys/fs/cgroup

UA=6a1f0c52-3b7e-4d21-9c0e-5f3a2b1c0d01	# burstable, systemd driver
UB=6a1f0c52-3b7e-4d21-9c0e-5f3a2b1c0d02	# besteffort, systemd driver
UC=6a1f0c52-3b7e-4d21-9c0e-5f3a2b1c0d03	# burstable, cgroupfs driver
CA=aaaa000000000000000000000000000000000000000000000000000000000001
CB=bbbb000000000000000000000000000000000000000000000000000000000002
CC=cccc000000000000000000000000000000000000000000000000000000000003
us() { echo "$1" | tr - _; }
DA=$CG/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod$(us $UA).slice/cri-containerd-$CA.scope
DB=$CG/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod$(us $UB).slice/cri-containerd-$CB.scope
DC=$CG/kubepods/burstable/pod$UC/$CC
DS=$CG/system.slice/trainer.service
mkdir -p $DA $DB $DC $DS || { fail "cgroup hierarchies" "mkdir under $CG failed"; summary; }
ok "kubelet hierarchies built under $CG (systemd and cgroupfs drivers)"
# in_cg DIR CMD... &: CMD inside the cgroup DIR (moved there before it execs;
# the background subshell execs too: $! is CMD's pid).  Background use only.
in_cg() { exec sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$@"; }
# the kubelet's log directories: NAMESPACE_NAME_UID
mkdir -p /var/log/pods/ml_trainer-a_$UA /var/log/pods/ml_trainer-b_$UB /var/log/pods/batch_job-c_$UC

TOOLS=/sys/module/${MODEL_NAME:-uvm_model}/parameters/tools_device
[ -w $TOOLS ] && echo 1 >$TOOLS
expect_exit 0 "$G" sched watch
NODE_NAME=gpu-node-7 "$G" exporter serve --listen 127.0.0.1:$PORT --interval 200 --pod-names \
	2>$W/exporter.err &
EXP=$!
i=0
until get $URL >/dev/null 2>&1; do i=$((i + 1)); [ $i -gt 50 ] && break; sleep 0.2; done

# a TSG in pod A (rmclient named python3), a UVM file in pod C and in a service
cp "$RMC" $W/python3
in_cg $DA $W/python3 -n 1 >$W/tsg.out 2>&1 &
TSG=$!
i=0
while ! grep -q '^ready' $W/tsg.out 2>/dev/null; do i=$((i + 1)); [ $i -gt 100 ] && break; sleep 0.05; done
FAKE=
[ -e /dev/nvidia-uvm ] || { mknod /dev/nvidia-uvm c 1 3; FAKE=1; }
in_cg $DC sh -c 'exec 3</dev/nvidia-uvm; exec sleep 60' & HC=$!
in_cg $DS sh -c 'exec 3</dev/nvidia-uvm; exec sleep 60' & HS=$!
in_cg $CG sh -c 'exec 3</dev/nvidia-uvm; exec sleep 60' & HN=$!

if [ -c /dev/nvidia-uvm-tools ]; then
	# two pods' processes, both uvmsim: each one's faults under its pod
	uvmsim reset va_blocks 64 batch 64 >/dev/null
	in_cg $DA uvmsim run seq blocks 4 wait_ms 1500 hold_ms 1500 >$W/a.out 2>&1 &
	SA=$!
	wait $SA
	OUT=$(uvmsim stats -j); fa=$(json_get .fault_entries)
	get $URL >$W/a.prom	# A has exited since: its series are gone; B's to come
	in_cg $DB uvmsim run seq blocks 4 first 8 wait_ms 1500 hold_ms 6000 >$W/b.out 2>&1 &
	SB=$!
	i=0	# until B's run is over: the model's count stands still
	prev=x
	while :; do
		sleep 0.5
		OUT=$(uvmsim stats -j); cur=$(json_get .fault_entries)
		[ "$cur" != "$fa" ] && [ "$cur" = "$prev" ] && break
		prev=$cur i=$((i + 1)); [ $i -gt 40 ] && break
	done
	fb=$((cur - fa))
	get $URL >$W/b.prom
	got=$(awk -v u="$UB" -v c="$CB" -v p="$SB" 'index($0, "gpuctl_uvm_gpu_faults_total{pid=\"" p "\",comm=\"uvmsim\",hostname=\"gpu-node-7\",pod_uid=\"" u "\",namespace=\"ml\",pod=\"trainer-b\",container_id=\"" c "\"") == 1 { s += $2 } END { print s + 0 }' $W/b.prom)
	[ "$fb" -gt 0 ] && [ "$got" = "$fb" ] &&
		ok "pod B's uvmsim: faults under pod_uid, namespace/pod, container_id = the model's ($got)" ||
		fail "pod B faults" "exporter '$got', model $fb: $(grep gpu_faults $W/b.prom)"
	# pod A's run, scraped by a second exporter that saw it live
	uvmsim reset va_blocks 64 batch 64 >/dev/null
	in_cg $DA uvmsim run seq blocks 4 first 16 wait_ms 1500 hold_ms 4000 >$W/a2.out 2>&1 &
	SA2=$!
	i=0
	until get $URL 2>/dev/null | grep -q "^gpuctl_uvm_gpu_faults_total{pid=\"$SA2\".*} [1-9]"; do
		i=$((i + 1)); [ $i -gt 40 ] && break; sleep 0.5
	done
	sleep 1
	get $URL >$W/a2.prom
	grep -q "^gpuctl_gpu_process_info{pid=\"$SA2\",comm=\"uvmsim\",hostname=\"gpu-node-7\",pod_uid=\"$UA\",namespace=\"ml\",pod=\"trainer-a\",container_id=\"$CA\",attached=\"1\"} 1" $W/a2.prom &&
		ok "pod A's process started again: the same pod's labels" ||
		fail "pod A restart" "$(grep process_info $W/a2.prom)"
	na=$(grep -c "^gpuctl_uvm_[a-z_]*{pid=\"$SA2\",comm=\"uvmsim\",hostname=\"gpu-node-7\",pod_uid=\"$UA\"," $W/a2.prom)
	nall=$(grep -c "^gpuctl_uvm_[a-z_]*{pid=\"$SA2\"" $W/a2.prom)
	[ "$na" -gt 0 ] && [ "$na" = "$nall" ] && ok "every uvm series of pod A's process carries its pod ($na)" ||
		fail "pod A series" "$na of $nall"
	wait $SB $SA2
else
	ok "skipped: the model has no tools device (per-process counters)"
fi

get $URL >$W/all.prom
grep -q "^gpuctl_tsg_info{pid=\"$TSG\",comm=\"python3\",hostname=\"gpu-node-7\",pod_uid=\"$UA\",namespace=\"ml\",pod=\"trainer-a\",container_id=\"$CA\",tsg=" $W/all.prom &&
	ok "TSG series: pod A's rmclient carries its pod" || fail "TSG pod" "$(grep tsg_info $W/all.prom)"
grep -q "^gpuctl_gpu_process_info{pid=\"$HC\",comm=\"sleep\",hostname=\"gpu-node-7\",pod_uid=\"$UC\",namespace=\"batch\",pod=\"job-c\",container_id=\"$CC\"," $W/all.prom &&
	ok "cgroupfs driver: pod_uid and container_id" || fail "cgroupfs pod" "$(grep "pid=\"$HC\"" $W/all.prom)"
grep -q "^gpuctl_gpu_process_info{pid=\"$HS\",comm=\"sleep\",hostname=\"gpu-node-7\",unit=\"trainer.service\"," $W/all.prom &&
	ok "a systemd service: unit" || fail "unit" "$(grep "pid=\"$HS\"" $W/all.prom)"
grep -q "^gpuctl_gpu_process_info{pid=\"$HN\",comm=\"sleep\",hostname=\"gpu-node-7\",attached=" $W/all.prom &&
	ok "in neither: hostname only" || fail "neither" "$(grep "pid=\"$HN\"" $W/all.prom)"
promtool check metrics <$W/all.prom >$W/pt 2>&1 && ok "promtool: clean with the pod labels" ||
	fail "promtool" "$(head -3 $W/pt)"
# without --pod-names: no names, the UIDs still
"$G" exporter textfile >$W/tf.prom 2>$W/tf.err
grep -q "pid=\"$HC\",comm=\"sleep\",hostname=\"[^\"]*\",pod_uid=\"$UC\",container_id=\"$CC\"" $W/tf.prom &&
	! grep -q 'namespace=' $W/tf.prom && ok "textfile without --pod-names: UIDs, no names" ||
	fail "textfile" "$(grep process_info $W/tf.prom) $(cat $W/tf.err)"

kill $TSG $HC $HS $HN 2>/dev/null; wait $TSG $HC $HS $HN 2>/dev/null
[ -n "$FAKE" ] && rm -f /dev/nvidia-uvm
kill $EXP; wait $EXP
"$G" sched unload >/dev/null 2>&1
summary
