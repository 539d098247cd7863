#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# issue 23: the exporter answers a scraper whatever other clients do (on
# the host: no driver, no bpffs needed, the exporter serves its own health).
# 70 idle and 70 trickling connections (slowloris: a byte every 2 s) of one
# local user (uid 65534), from one address each and then spread over 35
# addresses, while 3 scrapes from
# another address must each answer 200 within 3 s; a POST with a body to
# /metrics gets 405 like every other method; no bpffs: textfile and serve
# say bpffs_absent in source_up instead of refusing.
# issue 32: the bound is per local user: one unprivileged user (nobody)
# trickling 40 connections over 127.0.0.1 (the scraper's own address),
# other loopback addresses and IPv4-mapped ones, or over ::1, holds at most
# 8 and never makes root's scrape fail.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
G=$GPUCTL
T=$T_DIR
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (CAP_BPF, CAP_SYS_PTRACE)"; ok "skipped"; summary; }
command -v python3 >/dev/null || { ok "skipped: no python3"; summary; }
PORT=$((20000 + $$ % 12000))	# below the ephemeral ports (32768-)
mkdir -p "$T/nobpf"
GPUCTL_BPFFS=$T/nobpf "$G" exporter serve --listen 127.0.0.1:$PORT --interval 500 \
	2>"$T/exp.err" &
EXP=$!
i=0
until curl -s -o /dev/null http://127.0.0.1:$PORT/metrics; do
	i=$((i + 1)); [ $i -gt 50 ] && break; sleep 0.2
done
curl -s http://127.0.0.1:$PORT/metrics >"$T/m.prom" && ok "serve without bpffs: answers" ||
	fail "serve without bpffs" "$(cat "$T/exp.err")"
grep -q 'source_up{source="policies",reason="bpffs_absent"} 0' "$T/m.prom" &&
	ok "serve without bpffs: source_up says bpffs_absent" || fail "bpffs_absent" "$(head -30 "$T/m.prom")"

# --- methods: every one answered, a body or not ----------------------------------
for m in POST PUT DELETE; do
	code=$(curl -s -m 5 -o /dev/null -w '%{http_code}' -X $m --data 'a=b' \
		http://127.0.0.1:$PORT/metrics)
	[ "$code" = 405 ] && ok "$m with a body: 405" || fail "$m with a body" "got '$code'"
done
code=$(curl -s -m 5 -o /dev/null -w '%{http_code}' -X POST --data-binary @"$G" \
	http://127.0.0.1:$PORT/metrics)
[ "$code" = 405 ] && ok "POST with a large body: 405" || fail "POST large body" "got '$code'"
code=$(curl -s -m 5 -o /dev/null -w '%{http_code}' -X POST http://127.0.0.1:$PORT/metrics)
[ "$code" = 405 ] && ok "POST without a body: 405" || fail "POST no body" "got '$code'"

# --- slow and idle clients -----------------------------------------------------
check_attack() {	# NAME SPREAD
	SLOW_AS_UID=65534 timeout 120 python3 tests/tools/slowclients.py 127.0.0.1 $PORT 70 70 3 $2 >"$T/att" 2>&1
	n=$(grep -c '^scrape [0-9]*: 200 ' "$T/att")
	slow=$(awk '/^scrape/ && $4 > 3.0' "$T/att")
	if [ "$n" = 3 ] && [ -z "$slow" ]; then
		ok "$1: 3 of 3 scrapes answered within 3 s"
	else
		fail "$1" "$(cat "$T/att")"
	fi
}
check_attack "70 idle + 70 trickling, one address each" 0
check_attack "70 idle + 70 trickling over 35 addresses" 35
# --- one local user, many addresses: bounded as one --------------------------------
PY=/usr/bin/python3
[ -x $PY ] || PY=$(command -v python3)
per_user() {	# NAME SCRAPE_URL HOST PORT SRC...
	name=$1 url=$2
	shift 2
	setpriv --reuid nobody --regid nogroup --clear-groups $PY tests/tools/holdconns.py \
		"$1" "$2" 40 8 "$@" >"$T/hold" 2>"$T/hold.err" &
	hp=$!
	sleep 3
	bad=
	for i in 1 2 3; do
		code=$(curl -s -m 3 -o /dev/null -w '%{http_code}' "$url")
		[ "$code" = 200 ] || bad="$bad scrape $i: '$code'"
		sleep 0.5
	done
	wait $hp
	[ -z "$bad" ] && ok "$name: root's 3 scrapes answered" ||
		fail "$name: root's scrapes" "$bad; $(cat "$T/hold" "$T/hold.err")"
	held=$(sed -n 's/^held \([0-9]*\) of .*/\1/p' "$T/hold")
	[ -n "$held" ] && [ "$held" -le 8 ] && ok "$name: nobody held $held connections (<= 8)" ||
		fail "$name: nobody's bound" "$(cat "$T/hold" "$T/hold.err")"
}
if command -v setpriv >/dev/null && id nobody >/dev/null 2>&1; then
	per_user "nobody over 127.0.0.1, 127.0.1.x, ::ffff:127.0.0.9" \
		http://127.0.0.1:$PORT/metrics 127.0.0.1 $PORT \
		127.0.0.1 127.0.1.1 127.0.1.2 127.0.1.3 ::ffff:127.0.0.9
	kill -0 $EXP 2>/dev/null && ok "the exporter still runs" || fail "exporter" "$(cat "$T/exp.err")"
	PORT6=$((PORT + 1))
	GPUCTL_BPFFS=$T/nobpf "$G" exporter serve --listen "[::1]:$PORT6" --interval 500 \
		2>"$T/exp6.err" &
	EXP6=$!
	i=0
	until curl -s -o /dev/null "http://[::1]:$PORT6/metrics"; do
		i=$((i + 1)); [ $i -gt 50 ] && break; sleep 0.2
	done
	per_user "nobody over ::1" "http://[::1]:$PORT6/metrics" ::1 $PORT6 ::1
	kill -TERM $EXP6
	wait $EXP6
else
	ok "skipped: no setpriv or no user nobody"
fi
kill -TERM $EXP
wait $EXP
[ $? = 0 ] && ok "exporter: SIGTERM ends it with 0" || fail "exporter exit" "$(cat "$T/exp.err")"

# --- textfile without bpffs ----------------------------------------------------
expect_exit 0 env GPUCTL_BPFFS=$T/nobpf "$G" exporter textfile
expect_out "textfile without bpffs: bpffs_absent" 'reason="bpffs_absent"'
summary
