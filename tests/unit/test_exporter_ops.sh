#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# issue 43: the exporter as operators run it, on the host (no driver, no
# bpffs: every source down).  /healthz (liveness) stays 200 with every
# source down and fails (503) only while a scrape is stuck past
# --stuck-after (a shim holds the rescan's walk of /proc, so a scrape waits
# for the lock), and is 200 again when it ends; /readyz is 200 within
# --ready-grace of every source down and 503 after; an HTTP error is one
# logfmt line (status, the page's title, detail), never libmicrohttpd's
# HTML; 'localhost' is accepted; the systemd unit takes its options from
# an EnvironmentFile (expanded as systemd does: $VAR split at blanks).
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
G=$GPUCTL
T=$T_DIR
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (CAP_BPF, CAP_SYS_PTRACE)"; ok "skipped"; summary; }
mkdir -p "$T/nobpf"
export GPUCTL_BPFFS=$T/nobpf
PORT=$((20000 + ($$ + 11) % 12000))	# below the ephemeral ports (32768-)
code() { curl -s -m 5 -o "$T/body" -w '%{http_code}' "http://127.0.0.1:$PORT$1"; }
wait_up() {
	local i=0
	until curl -s -o /dev/null http://127.0.0.1:$PORT/healthz; do
		i=$((i + 1)); [ $i -gt 50 ] && return 1; sleep 0.2
	done
}

# --- bad options -------------------------------------------------------------------
expect_exit 2 "$G" exporter serve --stuck-after 0 && expect_stderr_line "--stuck-after 0"
expect_exit 2 "$G" exporter serve --ready-grace soon && expect_stderr_line "--ready-grace soon"
expect_exit 2 "$G" exporter serve --listen localhostx:$PORT && expect_stderr_line "a name other than localhost"

# --- localhost, readiness, liveness with every source down ---------------------------
cat >"$T/stall.c" <<'C'
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
/* opendir("/proc") waits while $STALL_FILE exists: the rescan holds the lock meanwhile */
DIR *opendir(const char *name)
{
	static DIR *(*real)(const char *);
	const char *f = getenv("STALL_FILE");

	if (f && !strcmp(name, "/proc"))
		while (access(f, F_OK) == 0)
			usleep(20000);
	if (!real)
		real = (DIR *(*)(const char *))dlsym(RTLD_NEXT, "opendir");
	return real(name);
}
C
${CC:-cc} -shared -fPIC -o "$T/stall.so" "$T/stall.c" -ldl 2>"$T/cc.err" || fail "shim" "$(cat "$T/cc.err")"
STALL_FILE=$T/stall LD_PRELOAD=$T/stall.so "$G" exporter serve --listen localhost:$PORT --interval 200 \
	--stuck-after 1 --ready-grace 1 2>"$T/exp.err" &
EXP=$!
wait_up && ok "--listen localhost:PORT serves on 127.0.0.1" || fail "localhost" "$(cat "$T/exp.err")"
[ "$(code /readyz)" = 200 ] && grep -q "^ready: every source down for [01] s" "$T/body" &&
	ok "/readyz: 200 within the grace" || fail "/readyz early" "$(cat "$T/body")"
[ "$(code /metrics)" = 200 ] && ok "/metrics answers" || fail "/metrics" "$(cat "$T/exp.err")"
sleep 1.5
[ "$(code /readyz)" = 503 ] && grep -q "^not ready: every source down for [0-9]* s (bound 1 s): uvm_tools=no_driver sched_watcher=bpffs_absent policies=bpffs_absent" "$T/body" &&
	ok "/readyz: 503 past the grace, each source's state named" || fail "/readyz late" "$(cat "$T/body")"
[ "$(code /healthz)" = 200 ] && [ "$(cat "$T/body")" = ok ] &&
	ok "/healthz: 200 with every source down (no restart for a missing driver)" ||
	fail "/healthz, sources down" "$(cat "$T/body")"

# a stuck scrape: the rescan stalls holding the lock, a scrape waits for it
touch "$T/stall"
sleep 0.5
curl -s -m 20 -o "$T/stuck.prom" http://127.0.0.1:$PORT/metrics &
CURL=$!
sleep 2
[ "$(code /healthz)" = 503 ] && grep -q "^stuck: 1 scrape(s) in flight, none finished for [0-9]* s (bound 1 s)" "$T/body" &&
	ok "/healthz: 503 while a scrape is stuck past --stuck-after" || fail "/healthz stuck" "$(cat "$T/body")"
rm -f "$T/stall"
wait $CURL
grep -q '^gpuctl_exporter_source_up' "$T/stuck.prom" && ok "the stuck scrape completes once the rescan goes on" ||
	fail "stuck scrape" "$(head -3 "$T/stuck.prom")"
[ "$(code /healthz)" = 200 ] && ok "/healthz: 200 again" || fail "/healthz after" "$(cat "$T/body")"

# --- HTTP errors: one logfmt line each ----------------------------------------------------
: >"$T/exp.err.before"
cp "$T/exp.err" "$T/exp.err.before"
/usr/bin/python3 - $PORT <<'PY'
import socket, sys
port = int(sys.argv[1])
for req in [b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 40000 + b"\r\n\r\n",
            b"GET /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: zz\r\n\r\n"]:
    s = socket.create_connection(("127.0.0.1", port))
    s.settimeout(5)
    s.sendall(req)
    try:
        s.recv(100)
    except OSError:
        pass
    s.close()
PY
sleep 0.5
new=$(tail -n +$(($(wc -l <"$T/exp.err.before") + 1)) "$T/exp.err")
n=$(printf '%s\n' "$new" | grep -c .)
[ "$n" = 2 ] && ok "two bad requests: two log lines" || fail "log lines" "$new"
lf='^ts=[0-9-]+T[0-9:.]+Z level=warn component=http status=[0-9]+ msg="[^"<>]*"( detail="[^"<>]*")?$'
printf '%s\n' "$new" | grep -Evq "$lf" && fail "logfmt" "$new" || ok "each line is logfmt: ts, level, status, msg"
printf '%s\n' "$new" | grep -q 'status=431 msg="Request too big"' && ok "431: the page's title, not its HTML" ||
	fail "431 line" "$new"
printf '%s\n' "$new" | grep -q 'status=400 .*detail="Failed to parse' && ok "400: why, as detail= on the same line" ||
	fail "400 line" "$new"
grep -qi '<html\|<title' "$T/exp.err" && fail "HTML in the log" "$(cat "$T/exp.err")" || ok "no HTML in the log"
kill $EXP; wait $EXP

# --- the systemd unit's EnvironmentFile -------------------------------------------------------
U=packaging/systemd/gpuctl-exporter.service
grep -qx 'EnvironmentFile=-/etc/default/gpuctl-exporter' $U && ok "unit: EnvironmentFile=-/etc/default/gpuctl-exporter" ||
	fail "unit EnvironmentFile" "missing"
# run_unit ENVFILE [print]: the unit's ExecStart as systemd expands it (Environment=,
# then the file) run, or its words printed
run_unit() {	# exec: in a background or $(...) subshell, its pid is the exporter's
	exec /usr/bin/python3 - "$U" "$1" "$G" "${2:-}" <<'PY'
import os, re, shlex, sys
unit, envfile, gpuctl = sys.argv[1:4]
env = {}
for l in open(unit):
    l = l.strip()
    if l.startswith("Environment="):
        for w in shlex.split(l[len("Environment="):]):
            k, v = w.split("=", 1)
            env[k] = v
    if l.startswith("ExecStart="):
        cmd = l[len("ExecStart="):]
for l in open(envfile):
    l = l.strip()
    if l and not l.startswith("#"):
        k, v = l.split("=", 1)
        env[k] = shlex.split(v)[0] if v[:1] in "\"'" else v
words = []
for w in cmd.split():
    m = re.fullmatch(r"\$([A-Za-z_][A-Za-z0-9_]*)", w)
    words += env.get(m.group(1), "").split() if m else [w]
if sys.argv[4] == "print":
    print(" ".join(words))
    sys.exit(0)
words[0] = gpuctl
os.execv(words[0], words)
PY
}
cp packaging/systemd/gpuctl-exporter.default "$T/env"
got=$(run_unit "$T/env" print)
[ "$got" = "/usr/sbin/gpuctl exporter serve --listen :9471" ] &&
	ok "shipped /etc/default (all commented): the unit's own --listen :9471" || fail "default opts" "$got"
printf 'GPUCTL_EXPORTER_OPTS="--listen localhost:9471 --pod-names"\n' >"$T/env"
got=$(run_unit "$T/env" print)
[ "$got" = "/usr/sbin/gpuctl exporter serve --listen localhost:9471 --pod-names" ] &&
	ok "the file's options replace the unit's, split at blanks" || fail "file opts" "$got"
printf '# mine\nGPUCTL_EXPORTER_OPTS="--listen localhost:%s --ready-grace 0"\n' $PORT >"$T/env"
run_unit "$T/env" 2>"$T/unit.err" &
U2=$!
wait_up
sleep 1.2
[ "$(code /readyz)" = 503 ] && ok "options from the EnvironmentFile: localhost:PORT, --ready-grace 0" ||
	fail "EnvironmentFile options" "$(cat "$T/body") $(cat "$T/unit.err")"
kill $U2; wait $U2
summary
