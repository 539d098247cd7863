#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# test_completion.sh - the bash completion is a shim over gpuctl __complete:
# through bash-completion/gpuctl (sourced, COMP_WORDS set, _gpuctl called),
# every option row of every command (as the command's own --help lists
# them, made from the rows) is offered, with the global options after the
# object; an option's values (ENUM words, files) come from the rows too;
# the words that are not options (policy names and parameters, sched run's
# words, help's objects, batch file) come from the binary's tables.  The file
# itself stays short and names no object, command or policy.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh

G=$GPUCTL
COMPLETION=$(pwd)/bash-completion/gpuctl
PATH="$(dirname "$G"):$PATH"

# comp WORD...: what the shim offers for the last word, one a line, sorted
comp()
{
    bash -c '
        . "$1"; shift
        COMP_WORDS=(gpuctl "$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
        _gpuctl; printf "%s\n" "${COMPREPLY[@]}"' _ "$COMPLETION" "$@" | LC_ALL=C sort -u
}
# has NAME WANT... -- WORD...: every WANT is offered for WORD...
has()
{
    local name=$1 want=() w miss=''
    shift
    while [ "$1" != -- ]; do want+=("$1"); shift; done
    shift
    got=" $(comp "$@" | tr '\n' ' ') "
    for w in "${want[@]}"; do
        case $got in *" $w "*) ;; *) miss+=" $w" ;; esac
    done
    [ -z "$miss" ] && ok "$name" || fail "$name" "missing:$miss; offered:$got"
}

# --- every row of every command ---------------------------------------------------
sets=$("$G" __complete __optsets)
[ "$(printf '%s\n' "$sets" | grep -c .)" -ge 25 ] && ok "__optsets: the commands with rows" ||
    fail "__optsets" "$sets"
total=0
while read -r obj cmd; do
    # shellcheck disable=SC2086
    rows=$("$G" $obj $cmd --help 2>&1 | grep -E '^  +-' | grep -oE -- '(^|[ ,])--?[A-Za-z][A-Za-z0-9-]*' |
        sed 's/^[ ,]*//' | sort -u)
    # a command without rows of its own: the global options after the object
    # shellcheck disable=SC2086
    has "$obj${cmd:+ $cmd}: every row offered" $rows -j --json --pretty -d --debug -h --help -- $obj $cmd -
    total=$((total + $(printf '%s\n' $rows | grep -c .)))
    rows=''

done <<<"$sets"
[ "$total" -ge 100 ] && ok "rows checked: $total" || fail "rows checked" "$total"

# --- values from the rows -------------------------------------------------------------
has "stat --backend: its words" auto bpf uvm-tools -- stat --backend ""
has "run --sched: the classes" lc be -- run --sched ""
has "trace report --format: its words" summary events model chrome csv -- trace report --format ""
mkdir -p "$T_DIR/d" && touch "$T_DIR/d/x.gtr" "$T_DIR/d/p.o" "$T_DIR/d/n.txt"
has "trace report -i: files" "$T_DIR/d/x.gtr" -- trace report -i "$T_DIR/d/"
has "stat -o: files" "$T_DIR/d/n.txt" -- stat -o "$T_DIR/d/n"
got=$(comp prefetch load file "$T_DIR/d/" | tr '\n' ' ')
[ "$got" = "$T_DIR/d/p.o " ] && ok "prefetch load file: .o files alone" || fail "prefetch load file" "$got"
has "-- : a command" bash -- stat -- bas

# --- words that are not options: the binary's tables -----------------------------------
for obj in prefetch evict replay; do
    # shellcheck disable=SC2046
    has "$obj load: every policy of list" $("$G" $obj list | awk '/^[^ ]/ { print $1 }') file -- $obj load ""
done
# shellcheck disable=SC2046
has "prefetch load: the engine's policies" $("$G" prefetch list --backend engine | awk '/^[^ ]/ { print $1 }') -- prefetch load ""
# shellcheck disable=SC2046
has "prefetch load stride: its parameters" $("$G" prefetch list | awk '/^[^ ]/ { p = $1; next } p == "stride" { print $1 }') -- prefetch load stride ""
has "evict load priority: pid, cgroup" pid cgroup -- evict load priority ""
has "evict load priority pid N: the levels" low normal high -- evict load priority pid 1 ""
has "sched run: the table's policies" lc-be fixed -- sched run ""
has "sched run lc-be: its words" lc be mechanism be-floor -- sched run lc-be ""
has "sched run lc-be lc: the MATCH words" comm: pid: uid: cgroup: cgroup-tree: pod: -- sched run lc-be lc ""
has "sched run fixed interleave: the levels" low medium high -- sched run fixed interleave ""
has "sched run lc-be mechanism: its values" tsg mps auto -- sched run lc-be lc comm:x mechanism ""
has "sched run lc-be be-off: its values" schedule channels -- sched run lc-be lc comm:x be-off ""
has "sched run lc-be hint-mode: modes" 0600 0660 -- sched run lc-be lc comm:x hint-mode ""
# shellcheck disable=SC2046
has "help: every object" $("$G" __complete "" | grep -vx 'help\|batch\|shell\|version') -- help ""
has "batch: its commands" file help -- batch ""
has "objects" prefetch evict replay probe sched trace stat exporter run -- ""

# --- the file is a shim ------------------------------------------------------------------
n=$(grep -cv '^ *#' "$COMPLETION")
[ "$n" -le 80 ] && ok "the shim is short ($n lines of code)" || fail "the shim is short" "$n lines"
own=$(for w in prefetch evict replay probe sched trace stat exporter lc-be fixed stride --pid --backend; do
    grep -v '^ *#' "$COMPLETION" | grep -qw -- "$w" && echo "$w"; done | tr '\n' ' ')
[ -z "$own" ] && ok "the shim names no object, policy or option" || fail "the shim names words" "$own"
summary
