#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# issue 35: the PromQL of gpuctl-exporter(8) is right.  Every query in its
# QUERIES section is an expr of tests/unit/promql/queries.test.yml, which
# promtool test rules evaluates over two pods' processes both named
# python3 (one on two GPUs) beside dcgm-exporter 4.9's and 4.8's series;
# and the two queries the page used to give fail there as they did for
# users (a many-to-many match; faults multiplied by utilization).
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
T=$T_DIR
MAN=man/gpuctl-exporter.8.rst
Q=tests/unit/promql/queries.test.yml
command -v promtool >/dev/null || { fail "promtool" "missing (Debian's prometheus package)"; summary; }

out=$(/usr/bin/python3 - "$MAN" "$Q" <<'EOF2'
import re, sys, yaml
man = open(sys.argv[1]).read()
sec = man.split("\nQUERIES\n=======\n", 1)
if len(sec) < 2:
    print("no QUERIES section"); sys.exit(1)
body = sec[1].split("\n=====", 1)[0]
body = body.rsplit("\n", 2)[0]
norm = lambda s: " ".join(s.split())
blocks, lines = [], body.split("\n")
for i, l in enumerate(lines):
    if l.rstrip().endswith("::"):
        b = []
        for m in lines[i + 1:]:
            if m.strip() and not m.startswith("    "):
                break
            b.append(m)
        blocks.append(norm("\n".join(b)))
exprs = {norm(t["expr"]) for test in yaml.safe_load(open(sys.argv[2]))["tests"]
         for t in test.get("promql_expr_test", [])}
missing = [b for b in blocks if b not in exprs]
print("%d queries" % len(blocks))
for m in missing:
    print("untested: " + m)
sys.exit(1 if missing or len(blocks) < 4 else 0)
EOF2
)
[ $? = 0 ] && ok "gpuctl-exporter(8): every query is tested ($out)" || fail "man queries" "$out"
out=$(cd tests/unit/promql && promtool test rules queries.test.yml 2>&1)
[ $? = 0 ] && ok "promtool test rules: the queries give the expected series" || fail "promtool test rules" "$out"

# the page's old queries, over the same series: wrong, as users found
sed -n '1,/promql_expr_test:/p' $Q >$T/old.yml
cat >>$T/old.yml <<'EOF2'
      - expr: gpuctl_gpu_process_info * on (pid) group_left (UUID) max by (pid, UUID) (gpuctl_uvm_gpu_faults_total)
        eval_time: 10m
        exp_samples: []
      - expr: sum by (UUID) (rate(gpuctl_uvm_gpu_faults_total[5m])) * on (UUID) group_left (modelName, Hostname) DCGM_FI_DEV_GPU_UTIL
        eval_time: 10m
        exp_samples:
          - labels: '{UUID="GPU-0",modelName="NVIDIA H100 80GB HBM3",Hostname="n1"}'
            value: 12
EOF2
# and the info series the first one joins
/usr/bin/python3 - $T/old.yml <<'EOF2'
import sys, yaml
d = yaml.safe_load(open(sys.argv[1]))
t = d["tests"][0]
t["input_series"].append({"series": 'gpuctl_gpu_process_info{job="gpuctl",instance="10.0.0.5:9471",hostname="n1",pid="100",comm="python3",attached="1"}', "values": "1x10"})
yaml.safe_dump(d, open(sys.argv[1], "w"))
EOF2
out=$(cd $T && promtool test rules old.yml 2>&1)
printf '%s\n' "$out" | grep -q 'many-to-many' && ok "the old per-process query: many-to-many, as users saw" ||
	fail "old query" "$out"
printf '%s\n' "$out" | grep -q 'got: {Hostname="n1", UUID="GPU-0", modelName="NVIDIA H100 80GB HBM3"} 9.6E+02' && ok "the old join: faults times utilization (960, not 12)" ||
	fail "old join" "$out"
summary
