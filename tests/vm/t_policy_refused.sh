#!/bin/sh
# A refused load of every kind leaves the previous state exactly as it was:
# bad parameter, bad object, bad pid file, a running adaptive daemon,
# missing capabilities, bpffs missing, the driver's type missing.  "Exactly"
# is the policy shown (link, map ids, parameters, counters), the bpffs tree
# and, for adaptive, the daemon that runs.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/model.sh"

BPFFS=/sys/fs/bpf
tree() { find $BPFFS | sort; }
state() { gpuctl -j prefetch show; gpuctl -j evict show; gpuctl -j replay show; tree; }

refused()	# refused CODE NAME CMD...: exit CODE, one error line, state unchanged
{
	code=$1 name=$2
	shift 2
	before=$(state)
	expect_exit "$code" "$@"
	expect_stderr_line "$name"
	[ "$(state)" = "$before" ] && ok "$name: previous state exactly" ||
		fail "$name: previous state exactly" "$(state | diff - /dev/null | head -5)"
}

sleep 1000 & P0=$!
echo "not elf" >/tmp/text.bpf.o

# --- prefetch: always_max loaded --------------------------------------
expect_exit 0 gpuctl prefetch load always_max
expect_exit 0 gpuctl evict load lfu
expect_exit 0 gpuctl replay load adaptive
refused 1 "adaptive --detach, pid file in a missing directory" \
	gpuctl prefetch load adaptive --detach --pid-file /nonexistent/dir/a.pid
refused 1 "adaptive --detach, pid file is a directory" \
	gpuctl prefetch load adaptive --detach --pid-file /tmp
refused 2 "bad parameter" gpuctl prefetch load stride degree 0
refused 2 "unknown parameter" gpuctl prefetch load adaptive --detach --pid-file /tmp/a.pid nosuch 1
refused 1 "not an object" gpuctl prefetch load file /tmp/text.bpf.o
refused 1 "object of another type" gpuctl prefetch load file tests/policies/wrong_type.elf
refused 1 "no capabilities" tests/tools/bpfpoke nocap gpuctl prefetch load none
refused 1 "no capabilities, adaptive --detach" \
	tests/tools/bpfpoke nocap gpuctl prefetch load adaptive --detach --pid-file /tmp/a.pid
[ ! -e /tmp/a.pid ] && ok "a refused --detach leaves no pid file" || fail "no pid file" "$(cat /tmp/a.pid)"
refused 1 "no bpffs" env GPUCTL_BPFFS=/tmp gpuctl prefetch load none
refused 1 "no bpffs, adaptive" env GPUCTL_BPFFS=/tmp gpuctl prefetch load adaptive --detach --pid-file /tmp/a.pid
model_run seq blocks 4 warps 1
[ "$(stat_of decisions_native)" -eq 0 ] && [ "$(stat_of faults)" -eq 4 ] &&
	ok "always_max still decides" || fail "always_max still decides" "$STATS"

# --- a running adaptive daemon --------------------------------------------
expect_exit 0 gpuctl prefetch load adaptive --detach --pid-file /tmp/a.pid interval_ms 100
daemon=$(cut -d" " -f1 /tmp/a.pid)
kill -0 "$daemon" && ok "adaptive daemon runs" || fail "adaptive daemon runs" "pid '$daemon'"
# its first sample (no traffic) moves the threshold to lo_threshold: wait for it
i=0; until OUT=$(gpuctl -j prefetch show) && [ "$(json_get .params.threshold)" = 30 ] || [ $i -ge 50 ]; do
	usleep 100000; i=$((i + 1)); done
expect_json_eq "the daemon moved the threshold to lo_threshold" .params.threshold 30
refused 1 "second --detach with the same pid file" \
	gpuctl prefetch load adaptive --detach --pid-file /tmp/a.pid interval_ms 100
case $ERR in *"already runs as pid $daemon"*) ok "names the running daemon" ;;
*) fail "names the running daemon" "$ERR" ;; esac
usleep 300000
kill -0 "$daemon" && ok "the first daemon still runs" || fail "first daemon still runs" "gone"
[ "$(cut -d" " -f1 /tmp/a.pid)" = "$daemon" ] && ok "its pid file is unchanged" || fail "pid file unchanged" "$(cat /tmp/a.pid)"
OUT=$(gpuctl -j prefetch show)
expect_json_eq "adaptive still loaded" .policy adaptive
refused 1 "--detach with a pid file in a missing directory, daemon running" \
	gpuctl prefetch load adaptive --detach --pid-file /nonexistent/b.pid
kill -0 "$daemon" && ok "the daemon still runs after that" || fail "daemon runs after that" "gone"
kill -TERM "$daemon"
i=0; while [ -e /tmp/a.pid ] && [ $i -lt 50 ]; do usleep 100000; i=$((i + 1)); done
OUT=$(gpuctl -j prefetch show)
expect_json_eq "SIGTERM: the daemon unloads its policy" .policy null
[ ! -e /tmp/a.pid ] && ok "SIGTERM: pid file removed" || fail "pid file removed" ""
# a stale pid file (its process gone) is taken over
echo 999999 >/tmp/a.pid
expect_exit 0 gpuctl prefetch load adaptive --detach --pid-file /tmp/a.pid
[ "$(cut -d" " -f1 /tmp/a.pid)" != 999999 ] && kill -0 "$(cut -d" " -f1 /tmp/a.pid)" && ok "stale pid file taken over" ||
	fail "stale pid file taken over" "$(cat /tmp/a.pid)"
expect_exit 0 gpuctl prefetch load always_max
i=0; while [ -e /tmp/a.pid ] && [ $i -lt 50 ]; do usleep 100000; i=$((i + 1)); done
[ ! -e /tmp/a.pid ] && ok "replaced: the daemon ends, removes its pid file" || fail "daemon ends when replaced" ""
OUT=$(gpuctl -j prefetch show)
expect_json_eq "replaced: the replacement stays" .policy always_max

# --- evict and replay -------------------------------------------------------
refused 2 "evict: bad parameter" gpuctl evict load lfu decay 0
refused 2 "evict: pid that does not exist" gpuctl evict load priority pid 3999999 high
refused 1 "evict: bad object" gpuctl evict load file /tmp/text.bpf.o
refused 1 "evict: object of another type" gpuctl evict load file tests/policies/user_half.elf
refused 1 "evict: no capabilities" tests/tools/bpfpoke nocap gpuctl evict load quota pid $P0 50
refused 1 "evict: no bpffs" env GPUCTL_BPFFS=/tmp gpuctl evict load fifo
refused 1 "evict set: no capabilities" tests/tools/bpfpoke nocap gpuctl evict set min_freq 5
refused 2 "replay: bad parameter" gpuctl replay load adaptive threshold 101
refused 1 "replay: bad object" gpuctl replay load file /tmp/text.bpf.o
refused 1 "replay: no capabilities" tests/tools/bpfpoke nocap gpuctl replay load batch
refused 1 "replay: no bpffs" env GPUCTL_BPFFS=/tmp gpuctl replay load batch
refused 1 "replay unload: no capabilities" tests/tools/bpfpoke nocap gpuctl replay unload

# --- the driver's type missing (model unloaded): nothing created --------------
for obj in prefetch evict replay; do gpuctl $obj unload >/dev/null; done
i=0; while ! rmmod "$MODEL_NAME" 2>/dev/null && [ $i -lt 40 ]; do usleep 250000; i=$((i + 1)); done
rm -rf $BPFFS/gpuctl
refused 1 "prefetch: no driver type" gpuctl prefetch load none
case $ERR in *"struct uvm_gpu_ext"*) ok "names the missing type" ;; *) fail "names the missing type" "$ERR" ;; esac
refused 1 "evict: no driver type" gpuctl evict load fifo
refused 1 "replay: no driver type" gpuctl replay load once
refused 1 "adaptive --detach: no driver type" gpuctl prefetch load adaptive --detach --pid-file /tmp/a.pid
[ ! -e /tmp/a.pid ] && ok "no driver: no pid file" || fail "no driver: no pid file" ""
insmod "$MODEL_KO"
kill $P0
summary
