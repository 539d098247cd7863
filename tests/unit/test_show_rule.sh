#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# test_show_rule.sh - one exit-code rule for every object's show and status
# (gpuctl(8), EXIT STATUS): nothing loaded is an answer, exit 0, said on
# standard output, null under -j; an Error line only when they cannot read
# what may be loaded.  Every show/status the binary offers is found through
# gpuctl __complete, so a new one is held to the rule.  Host only: bpffs is
# named by $GPUCTL_BPFFS (a plain directory: nothing can be pinned there, and
# a bpffs with no gpuctl tree); no root needed.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh

G=$GPUCTL
NOTBPF=$T_DIR/notbpf
mkdir -p "$NOTBPF"

cmds=()
for obj in $("$G" __complete ''); do
    for c in $("$G" __complete "$obj" ''); do
        case $c in show|status) cmds+=("$obj $c") ;; esac
    done
done
[ "${#cmds[@]}" -ge 4 ] && ok "show/status commands found: ${cmds[*]}" ||
    fail "show/status commands found" "${cmds[*]}"

roots=("$NOTBPF")
# a mounted bpffs without gpuctl's tree (this host's, when gpuctl pinned nothing there)
if grep -q ' /sys/fs/bpf bpf ' /proc/mounts && [ ! -e /sys/fs/bpf/gpuctl ]; then
    roots+=(/sys/fs/bpf)
fi
for root in "${roots[@]}"; do
    for oc in "${cmds[@]}"; do
        # shellcheck disable=SC2086
        set -- $oc
        what="$oc (bpffs $root)"
        expect_exit 0 env GPUCTL_BPFFS="$root" "$G" "$1" "$2" &&
            expect_out "$what: says nothing is loaded" 'no policy loaded|watcher not running'
        [ -z "$ERR" ] && ok "$what: no Error line" || fail "$what: no Error line" "$ERR"
        if [ "$root" = "$NOTBPF" ]; then
            expect_out "$what: names the missing bpffs" "bpffs not mounted at $NOTBPF"
        fi
        expect_exit 0 env GPUCTL_BPFFS="$root" "$G" -j "$1" "$2" && expect_json "$what -j"
        case $1 in
        sched)
            expect_json_expr "$what -j: watcher false, stats null, schema_version" \
                "j['watcher'] is False and j['stats'] is None and j['running_s'] is None and j['schema_version'] == 2" ;;
        *)
            expect_json_expr "$what -j: policy null" "j['policy'] is None and j['schema_version'] == 2" ;;
        esac
        # a bad command line is still 2, one Error line
        expect_exit 2 env GPUCTL_BPFFS="$root" "$G" "$1" "$2" bogus-word && expect_stderr_line "$what bogus-word"
    done
done
# what is not show/status keeps failing when it cannot work: sched list names bpffs
expect_exit 1 env GPUCTL_BPFFS="$NOTBPF" "$G" -j sched list &&
    expect_json_expr "sched list, no bpffs: BPFFS_ABSENT" "j['code'] == 'BPFFS_ABSENT'"

# the rule is written down: gpuctl(8) once, and each show/status paragraph points at it
grep -q '^\*\*show\*\* and \*\*status\*\*, of every object, follow one rule' man/gpuctl.8.rst &&
    ok "gpuctl(8) states the rule" || fail "gpuctl(8) states the rule" "not in EXIT STATUS"
for oc in "${cmds[@]}"; do
    # shellcheck disable=SC2086
    set -- $oc
    page=man/gpuctl-$1.8.rst
    # the paragraph of the command: from its definition line to the next blank line
    para=$(awk -v a="**gpuctl $1 $2**" -v b="**$2**" '
        $0 == a || $0 == b { on = 1; next } on && /^$/ { exit } on { print }' "$page")
    case $para in
    *"exits 0"*"EXIT STATUS"*|*"exits 0"*"EXIT"*) ok "$page: $2 states the rule" ;;
    *) fail "$page: $2 states the rule" "no 'exits 0 ... EXIT STATUS' in: $para" ;;
    esac
done
summary
