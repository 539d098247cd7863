#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# issue 43: each series keeps its own attribution through the shipped
# ServiceMonitor, scraped by a real Prometheus (Debian's) configured as the
# Prometheus Operator translates it (tests/tools/smon2scrape.py), over a
# fixture of the exporter's per-process series (a pod's process, a Slurm
# step, a service: tests/unit/promql/gpuctl-attribution.prom).  Three
# settings of the Prometheus resource: none, overrideHonorLabels, and
# enforcedNamespaceLabel: namespace.  The old ServiceMonitor (honorLabels:
# true, the target's labels kept) is scraped beside them and credits the
# Slurm step and the service to the exporter's pod: the check can fail.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
T=$T_DIR
PY=/usr/bin/python3
SM=packaging/kubernetes/gpuctl-servicemonitor.yaml
command -v prometheus >/dev/null || { fail "prometheus" "missing (Debian's prometheus package)"; summary; }
P1=$((20000 + ($$ + 13) % 20000)); P2=$((P1 + 1))

mkdir -p $T/www
cp tests/unit/promql/gpuctl-attribution.prom $T/www/metrics
$PY -m http.server -b 127.0.0.1 -d $T/www $P1 >$T/http.log 2>&1 &
HTTP=$!
# the old ServiceMonitor: honorLabels true, no relabelings
$PY - $SM $T/old.yaml <<'PY'
import sys, yaml
sm = yaml.safe_load(open(sys.argv[1]))
ep = sm["spec"]["endpoints"][0]
ep["honorLabels"] = True
ep.pop("relabelings", None)
yaml.safe_dump(sm, open(sys.argv[2], "w"))
PY
$PY tests/tools/smon2scrape.py $SM 127.0.0.1:$P1 $T/new.yml overrideHonorLabels enforcedNamespaceLabel=namespace &&
	$PY tests/tools/smon2scrape.py $T/old.yaml 127.0.0.1:$P1 $T/old.yml &&
	$PY - $T/new.yml $T/old.yml $T/prometheus.yml <<'PY'
import sys, yaml
new, old = yaml.safe_load(open(sys.argv[1])), yaml.safe_load(open(sys.argv[2]))
for j in old["scrape_configs"]:
    j["job_name"] = "sm-old"
    for r in j["relabel_configs"]:
        if r.get("target_label") == "setting":
            r["replacement"] = "old"
new["scrape_configs"] += old["scrape_configs"]
yaml.safe_dump(new, open(sys.argv[3], "w"), sort_keys=False)
PY
[ $? = 0 ] && ok "scrape config as the operator generates it: 4 jobs" || fail "scrape config" "generation failed"
out=$(promtool check config $T/prometheus.yml 2>&1)
[ $? = 0 ] && ok "promtool check config" || fail "promtool check config" "$out"

prometheus --config.file=$T/prometheus.yml --storage.tsdb.path=$T/data \
	--web.listen-address=127.0.0.1:$P2 >$T/prom.log 2>&1 &
PROM=$!
q() {	# q PROMQL: the API's answer
	curl -s -m 5 -G "http://127.0.0.1:$P2/api/v1/query" --data-urlencode "query=$1"
}
i=0
until [ "$(q 'count(gpuctl_uvm_gpu_faults_total)' | $PY -c 'import json,sys; r=json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else 0)' 2>/dev/null)" = 12 ]; do
	i=$((i + 1)); [ $i -gt 60 ] && break; sleep 0.5
done
[ $i -le 60 ] && ok "Prometheus scraped the fixture through all 4 settings (12 series)" ||
	fail "scrape" "$(tail -5 $T/prom.log)"
q gpuctl_uvm_gpu_faults_total >$T/result.json
$PY - $T/result.json <<'PY'
import json, sys
res = json.load(open(sys.argv[1]))["data"]["result"]
by = {(m["metric"]["setting"], m["metric"]["pid"]): m["metric"] for m in res}
own = {"namespace", "pod", "container", "service", "endpoint"}
checks = []
for s in ("plain", "overrideHonorLabels"):
    a, b, c = by[(s, "100")], by[(s, "200")], by[(s, "300")]
    checks += [
        ("%s: the pod's process keeps its namespace and pod" % s,
         a.get("namespace") == "ml" and a.get("pod") == "trainer-a"),
        ("%s: the Slurm step and the service get no pod, namespace, container" % s,
         not (own & set(b)) and not (own & set(c))),
        ("%s: no exported_* label" % s, not any(k.startswith("exported_") for m in (a, b, c) for k in m)),
        ("%s: node is the exporter's node" % s, all(m.get("node") == "gpu-node-7" for m in (a, b, c))),
        ("%s: pod_uid, unit, hostname as the exporter wrote them" % s,
         a.get("pod_uid", "").endswith("0d01") and b.get("unit") == "job_42/step_0" and
         c.get("hostname") == "gpu-node-7"),
    ]
s = "enforcedNamespaceLabel=namespace"
a, b = by[(s, "100")], by[(s, "200")]
checks += [
    ("enforced: the pod's process keeps its pod, its namespace in exported_namespace",
     a.get("pod") == "trainer-a" and a.get("exported_namespace") == "ml" and a.get("namespace") == "gpuctl"),
    ("enforced: the Slurm step gets the enforced namespace alone, no pod or container",
     b.get("namespace") == "gpuctl" and not ({"pod", "container", "service", "endpoint"} & set(b))),
]
o = by[("old", "200")]
checks.append(("the old ServiceMonitor credits the Slurm step to the exporter pod (the bug, caught)",
               o.get("pod") == "gpuctl-exporter-x7k2p" and o.get("namespace") == "gpuctl"))
bad = 0
for name, good in checks:
    print(("ok   " if good else "FAIL ") + name)
    bad += not good
if bad:
    for k in sorted(by):
        print("   ", k, by[k])
sys.exit(1 if bad else 0)
PY
[ $? = 0 ] && ok "each series' own attribution, in every setting" || fail "attribution" "see the lines above"
kill $PROM $HTTP 2>/dev/null
wait $PROM $HTTP 2>/dev/null
summary
