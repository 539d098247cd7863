#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# test_docs.sh - help text, man pages (man/*.rst) and bash completion name
# the same objects, commands and options.  Everything is read from the
# sources themselves: the OBJECT := / COMMAND := / OPTIONS := lines and the
# "gpuctl OBJECT COMMAND" usage lines of the help, the same in the rst
# pages, and what the completion function offers when run.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh

G=$GPUCTL
COMPLETION=bash-completion/gpuctl
MAN=man/gpuctl.8.rst

if [ ! -x "$G" ]; then
    echo "no gpuctl binary at $G (build it, or set GPUCTL)" >&2
    exit 1
fi

# Words of a sorted, de-duplicated set, one line.
set_of() { tr ' |{}[]' '\n' | sed '/^$/d' | sort -u | paste -sd' '; }

# The lines of rst section $2 of file $1 (up to the next "TITLE\n====").
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


# Drops rst markup: **bold**, *italic*, "\ " joins.
unrst() { sed -e 's/\*\*//g' -e 's/\*//g' -e 's/\\ //g'; }

# The words inside "NAME := { ... }" in the text on stdin.
spec_set() { grep -E "(^|[^A-Z])$1 := \{" | head -1 | sed -e "s/.*$1 := {//" -e 's/}[^}]*$//' | set_of; }

# Option names (-x, --long) in the text on stdin.
opts_in() { grep -oE -- '(^|[^A-Za-z0-9_-])--?[A-Za-z][A-Za-z-]*' | sed 's/^[^-]*//' | set_of; }

# Literal words that follow "gpuctl OBJ " in the text on stdin:
# "gpuctl o cmd", "gpuctl o { a | b }", "gpuctl o [a]".
usage_cmds()
{
    local obj=$1
    grep -oE "(^|[^-A-Za-z])gpuctl $obj (\{[^}]*\}|\[[a-z_]+\]|[a-z][a-z_-]*)" |
        sed -E "s/.*gpuctl $obj //" | set_of
}

# The usage and spec lines of an object's help (not its prose), and the
# option list that help made from option rows has ("  -x, --name ARG  ...").
obj_usage() { grep -E "(gpuctl [a-z]|:= |^  +-)" | grep -v 'OPTIONS := ' | sed -E 's/^(  +-[^ ,]*(, --[^ ]*)?) .*/\1/'; }

# What the completion offers for the words given (the last one is completed).
complete_words()
{
    bash -c '
        . "$1"; shift
        COMP_WORDS=("$GPUCTL" "$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
        _gpuctl; printf "%s\n" "${COMPREPLY[@]}"' _ "$COMPLETION" "$@" | set_of
}

# same_set NAME A B [EXTRA]: A and B hold the same words, EXTRA aside.
same_set()
{
    local name=$1 a=$2 b=$3 extra=" $4 " w only_a='' only_b=''
    for w in $a; do
        case " $b " in *" $w "*) ;; *) [[ $extra == *" $w "* ]] || only_a+=" $w" ;; esac
    done
    for w in $b; do
        case " $a " in *" $w "*) ;; *) [[ $extra == *" $w "* ]] || only_b+=" $w" ;; esac
    done
    if [ -z "$a$b" ]; then
        fail "$name" "both sets are empty (nothing extracted)"
    elif [ -z "$only_a$only_b" ]; then
        ok "$name"
    else
        fail "$name" "only in the first:${only_a:- none}; only in the second:${only_b:- none}"
    fi
}

main_help=$("$G" help 2>&1)
man_text=$( (section "$MAN" SYNOPSIS; section "$MAN" OBJECTS) | unrst)

# --- objects ------------------------------------------------------------------
help_objects=$(printf '%s\n' "$main_help" | spec_set OBJECT)
man_objects=$(printf '%s\n' "$man_text" | spec_set OBJECT)
comp_objects=$(complete_words "")
[ -n "$help_objects" ] && ok "help has OBJECT := { ... }" ||
    fail "help has OBJECT := { ... }" "$main_help"
same_set "objects: help = $MAN" "$help_objects" "$man_objects"
# The completion also offers the two that need no OBJECT line: help, version.
same_set "objects: help = completion" "$help_objects" "$comp_objects" "help version"

# --- global options -----------------------------------------------------------
help_opts=$(printf '%s\n' "$main_help" | grep 'OPTIONS := {' | opts_in)
man_opts=$(section "$MAN" OPTIONS | grep -E '^\*\*-' | unrst | opts_in)
man_syn_opts=$(printf '%s\n' "$man_text" | grep 'OPTIONS := {' | opts_in)
comp_opts=$(complete_words -)
# -h/--help works everywhere but the usage's OPTIONS line leaves it out.
same_set "options: help = $MAN OPTIONS" "$help_opts" "$man_opts" "-h --help"
same_set "options: help = $MAN SYNOPSIS" "$help_opts" "$man_syn_opts" "-h --help"
same_set "options: help = completion" "$help_opts" "$comp_opts" "-h --help"

# --- per object: commands and options ---------------------------------------
for obj in $help_objects; do
    obj_help=$("$G" "$obj" help 2>&1)
    help_cmds=$( (printf '%s\n' "$obj_help" | spec_set COMMAND
                  printf '%s\n' "$obj_help" | usage_cmds "$obj") | set_of)
    [ -n "$help_cmds" ] && ok "$obj: help names its commands" ||
        fail "$obj: help names its commands" "$obj_help"

    page=man/gpuctl-$obj.8.rst
    if [ -f "$page" ]; then
        page_text=$( (section "$page" SYNOPSIS; section "$page" COMMANDS) | unrst)
        man_cmds=$( (printf '%s\n' "$page_text" | spec_set COMMAND
                     printf '%s\n' "$page_text" | usage_cmds "$obj") | set_of)
        same_set "$obj: commands: help = $page" "$help_cmds" "$man_cmds"
        obj_opts=$(printf '%s\n' "$obj_help" | obj_usage | opts_in)
        page_opts=$(section "$page" OPTIONS | grep -E '^\*\*-' | unrst | opts_in)
        # The page may repeat global options; the help's own must be there.
        for o in $obj_opts; do
            case " $page_opts " in *" $o "*) ok "$obj: option $o in $page" ;;
            *) fail "$obj: option $o in $page" "missing" ;; esac
        done
        for o in $page_opts; do
            case " $obj_opts $help_opts -h --help " in *" $o "*) ;;
            *) fail "$obj: option $o of $page" "neither in '$obj help' nor global" ;; esac
        done
    elif grep -q "gpuctl-$obj\*\*\\\\ (8)" "$MAN" || grep -q "gpuctl-$obj(8)" "$MAN"; then
        fail "$obj: man page" "$MAN refers to gpuctl-$obj(8) but $page does not exist"
    else
        # Documented in gpuctl.8: "gpuctl OBJ CMD" or "OBJ CMD" at a line start.
        man_cmds=$( (printf '%s\n' "$man_text" | usage_cmds "$obj"
                     printf '%s\n' "$man_text" | sed 's/^/gpuctl /' | usage_cmds "$obj"
                     echo help) | set_of)
        same_set "$obj: commands: help = $MAN" "$help_cmds" "$man_cmds"
    fi

    comp_cmds=$(complete_words "$obj" "")
    same_set "$obj: commands: help = completion" "$help_cmds" "$comp_cmds"

    # Options of the object's commands must be offered by the completion.
    obj_opts=$(printf '%s\n' "$obj_help" | obj_usage | opts_in)
    for o in $obj_opts; do
        offered=''
        for c in $help_cmds; do
            offered+=" $(complete_words "$obj" "$c" -)"
        done
        case " $offered " in *" $o "*) ok "$obj: completion offers $o" ;;
        *) fail "$obj: completion offers $o" "not offered after any command" ;; esac
    done
done

# --- prefetch policies: help, completion and the shell's list agree ---------
if printf '%s\n' "$main_help" | grep -q prefetch; then
    # load offers the struct_ops policies (POLICY) and the engine's (ENGINE)
    help_pol=$( ("$G" prefetch help 2>&1 | spec_set POLICY; "$G" prefetch help 2>&1 | spec_set ENGINE) | set_of)
    comp_pol=$(complete_words prefetch load "")
    if [ -n "$help_pol" ]; then
        same_set "prefetch: policies: help = completion" "$help_pol" "$comp_pol" "file PATH"
    fi
fi

summary
