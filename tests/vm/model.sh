# tests/vm/model.sh - drive the UVM model from VM tests.  Source it.
#
#   model_run [RESET_KEYS --] PATTERN [RUN_KEYS]   reset, run, read counters
#   stat_of NAME                                   a counter of the last run
#
# model_run leaves the counters as "name value" lines in $STATS.

model_run()
{
	reset=""
	case " $* " in
	*" -- "*)
		while [ "$1" != "--" ]; do reset="$reset $1"; shift; done
		shift ;;
	esac
	# shellcheck disable=SC2086
	uvmsim reset va_blocks 64 $reset || return 1
	uvmsim run "$@" || return 1
	STATS=$(uvmsim stats)
}

stat_of()
{
	printf '%s\n' "$STATS" | awk -v k="$1" '$1 == k { print $2 }'
}
