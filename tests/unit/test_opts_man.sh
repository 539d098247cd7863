#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# test_opts_man.sh - the option rows (cmd/*.c, struct opt) and the man pages
# agree: every command whose options are rows (gpuctl __complete __optsets)
# has each of its options, long and short, in its page's OPTIONS section
# (man/gpuctl-OBJECT.8.rst), and a page whose object's options are all rows
# lists no option the rows lack (the global ones aside).  Also: help made
# from the rows names every option, and the completion offers them.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh

G=$GPUCTL
GLOBAL=" -j --json --pretty -d --debug -h --help "
# what a page may list beside its rows: the global options (before the object -p is --pretty)
EXTRA="$GLOBAL -p -- "

# The lines of rst section $2 of file $1.
section()
{
    awk -v want="$2" '
        { line[NR] = $0 }
        END {
            for (i = 1; i <= NR; i++) {
                if (line[i + 1] ~ /^=+$/ && line[i] != "" && line[i] !~ /^=+$/) {
                    insec = (line[i] == want); i++; continue
                }
                if (insec) print line[i]
            }
        }' "$1"
}

# Option names at the start of the definition lines of OPTIONS (**-x**, **--name**).
page_opts()
{
    section "$1" OPTIONS | grep -E '^\*\*-' | sed -e 's/\*//g' |
        grep -oE -- '(^|[ ,])--?[A-Za-z][A-Za-z0-9-]*' | sed 's/^[ ,]*//' | sort -u
}

sets=$("$G" __complete __optsets)
[ -n "$sets" ] && ok "__optsets lists the commands whose options are rows" ||
    fail "__optsets lists the commands whose options are rows" "nothing"
objects=$(printf '%s\n' "$sets" | awk '{ print $1 }' | sort -u)
for obj in $objects; do
    page=man/gpuctl-$obj.8.rst
    [ -f "$page" ] || { fail "$obj: man page" "$page missing"; continue; }
    man=" $(page_opts "$page" | tr '\n' ' ') "
    rows=''
    while read -r o c; do
        [ "$o" = "$obj" ] || continue
        # shellcheck disable=SC2086
        r=$("$G" __complete $obj $c - | grep -vx -- '--' | tr '\n' ' ')
        rows+=" $r"
        help=$("$G" $obj ${c:-} --help 2>&1)
        for w in $r; do
            case $GLOBAL in *" $w "*) continue ;; esac
            case $man in *" $w "*) ok "$obj${c:+ $c}: $w in $page" ;;
            *) fail "$obj${c:+ $c}: $w in $page" "the rows have it, OPTIONS does not" ;; esac
            printf '%s\n' "$help" | grep -qE -- "(^|[ ,])$w( |,|$)" && ok "$obj${c:+ $c}: $w in --help" ||
                fail "$obj${c:+ $c}: $w in --help" "help made from the rows lacks it"
        done
    done <<<"$sets"
    # an object whose commands all have rows: the page has nothing more
    cmds=$("$G" __complete "$obj" '' | grep -v '^help$')
    all=1
    for c in $cmds; do
        printf '%s\n' "$sets" | grep -qx "$obj $c" || all=0
    done
    [ $all = 1 ] || continue
    for w in $man; do
        case " $rows $EXTRA " in *" $w "*) ok "$obj: $w of $page is a row" ;;
        *) fail "$obj: $w of $page is a row" "OPTIONS lists it, the rows do not" ;; esac
    done
done

# the old spellings stay parsed but unlisted; nothing here offers a hidden row
summary
