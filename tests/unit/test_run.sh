#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# test_run.sh - gpuctl run on the host (no driver): the document's members,
# CMD's exit status, a tool's failure in its own member, the refusals (one
# line, exit 2), the several-tools path waiting for /dev/nvidia-uvm, and
# the completion.  tests/vm/t_run.sh runs the tools for real.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh

G=$GPUCTL

expect_exit 3 "$G" -j run -- sh -c 'echo chatter; exit 3' &&
    expect_json_expr "no tool: command, status, wall time, empty members" \
        'j["command"] == ["sh", "-c", "echo chatter; exit 3"] and j["command_status"] == 3 and j["wall_s"] > 0 and j["prefetch"] is None and j["stat"] is None and j["record"] is None and j["schema_version"] == 2'
[ "$ERR" = chatter ] && ok "-j: CMD's stdout went to stderr" || fail "-j: CMD's stdout went to stderr" "$ERR"
expect_exit 0 "$G" run -- true && expect_err "text: how CMD ended" "^run: 'true' exited with status 0 after [0-9.]+ (ns|us|ms|s)$"
expect_exit 127 "$G" -j run -- /nonexistent/cmd && expect_json_eq "a command that cannot run: 127" .command_status 127
expect_exit 1 "$G" -j run --stat -- true &&
    expect_json_expr "a tool's failure sits in its member" \
        'j["stat"]["code"] == "NO_BACKEND" and "backend" in j["stat"]["error"] and j["command_status"] is None and j["stat"]["schema_version"] == 2'
expect_exit 1 "$G" -j run --stat --prefetch stride --attach-t=300ms -- sleep 2 &&
    expect_json_expr "several tools: CMD never opened the UVM device" \
        '"did not open /dev/nvidia-uvm within" in j["error"] and j["code"] == "FAILED"'
expect_exit 1 "$G" run --stat --record "$T_DIR/r.gtr" -- true && expect_stderr_line "several tools: CMD ended first"
[ ! -e "$T_DIR/r.gtr" ] && ok "no record left behind" || fail "no record left behind" "$T_DIR/r.gtr"
# refusals
expect_exit 2 "$G" run && expect_stderr_line "run without CMD"
expect_exit 2 "$G" run --stat && expect_stderr_line "run --stat without CMD"
expect_exit 2 "$G" run distance 2 -- true && expect_stderr_line "run: words without --prefetch"
expect_exit 2 "$G" run --bogus -- true && expect_stderr_line "run: unknown option"
expect_exit 2 "$G" run --attach-timeout 0 --stat -- true && expect_stderr_line "run: --attach-timeout 0"
expect_exit 2 "$G" -j run --prefetch && expect_json_eq "run --prefetch without POLICY: USAGE" .code USAGE
expect_exit 2 "$G" run --prefetch stride --max-bytes 1K -- true && expect_stderr_line "run --max-bytes 1K"
expect_exit 2 "$G" run --max-bytes 1M -- true && expect_stderr_line "run --max-bytes without --prefetch"
expect_exit 0 "$G" run help && expect_out "run help" '^Usage: gpuctl run \[--prefetch POLICY'
# --sched CLASS: refused with one line while no sched run is active (none here), nothing run
expect_exit 1 "$G" run --sched be -- touch "$T_DIR/ran" && expect_stderr_line "run --sched, no sched run" &&
    expect_err "run --sched: says what to start" "sched run POLICY"
[ ! -e "$T_DIR/ran" ] && ok "run --sched: CMD not run" || fail "run --sched: CMD not run" "it ran"
expect_exit 1 "$G" -j run --sched lc --stat -- true && expect_json_eq "-j run --sched: one error document" .code FAILED
expect_exit 2 "$G" run --sched xx -- true && expect_stderr_line "run --sched xx"
expect_exit 2 "$G" run --sched -- true && expect_stderr_line "run --sched without CLASS"
c=" $("$G" __complete run --sched '' | tr '\n' ' ') "
[ "$(echo $c)" = "lc be" ] && ok "__complete run --sched: lc be" || fail "__complete run --sched" "$c"
# completion
c=" $("$G" __complete run - | tr '\n' ' ') "
for w in --prefetch --sched --stat --record --attach-timeout --; do
    case $c in *" $w "*) ok "__complete run -: $w" ;; *) fail "__complete run -: $w" "$c" ;; esac
done
[ "$("$G" __complete run --stat -- '')" = __command__ ] && ok "__complete run -- : a command" ||
    fail "__complete run -- : a command" "$("$G" __complete run --stat -- '')"
summary
