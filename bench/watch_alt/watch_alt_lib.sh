# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# bench/watch_alt/watch_alt_lib.sh - watch_alt_gpu.sh's real run, sourced by
# it (its variables: D, R, AB, ABB, BUDGET, ROUNDS, STEPS, WARMUP, RUN_TIMEOUT, PY,
# CONFIGS, TREE, UPROBE, OUTD, RESERVE; its order_of and cmd_of).

now() { date +%s; }
log() { echo "[$(date +%T) +$(( $(now) - T0 ))s] $*" | tee -a "$LOG"; }

# alloc.so with the machine's nvcc; the shim and the resolver with its cc
# (else the carried ones); all at once.
build_pieces() {
	local nvcc arch
	nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
	(
		for arch in -arch=native -arch=sm_90 ''; do
			# shellcheck disable=SC2086
			"$nvcc" -O2 $arch -shared -Xcompiler -fPIC -o "$W/alloc.so" "$AB/workloads/alloc.cu" \
				>>"$W/build-alloc.txt" 2>&1 && break
		done
	) &
	if cc -std=gnu11 -O2 -shared -fPIC -fvisibility=hidden -o "$W/libwatchalt-shim.so" "$D/shim.c" -ldl \
		>"$W/build-cc.txt" 2>&1 &&
		cc -std=gnu11 -O2 -o "$W/watch-alt-resolve" "$D/resolve.c" -ldl >>"$W/build-cc.txt" 2>&1; then
		log "shim and resolver: built here with cc"
	else
		log "shim and resolver: cc failed ($(tail -n 1 "$W/build-cc.txt")): the carried ones"
		cp "$D/bin/libwatchalt-shim.so" "$D/bin/watch-alt-resolve" "$W/" 2>/dev/null
	fi
	wait
	cat "$W"/build-*.txt >>"$LOG" 2>/dev/null
	[ -e "$W/alloc.so" ] || { log "Error: alloc.so did not build (log.txt)"; exit 1; }
	[ -s "$W/libwatchalt-shim.so" ] || { log "shim: none: shim runs will fail"; }
}

# Where the uprobe goes: libcuda.so.1's file, its export, and what
# cuGetProcAddress hands the runtime (when that is elsewhere in the file).
resolve_cuda() {
	local line path eoff poff
	UARGS=()
	if ! line=$(timeout 30 "$W/watch-alt-resolve" libcuda.so.1 cuMemAllocManaged 2>>"$LOG"); then
		log "resolve: failed (log.txt): uprobe runs will fail"
		UARGS=(--lib /nonexistent/libcuda.so.1)
		return
	fi
	IFS=$'\t' read -r path eoff poff <<<"$line"
	UARGS=(--lib "$path")
	[ "$poff" != - ] && [ "$poff" != "$eoff" ] && UARGS+=(--offset "$poff")
	log "libcuda: $path; cuMemAllocManaged exported at $eoff, cuGetProcAddress gives $poff; uprobe: ${UARGS[*]}"
	python3 "$D/walt.py" meta --out "$RES" libcuda="$path" export_off="$eoff" proc_off="$poff"
	# does this kernel take uprobes at all? (a refusal: one Error line with the errno)
	if "$UPROBE" "${UARGS[@]}" --out "$W/pre.json" -- true 2>"$W/pre.err"; then
		log "uprobe preflight: attached and detached"
	else
		log "uprobe preflight: $(head -n 1 "$W/pre.err") (the uprobe runs will fail the same way)"
	fi
}

run_one() {	# run_one CONFIG ROUND POS
	local c=$1 r=$2 pos=$3 to p rc t0 t1
	local mf=$W/metric.txt rl=$W/run.txt ej=$W/engine.json
	: >"$mf"; : >"$rl"; : >"$ej"
	rm -f "$W/shim.jsonl" "$W/uprobe.json"
	to=$(( DEADLINE - RESERVE - $(now) ))
	[ "$to" -gt "$RUN_TIMEOUT" ] && to=$RUN_TIMEOUT
	if [ "$to" -lt 20 ]; then
		python3 "$D/walt.py" record --out "$RES" --round "$r" --pos "$pos" --config "$c" --status skipped
		return
	fi
	cmd_of "$c"
	t0=$(date +%s.%N)
	case $c in
	none) BENCH_METRIC_FILE=$mf timeout -k 10 "$to" "${CMD[@]}" >"$ej" 2>"$rl" </dev/null & ;;
	*) BENCH_METRIC_FILE=$mf timeout -k 10 "$to" "${CMD[@]}" >"$rl" 2>&1 </dev/null & ;;
	esac
	p=$!
	wait "$p"
	rc=$?
	kill -KILL -- "-$p" 2>/dev/null
	t1=$(date +%s.%N)
	python3 "$D/walt.py" record --out "$RES" --round "$r" --pos "$pos" --config "$c" --rc "$rc" \
		--wall "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')" --metric-file "$mf" \
		--engine-json "$ej" --shim-out "$W/shim.jsonl" --uprobe-out "$W/uprobe.json" --log "$rl" |
		tee -a "$LOG"
	{ echo "== round $r $c rc $rc: ${CMD[*]}"; tail -n 6 "$rl"; } >>"$LOG"
}

real_run() {
	local r=1 pos c rs rlen longest=0 gpu
	T0=$(now)
	DEADLINE=$(( T0 + BUDGET ))
	[ -x "$TREE" ] || { echo "Error: no $TREE (make bench-ab REF=main; carry bench/ab/bin)" >&2; exit 1; }
	[ -x "$UPROBE" ] || { echo "Error: no $UPROBE (make bench-watch-alt; carry bench/watch_alt/bin)" >&2; exit 1; }
	for c in python3 nvidia-smi timeout; do
		command -v "$c" >/dev/null || { echo "Error: $c not found" >&2; exit 1; }
	done
	mkdir -p "$OUTD" || exit 1
	rm -f "$OUTD"/results.jsonl "$OUTD"/summary.md "$OUTD"/log.txt
	RES=$OUTD/results.jsonl LOG=$OUTD/log.txt
	: >"$LOG"
	W=$(mktemp -d /tmp/walt.XXXXXX) || exit 1
	# shellcheck disable=SC2064
	trap "rm -rf '$W'" EXIT
	export GPUCTL_RUN_DIR=$W/run
	mkdir -m 755 "$GPUCTL_RUN_DIR"
	gpu=$(nvidia-smi --query-gpu=name,driver_version,memory.free,memory.total --format=csv,noheader,nounits | head -1)
	[ -n "$gpu" ] || { echo "Error: nvidia-smi sees no GPU" >&2; exit 1; }
	log "GPU: $gpu (MiB); budget ${BUDGET}s; torch $STEPS steps after $WARMUP warm-up"
	python3 "$D/walt.py" meta --out "$RES" gpu="$gpu" steps="$STEPS" warmup="$WARMUP" budget_s="$BUDGET" \
		kernel="$(uname -r)" tree_version="$("$TREE" --version 2>&1 | head -1)" \
		build="$(tr '\n' ' ' <"$ABB/BUILD" 2>/dev/null)"
	build_pieces
	resolve_cuda
	while [ "$r" -le "$ROUNDS" ] && [ $(( $(now) + longest )) -le $(( DEADLINE - RESERVE )) ]; do
		rs=$(now)
		pos=0
		for c in $(order_of "$r"); do
			pos=$((pos + 1))
			run_one "$c" "$r" "$pos"
		done
		rlen=$(( $(now) - rs ))
		[ "$rlen" -gt "$longest" ] && longest=$rlen
		r=$((r + 1))
	done
	log "$((r - 1)) round(s), the longest ${longest}s"
	python3 "$D/walt.py" summary "$RES" >"$OUTD/summary.md" 2>>"$LOG"
	cat "$OUTD/summary.md"
	log "done in $(( $(now) - T0 ))s: $RES"
}
