#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# test_cli.sh - gpuctl's command line: options, dispatch, errors, JSON,
# batch and shell.  Needs no root and no BPF.  GPUCTL=path/to/gpuctl.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh

if [ ! -x "$GPUCTL" ]; then
    echo "no gpuctl binary at $GPUCTL (build it, or set GPUCTL)" >&2
    exit 1
fi
G=$GPUCTL

# --- objects, prefixes, errors --------------------------------------------
expect_exit 2 "$G" && expect_stderr_line "no object"
expect_exit 2 "$G" foo && expect_stderr_line "unknown object" &&
    expect_out "unknown object: stdout empty" '^$'
case $ERR in *"unknown object 'foo'"*) ok "unknown object named" ;;
*) fail "unknown object named" "$ERR" ;; esac

expect_exit 2 "$G" p && expect_stderr_line "ambiguous object"
[ "$ERR" = "Error: ambiguous object 'p': prefetch, probe" ] &&
    ok "ambiguous object names candidates" ||
    fail "ambiguous object names candidates" "$ERR"

expect_exit 2 "$G" --bogus && expect_stderr_line "unknown long option"
expect_exit 2 "$G" -Z && expect_stderr_line "unknown short option"
expect_exit 2 "$G" probe bogus && expect_stderr_line "unknown probe command"
expect_exit 0 "$G" batch && expect_out "batch without command is help" 'Usage: gpuctl batch'
# Global options after the object work too (probe -j); an unknown one is one line.
expect_exit 0 "$G" probe -j && expect_json "probe -j after the object"
expect_exit 2 "$G" probe --bogus && expect_stderr_line "unknown option after the object"
expect_exit 0 "$G" pro help && expect_out "prefix 'pro' is probe" 'gpuctl probe'

# --- JSON errors ------------------------------------------------------------
expect_exit 2 "$G" -j foo && expect_json "-j unknown object" &&
    expect_json_expr "-j error member" '"unknown object" in j["error"]'
[ -z "$ERR" ] && ok "-j error: stderr empty" || fail "-j error: stderr empty" "$ERR"
expect_exit 2 "$G" -j p && expect_json "-j ambiguous" &&
    expect_json_expr "-j ambiguous names both" '"prefetch, probe" in j["error"]'
expect_exit 2 "$G" -p foo && expect_json "-p unknown object"
expect_exit 2 "$G" --bogus -j && expect_json "-j after a bad option"
expect_exit 2 "$G" -j && expect_json "-j without object"
# Escaping: quotes, backslash, control characters, invalid UTF-8.
name=$(printf 'a"b\\c\001d\te\377f')
expect_exit 2 "$G" -j "$name" && expect_json "-j escapes control chars" &&
    expect_json_expr "-j escaped name reads back" \
        "'a\"b\\\\c\\x01d\\te\\ufffdf' in j['error']"

# --- version and help -------------------------------------------------------
for v in -V --version version; do
    expect_exit 0 "$G" $v && expect_out "$v: gpuctl v" '^gpuctl v[0-9]' &&
        expect_out "$v: libbpf" '^libbpf v[0-9]'
done
expect_exit 0 "$G" -j -V && expect_json "-j -V" &&
    expect_json_expr "-j -V fields" '"version" in j and "libbpf_version" in j'
for h in help -h --help; do
    expect_exit 0 "$G" $h && expect_out "$h: Usage" '^Usage: gpuctl ' &&
        expect_out "$h: OBJECT line" 'OBJECT := \{ prefetch \|.* probe \|.* batch \| shell \}' &&
        expect_out "$h: OPTIONS line" 'OPTIONS := \{ \{-j\|--json\} \[\{-p\|--pretty\}\] \| \{-d\|--debug\} \| \{-V\|--version\} \}'
done
expect_exit 0 "$G" -j help && expect_json "-j help"
for o in probe batch shell prefetch evict replay sched trace stat; do
    expect_exit 0 "$G" $o help
    OUT="$OUT$ERR" expect_out "$o help: Usage" "Usage: gpuctl $o"
    expect_exit 0 "$G" help $o
    OUT="$OUT$ERR" expect_out "help $o: Usage" "Usage: gpuctl $o"
done
expect_exit 0 "$G" -d version

# --- batch ------------------------------------------------------------------
B=$T_DIR/batch
cat >"$B" <<'EOT'
# a comment line

version   # a comment after a command
pro\
be \
  help
'ver'"sion"
    # indented comment
batch "help"
bogus-object
version
EOT
expect_exit 2 "$G" batch file "$B" && expect_stderr_line "batch stops at failure"
case $ERR in "Error: batch line 10: unknown object 'bogus-object'"*)
    ok "batch error names the line" ;;
*) fail "batch error names the line" "$ERR" ;; esac
n=$(printf '%s\n' "$OUT" | grep -c '^gpuctl v')
[ "$n" = 2 ] && ok "batch ran the lines before the failure only" ||
    fail "batch ran the lines before the failure only" "$n version outputs"
expect_out "batch continuation joined 'pro\\be help'" 'Usage: gpuctl probe'

expect_exit 2 "$G" -j batch file "$B" && expect_json "batch -j" &&
    expect_json_expr "batch -j: one element per command, error last" \
        'isinstance(j, list) and len(j) == 5 and "batch line 10" in j[-1]["error"]' &&
    expect_json_expr "batch -j: silent commands are null" 'j[1] is None and j[0]["version"]'
[ -z "$ERR" ] && ok "batch -j: stderr empty" || fail "batch -j: stderr empty" "$ERR"

printf 'version\n"unterminated\nversion\n' >"$B"
expect_exit 2 "$G" batch file "$B" && expect_stderr_line "batch quote error"
case $ERR in *"batch line 2: unterminated double quote"*) ok "batch quote error line" ;;
*) fail "batch quote error line" "$ERR" ;; esac

printf 'help\\ me\n' >"$B"
expect_exit 2 "$G" batch file "$B"
case $ERR in *"unknown object 'help me'"*) ok "batch backslash escapes a blank" ;;
*) fail "batch backslash escapes a blank" "$ERR" ;; esac

printf 'version\nversion\n' >"$B"
expect_exit 0 "$G" -j batch file "$B" && expect_json "batch -j success" &&
    expect_json_expr "batch -j success: array of 2" 'len(j) == 2'
expect_exit 0 sh -c '"$1" -j batch file - <"$2"' _ "$G" "$B" && expect_json "batch file -" &&
    expect_json_expr "batch file -: array of 2" 'len(j) == 2'

: >"$B"
expect_exit 0 "$G" -j batch file "$B" && expect_json_expr "empty batch -j is []" 'j == []'
printf '# only comments\n\n' >"$B"
expect_exit 0 "$G" batch file "$B"

expect_exit 1 "$G" batch file "$T_DIR/does-not-exist" && expect_stderr_line "batch missing file"
expect_exit 1 "$G" -j batch file "$T_DIR/does-not-exist" && expect_json "batch -j missing file"
printf 'batch file %s\n' "$B" >"$T_DIR/nested"
expect_exit 2 "$G" batch file "$T_DIR/nested" && expect_stderr_line "nested batch"
expect_exit 2 "$G" batch file && expect_stderr_line "batch file without FILE"

# A NUL byte is an error naming the line, never a silently shortened line.
printf 'version\n\0version\nversion\n' >"$B"
expect_exit 2 "$G" batch file "$B" && expect_stderr_line "batch: NUL byte"
case $ERR in *"batch line 2: the line holds a NUL byte"*) ok "batch: NUL byte names the line" ;;
*) fail "batch: NUL byte names the line" "$ERR" ;; esac
n=$(printf '%s\n' "$OUT" | grep -c '^gpuctl v')
[ "$n" = 1 ] && ok "batch: nothing after the NUL line ran" || fail "batch: nothing after the NUL line ran" "$n"
printf 'version\\\n\0x\nversion\n' >"$B"
expect_exit 2 "$G" batch file "$B" && expect_stderr_line "batch: NUL byte in a continuation"
printf 'version \0 bogus\n' >"$B"
expect_exit 2 "$G" -j batch file "$B" && expect_json "batch -j: NUL byte" &&
    expect_json_expr "batch -j: NUL byte is the error" '"NUL byte" in j[-1]["error"]'
printf 'version\0\nversion\n' >"$B"
expect_exit 0 sh -c '"$1" shell <"$2"' _ "$G" "$B"
expect_err "shell: NUL byte is an error line" 'Error: the line holds a NUL byte'
n=$(printf '%s\n' "$OUT" | grep -c '^gpuctl v')
[ "$n" = 1 ] && ok "shell: the NUL line did not run" || fail "shell: the NUL line did not run" "$n"
# -j given inside one line (after an object) ends with that line.
printf 'trace report -j -i %s/none\nversion\n' "$T_DIR" >"$B"
expect_exit 0 sh -c '"$1" shell <"$2"' _ "$G" "$B"
case $OUT in *'"error"'*'gpuctl v'*) ok "shell: -j of one line stays in that line" ;;
*) fail "shell: -j of one line stays in that line" "$OUT" ;; esac

# --- shell completion (a terminal through script(1)) ---------------------------
# The words come from each object's command table and policy list; typed ahead
# after the prompt is up: object, command and policy names complete.
if command -v script >/dev/null; then
    comp=$( (sleep 1; printf 'prefetch load al\t\025evict lo\tqu\t\025sch\tli\t\025stat --fie\t\025quit\n') |
        GPUCTL_HISTORY= timeout 10 script -q -c "$G shell" /dev/null 2>/dev/null | tr '\r' '\n')
    # stat's option: from its rows, through the one completion source (complete.c)
    for w in 'prefetch load always_max ' 'evict load quota ' 'sched list ' 'stat --field-separator '; do
        case $comp in *"$w"*) ok "shell completes '$w'" ;; *) fail "shell completes '$w'" "$(printf '%s' "$comp" | cat -v | head -c 300)" ;; esac
    done
else
    echo "# script(1) missing: shell completion not tested"
fi

# --- shell (from a pipe) ----------------------------------------------------
printf 'version\nbogus\nversion\nquit\nversion\n' >"$B"
expect_exit 0 sh -c '"$1" shell <"$2"' _ "$G" "$B" && expect_stderr_line "shell goes on after a failure"
n=$(printf '%s\n' "$OUT" | grep -c '^gpuctl v')
[ "$n" = 2 ] && ok "shell: failure does not end it, quit does" ||
    fail "shell: failure does not end it, quit does" "$n version outputs"
printf 'version\nbogus\n"x\nhelp\n' >"$B"
expect_exit 0 sh -c '"$1" -j shell <"$2"' _ "$G" "$B"
if printf '%s\n' "$OUT" | python3 -c '
import json, sys
docs = [json.loads(l) for l in sys.stdin if l.strip()]
assert len(docs) == 4, docs
assert "version" in docs[0] and "error" in docs[1] and "error" in docs[2] and docs[3] is None
'; then ok "shell -j: one JSON document per line"; else fail "shell -j: one JSON document per line" "$OUT"; fi

# --- probe --------------------------------------------------------------------
expect_exit 0 "$G" probe && expect_out "probe text" 'struct uvm_gpu_ext'
expect_exit 0 "$G" -j probe && expect_json "probe -j" &&
    expect_json_expr "probe -j members" \
        'all(k in j for k in ("kernel", "bpf", "capabilities", "nvidia", "struct_ops", "kfuncs", "trace_points"))' &&
    expect_json_expr "probe -j struct_ops entries" \
        '[s["type"] for s in j["struct_ops"]] == ["uvm_gpu_ext", "uvm_fault_policy_ops", "uvm_evict_ops"]'
expect_exit 0 "$G" -p probe && expect_json "probe -p"
expect_exit 0 "$G" -j probe &&
    expect_json_expr "probe -j: the rm backend is listed with its device" \
        '[b for b in j["trace_backends"] if b["name"] == "rm" and "device" in b]'

# --- trace tsg: the rm backend's command line (nothing is loaded) -------------
expect_exit 2 "$G" trace tsg --backend bpf && expect_stderr_line "tsg with bpf"
case $ERR in *"only the rm backend traces TSG events"*) ok "tsg: bpf refusal names rm" ;;
*) fail "tsg: bpf refusal names rm" "$ERR" ;; esac
expect_exit 2 "$G" trace tsg --backend uvm-tools -- true && expect_stderr_line "tsg with uvm-tools"
expect_exit 2 "$G" -j trace tsg --backend bpf && expect_json "tsg backend error under -j"
expect_exit 2 "$G" trace faults --backend rm && expect_stderr_line "rm for faults"
expect_exit 2 "$G" trace faults --device /dev/null && expect_stderr_line "--device for faults"
expect_exit 2 "$G" trace tsg --device && expect_stderr_line "--device without PATH"
expect_exit 2 "$G" trace record bogus && expect_stderr_line "record: unknown event kind"
expect_exit 2 "$G" trace record --device /dev/null && expect_stderr_line "record all with --device"
# both kinds (issue 44): one record from two backends; a word twice or a third is refused
expect_exit 2 "$G" trace record tsg all tsg && expect_stderr_line "record: tsg twice"
expect_exit 2 "$G" trace record all tsg bogus && expect_stderr_line "record: a third word"
expect_exit 2 "$G" trace record all tsg --backend rm && expect_stderr_line "record all tsg --backend rm"
case $ERR in *"--backend names the UVM events' backend"*) ok "record all tsg --backend rm: says what --backend means here" ;;
*) fail "record all tsg --backend rm" "$ERR" ;; esac
expect_exit 1 "$G" trace tsg --device "$T_DIR/no-such-device" &&
    expect_stderr_line "tsg: RM device missing"
case $ERR in *"no-such-device"*"GPUCTL_RM_DEVICE"*) ok "tsg: missing device named, with the way out" ;;
*) fail "tsg: missing device named, with the way out" "$ERR" ;; esac
expect_exit 1 env GPUCTL_RM_DEVICE="$T_DIR/no-such-device" "$G" -j trace tsg &&
    expect_json "tsg: RM device error under -j (GPUCTL_RM_DEVICE)"
expect_exit 1 "$G" trace tsg --device "$T_DIR" && expect_stderr_line "tsg: not a character device"

# asked-for help is output: every object's goes to stdout, nothing to stderr
for o in prefetch evict replay sched trace stat probe batch shell; do
    expect_exit 0 "$G" $o help
    case $OUT in
    Usage:*) [ -z "$ERR" ] && ok "$o help: on stdout" || fail "$o help: on stdout" "stderr: $ERR" ;;
    *) fail "$o help: on stdout" "stdout: $(printf '%s' "$OUT" | head -c 100)" ;;
    esac
done

# sched run --gpu without a value: a usage error, one line, before anything runs
expect_exit 2 $G sched run lc-be lc comm:x --gpu
expect_stderr_line "sched run --gpu without a value"

summary
