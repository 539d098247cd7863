#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# issue 32 (lesser): the bash completion (bash-completion/gpuctl) completes
# file names whole: 'my policy.o' is one name, not two, a file named '*.o'
# is offered as itself, not expanded to every .o file, the filter keeps
# only .o files (and directories), and a typed 'my\ p' or "'my p" finds
# 'my policy.o'.  Driven the way test_docs.sh drives it: bash sources the
# file, sets COMP_WORDS/COMP_CWORD and calls _gpuctl.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
COMPLETION=$(pwd)/bash-completion/gpuctl
PATH="$(dirname "$GPUCTL"):$PATH"	# the shim asks the gpuctl it completes for
D=$T_DIR/files
mkdir -p "$D/sub dir"
touch "$D/my policy.o" "$D/*.o" "$D/a.o" "$D/notes.txt"

# comp WORD...: the completions, one per line, sorted (run in $D)
comp()
{
    (cd "$D" && bash -c '
        . "$1"; shift
        COMP_WORDS=(gpuctl "$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
        _gpuctl; printf "%s\n" "${COMPREPLY[@]}"' _ "$COMPLETION" "$@" | LC_ALL=C sort)
}
expect_comp()	# NAME WANT WORD...
{
    local name=$1 want=$2 got
    shift 2
    got=$(comp "$@")
    [ "$got" = "$want" ] && ok "$name" || fail "$name" "got: $(printf '%s' "$got" | tr '\n' '|'), want: $(printf '%s' "$want" | tr '\n' '|')"
}

expect_comp "prefetch load file: .o files and directories, whole" \
	"$(printf '%s\n' '*.o' a.o 'my policy.o' 'sub dir' | LC_ALL=C sort)" prefetch load file ""
expect_comp "prefetch load file my: one name with a blank" "my policy.o" prefetch load file my
expect_comp "prefetch load file '*': the file named *.o, not expanded" "*.o" prefetch load file '*'
expect_comp "prefetch load file 'my\\ p' (escaped blank)" "my policy.o" prefetch load file 'my\ p'
expect_comp "prefetch load file \"'my p\" (quoted)" "my policy.o" prefetch load file "'my p"
expect_comp "trace record -o: any file, whole" \
	"$(printf '%s\n' '*.o' a.o 'my policy.o' notes.txt 'sub dir' | LC_ALL=C sort)" trace record -o ""
expect_comp "trace report -i sub: a directory with a blank" "sub dir" trace report -i sub
summary
