# shellcheck shell=bash
# tests/lanes.sh — sourced by tests/run for -j N (N > 1): the selected scripts
# run as lanes, each a child `tests/run -j1 ... SCRIPT...` with its own output
# file, at most N at once, in this order:
#   - the unit scripts, one after another in one lane as in a plain run (some
#     build in the tree); a unit script with a line "# tests/run lane: NAME"
#     runs in lane NAME instead, with the others that name it (the
#     kernel-patch builds: minutes of compiling, apart from the tree's build);
#   - the VM scripts, dealt round-robin into 2N parts, each booting its own
#     guest (TCG with one host thread: a guest keeps one core busy; parts
#     smaller than the unit lanes fill the lanes that end first).
# When a lane ends its lines are printed whole, less its summary and its
# "Failed:" block, whose counts and failures join the totals tests/run prints.

# lane_report LOG RC LABEL : print a finished lane and add it to the totals
lane_report() {
	local log=$1 rc=$2 label=$3 sum p=0 f=0 infail=0 line
	sum=$(grep -aE '^[0-9]+ passed, [0-9]+ failed$' "$log" | tail -n 1)
	while IFS= read -r line; do
		if [ "$infail" = 1 ]; then
			case "$line" in
			"  "*) FAILURES+=("${line#  }"); continue ;;
			*) infail=0 ;;
			esac
		fi
		case "$line" in
		'') ;;
		Failed:) infail=1 ;;
		"$sum") ;;
		*) printf '%s\n' "$line" ;;
		esac
	done <"$log"
	if [ -z "$sum" ]; then
		FAILED=$((FAILED + 1))
		FAILURES+=("$label: ended without a summary (exit status $rc)")
		return
	fi
	read -r p _ f _ <<<"${sum//,/}"
	PASSED=$((PASSED + p))
	FAILED=$((FAILED + f))
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		FAILED=$((FAILED + 1))
		FAILURES+=("$label: exit status $rc although it reports no failure")
	fi
}

run_lanes() {
	local vm=() part=() t i k n name pid rc next=0 running=0 opts=()
	local -a args=() labels=() starts=() names=()
	local -A lane_of=() unit=()
	[ "$VERBOSE" = 1 ] && opts+=(-v)
	if [ "$RUN_UNIT" = 1 ]; then
		names=(unit)
		for t in tests/unit/*.sh; do
			[ -f "$t" ] && selected "$t" || continue
			name=$(sed -n 's/^# tests\/run lane: \([a-z0-9-]*\)$/\1/p' "$t" | head -n 1)
			name=${name:-unit}
			[ -n "${unit[$name]+x}" ] || [ "$name" = unit ] || names+=("$name")
			unit[$name]="${unit[$name]:-}${unit[$name]:+ }$t"
		done
		for name in "${names[@]}"; do
			[ -n "${unit[$name]:-}" ] || continue
			args+=("--no-vm ${unit[$name]}")
			read -r -a part <<<"${unit[$name]}"
			labels+=("$name lane (${#part[@]} scripts)")
		done
	fi
	if [ "$RUN_VM" = 1 ]; then
		for t in tests/vm/t_*.sh; do
			[ -f "$t" ] && selected "$t" && vm+=("$t")
		done
	fi
	n=$((2 * JOBS))
	[ "$n" -gt ${#vm[@]} ] && n=${#vm[@]}
	for ((k = 0; k < n; k++)); do
		part=()
		for ((i = k; i < ${#vm[@]}; i += n)); do
			part+=("${vm[$i]}")
		done
		args+=("--vm-only ${part[*]}")
		labels+=("VM part $((k + 1)) of $n (${#part[@]} scripts)")
	done
	trap 'kill ${!lane_of[*]} 2>/dev/null; exit 130' INT
	trap 'kill ${!lane_of[*]} 2>/dev/null; exit 143' TERM
	echo "tests/run: ${#args[@]} lane(s), at most $JOBS at once"
	while [ $next -lt ${#args[@]} ] || [ $running -gt 0 ]; do
		while [ $running -lt "$JOBS" ] && [ $next -lt ${#args[@]} ]; do
			# shellcheck disable=SC2086 # script paths: no blanks
			"$SELF" -j1 "${opts[@]}" ${args[$next]} </dev/null >"$TMP/lane.$next" 2>&1 &
			lane_of[$!]=$next
			starts[next]=$SECONDS
			next=$((next + 1))
			running=$((running + 1))
		done
		pid=
		wait -n -p pid
		rc=$?
		[ -n "$pid" ] || break
		i=${lane_of[$pid]}
		unset "lane_of[$pid]"
		running=$((running - 1))
		echo "tests/run: ${labels[$i]} ended after $((SECONDS - starts[i])) s:"
		lane_report "$TMP/lane.$i" "$rc" "${labels[$i]}"
	done
	trap 'exit 130' INT
	trap 'exit 143' TERM
}
