#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# test_policy_words.sh - the names of prefetch, evict and replay policies
# and their parameters agree everywhere: the engine's tables ('OBJECT list',
# which the shell's completion words are built from), the POLICY := line of
# the help, the man page's POLICY := line, the bash completion's fallback
# list and what the completion offers; and each object's command words are
# the same in its help and completion.  No root, no kernel needed.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh

G=$GPUCTL
if [ ! -x "$G" ]; then
    echo "no gpuctl binary at $G (build it, or set GPUCTL)" >&2
    exit 1
fi

sorted() { tr ' |{}*' '\n' | sed '/^$/d' | sort -u | paste -sd' '; }
eq() {	# eq NAME A B
    [ -n "$2" ] && [ "$2" = "$3" ] && ok "$1" || fail "$1" "'$2' != '$3'"
}

for obj in prefetch evict replay; do
    list=$("$G" -j $obj list | python3 -c '
import json, sys
print(" ".join(p["name"] for p in json.load(sys.stdin)))' | sorted)
    help=$("$G" $obj help | sed -n 's/.*POLICY := {\(.*\)}.*/\1/p' | sorted)
    man=$(sed -n 's/.*\*POLICY\* := {\(.*\)}.*/\1/p' man/gpuctl-$obj.8.rst | sorted)
    offered=$(bash -c '
        . bash-completion/gpuctl
        COMP_WORDS=("$1" "$2" load ""); COMP_CWORD=3
        _gpuctl; printf "%s\n" "${COMPREPLY[@]}"' _ "$G" $obj | grep -vx file | sorted)
    eq "$obj: help POLICY := the table" "$help" "$list"
    eq "$obj: man page POLICY := the table" "$man" "$list"
    # the completion is a shim: the names come from gpuctl, the file lists none
    own=$(for p in $list; do grep -qw -- "$p" bash-completion/gpuctl && echo "$p"; done | grep -vx 'none\|file' | tr '\n' ' ')
    [ -z "$own" ] && ok "$obj: the completion file lists no policy names" ||
        fail "$obj: the completion file lists no policy names" "$own"
    # prefetch load also offers the engine's policies (load picks the back-end)
    want=$list
    [ $obj = prefetch ] &&
        want=$( (echo "$list"; "$G" $obj list --backend engine | awk '/^[^ ]/ { print $1 }') | sorted)
    eq "$obj: completion offers the table" "$offered" "$want"

    # parameters: list (text) = list (JSON), each named once per policy
    text=$("$G" $obj list | awk '/^[^ ]/ { p = $1; next } { print p "." $1 }' | sorted)
    json=$("$G" -j $obj list | python3 -c '
import json, sys
print(" ".join(p["name"] + "." + q["name"] for p in json.load(sys.stdin) for q in p["params"]))' | sorted)
    eq "$obj: parameters, text = JSON" "$text" "$json"
    dup=$("$G" -j $obj list | python3 -c '
import json, sys
for p in json.load(sys.stdin):
    names = [q["name"] for q in p["params"]]
    if len(names) != len(set(names)) or any(not (q["min"] <= q["default"] <= q["max"]) for q in p["params"]):
        print(p["name"])')
    [ -z "$dup" ] && ok "$obj: parameters unique, defaults in range" ||
        fail "$obj: parameters unique, defaults in range" "$dup"
done
summary
