#!/bin/bash
# bench/exporter/scrape_ab.sh A B [ROUNDS] [N] - the exporter's scrape, two
# gpuctl binaries side by side: ROUNDS (5) interleaved rounds, each N (100)
# `exporter textfile` runs of A then of B (the order alternates by round);
# prints each round's mean ms per scrape and the medians and their ratio.
# Run where the GPUs are (root), with whatever sched policy is to be seen.
set -u
A=$1 B=$2 ROUNDS=${3:-5} N=${4:-100}
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
one() { local s e; s=$(date +%s%N)
	for i in $(seq "$N"); do "$1" exporter textfile --output "$T/x.prom" >/dev/null 2>&1; done
	e=$(date +%s%N); echo $(( (e - s) / N / 1000 )); }
for r in $(seq "$ROUNDS"); do
	if [ $((r % 2)) = 1 ]; then a=$(one "$A"); b=$(one "$B"); else b=$(one "$B"); a=$(one "$A"); fi
	echo "round $r: A $a us  B $b us"
	echo "$a $b" >>"$T/r"
done
python3 - "$T/r" "$A" "$B" <<'PY'
import statistics as st, sys
rows = [tuple(map(int, l.split())) for l in open(sys.argv[1])]
a, b = st.median(r[0] for r in rows), st.median(r[1] for r in rows)
ratios = sorted(r[1] / r[0] for r in rows)
print("scrape (whole textfile command), median of %d rounds: A %s %.0f us, B %s %.0f us, B/A %.3f [%.3f-%.3f]"
      % (len(rows), sys.argv[2], a, sys.argv[3], b, b / a, ratios[0], ratios[-1]))
PY
