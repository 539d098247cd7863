#!/bin/bash
# test_house.sh - the structure rules of the tree (issue "The house"), checked
# so that they cannot erode silently:
#   - no source file in cmd/ or bpf/ over 800 lines;
#   - no function over 150 lines unless a comment within the 5 lines above
#     its first line says "Why long:";
#   - no include through "../" in cmd/ or bpf/;
#   - the shared layer (cmd/lib/) includes nothing outside cmd/lib/ and bpf/;
#   - no file includes a command file's header (a command file: cmd/*.c
#     defining an object, or main, batch, shell), and
#     no quoted-include circles anywhere under cmd/;
#   - every BPF object's ABI header (bpf/*.h other than *.bpf.h helpers) is
#     included by its .bpf.c and by the C side;
#   - the rooms (trace, pfengine, exporter, sched, prefetch, adaptive, probe,
#     policy, tsgw, sched/lcbe, stat) include nothing of each other but the named
#     relations (they call down: cmd/drv/, cmd/tsgw/, cmd/policy/, cmd/lib/),
#     and cmd/drv/ includes only cmd/drv/, cmd/lib/ and bpf/;
#   - faces (command files) under 500 lines, no argv step-backs, option words
#     compared only by the one parser (cmd/lib/opts.c), help's OBJECT := made
#     from the object list;
#   - no constructors under cmd/ (the policy catalogue is one const table);
#   - sched: run.c knows no class and no gate (it calls a policy's hooks),
#     no gate_* call outside cmd/sched/lcbe/, every cmd/sched/*/row.c a row
#     of policies.c's table, sched's policy names listed only by their rows
#     (the completion asks gpuctl);
#   - RM scheduling control numbers written only in cmd/drv/rm_ctl.h and
#     compared only in cmd/drv/ and bpf/tsg_ctl.h (which the watcher reads);
#   - the ledger file's format, the watcher's counter names and probe's
#     kfunc list (against the patch's) written once;
#   - lists that name policies, struct_ops types or trace attach points come
#     from one source: no string literal outside the defining file lists two
#     of a catalogue's policies, and the struct_ops type names and the attach
#     functions of cmd/trace/bpf.c appear as literals only where defined.
# Needs nothing but bash, awk and grep.
. "$(dirname "$0")/../lib.sh"

# Known violations still to be removed (tests/unit/house-known.txt, one check
# name per line): such a check reports "known" instead of failing, and fails
# once it holds, so that the list only shrinks.
KNOWN=$(grep -v '^#' "$(dirname "$0")/house-known.txt" 2>/dev/null)
oneline() { tr '\n' ';' | sed 's/;*$//'; }
check() {	# check NAME DETAIL: DETAIL empty = the rule holds
    local known=0
    grep -qxF -- "$1" <<<"$KNOWN" && known=1
    if [ -z "$2" ]; then
        [ $known = 1 ] && fail "$1" "holds now: remove it from tests/unit/house-known.txt" || ok "$1"
    elif [ $known = 1 ]; then
        ok "$1 (known violation, listed in house-known.txt)"
    else
        fail "$1" "$2"
    fi
}

# The include folders of gpuctl's build, as the Makefile gives them.
INC=$(grep -E '^CFLAGS +\+=' Makefile | grep -o -- '-I[^ ]*' | tr '\n' ' ')
INCDIRS=$(echo "$INC" | sed 's/-I//g')

MAXLINES=800
MAXFUNC=150

# --- file sizes ----------------------------------------------------------------
for f in $(git ls-files 'cmd/*.c' 'cmd/*.h' 'cmd/**/*.c' 'cmd/**/*.h' 'bpf/*.c' 'bpf/*.h' | sort -u); do
    n=$(wc -l <"$f")
    d=""
    [ "$n" -gt "$MAXLINES" ] && d="$n lines (more than $MAXLINES)"
    check "size: $f" "$d"
done

# --- function lengths (Linux style: a function body opens with "{" in column 0) ---
long=$(for f in $(git ls-files 'cmd/*.c' 'cmd/**/*.c' 'bpf/*.c' | sort -u); do
    awk -v f="$f" -v max="$MAXFUNC" '
        { line[NR] = $0 }
        /^\{/ { start = NR; head = NR - 1; while (head > 1 && line[head] !~ /\)/) head--; }
        /^\}/ && start {
            len = NR - start - 1
            if (len > max) {
                why = 0
                for (i = head - 5; i < head; i++) if (i > 0 && line[i] ~ /Why long:/) why = 1
                if (!why) printf "%s:%d: %d lines\n", f, head, len
            }
            start = 0
        }' "$f"
done)
for f in $(git ls-files 'cmd/*.c' 'cmd/**/*.c' 'bpf/*.c' | sort -u); do
    check "function sizes: $f" "$(grep "^$f:" <<<"$long" | oneline)"
done

# --- includes --------------------------------------------------------------------
bad=$(grep -rn '#include "\.\./' cmd bpf 2>/dev/null)
check "no include through ../" "$bad"

# Every quoted include of cmd/ resolved against -Icmd -Icmd/lib -Ibpf -Ibuild and
# the including file's own directory; edges between files of the tree.
edges=$(for f in $(git ls-files 'cmd/*.[ch]' 'cmd/**/*.[ch]' | sort -u); do
    d=$(dirname "$f")
    grep -o '^#include "[^"]*"' "$f" | sed 's/#include "\(.*\)"/\1/' | while read -r h; do
        for c in "$d/$h" $(for i in $INCDIRS; do echo "$i/$h"; done); do
            if [ -f "$c" ]; then echo "$f $(realpath --relative-to=. "$c")"; break; fi
        done
    done
done)

lib_out=$(echo "$edges" | awk '$1 ~ /^cmd\/lib\// && $2 !~ /^cmd\/lib\// && $2 !~ /^bpf\//')
check "cmd/lib includes only cmd/lib and bpf" "$(echo "$lib_out" | oneline)"

# A command file is cmd/<name>.c that defines an object (or main, batch, shell);
# its header would be cmd/<name>.h.
cmdfiles=" cmd/main.c cmd/batch.c cmd/shell.c $(grep -l '^const struct object ' cmd/*.c | tr '\n' ' ')"
cross=$(echo "$edges" | awk -v cf="$cmdfiles" '$1 ~ /^cmd\/[^\/]*\.c$/ && $2 ~ /^cmd\/[^\/]*\.h$/ {
        a = $1; sub(/\.c$/, "", a); b = $2; sub(/\.h$/, "", b)
        if (a != b && index(cf, " " b ".c ")) print }')
check "no command file includes another command file's header" "$(echo "$cross" | oneline)"

# Calls: no command file uses a symbol that another command file defines
# (main, the dispatcher, names the objects).  Read from the compiled objects.
if [ -f build/tsg_watch.skel.h ] && command -v nm >/dev/null; then
    O=$(mktemp -d); trap 'rm -rf "$O"' EXIT
    okc=1
    # two at a time (this box has two cores); each result in a file of its own
    printf '%s\n' $cmdfiles | xargs -P 2 -I{} sh -c \
        'cc -std=gnu11 '"$INC"' -c "$1" -o "$2/$(basename "$1" .c).o" 2>/dev/null || touch "$2/failed"' _ {} "$O"
    [ -e "$O/failed" ] && okc=0
    if [ $okc = 1 ]; then
        for f in $cmdfiles; do
            b=$(basename "$f" .c)
            nm --defined-only "$O/$b.o" | awk -v f="$f" 'NF == 3 && $2 ~ /[A-Z]/ { print $3, f }'
        done | sort >"$O/defs"
        calls=$(for f in $cmdfiles; do
            [ "$f" = cmd/main.c ] && continue
            nm -u "$O/$(basename "$f" .c).o" | awk -v f="$f" '{ print $2, f }'
        done | sort | join - "$O/defs" | awk '$2 != $3 { print $2 " uses " $1 " of " $3 }')
        for f in $cmdfiles; do
            check "calls: $f calls no other command file" "$(grep "^$f " <<<"$calls" | oneline)"
        done
    else
        fail "no command file calls another command file" "a command file did not compile alone"
    fi
else
    echo "# build/ missing (run make first): the call check is skipped"
fi

# Circles: a header and its .c are one node (file.c/file.h -> file).
cycles=$(echo "$edges" | awk '
    { a = $1; b = $2; sub(/\.[ch]$/, "", a); sub(/\.[ch]$/, "", b); if (a != b) { adj[a] = adj[a] " " b; nodes[a]; nodes[b] } }
    function dfs(n,    i, k, parts) {
        state[n] = 1
        k = split(adj[n], parts, " ")
        for (i = 1; i <= k; i++) {
            if (state[parts[i]] == 1) { print n " -> " parts[i] }
            else if (!state[parts[i]]) dfs(parts[i])
        }
        state[n] = 2
    }
    END { for (n in nodes) if (!state[n]) dfs(n) }')
check "no include circles under cmd/" "$(echo "$cycles" | oneline)"

# --- rooms: no sideways includes, the driver at the bottom ----------------------
# A room is a folder under cmd/ (cmd/sched/lcbe/ its own); the faces (cmd/*.c)
# call into rooms, rooms call down into cmd/lib/ and cmd/drv/, the upper rooms
# into the lower ones (policy, tsgw).  Every other edge between rooms is one
# of the few below, each a relation the design names; anything else fails.
ROOMS="trace pfengine exporter sched prefetch adaptive probe policy tsgw sched/lcbe stat"
LOWER=" policy tsgw "
ALLOWED=" pfengine>prefetch prefetch>adaptive probe>trace sched/lcbe>sched stat>trace "
# pfengine>prefetch: the engine is one of prefetch load's back-ends (prefetch/backend.h);
# prefetch>adaptive: struct_ops' adaptive runs its feedback loop; probe>trace: probe's
# facts are the trace back-ends' own table; sched/lcbe>sched: lc-be is a row of sched's table;
# stat>trace: stat counts through the trace back-ends (their counters, struct tb_counters).
# (The MPS state and snapshot files the exporter and probe read are tsgw's: tsgw/mpsfile.h.)
side=$(echo "$edges" | awk -v rooms="$ROOMS" -v lower="$LOWER" -v allowed="$ALLOWED" '
    function room(p,    i, best) {
        best = ""
        for (i = 1; i <= n; i++)
            if (index(p, "cmd/" r[i] "/") == 1 && length(r[i]) > length(best)) best = r[i]
        return best
    }
    BEGIN { n = split(rooms, r, " ") }
    { a = room($1); b = room($2)
      if (a == "" || b == "" || a == b) next
      if (index(lower, " " b " ") && !index(lower, " " a " ")) next	# down into policy, tsgw
      if (index(allowed, " " a ">" b " ")) next
      print }')
check "rooms ($ROOMS): no sideways includes but the named ones" "$(echo "$side" | oneline)"
drv_up=$(echo "$edges" | awk '$1 ~ /^cmd\/drv\// && $2 !~ /^cmd\/(drv|lib)\// && $2 !~ /^bpf\//')
check "cmd/drv includes only cmd/drv, cmd/lib and bpf" "$(echo "$drv_up" | oneline)"

# --- faces: small, parsing through the rows ------------------------------------------
MAXFACE=500
for f in $cmdfiles; do
    n=$(wc -l <"$f")
    check "face size: $f" "$([ "$n" -gt $MAXFACE ] && echo "$n lines (a face stays under $MAXFACE)")"
done
# no argv step-backs: a parser walks forward only
back=$(git grep -nE 'argv--|argv -= |argv\[-[0-9]' -- 'cmd/*.c' 'cmd/**/*.c' 2>/dev/null)
check "no argv step-backs" "$(echo "$back" | oneline)"
# option words compared by hand: only the one parser (cmd/lib/opts.c) does it.  One
# check per file that still does (and per file house-known.txt lists), so that a
# new one fails and a fixed one must leave the list.
optcmp=$(git grep -lE 'strcmp\([^;]*, *"--?[a-zA-Z]' -- 'cmd/*.c' 'cmd/**/*.c' 2>/dev/null | grep -vx cmd/lib/opts.c)
for f in $(printf '%s\n' $optcmp $(grep -o '^no option compare outside the parser: .*' "$(dirname "$0")/house-known.txt" |
        sed 's/.*: //') | sort -u); do
    check "no option compare outside the parser: $f" \
        "$(git grep -nE 'strcmp\([^;]*, *"--?[a-zA-Z]' -- "$f" 2>/dev/null | head -3 | oneline)"
done
# the objects are listed once: help prints OBJECT := from main.c's object list
check "help's OBJECT := comes from the object list" \
    "$(grep -n 'OBJECT := { prefetch' cmd/main.c | oneline)"

# --- one source for every list -----------------------------------------------------
ctors=$(git grep -n '__attribute__((constructor))' -- 'cmd/*.c' 'cmd/**/*.c' 2>/dev/null)
check "no constructors under cmd/ (the policy catalogue is data)" "$(echo "$ctors" | oneline)"

# literals FILE...: every string literal of the files, "file<TAB>literal" a line
literals() {
    for f in "$@"; do
        grep -v '^[[:space:]]*\*\|^[[:space:]]*/\*\|^#include' "$f" | sed 's|/\*.*\*/||g' | grep -o '"[^"]*"' |
            sed "s|^|$f\t|"
    done
}
CSRC=$(git ls-files 'cmd/*.c' 'cmd/*.h' 'cmd/**/*.c' 'cmd/**/*.h' | sort -u)
# A hand-written list: one literal joining two policies of one catalogue as a
# list does ("a, b", "a | b", "a and b", "a or b"); prose naming them passes.
twice() {	# twice DEFINING-FILES -- NAMES...: literals elsewhere naming two of NAMES
    local defs=$1; shift
    literals $CSRC | awk -F'\t' -v defs=" $defs " -v names="$*" '
        BEGIN { n = split(names, nm, " ") }
        index(defs, " " $1 " ") { next }
        { for (i = 1; i <= n; i++) for (j = 1; j <= n; j++) {
              if (i == j) continue
              # two names joined as a list joins them: "a, b" "a | b" "a and b" "a or b"
              if (match($2, "(^|[^a-z_])" nm[i] "(, | [|] | and | or )" nm[j] "([^a-z_]|$)")) {
                  print $1 ": " $2; next
              }
          } }'
}
so_files="cmd/policy/kinds_prefetch.c cmd/policy/kinds_evict.c cmd/policy/kinds_replay.c"
for f in $so_files; do
    names=$(grep -o '^[[:space:]]{ "[a-z_]*",' "$f" | sed 's/^[[:space:]]{ "\(.*\)",/\1/' | tr '\n' ' ')
    [ -n "$names" ] || { fail "catalogue $f" "no built-in policies found"; continue; }
    check "policy names of $f listed only there" "$(twice "$f" $names | oneline)"
done
# the engine's built-in BPF policies: the table of cmd/pfengine/bpfrun.c
en_names=$(grep -o '^[[:space:]]{ "[a-z_]*", engine_' cmd/pfengine/bpfrun.c | sed 's/^[[:space:]]{ "\(.*\)",.*/\1/' | tr '\n' ' ')
[ -n "$en_names" ] || fail "engine policies" "no names found in cmd/pfengine/bpfrun.c"
check "engine policy names listed only in cmd/pfengine/bpfrun.c" \
    "$(twice cmd/pfengine/bpfrun.c $en_names | oneline)"
st_types=$(grep -ho '\.st_type = "[a-z_]*"' $so_files | sed 's/.*"\(.*\)"/\1/')
for t in $st_types; do
    check "struct_ops type $t named only by its catalogue" \
        "$(literals $CSRC | awk -F'\t' -v t="\"$t\"" -v defs=" $so_files " '$2 == t && !index(defs, " " $1 " ") { print $1 }' | oneline)"
done
attach=$(sed -n '/^const struct tb_attach tb_bpf_attach/,/^};/p' cmd/trace/bpf.c | grep -o '{ "[a-z_0-9]*"' | sed 's/{ "\(.*\)"/\1/')
[ -n "$attach" ] || fail "trace attach points" "tb_bpf_attach not found in cmd/trace/bpf.c"
for a in $attach; do
    check "trace attach point $a named only by cmd/trace/bpf.c" \
        "$(literals $CSRC | awk -F'\t' -v t="\"$a\"" '$2 == t && $1 != "cmd/trace/bpf.c" { print $1 }' | oneline)"
done

# --- the sched room: policies are rows, lc-be in its own room ---------------------
# code: the lines of a C file without its comments (block and line)
code() { sed 's|/\*.*\*/||g' "$1" | awk '/\/\*/ { c = 1 } !c { print } /\*\// { c = 0 }' | sed 's|//.*||'; }
run_cls=$(code cmd/sched/run.c | grep -n 'POLICY_CLASS_\|want_class *[!=]=\|\bgate\b\|gate_\|GATE_\|lcbe\|lc_ts\|\.hint\b' )
check "sched: run.c knows no class and no gate (it calls the policy's hooks)" "$(echo "$run_cls" | grep . | oneline)"
gate_out=$(for f in $(git ls-files 'cmd/*.c' 'cmd/**/*.c' 'cmd/*.h' 'cmd/**/*.h' | grep -v '^cmd/sched/lcbe/'); do
    code "$f" | grep -o '\bgate_[a-z_]*(' | sort -u | sed "s|^|$f: |"
done)
check "sched: no gate_* call outside cmd/sched/lcbe/" "$(echo "$gate_out" | grep . | oneline)"
rows=$(git ls-files 'cmd/sched/*/row.c')
[ -n "$rows" ] || fail "sched rows" "no cmd/sched/*/row.c"
for r in $rows; do
    sym=$(grep -o '^const struct sched_policy [a-z_]*' "$r" | awk '{ print $4 }')
    d=""
    [ -n "$sym" ] || d="$r defines no const struct sched_policy"
    [ -z "$d" ] && ! grep -q "&$sym," cmd/sched/policies.c && d="$sym is not in policies.c's table"
    check "sched: $r is a row of policies.c's table" "$d"
done
sched_names=$(grep -ho '^	\.name = "[a-z-]*"' cmd/sched/policies.c $rows | sed 's/.*"\(.*\)"/\1/' | tr '\n' ' ')
[ -n "$sched_names" ] || fail "sched policy names" "none found in the rows"
check "sched policy names listed only by their rows" "$(twice "cmd/sched/policies.c $rows" $sched_names | oneline)"
compl=$(for a in $sched_names; do for b in $sched_names; do [ "$a" != "$b" ] &&
    grep -n -- "[' ]$a $b[' ]" bash-completion/gpuctl; done; done)
check "sched policy names: the completion asks gpuctl (no list of its own)" "$(echo "$compl" | grep . | oneline)"

# --- RM scheduling controls: one row each (cmd/drv/rm_ctl.h) -------------------------
CTL='NVA06C_CTRL_CMD_[A-Z_]*\|NV2080_CTRL_CMD_FIFO_DISABLE_CHANNELS'
cmp=$(for f in $(git ls-files 'cmd/*.[ch]' 'cmd/**/*.[ch]' 'bpf/*.[ch]' | grep -v '^cmd/drv/\|^bpf/tsg_ctl\.h$'); do
    code "$f" | grep -n "\([!=]=\|case\) *\($CTL\)\|\($CTL\) *[!=]=" | sed "s|^|$f:|"
done)
check "RM controls: numbers compared only in cmd/drv/ and bpf/tsg_ctl.h" "$(echo "$cmp" | grep . | oneline)"
nums=$(git grep -n '0xa06c01[0-9a-f][0-9a-f]\|0x2080110b' -- 'cmd/*' 'bpf/*' | grep -v '^cmd/drv/rm_ctl\.h:')
check "RM controls: their numbers written only in cmd/drv/rm_ctl.h" "$(echo "$nums" | grep . | oneline)"
grep -q '#include "tsg_ctl.h"' bpf/tsg_watch.bpf.c
check "RM controls: the watcher reads them through bpf/tsg_ctl.h" "$([ $? = 0 ] || echo 'bpf/tsg_watch.bpf.c does not include tsg_ctl.h')"

# --- lists written once ---------------------------------------------------------------
share_fmt=$(literals $CSRC | awk -F'\t' '$1 != "cmd/tsgw/share.c" && ($2 ~ /gpuctl-sched-share/ || $2 ~ /^"(\\npolicy %d %u|policy %d %u|gate %u %llu|be %u %u)/) { print $1 ": " $2 }')
check "the ledger file's format written only in cmd/tsgw/share.c" "$(echo "$share_fmt" | grep . | oneline)"
# (trace's event "tsg_new", in its own table of event names, is another list that shares the word)
stat_lit=$(literals $CSRC | awk -F'\t' '$1 != "cmd/tsgw/table.c" && ($2 == "\"ringbuf_full\"" || $2 == "\"table_full\"" || ($2 == "\"tsg_new\"" && $1 != "cmd/trace/record.c")) { print $1 }' | sort -u)
check "the watcher's counter names listed only in cmd/tsgw/table.c" "$(echo "$stat_lit" | grep . | oneline)"
patch_kf=$(grep -o '^BTF_ID_FLAGS(func, [a-z_0-9]*' kernel-patch/nvidia-uvm/uvm_bpf_ext.c | awk '{ print $2 }' | sort)
probe_kf=$(sed -n '/kfunc_table\[\] = {/,/^};/p' cmd/probe/probe_tables.c | grep -o '{ "[a-z_0-9]*"' | sed 's/{ "\(.*\)"/\1/' | sort)
[ -n "$patch_kf" ] || fail "kfuncs" "none found in kernel-patch/nvidia-uvm/uvm_bpf_ext.c"
check "probe lists every kfunc of the patch, and only those" \
    "$(diff <(echo "$patch_kf") <(echo "$probe_kf") | grep '^[<>]' | oneline)"

# --- one ABI header per BPF object, included by both sides -----------------------
for o in bpf/*.bpf.c; do
    base=$(basename "$o" .bpf.c)
    abi=$(grep -o '^#include "[^"]*\.h"' "$o" | sed 's/#include "\(.*\)"/\1/' | grep -v '\.bpf\.h$' | grep -v 'vmlinux' || true)
    if [ -z "$abi" ]; then
        check "abi: $base" "its .bpf.c includes no ABI header (bpf/<name>.h)"
        continue
    fi
    found=0
    for h in $abi; do
        grep -rqs "#include \"$h\"" cmd && found=1
    done
    d=""
    [ $found = 1 ] || d="no cmd/ file includes $(echo $abi)"
    check "abi: $base" "$d"
done

summary
