#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bench/exporter_attacks.sh [REF] - the exporter's scrape and probe times
# under the attacks of issue 42, before (git ref REF, default 543f5eb, built
# here from `git archive`) and after (this tree's ./gpuctl), on this build
# machine (root, network namespaces; no GPU needed): each scenario of
# tests/tools/exporter_attacks.sh with each binary, ROUNDS times (default 3),
# interleaved.  "Before" runs under REF's unit's RestrictAddressFamilies,
# "after" under this tree's.  Prints the raw lines, then a table; writes
# nothing else (redirect it into bench/results/).
set -u
REF=${1:-543f5eb}
ROUNDS=${ROUNDS:-3}
R=$(cd "$(dirname "$0")/.." && pwd)
cd "$R" || exit 1
B=$(mktemp -d /tmp/gpuctl-before.XXXXXX)
trap 'rm -rf "$B"' EXIT
git archive "$REF" | tar -x -C "$B" || exit 1
echo "# building $REF in $B" >&2
make -C "$B" -s gpuctl NODEPS=1 >"$B/build.log" 2>&1 || { cat "$B/build.log" >&2; exit 1; }
[ -x ./gpuctl ] || make -s gpuctl NODEPS=1 || exit 1
make -s -C tests/tools restrictaf >/dev/null || exit 1
BEFORE_FAM=$(sed -n 's/^RestrictAddressFamilies=//p' "$B/packaging/systemd/gpuctl-exporter.service")
AFTER_FAM=$(sed -n 's/^RestrictAddressFamilies=//p' packaging/systemd/gpuctl-exporter.service)
S="loop loop-nonl v6-64 v6-many64 pod-hold pod-loop"
echo "# machine: $(nproc) CPUs, $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg); before $REF ($BEFORE_FAM), after $(git rev-parse --short HEAD)$([ -n "$(git status --porcelain --untracked-files=no)" ] && echo -dirty) ($AFTER_FAM)"
for r in $(seq "$ROUNDS"); do
	# shellcheck disable=SC2086
	FAMILIES=$BEFORE_FAM tests/tools/exporter_attacks.sh "$B/gpuctl" $S | sed "s/^/before $r /"
	# shellcheck disable=SC2086
	FAMILIES=$AFTER_FAM tests/tools/exporter_attacks.sh ./gpuctl $S | sed "s/^/after $r /"
done | tee "$B/raw"
echo
echo "| scenario | before: answered | before: max s | before: exporter CPU | after: answered | after: max s | after: exporter CPU |"
echo "|---|---|---|---|---|---|---|"
awk '$4 ~ /^ok=/ {
	split($4, a, "[=/]"); sub("max=", "", $6); sub("cpu=", "", $7); sub("%", "", $7)
	k = $3; w = $1; ok[w, k] += a[2]; n[w, k] += a[3]
	if ($6 + 0 > mx[w, k]) mx[w, k] = $6 + 0
	cpu[w, k] += $7; c[w, k]++
	if (!(k in seen)) { seen[k] = 1; order[++m] = k }
}
END {
	for (i = 1; i <= m; i++) {
		k = order[i]
		printf "| %s | %d/%d | %.3f | %.0f %% | %d/%d | %.3f | %.0f %% |\n", k,
		       ok["before", k], n["before", k], mx["before", k], cpu["before", k] / c["before", k],
		       ok["after", k], n["after", k], mx["after", k], cpu["after", k] / c["after", k]
	}
}' "$B/raw"
