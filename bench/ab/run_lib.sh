# SPDX-License-Identifier: GPL-2.0
# bench/ab/run_lib.sh - run.sh's two modes, sourced by it: dry_run (the plan
# and the parse checks, no GPU) and real_run (build the CUDA pieces, paired
# rounds within the budget, results.jsonl, summary.md).

now() { date +%s; }
log() { echo "[$(date +%T)] $*"; }
quote() { local x out=''; for x in "$@"; do out+="$(printf '%q' "$x") "; done; echo "${out% }"; }
wcount() { echo $#; }

# Rounds that fit SHARE seconds for a round of EST seconds, 1..ROUNDS.
fit_rounds() {	# fit_rounds SHARE EST
	local n=$(( $2 > 0 ? $1 / $2 : ROUNDS ))
	[ "$n" -lt 1 ] && n=1
	[ "$n" -gt "$ROUNDS" ] && n=$ROUNDS
	echo "$n"
}

dry_run() {
	local rc=0 w c r cfgs k est share rounds total=30 nwl b f t
	W='$W' MAXB=${MAXB:-FREE-4G}
	nwl=$(wcount $WORKLOADS)
	echo "# bench/ab/run.sh --dry-run: the plan (no GPU touched)"
	echo "ref: ${REF_NAME:-?} ${REF_SHA:-(not built: bench/ab/build.sh REF)}; tree: ${TREE_SHA:-(not built)}"
	[ -n "$OLD_SHA" ] && echo "old: $(info old_name) $OLD_SHA"
	for b in "$REF_BIN" "$TREE_BIN" ${OLD_SHA:+"$OLD_BIN"}; do
		if [ -x "$b" ]; then echo "binary: ${b#"$R"/}"
		else echo "binary missing: ${b#"$R"/} (bench/ab/build.sh REF makes it; carry bench/ab/bin)"; fi
	done
	[ -n "$ALT_POLICY" ] && echo "tree-alt's and ref-alt's policy: $ALT_POLICY"
	[ -n "$ALT2_POLICY" ] && echo "tree-alt2's and ref-alt2's policy: $ALT2_POLICY"
	echo "policy: $POLICY; budget ${BUDGET}s (${RESERVE}s kept for the summary); up to $ROUNDS rounds" \
		"(at least $MIN_ROUNDS wanted); each run under timeout ${RUN_TIMEOUT}s"
	echo "built on the GPU machine first (nvcc, about 30 s):$(needs_nvcc)"
	for w in $WORKLOADS; do
		cfgs=$(configs_of "$w")
		# shellcheck disable=SC2086
		k=$(wcount $cfgs)
		est=$(( $(est_run_s "$w") * k ))
		share=$(( (BUDGET - RESERVE - 30) / nwl ))
		rounds=$(fit_rounds "$share" "$est")
		total=$(( total + rounds * est ))
		echo "== $w: ${k} configurations; a round ≈ ${est}s (a guess), ≈ $rounds round(s) fit its ≈ ${share}s"
		[ "$rounds" -lt "$MIN_ROUNDS" ] && echo "   (fewer than $MIN_ROUNDS rounds: give it a call of its own or a larger --budget)"
		for ((r = 1; r <= ROUNDS; r++)); do
			# shellcheck disable=SC2086
			echo "   round $r: $(order_of "$r" $cfgs)"
		done
		for c in $cfgs; do
			cfg_pre "$c"
			wl_cmd "$w" "$([ "$c" = device ] && echo 1 || echo 0)"
			f="${PRE[*]} ${WCMD[*]}"
			f=${f# }
			echo "   $c: ${f//$R\//}"
		done
	done
	[ "$total" -gt "$BUDGET" ] && total=$BUDGET
	echo "expected duration: ≈ ${total}s (never more than the budget, ${BUDGET}s, plus the start)"
	echo "== checks"
	for f in "$D/run.sh" "$D/run_lib.sh" "$D/build.sh"; do
		if bash -n "$f"; then echo "parses: ${f#"$R"/}"; else echo "DOES NOT PARSE: $f"; rc=1; fi
	done
	for f in "$D"/workloads/*.py "$D"/summarize.py "$D"/record.py; do
		if python3 -c 'import ast, sys; ast.parse(open(sys.argv[1]).read(), sys.argv[1])' "$f"; then
			echo "parses: ${f#"$R"/}"
		else echo "DOES NOT PARSE: $f"; rc=1; fi
	done
	b=$(command -v nvcc || { [ -x /usr/local/cuda/bin/nvcc ] && echo /usr/local/cuda/bin/nvcc; })
	t=$(mktemp -d)
	for f in sweep.cu cpumix.cu alloc.cu; do
		if [ ! -s "$D/workloads/$f" ]; then echo "MISSING: bench/ab/workloads/$f"; rc=1
		elif [ -z "$b" ]; then echo "present: bench/ab/workloads/$f (no nvcc here: not compiled)"
		elif "$b" -O2 -arch=sm_90 -shared -Xcompiler -fPIC -o "$t/x" "$D/workloads/$f" >"$t/log" 2>&1; then
			echo "compiles (nvcc, sm_90): bench/ab/workloads/$f"
		else echo "DOES NOT COMPILE: bench/ab/workloads/$f"; tail -n 5 "$t/log"; rc=1; fi
	done
	rm -rf "$t"
	[ $rc = 0 ] && echo "dry run: ok" || echo "dry run: FAILED"
	return $rc
}

# Builds what the workloads need into $W; drops (and records) the workloads
# whose piece did not build.
build_pieces() {
	local nvcc t arch w keep='' piece
	nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
	for t in $(needs_nvcc); do
		piece=$t
		[ "$t" = alloc ] && piece=alloc.so
		if [ -n "${AB_PIECES:-}" ] && [ -s "$AB_PIECES/$piece" ] && cp -p "$AB_PIECES/$piece" "$W/$piece"; then
			log "$t: built already ($AB_PIECES)"
			continue
		fi
		log "building $t"
		for arch in -arch=native -arch=sm_90 ''; do
			# shellcheck disable=SC2086
			case $t in
			sweep|cpumix) "$nvcc" -O2 $arch -o "$W/$t" "$D/workloads/$t.cu" >>"$W/build.txt" 2>&1 && break ;;
			alloc) "$nvcc" -O2 $arch -shared -Xcompiler -fPIC -o "$W/alloc.so" \
				"$D/workloads/alloc.cu" >>"$W/build.txt" 2>&1 && break ;;
			esac
		done
	done
	for w in $WORKLOADS; do
		case $w in sweep|cpumix) piece=$W/$w ;; *) piece=$W/alloc.so ;; esac
		if [ ! -e "$piece" ] || { [ "$piece" != "$W/alloc.so" ] && [ ! -x "$piece" ]; }; then
			log "$w: its CUDA piece did not build (log.txt): not run"
			python3 "$D/record.py" run --out "$RES" --run-id "$RUN_ID" --workload "$w" --round 0 \
				--pos 0 --config build --policy "$POLICY" --status build-failed --log "$W/build.txt" >/dev/null
		else
			keep="$keep $w"
		fi
	done
	WORKLOADS=${keep# }
	{ echo "== build"; tail -n 30 "$W/build.txt" 2>/dev/null; } >>"$LOG"
}

# One run: one line in results.jsonl.
run_one() {	# run_one WORKLOAD ROUND POS CONFIG
	local w=$1 r=$2 pos=$3 c=$4 to left p rc t0 t1 bin='' pol
	local mf=$W/metric.txt ej=$W/engine.json rl=$W/run.txt
	: >"$mf"; : >"$ej"; : >"$rl"
	left=$(( DEADLINE - RESERVE - $(now) ))
	to=$(( left < RUN_TIMEOUT ? left : RUN_TIMEOUT ))
	if [ "$to" -lt 5 ] && [ "$to" -lt "$RUN_TIMEOUT" ]; then	# the budget is spent
		python3 "$D/record.py" run --out "$RES" --run-id "$RUN_ID" --workload "$w" --round "$r" \
			--pos "$pos" --config "$c" --policy "$POLICY" --status skipped
		return
	fi
	cfg_pre "$c"
	wl_cmd "$w" "$([ "$c" = device ] && echo 1 || echo 0)"
	case $c in ref|ref-none|ref-alt|ref-alt2) bin=$REF_SHA ;; old) bin=$OLD_SHA ;;
	tree|none|trace|stat|tree-alt|tree-alt2) bin=tree:$TREE_SHA ;; esac
	t0=$(date +%s.%N)
	# timeout makes its own process group and signals all of it; whatever
	# is left of the group afterwards is killed below
	case $c in
	ref|tree|none|ref-none|tree-alt|ref-alt|tree-alt2|ref-alt2|old)	# -j: the engine's report on stdout, the workload's on stderr
		BENCH_METRIC_FILE=$mf timeout -k 10 "$to" "${PRE[@]}" "${WCMD[@]}" >"$ej" 2>"$rl" </dev/null & ;;
	trace)
		BENCH_METRIC_FILE=$mf timeout -k 10 "$to" "${PRE[@]}" "${WCMD[@]}" >/dev/null 2>"$rl" </dev/null & ;;
	*)
		BENCH_METRIC_FILE=$mf timeout -k 10 "$to" "${PRE[@]}" "${WCMD[@]}" >"$rl" 2>&1 </dev/null & ;;
	esac
	p=$!
	wait "$p"
	rc=$?
	kill -KILL -- "-$p" 2>/dev/null
	t1=$(date +%s.%N)
	pol=$POLICY
	case $c in tree-alt|ref-alt) pol=$ALT_POLICY ;; tree-alt2|ref-alt2) pol=$ALT2_POLICY ;; esac
	python3 "$D/record.py" run --out "$RES" --run-id "$RUN_ID" --workload "$w" --round "$r" \
		--pos "$pos" --config "$c" --policy "$pol" --bin "$bin" --rc "$rc" --timeout "$to" \
		--wall "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')" \
		--metric-file "$mf" --engine-json "$ej" --log "$rl"
	{ echo "== $w round $r $c rc $rc: $(quote "${PRE[@]}" "${WCMD[@]}")"; tail -n 12 "$rl"
	  grep -o '"error":[^}]*' "$ej"; } >>"$LOG" 2>/dev/null
}

# The rounds of one workload, within its share of what is left.
run_workload() {	# run_workload WORKLOAD NLEFT
	local w=$1 left share wl_end r=1 c pos rs rlen longest=0 cfgs
	cfgs=$(configs_of "$w")
	left=$(( DEADLINE - RESERVE - $(now) ))
	share=$(( left / $2 ))
	wl_end=$(( $(now) + share ))
	log "== $w: configurations $cfgs; ${share}s of ${left}s left"
	while [ "$r" -le "$ROUNDS" ]; do
		if [ "$r" -gt 1 ] && [ $(( $(now) + longest )) -gt "$wl_end" ]; then
			break
		fi
		[ $(( DEADLINE - RESERVE - $(now) )) -lt 5 ] && break
		rs=$(now)
		pos=0
		# shellcheck disable=SC2086
		for c in $(order_of "$r" $cfgs); do
			pos=$((pos + 1))
			run_one "$w" "$r" "$pos" "$c"
		done
		rlen=$(( $(now) - rs ))
		[ "$rlen" -gt "$longest" ] && longest=$rlen
		r=$((r + 1))
	done
	r=$((r - 1))
	log "$w: $r round(s), the longest ${longest}s"
	if [ "$r" -lt "$MIN_ROUNDS" ]; then
		log "$w: only $r of the $MIN_ROUNDS rounds wanted fit: run it in a call of its own or with a larger --budget"
		echo "$w: $r round(s) (fewer than $MIN_ROUNDS)" >>"$W/notes.txt"
	fi
}

need_bin() {	# need_bin CONFIG...: the binaries the configurations use exist
	local c w miss=''
	for w in $WORKLOADS; do
		for c in $(configs_of "$w"); do
			case $c in
			ref|ref-none|ref-alt|ref-alt2) [ -x "$REF_BIN" ] || miss="$miss $REF_BIN" ;;
			old) [ -x "$OLD_BIN" ] || miss="$miss $OLD_BIN" ;;
			tree|none|trace|stat|tree-alt|tree-alt2) [ -x "$TREE_BIN" ] || miss="$miss $TREE_BIN" ;;
			esac
		done
	done
	[ -z "$miss" ] && return 0
	echo "Error: missing$(echo "$miss" | tr ' ' '\n' | sort -u | tr '\n' ' ')(make bench-ab REF=... on the build host, and carry bench/ab/bin)" >&2
	return 1
}

real_run() {
	local w n gpu
	T0=$(now)
	DEADLINE=$(( T0 + BUDGET ))
	need_bin || exit 1
	for c in python3 nvidia-smi timeout; do
		command -v "$c" >/dev/null || { echo "Error: $c not found" >&2; exit 1; }
	done
	mkdir -p "$OUTDIR" || exit 1
	RES=$OUTDIR/results.jsonl LOG=$OUTDIR/log.txt
	: >"$LOG"
	W=$(mktemp -d /tmp/ab.XXXXXX) || exit 1
	# shellcheck disable=SC2064
	trap "rm -rf '$W'" EXIT
	export GPUCTL_RUN_DIR=$W/run
	mkdir -m 755 "$GPUCTL_RUN_DIR"
	[ "$(id -u)" = 0 ] || log "warning: not root: the engine needs CAP_SYS_PTRACE over the workload"
	RUN_ID=$(date -u +%Y%m%dT%H%M%SZ)-$$
	gpu=$(nvidia-smi --query-gpu=name,uuid,driver_version,memory.free,memory.total \
		--format=csv,noheader,nounits 2>/dev/null | head -1)
	[ -n "$gpu" ] || { echo "Error: nvidia-smi sees no GPU" >&2; exit 1; }
	FREE_MIB=$(echo "$gpu" | awk -F', *' '{ print $4 }')
	isnum "$FREE_MIB" || FREE_MIB=0
	# a static gpuctl cannot read NVML: --max-bytes is the only cap of a call
	[ -n "$MAXB" ] || MAXB=$(( FREE_MIB > 8192 ? FREE_MIB - 4096 : FREE_MIB / 2 ))M
	log "GPU: $gpu (MiB); ref ${REF_NAME:-?} $REF_SHA; tree $TREE_SHA; policy $POLICY; --max-bytes $MAXB"
	python3 "$D/record.py" meta --out "$RES" --run-id "$RUN_ID" gpu="$gpu" ref_name="$REF_NAME" \
		ref_sha="$REF_SHA" tree_sha="$TREE_SHA" old_sha="$OLD_SHA" policy="$POLICY" alt_policy="$ALT_POLICY" alt2_policy="$ALT2_POLICY" max_bytes="$MAXB" \
		budget_s="$BUDGET" rounds="$ROUNDS" workloads="$WORKLOADS" configs="$CONFIGS" configs_for="${CFG_FOR# }" \
		host="$(uname -n)" kernel="$(uname -r)" cpus="$(nproc)" \
		ref_version="$("$REF_BIN" --version 2>&1 | head -1)" \
		tree_version="$("$TREE_BIN" --version 2>&1 | head -1)"
	build_pieces
	n=$(wcount $WORKLOADS)
	for w in $WORKLOADS; do
		run_workload "$w" "$n"
		n=$((n - 1))
	done
	python3 "$D/summarize.py" "$RES" >"$OUTDIR/summary.md" 2>>"$LOG"
	[ -s "$W/notes.txt" ] && { echo; echo "Notes:"; sed 's/^/- /' "$W/notes.txt"; } >>"$OUTDIR/summary.md"
	tail -c 300000 "$LOG" >"$W/log" && cat "$W/log" >"$LOG"
	cat "$OUTDIR/summary.md"
	log "done in $(( $(now) - T0 ))s: $RES"
	[ -n "$WORKLOADS" ] || exit 1
	return 0
}
