#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# issue 35: the exporter's Prometheus face on the host (no driver needed):
# /healthz answers 200 "ok" for a liveness probe; ":PORT" (the default's
# form) listens on IPv6 and IPv4 alike, and on IPv4 alone where IPv6 is
# off (an LD_PRELOAD shim refuses AF_INET6 sockets as ipv6.disable=1
# does); textfile leaves out process_* and the scrape's own metrics, which
# node_exporter exports itself and refuses from a textfile; --pod-names
# is taken by serve and textfile.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
G=$GPUCTL
T=$T_DIR
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (CAP_BPF, CAP_SYS_PTRACE)"; ok "skipped"; summary; }
mkdir -p "$T/nobpf"
export GPUCTL_BPFFS=$T/nobpf
PORT=$((20000 + ($$ + 7) % 12000))	# below the ephemeral ports (32768-)
code() { curl -s -m 5 -g -o "$T/body" -w '%{http_code}' "$1"; }
start() {	# start [ENV...]: serve on :$PORT, wait until 127.0.0.1 answers
	env "$@" "$G" exporter serve --listen :$PORT --interval 500 --pod-names 2>"$T/exp.err" &
	EXP=$!
	i=0
	until curl -s -o /dev/null http://127.0.0.1:$PORT/healthz; do
		i=$((i + 1)); [ $i -gt 50 ] && break; sleep 0.2
	done
}

start
[ "$(code http://127.0.0.1:$PORT/healthz)" = 200 ] && [ "$(cat "$T/body")" = ok ] &&
	ok "/healthz: 200 ok" || fail "/healthz" "$(cat "$T/body") $(cat "$T/exp.err")"
[ "$(code http://127.0.0.1:$PORT/metrics)" = 200 ] && ok ":PORT: IPv4 answers /metrics" ||
	fail ":PORT IPv4" "$(cat "$T/exp.err")"
if ip -6 addr show lo 2>/dev/null | grep -q '::1'; then
	[ "$(code "http://[::1]:$PORT/healthz")" = 200 ] && ok ":PORT: IPv6 (::1) answers too" ||
		fail ":PORT IPv6" "not listening on ::1"
else
	ok "skipped: no ::1 here"
fi
kill $EXP; wait $EXP

# IPv6 off: socket(AF_INET6) fails as under ipv6.disable=1
cat >"$T/noipv6.c" <<'C'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <sys/socket.h>
int socket(int domain, int type, int protocol)
{
	static int (*real)(int, int, int);

	if (domain == AF_INET6) {
		errno = EAFNOSUPPORT;
		return -1;
	}
	if (!real)
		real = (int (*)(int, int, int))dlsym(RTLD_NEXT, "socket");
	return real(domain, type, protocol);
}
C
if ${CC:-cc} -shared -fPIC -o "$T/noipv6.so" "$T/noipv6.c" -ldl 2>"$T/cc.err"; then
	start LD_PRELOAD="$T/noipv6.so"
	[ "$(code http://127.0.0.1:$PORT/healthz)" = 200 ] && ok "IPv6 off: still serves on IPv4" ||
		fail "IPv6 off" "$(cat "$T/exp.err")"
	kill $EXP; wait $EXP
	[ $? = 0 ] && ok "IPv6 off: exits 0 on SIGTERM" || fail "IPv6 off exit" "$?"
else
	fail "build the IPv6 shim" "$(head -c 300 "$T/cc.err")"
fi

# textfile: nothing node_exporter exports itself
expect_exit 0 "$G" exporter textfile --pod-names --output "$T/t.prom"
grep -q '^gpuctl_exporter_build_info' "$T/t.prom" && ok "textfile: build_info" || fail "textfile" "empty"
bad=$(grep -E '^(# (HELP|TYPE) )?(process_|gpuctl_exporter_(scrapes|last_scrape|rescan|last_rescan|processes_))' "$T/t.prom")
[ -z "$bad" ] && ok "textfile: no process_* nor scrape metrics" || fail "textfile" "$bad"
promtool check metrics <"$T/t.prom" >/dev/null 2>&1 && ok "textfile: promtool clean" ||
	fail "textfile promtool" "$(promtool check metrics <"$T/t.prom" 2>&1 | head -3)"
expect_exit 2 "$G" exporter textfile --pod-namez && expect_stderr_line "textfile: unknown option"
summary
