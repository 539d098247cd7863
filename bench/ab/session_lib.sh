# SPDX-License-Identifier: GPL-2.0
# bench/ab/session_lib.sh - what the one-call sessions (session9_gpu.sh,
# session10_gpu.sh, session11_gpu.sh) share, sourced by them: the command
# line and the budget, the output folder and its scratch, the budget's
# clock, the GPU's free memory, the CUDA pieces built once, run.sh's whole
# programs and window.py's windows within a share of the budget, and the
# summary of all.
# The caller sets:
#   D      bench/ab
#   BUDGET the session's seconds;  BASE the budget its shares are written
#          for (a share S is S * BUDGET / BASE)
#   OUTD   where session.txt, results.jsonl, summary.md and log.txt go
#   WORK   where run.sh's and window.py's own folders go (OUTD or scratch)
#   POLARGS  (array) --policy/--alt-policy/--alt2-policy for run.sh and window.py
#   T0     the session's start (date +%s)

# s_args NAME DEFAULT ARGS...: [--dry-run] alone; DRY, and BUDGET from
# NAME_BUDGET (upper case) or DEFAULT; exit 2 on anything else
s_args() {
	local name=$1 var
	var=$(echo "$1" | tr '[:lower:]' '[:upper:]')_BUDGET
	BUDGET=${!var:-$2}
	shift 2
	DRY=0
	[ "${1:-}" = --dry-run ] && DRY=1
	[ $# -le $DRY ] || { echo "Error: usage: ${name}_gpu.sh [--dry-run]" >&2; exit 2; }
	case $BUDGET in ''|*[!0-9]*|0) echo "Error: $var must be a positive integer, not '$BUDGET'" >&2; exit 2 ;; esac
}

# s_begin: bench/ab/bin/BUILD there, OUTD emptied, session.txt begun, WORK a
# scratch folder (run.sh's and window.py's own folders: into raw.tgz, the
# device returns few files), removed at exit
s_begin() {
	[ -s "$D/bin/BUILD" ] || { echo "Error: no $D/bin/BUILD (make bench-ab REF=...; carry bench/ab/bin)" >&2; exit 1; }
	mkdir -p "$OUTD" || exit 1
	rm -f "$OUTD"/*
	: >"$OUTD/session.txt"
	WORK=$(mktemp -d /tmp/abw.XXXXXX) || exit 1
	S_TRAP_MORE=" '$WORK'"
	# shellcheck disable=SC2064
	trap "rm -rf '$WORK'" EXIT
}

# s_publish: the summary of what ran so far, and the raw folders in one archive
s_publish() {
	s_collect
	tar czf "$OUTD/raw.tgz.tmp" -C "$WORK" . 2>/dev/null && mv -f "$OUTD/raw.tgz.tmp" "$OUTD/raw.tgz"
}

left() { echo $(( T0 + BUDGET - $(date +%s) )); }
# share S [FLOOR]: S scaled, never more than what is left less FLOOR scaled
share() { local s=$(( BUDGET * $1 / BASE )) l; l=$(( $(left) - ${2:-0} * BUDGET / BASE )); echo $(( s < l ? s : l )); }
scaled() { echo $(( BUDGET * $1 / BASE )); }
log() { echo "[$(date +%T) +$(( $(date +%s) - T0 ))s] $*" | tee -a "$OUTD/session.txt"; }

# The GPU and its free memory: MAXB (free less 4 GiB) for every engine, or exit 1.
s_gpu() {
	local gpu free
	gpu=$(nvidia-smi --query-gpu=name,uuid,driver_version,memory.free,memory.total --format=csv,noheader,nounits | head -1)
	log "GPU: $gpu (MiB)"
	free=$(echo "$gpu" | awk -F', *' '{ print $4 }')
	case $free in ''|*[!0-9]*) free=0 ;; esac
	[ "$free" -gt 8192 ] || { log "Error: too little free GPU memory (${free} MiB)"; exit 1; }
	MAXB=$(( free - 4096 ))M
	log "--max-bytes $MAXB (free less 4 GiB: no workload gets more managed memory than is free)"
}

# The CUDA pieces (sweep, cpumix, alloc.so), once, in parallel, into a scratch
# folder P that run.sh copies from (AB_PIECES) and window.py reads (--pieces).
s_pieces() {
	local nvcc t
	P=$(mktemp -d /tmp/abs.XXXXXX) || exit 1
	# shellcheck disable=SC2064
	trap "rm -rf '$P'${S_TRAP_MORE:-}" EXIT
	nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
	for t in sweep cpumix alloc; do
		(
			for arch in -arch=native -arch=sm_90 ''; do
				# shellcheck disable=SC2086
				if [ $t = alloc ]; then
					"$nvcc" -O2 $arch -shared -Xcompiler -fPIC -o "$P/alloc.so" "$D/workloads/alloc.cu" \
						>>"$P/build-$t.txt" 2>&1 && break
				else
					"$nvcc" -O2 $arch -o "$P/$t" "$D/workloads/$t.cu" >>"$P/build-$t.txt" 2>&1 && break
				fi
			done
		) &
	done
	wait
	cat "$P"/build-*.txt >"$WORK/build.txt" 2>/dev/null
	log "pieces: $(cd "$P" && ls -1 sweep cpumix alloc.so 2>/dev/null | tr '\n' ' ')"
	export AB_PIECES=$P
}

win() {	# win WORKLOAD PLAN ROTATIONS DISCARD MEASURE BUDGET [PLAN2 ROTATIONS2 (0 dropped + 3)]
	local p2=()
	[ "$6" -ge "$(scaled 20)" ] || { log "$1 windows: no time left (${6}s)"; return; }
	[ $# -ge 8 ] && p2=(--plan2 "$7" --rotations2 "$8" --discard2 0 --measure2 3)
	log "$1 windows: plan $2, up to $3 rotations of $4+$5 steps${7:+, then $7 up to ${8}}, ${6}s"
	python3 "$D/window.py" --workload "$1" --pieces "$P" --plan "$2" --rotations "$3" --discard "$4" \
		--measure "$5" --budget "$6" "${p2[@]}" "${POLARGS[@]}" \
		--max-bytes "$MAXB" --out "$WORK/windows" >>"$OUTD/session.txt" 2>&1
	log "$1 windows: rc $?"
}

mat() {	# mat WORKLOADS CONFIGS BUDGET [MIN_ROUNDS [ROUNDS]]: whole programs (run.sh)
	[ "$3" -ge "$(scaled 40)" ] || { log "run.sh $1: no time left (${3}s)"; return; }
	log "run.sh $1 ($2): ${3}s, up to ${5:-3} rounds"
	AB_RESERVE=5 "$D/run.sh" --budget "$3" --rounds "${5:-3}" --min-rounds "${4:-3}" --workloads "$1" \
		--configs "$2" "${POLARGS[@]}" --max-bytes "$MAXB" \
		--out "$WORK/run-${1//,/-}" >"$WORK/run-${1//,/-}.stdout" 2>&1
	log "run.sh $1: rc $?"
}

# s_dry_end NAME PLAN: the dry runs' last part: torch-cache's windows under
# PLAN, the Python and shell pieces parsed, "NAME dry run: ok"; exits
s_dry_end() {
	echo "## windows: torch-cache"
	python3 "$D/window.py" --dry-run --workload torch-cache --plan "$2" --rotations 3 --discard 1 \
		--measure 4 "${POLARGS[@]}" --max-bytes 1G --pieces PIECES || exit 1
	python3 -c 'import ast,sys; [ast.parse(open(f).read(), f) for f in sys.argv[1:]]' \
		"$D/window.py" "$D/summarize.py" && bash -n "$0" && bash -n "$D/session_lib.sh" &&
		echo "$1 dry run: ok"
	exit $?
}

# s_sizes: the footer's lines on the whole programs and the workloads' sizes
s_sizes() {
	echo "Whole programs (wall time beside the metric, CPU phase where printed): cpumix, sweep, cupy,"
	echo "torch, gnn.  torch-cache~win: windows within one process (steady state, no wall time)."
	echo "Sizes: sweep ${SWEEP_MIB} MiB, cupy ${CUPY_GIB} GiB, torch ${TORCH_STEPS} steps,"
	echo "gnn ${GNN_NODES} nodes / ${GNN_EDGES} edges, ${GNN_EPOCHS} epochs."
}

# results.jsonl, summary.md (summarize.py's over all, then the caller's
# s_footer) and log.txt in OUTD, from what WORK holds so far
s_collect() {
	cat "$WORK"/windows/results.jsonl "$WORK"/run-*/results.jsonl >"$OUTD/results.jsonl" 2>/dev/null
	python3 "$D/summarize.py" "$OUTD/results.jsonl" >"$OUTD/summary.md.tmp" 2>>"$OUTD/session.txt"
	s_footer >>"$OUTD/summary.md.tmp"
	mv -f "$OUTD/summary.md.tmp" "$OUTD/summary.md"
	cat "$WORK"/run-*/log.txt "$WORK"/windows/log.txt >"$OUTD/log.txt" 2>/dev/null
}
