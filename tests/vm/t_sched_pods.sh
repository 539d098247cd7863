#!/bin/sh
# issue 43: sched rules by pod and by cgroup subtree (pod:UID,
# cgroup-tree:PATH) on the kubelet's real cgroup v2 hierarchies, built
# here under /sys/fs/cgroup in both layouts (systemd driver's
# kubepods.slice, cgroupfs driver's /kubepods).  `sched run lc-be lc
# pod:UID` is started before the pod exists: one warning line, then the
# pod's cgroup appears and its processes' TSGs get class lc (the watcher's
# BPF decides by the cgroup ancestor), a subtree's process that was there
# before the run gets it from the C side of the same header, the pod
# deleted mid-run leaves the run going and its rule waiting, and the pod
# made again matches again.  Bad input: a malformed UID, '..', a path
# outside the cgroup v2 mount, a file, a cgroup v1 host (a tmpfs over
# /sys/fs/cgroup, as such a host has).
. "$(dirname "$0")/../lib.sh"

export GPUCTL_RM_DEVICE=/dev/uvm_model_rm
RMC=${RMCLIENT:-tests/model/rmclient}
[ -x "$RMC" ] || RMC=$(command -v rmclient)
W=$T_DIR
CG=/sys/fs/cgroup

if [ ! -c /dev/uvm_model_rm ]; then
	fail "model RM device" "/dev/uvm_model_rm missing"
	summary
fi
UA=7b2e1d63-4c8f-4e32-8d1f-6a4b3c2d1e01		# systemd driver, created after the rule
UB=7b2e1d63-4c8f-4e32-8d1f-6a4b3c2d1e02		# cgroupfs driver, there before the run
UC=0f3c8e5a9b1d4e6f8a2c7b9d1e3f5a70		# a static pod's UID, cgroupfs, guaranteed
us() { echo "$1" | tr - _; }
PA=$CG/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod$(us $UA).slice
CA=$PA/cri-containerd-a1a1000000000000000000000000000000000000000000000000000000000001.scope
PB=$CG/kubepods/besteffort/pod$UB
CB=$PB/b2b2000000000000000000000000000000000000000000000000000000000002
PC=$CG/kubepods/pod$UC
CC=$PC/c3c3000000000000000000000000000000000000000000000000000000000003
mkdir -p $CG/kubepods.slice/kubepods-burstable.slice $CB || { fail "hierarchy" "mkdir"; summary; }

# start_in DIR NAME ARGS...: rmclient as NAME inside cgroup DIR; CPID; waits for "ready"
start_in() {
	local dir=$1 name=$2 i=0
	shift 2
	cp "$RMC" "$W/$name"
	sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$dir" "$W/$name" "$@" >"$W/$name.out" 2>&1 &
	CPID=$!
	while ! grep -q '^ready' "$W/$name.out" 2>/dev/null; do
		i=$((i + 1)); [ $i -gt 100 ] && break; sleep 0.05
	done
}
# wait_for FILE REGEX: up to 5 s
wait_for() {
	local i=0
	while ! grep -Eq "$2" "$1" 2>/dev/null; do
		i=$((i + 1)); [ $i -gt 50 ] && return 1; sleep 0.1
	done
}
class_of() {	# class_of COMM: the class column `sched list` shows for it
	"$GPUCTL" sched list | awk -v c="$1" '$3 == c { print $9; exit }'
}

# --- bad input: one Error line, a documented exit status, nothing started --------
expect_exit 2 "$GPUCTL" sched run lc-be lc pod:7b2e1d63-4c8f-4e32-8d1f && expect_stderr_line "short UID"
expect_err "UID message" "invalid pod UID"
expect_exit 2 "$GPUCTL" sched run lc-be lc pod:7b2e1d63x4c8f-4e32-8d1f-6a4b3c2d1e01 &&
	expect_stderr_line "dash misplaced"
expect_exit 2 "$GPUCTL" sched run fixed match pod:zz2e1d63-4c8f-4e32-8d1f-6a4b3c2d1e01 timeslice 100 &&
	expect_stderr_line "not hex (fixed)"
expect_exit 2 "$GPUCTL" sched run lc-be lc cgroup-tree:/kubepods/../system.slice &&
	expect_stderr_line "'..' in cgroup-tree"
expect_exit 2 "$GPUCTL" sched run lc-be lc cgroup-tree:$CG/kubepods/./besteffort &&
	expect_stderr_line "'.' in cgroup-tree"
expect_exit 2 "$GPUCTL" sched run lc-be lc cgroup-tree:/no/such/slice && expect_stderr_line "no such cgroup"
expect_exit 2 "$GPUCTL" sched run lc-be lc cgroup-tree:/kubepods/cgroup.procs &&
	expect_stderr_line "a file, not a cgroup"
mkdir $CG/outside && mount -t tmpfs none $CG/outside
expect_exit 2 "$GPUCTL" sched run lc-be lc cgroup-tree:/outside && expect_stderr_line "outside the mount"
expect_err "outside message" "outside the cgroup v2 mount"
umount $CG/outside; rmdir $CG/outside
# a cgroup v1 host: /sys/fs/cgroup is a tmpfs (of v1 hierarchies)
mount -t tmpfs cgroup $CG
expect_exit 1 "$GPUCTL" sched run lc-be lc pod:$UA && expect_stderr_line "pod: on cgroup v1"
expect_err "v1 named" "not cgroup v2"
expect_exit 1 "$GPUCTL" sched run fixed match cgroup-tree:/kubepods timeslice 100 &&
	expect_stderr_line "cgroup-tree: on cgroup v1"
umount $CG
[ -d $CB ] && ok "cgroup v2 back" || { fail "cgroup v2 back" "$CB missing"; summary; }
[ -e /run/gpuctl/sched-run.pid ] && fail "bad input" "a run was left" || ok "bad input started no run"

# --- a subtree's process from before the run; the pod made after the rule -------
expect_exit 0 "$GPUCTL" sched watch
start_in $CB early -n 1; EARLY=$CPID
start_in $CG outside -n 1; OUTS=$CPID
"$GPUCTL" sched run lc-be lc pod:$UA lc cgroup-tree:/kubepods/besteffort lc pod:$UC \
	be-timeslice 200 >"$W/run.out" 2>"$W/run.err" &
RUN=$!
wait_for "$W/run.out" "^applied .*outside" || fail "run started" "$(cat $W/run.err)"
n=$(grep -c 'warning:' "$W/run.err")
[ "$n" = 2 ] && ok "one warning line per pod not here yet (2)" || fail "warnings" "$(cat $W/run.err)"
grep -q "warning: pod $UA has no cgroup" "$W/run.err" && ok "warning names the pod" ||
	fail "warning text" "$(cat $W/run.err)"
[ "$(class_of early)" = lc ] && ok "cgroup-tree: a process there before the run is lc (C side)" ||
	fail "early" "$("$GPUCTL" sched list)"
[ "$(class_of outside)" = be ] && ok "a process outside every rule is be" ||
	fail "outside" "$("$GPUCTL" sched list)"

mkdir -p $CA
wait_for "$W/run.err" "pod $UA: cgroup $PA, its rule matches" && ok "run sees the pod's cgroup appear" ||
	fail "pod appears" "$(cat $W/run.err)"
start_in $CA podapp -n 2; PODAPP=$CPID
start_in $CB later -n 1; LATER=$CPID
sleep 0.3
"$GPUCTL" sched list | sed 's/^/# /'
n=$("$GPUCTL" sched list | awk '$3 == "podapp" && $9 == "lc"' | grep -c .)
[ "$n" = 2 ] && ok "pod:UID: both TSGs of the pod's process are lc (watcher)" ||
	fail "pod lc" "$("$GPUCTL" sched list)"
[ "$(class_of later)" = lc ] && ok "cgroup-tree: a new process below is lc (watcher)" ||
	fail "later" "$("$GPUCTL" sched list)"
grep -q "^applied .*podapp.*lc" "$W/run.out" && ok "run applied the pod's class" ||
	fail "pod applied" "$(cat $W/run.out)"
case $("$GPUCTL" sched list | awk '/ podapp /{print; exit}') in
*" 200us "*) fail "pod timeslice" "a BE timeslice on an lc TSG" ;;
*) ok "the pod's TSG has no BE timeslice" ;;
esac

# a static pod (32-digit UID): cgroup and process at once, however the run sees them first
mkdir -p $CC
start_in $CC static -n 1; STATIC=$CPID
i=0
while [ "$(class_of static)" != lc ] && [ $i -lt 30 ]; do i=$((i + 1)); sleep 0.1; done
[ "$(class_of static)" = lc ] && ok "a static pod's process is lc" || fail "static" "$("$GPUCTL" sched list)"

# --- the pod deleted mid-run, then made again ------------------------------------
kill $PODAPP; wait $PODAPP 2>/dev/null
sleep 0.2
rmdir $CA $PA
wait_for "$W/run.err" "pod $UA: its cgroup is gone" && ok "run says the pod's cgroup is gone" ||
	fail "pod gone" "$(cat $W/run.err)"
kill -0 $RUN 2>/dev/null && ok "run goes on after the pod is deleted" || fail "run died" "$(cat $W/run.err)"
start_in $CG after -n 1; AFTER=$CPID
i=0	# its class shows once the run applied it (3 s at most)
while [ -z "$(class_of after)" ] && [ $i -lt 30 ]; do i=$((i + 1)); sleep 0.1; done
[ "$(class_of after)" = be ] && ok "with the pod gone, others are still be" || fail "after" "$("$GPUCTL" sched list)"
mkdir -p $CA
i=0
while [ "$(grep -c "pod $UA: cgroup .*matches from now on" "$W/run.err")" != 2 ] && [ $i -lt 50 ]; do
	i=$((i + 1)); sleep 0.1
done
[ $i -lt 50 ] && ok "the pod made again is seen again" || fail "pod again" "$(cat $W/run.err)"
start_in $CA podapp2 -n 1; POD2=$CPID
i=0
while [ "$(class_of podapp2)" != lc ] && [ $i -lt 30 ]; do i=$((i + 1)); sleep 0.1; done
[ "$(class_of podapp2)" = lc ] && ok "the pod's new process is lc" || fail "podapp2" "$("$GPUCTL" sched list)"
grep -q "^applied .*podapp2, be" "$W/run.out" && fail "podapp2 first be" "the watcher decided be" ||
	ok "the watcher decided lc for it at once (the rule was refreshed first)"

kill -INT $RUN; wait $RUN
rc=$?
[ $rc = 0 ] && ok "run exits 0 on SIGINT" || fail "run exit" "$rc: $(cat $W/run.err)"
sed 's/^/# run: /' "$W/run.out" "$W/run.err"
kill $EARLY $OUTS $LATER $STATIC $AFTER $POD2 2>/dev/null
wait 2>/dev/null
expect_exit 0 "$GPUCTL" sched unload
summary
