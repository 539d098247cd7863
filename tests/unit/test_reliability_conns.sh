#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# issue 42 (1-3): no client, local or remote, makes a scrape or a health
# probe fail or slow (tests/tools/exporter_attacks.sh runs each attack while
# root scrapes or probes: 8 or 4 GETs, each must answer 200 within 3 s):
#  - a local user's connect/close loop, the exporter under the shipped
#    unit's RestrictAddressFamilies (AF_NETLINK in it: the socket
#    diagnostics work, and the exporter takes < 35 % of a core), and under
#    the same without AF_NETLINK (nothing scanned per connection either);
#  - a remote client with 150 addresses of one IPv6 /64 (1100 trickling
#    connections) and one with 150 /64s (1200): the scraper elsewhere is
#    served (network namespaces joined by a veth pair);
#  - the DaemonSet's layout: the exporter in a pod's network namespace, a
#    node user holding 40 trickling connections from the node's address
#    (and, again, looping connect/close): the kubelet's /healthz probes and
#    the scrapes from that same address are served.
# 543f5eb failed each (0 of 4 probes on the pod network, 6 of 8 scrapes and
# 62 % of a core under the loop, 7 of 8 under the /64s).
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
T=$T_DIR
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (network namespaces)"; ok "skipped"; summary; }
command -v ip >/dev/null && command -v setpriv >/dev/null && command -v curl >/dev/null ||
	{ ok "skipped: no ip, setpriv or curl"; summary; }
ip netns add gpuctl-probe$$ 2>/dev/null || { ok "skipped: no network namespaces here"; summary; }
ip netns del gpuctl-probe$$
make -s -C tests/tools restrictaf >"$T/make.err" 2>&1 || fail "build restrictaf" "$(cat "$T/make.err")"

grep -q '^RestrictAddressFamilies=.*AF_NETLINK' packaging/systemd/gpuctl-exporter.service &&
	ok "the unit allows AF_NETLINK (socket diagnostics)" ||
	fail "the unit's RestrictAddressFamilies" "$(grep RestrictAddressFamilies packaging/systemd/gpuctl-exporter.service)"

SECS=10 timeout 240 tests/tools/exporter_attacks.sh "$GPUCTL" loop loop-nonl v6-64 v6-many64 pod-hold pod-loop \
	>"$T/att" 2>&1
check() {	# SCENARIO WHAT [MAX-CPU]
	line=$(grep "^$1 ok=" "$T/att")
	name="$1: $2"
	cpumax=${3:-}
	read -r got of max cpu <<EOF2
$(printf '%s\n' "$line" | sed -n 's/.* ok=\([0-9]*\)\/\([0-9]*\) p50=[0-9.]* max=\([0-9.]*\) cpu=\([0-9]*\)%.*/\1 \2 \3 \4/p')
EOF2
	if [ -n "$got" ] && [ "$got" = "$of" ] && [ "$got" -gt 0 ] && awk -v m="$max" 'BEGIN { exit !(m < 3) }'; then
		ok "$name: $got of $of answered, the slowest in $max s"
	else
		fail "$name" "$line; $(grep "^$1 attacker" "$T/att")"
	fi
	if [ -n "$cpumax" ]; then
		[ -n "$cpu" ] && [ "$cpu" -lt "$cpumax" ] && ok "$name: the exporter took $cpu % of a core (< $cpumax %)" ||
			fail "$name: CPU" "$line"
	fi
}
check loop "a local user's connect/close loop, under the unit's address families" 35
grep -q '^loop .*diag=present' "$T/att" && ok "loop: the socket diagnostics work under the unit" ||
	fail "loop: socket diagnostics" "$(grep '^loop ' "$T/att")"
check loop-nonl "the same without AF_NETLINK" 35
grep -q '^loop-nonl .*diag=absent' "$T/att" && ok "loop-nonl: the exporter says it lacks the diagnostics" ||
	fail "loop-nonl: says so" "$(grep '^loop-nonl ' "$T/att")"
check v6-64 "150 addresses of one IPv6 /64, 1100 connections"
check v6-many64 "150 IPv6 /64s, 1200 connections"
check pod-hold-healthz "pod network, a node user holding 40: the kubelet's /healthz"
check pod-hold-metrics "pod network, a node user holding 40: scrapes from the node"
check pod-loop-healthz "pod network, a node user holding and looping: /healthz"
check pod-loop-metrics "pod network, a node user holding and looping: scrapes"
grep -q "^pod-hold attacker: held [0-8] of 40" "$T/att" && ok "pod network: the node user held at most 8" ||
	fail "pod network: the node user's bound" "$(grep attacker "$T/att")"
summary
