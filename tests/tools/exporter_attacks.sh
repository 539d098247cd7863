#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# exporter_attacks.sh GPUCTL SCENARIO... -- the attacks of issue 42 on
# `gpuctl exporter serve`, each while root scrapes (or, on the pod network,
# probes /healthz as the kubelet does).  Root; network namespaces (ip netns)
# for the remote and pod cases.  One line per scenario:
#   NAME ok=OK/N p50=S max=S cpu=PCT% diag=present|absent
# (scrapes or probes answered 200 within 5 s, their times in seconds, the
# exporter's CPU while they ran, whether it said it lacks socket diagnostics), then "NAME attacker: ..." (what flood.py
# held, or how many connections its loop made).
#
#   loop        a local user (nobody) connects and closes in a loop over
#               127.0.0.1; the exporter runs under the RestrictAddressFamilies
#               of the shipped unit ($UNIT, or $FAMILIES)
#   loop-nonl   the same without AF_NETLINK (no socket diagnostics)
#   v6-64       a remote client holds 1100 trickling connections from 150
#               addresses of one IPv6 /64; the scraper is elsewhere
#   v6-many64   the same from 150 /64s, 8 each (1200)
#   pod-hold    the DaemonSet's layout: the exporter in a pod's network
#               namespace, a node user holds 40 trickling connections from
#               the node; the kubelet (root, the node's address) probes
#               /healthz and Prometheus scrapes
#   pod-loop    the same while the node user also connects and closes in a loop
# $SECS: how long each attack lasts (default 14; the probes need about 6)
set -u
SECS=${SECS:-14}
G=$(readlink -f "$1")
shift
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
PY=/usr/bin/python3
[ -x $PY ] || PY=$(command -v python3)
FLOOD="$PY $ROOT/tests/tools/flood.py"
RAF=$ROOT/tests/tools/restrictaf
UNIT=${UNIT:-$ROOT/packaging/systemd/gpuctl-exporter.service}
T=$(mktemp -d /tmp/gpuctl-attacks.XXXXXX)
chmod 755 "$T"
mkdir "$T/nobpf"
NS=gpa$$
PORT=$((20000 + ($$ + 3) % 12000))	# below the ephemeral ports (32768-)
cleanup() {
	[ -n "${EXP:-}" ] && kill "$EXP" 2>/dev/null
	for n in srv cli pod; do ip netns del $NS$n 2>/dev/null; done
	ip link del ${NS}h 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
ulimit -n 8192
[ -x "$RAF" ] || make -s -C "$ROOT/tests/tools" restrictaf >/dev/null

# a port nothing here listens on (the pod's and the server's namespaces are fresh)
free_port() {
	$PY -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null || echo 0; }
# serve NETNS ADDR:PORT [FAMILIES]: the exporter, in NETNS ("" = here)
serve() {
	local ns=$1 listen=$2 fam=${3:-}
	local pre=()
	[ -n "$ns" ] && pre=(ip netns exec "$ns")
	[ -n "$fam" ] && pre+=("$RAF" $fam --)
	GPUCTL_BPFFS=$T/nobpf "${pre[@]}" "$G" exporter serve --listen "$listen" --interval 500 \
		2>"$T/exp.err" &
	EXP=$!
}
# wait_up URL [NETNS]
wait_up() {
	local i=0 pre=()
	[ -n "${2:-}" ] && pre=(ip netns exec "$2")
	until "${pre[@]}" curl -s -m 2 -o /dev/null "$1"; do
		i=$((i + 1)); [ $i -gt 50 ] && return 1; sleep 0.2
	done
}
# probe N URL [NETNS [CURL-ARGS]]: N GETs 0.5 s apart, "CODE SECONDS" lines
probe() {
	local n=$1 url=$2 pre=()
	[ -n "${3:-}" ] && pre=(ip netns exec "$3")
	shift 3 2>/dev/null || shift $#
	for _ in $(seq "$n"); do
		"${pre[@]}" curl -s -m 5 -o /dev/null -w '%{http_code} %{time_total}\n' "$@" "$url"
		echo
		sleep 0.5
	done | grep . >>"$T/probes"
}
# report NAME CPU_T0 WALL_T0: one line
report() {
	local name=$1 t0=$2 w0=$3 ticks hz wall
	ticks=$(( $(cpu_ticks "$EXP") - t0 ))
	hz=$(getconf CLK_TCK)
	wall=$(awk -v a="$w0" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')
	diag=present
	grep -q "no socket diagnostics" "$T/exp.err" && diag=absent
	awk -v name="$name" -v ticks="$ticks" -v hz="$hz" -v wall="$wall" -v diag="$diag" '
		{ n++; t[n] = $2 + 0; if ($1 == 200 && $2 + 0 < 5) ok++ }
		END {
			for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (t[j] < t[i]) { x = t[i]; t[i] = t[j]; t[j] = x }
			printf "%s ok=%d/%d p50=%.3f max=%.3f cpu=%.0f%% diag=%s\n", name, ok, n,
			       n ? t[int((n + 1) / 2)] : 0, n ? t[n] : 0, 100 * ticks / hz / wall, diag
		}' "$T/probes"
}
attacker() {	# NAME: what the attack did
	echo "$1 attacker: $(cat "$T/flood" "$T/loop" 2>/dev/null | tr '\n' ' ')"
}
stop() {
	kill "$EXP" 2>/dev/null
	wait "$EXP" 2>/dev/null
	EXP=
	: >"$T/probes"
	: >"$T/flood"
}

families() {
	if [ -n "${FAMILIES:-}" ]; then echo "$FAMILIES"; return; fi
	sed -n 's/^RestrictAddressFamilies=//p' "$UNIT"
}

loop() {	# NAME FAMILIES
	PORT=$(free_port)
	serve "" "127.0.0.1:$PORT" "$2"
	wait_up "http://127.0.0.1:$PORT/metrics" || { echo "$1 exporter did not start: $(cat "$T/exp.err")"; stop; return; }
	setpriv --reuid nobody --regid nogroup --clear-groups $FLOOD loop 127.0.0.1 $PORT $((SECS - 4)) 127.0.0.1 \
		>"$T/loop" 2>&1 &
	local fp=$! t0 w0
	sleep 1.5
	t0=$(cpu_ticks "$EXP"); w0=$(date +%s.%N)
	probe 8 "http://127.0.0.1:$PORT/metrics"
	report "$1" "$t0" "$w0"
	wait $fp
	attacker "$1"
	stop
	: >"$T/loop"
}

netns_v6() {	# addresses of the client side: fd00:43::/64 or 150 /64s
	ip netns add ${NS}srv && ip netns add ${NS}cli || return 1
	ip link add ${NS}s type veth peer name ${NS}c
	ip link set ${NS}s netns ${NS}srv
	ip link set ${NS}c netns ${NS}cli
	ip -n ${NS}srv link set lo up; ip -n ${NS}cli link set lo up
	ip -n ${NS}srv link set ${NS}s up; ip -n ${NS}cli link set ${NS}c up
	ip -n ${NS}srv -6 addr add fd00:42::1/64 dev ${NS}s nodad
	ip -n ${NS}cli -6 addr add fd00:42::2/64 dev ${NS}c nodad
	ip -n ${NS}cli -6 addr add fd00:44::1/64 dev ${NS}c nodad
	ip -n ${NS}srv -6 route add fd00:40::/16 via fd00:42::2
	for i in $(seq 150); do
		if [ "$1" = one ]; then
			printf 'addr add fd00:43::%x/64 dev %s nodad\n' "$i" ${NS}c
		else
			printf 'addr add fd00:43:%x::1/64 dev %s nodad\n' "$i" ${NS}c
		fi
	done | ip -n ${NS}cli -6 -batch -
}

v6() {	# NAME one|many N
	local srcs fp
	netns_v6 "$2" || { echo "$1 no network namespaces here"; return; }
	if [ "$2" = one ]; then
		srcs=$(for i in $(seq 150); do printf 'fd00:43::%x ' "$i"; done)
	else
		srcs=$(for i in $(seq 150); do printf 'fd00:43:%x::1 ' "$i"; done)
	fi
	PORT=$(free_port)
	serve ${NS}srv "[fd00:42::1]:$PORT"
	wait_up "http://[fd00:42::1]:$PORT/metrics" ${NS}cli ||
		{ echo "$1 exporter did not start: $(cat "$T/exp.err")"; stop; return; }
	# shellcheck disable=SC2086
	ip netns exec ${NS}cli $FLOOD hold fd00:42::1 $PORT "$3" "$SECS" $srcs >"$T/flood" 2>&1 &
	fp=$!
	sleep 4
	local t0 w0
	t0=$(cpu_ticks "$EXP"); w0=$(date +%s.%N)
	probe 8 "http://[fd00:42::1]:$PORT/metrics" ${NS}cli --interface fd00:44::1
	report "$1" "$t0" "$w0"
	wait $fp
	attacker "$1"
	stop
	ip netns del ${NS}srv; ip netns del ${NS}cli
}

pod() {	# NAME hold|loop
	local fp lp=
	ip netns add ${NS}pod || { echo "$1 no network namespaces here"; return; }
	ip link add ${NS}h type veth peer name ${NS}p
	ip link set ${NS}p netns ${NS}pod
	ip -n ${NS}pod link set lo up
	ip addr add 10.203.0.1/24 dev ${NS}h; ip link set ${NS}h up
	ip -n ${NS}pod addr add 10.203.0.2/24 dev ${NS}p; ip -n ${NS}pod link set ${NS}p up
	PORT=$(free_port)
	serve ${NS}pod ":$PORT"
	wait_up "http://10.203.0.2:$PORT/healthz" ||
		{ echo "$1 exporter did not start: $(cat "$T/exp.err")"; stop; ip netns del ${NS}pod; return; }
	setpriv --reuid nobody --regid nogroup --clear-groups $FLOOD hold 10.203.0.2 $PORT 40 "$SECS" \
		10.203.0.1 >"$T/flood" 2>&1 &
	fp=$!
	if [ "$2" = loop ]; then
		setpriv --reuid nobody --regid nogroup --clear-groups $FLOOD loop 10.203.0.2 $PORT $((SECS - 2)) \
			10.203.0.1 >"$T/loop" 2>&1 &
		lp=$!
	fi
	sleep 3
	local t0 w0
	t0=$(cpu_ticks "$EXP"); w0=$(date +%s.%N)
	probe 4 "http://10.203.0.2:$PORT/healthz"
	report "$1-healthz" "$t0" "$w0"
	: >"$T/probes"
	t0=$(cpu_ticks "$EXP"); w0=$(date +%s.%N)
	probe 4 "http://10.203.0.2:$PORT/metrics"
	report "$1-metrics" "$t0" "$w0"
	wait $fp $lp
	attacker "$1"
	stop
	: >"$T/loop"
	ip netns del ${NS}pod
	ip link del ${NS}h 2>/dev/null
}

for s in "$@"; do
	case $s in
	loop) loop loop "$(families)" ;;
	loop-nonl) loop loop-nonl "$(families | sed 's/ *AF_NETLINK//')" ;;
	v6-64) v6 v6-64 one 1100 ;;
	v6-many64) v6 v6-many64 many 1200 ;;
	pod-hold) pod pod-hold hold ;;
	pod-loop) pod pod-loop loop ;;
	*) echo "$s unknown scenario" ;;
	esac
done
