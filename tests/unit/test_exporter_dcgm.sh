#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# issue 43: the dcgm-exporter joins of gpuctl-exporter(8) use metrics that
# dcgm-exporter's default counter set exports.  Against a fixture of its
# default output (tests/unit/promql/dcgm-exporter-default.prom, 4.8's
# labels; 4.9's derived: hostname for Hostname): every DCGM_FI_* name the
# man page, the dashboard, the alert rules and the PromQL tests use is one
# the fixture has; the fixture parses (promtool check metrics: no parse
# error); and promtool test rules evaluates every join of the man page
# over the fixture's series as a scrape stores them (job, instance added)
# beside gpuctl's, with the values expected.  The join the page used to
# give (DCGM_FI_DEV_FB_CAPACITY_BYTES, not in the default set) returns
# nothing there.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
T=$T_DIR
F=tests/unit/promql/dcgm-exporter-default.prom
MAN=man/gpuctl-exporter.8.rst
command -v promtool >/dev/null || { fail "promtool" "missing (Debian's prometheus package)"; summary; }

sed -n 's/^# TYPE \(DCGM_FI_[A-Z0-9_]*\) .*/\1/p' $F | sort -u >$T/default.txt
[ "$(wc -l <$T/default.txt)" -ge 15 ] && ok "fixture: $(wc -l <$T/default.txt) metrics of the default set" ||
	fail "fixture" "$(cat $T/default.txt)"
out=$(grep -v '^#' $F | promtool check metrics 2>&1)
printf '%s\n' "$out" | grep -qi 'pars' && fail "fixture parses" "$out" ||
	ok "fixture parses (promtool check metrics: lint only, dcgm-exporter's own names)"
used=$(grep -oh 'DCGM_FI_[A-Z0-9_]*' $MAN packaging/grafana/*.json packaging/kubernetes/*.yaml \
	tests/unit/promql/*.yml 2>/dev/null | sort -u | grep -vx DCGM_FI_DEV_FB_CAPACITY_BYTES)
missing=$(printf '%s\n' "$used" | grep -vxF -f $T/default.txt)
[ -n "$used" ] && [ -z "$missing" ] && ok "every DCGM_FI_* used ($(printf '%s\n' "$used" | wc -l)) is in the default set" ||
	fail "DCGM metrics not in the default set" "$missing"
grep -q 'DCGM_FI_DEV_FB_CAPACITY_BYTES)' $MAN && fail "man" "a join over FB_CAPACITY_BYTES" ||
	ok "no join over DCGM_FI_DEV_FB_CAPACITY_BYTES in the man page"

# the man page's joins: the code blocks of QUERIES that name a DCGM_FI_ metric
/usr/bin/python3 - $MAN $F $T/dcgm.test.yml <<'PY'
import re, sys
man, fixture, out = sys.argv[1:4]
text = open(man).read()
body = text.split("\nQUERIES\n=======\n", 1)[1].split("\n=====", 1)[0]
lines, blocks = body.split("\n"), []
for i, l in enumerate(lines):
    if l.rstrip().endswith("::"):
        b = []
        for m in lines[i + 1:]:
            if m.strip() and not m.startswith("    "):
                break
            b.append(m.strip())
        q = " ".join(x for x in b if x)
        if "DCGM_FI_" in q:
            blocks.append(q)
# the fixture's samples as a scrape stores them, 4.8's and 4.9's labels
series = []
for l in open(fixture):
    if l.startswith("#") or not l.strip():
        continue
    m = re.match(r'([A-Za-z_:][A-Za-z0-9_:]*)\{(.*)\} (\S+)$', l.strip())
    name, labels, value = m.groups()
    v = float(value)
    for ver, lab in (("4.8", labels), ("4.9", labels.replace("Hostname=", "hostname="))):
        series.append((name + '{job="dcgm-%s",instance="10.0.0.6:9400",%s}' % (ver, lab), "%gx10" % v))
gp = [('gpuctl_uvm_gpu_faults_total{job="gpuctl",instance="10.0.0.5:9471",hostname="n1",pid="100",'
       'comm="python3",pod_uid="uid-a",gpu="0",UUID="GPU-0"}', "0+600x10"),
      ('gpuctl_uvm_gpu_faults_total{job="gpuctl",instance="10.0.0.5:9471",hostname="n1",pid="100",'
       'comm="python3",pod_uid="uid-a",gpu="1",UUID="GPU-1"}', "0+300x10")]
want = {  # what each join gives: GPU-0 600/min = 10/s, GPU-1 5/s
    "hostname": ['{UUID="GPU-0",modelName="NVIDIA H100 80GB HBM3",hostname="n1"}',
                 '{UUID="GPU-1",modelName="NVIDIA H100 80GB HBM3",hostname="n1"}'],
    "Hostname": ['{UUID="GPU-0",modelName="NVIDIA H100 80GB HBM3",Hostname="n1"}',
                 '{UUID="GPU-1",modelName="NVIDIA H100 80GB HBM3",Hostname="n1"}'],
}
o = ["evaluation_interval: 1m", "tests:", "  - interval: 1m", "    input_series:"]
for s, v in series + gp:
    o += ["      - series: '%s'" % s, "        values: '%s'" % v]
o.append("    promql_expr_test:")
n = 0
for q in blocks:
    if "group_left" in q:
        host = "hostname" if "hostname" in q.split("group_left", 1)[1] else "Hostname"
        ver = "4.9" if host == "hostname" else "4.8"
        # the series of one dcgm-exporter version at a time, as one cluster runs one
        q2 = re.sub(r'(DCGM_FI_[A-Z0-9_]+)', r'\1{job="dcgm-%s"}' % ver, q)
        o += ["      - expr: '%s'" % q2, "        eval_time: 10m", "        exp_samples:"]
        for lab, val in zip(want[host], (10, 5)):
            o += ["          - labels: '%s'" % lab, "            value: %d" % val]
        n += 1
    elif " and on (UUID)" in q:
        q2 = re.sub(r'(DCGM_FI_[A-Z0-9_]+)', r'\1{job="dcgm-4.8"}', q)
        o += ["      - expr: '%s'" % q2, "        eval_time: 10m", "        exp_samples:"]
        for g, val in (("0", 80), ("1", 40)):
            o += ["          - labels: 'DCGM_FI_DEV_GPU_UTIL{job=\"dcgm-4.8\",instance=\"10.0.0.6:9400\","
                  "gpu=\"%s\",UUID=\"GPU-%s\",pci_bus_id=\"%s\",device=\"nvidia%s\","
                  "modelName=\"NVIDIA H100 80GB HBM3\",Hostname=\"n1\"}'" %
                  (g, g, "00000000:18:00.0" if g == "0" else "00000000:2A:00.0", g),
                  "            value: %d" % val]
        n += 1
    else:
        print("a DCGM query this test does not know: " + q)
        sys.exit(1)
# the old join: nothing, on the default set
o += ["      - expr: 'sum by (UUID) (rate(gpuctl_uvm_gpu_faults_total[5m])) * on (UUID) group_left "
      "(modelName, hostname) group by (UUID, modelName, hostname) (DCGM_FI_DEV_FB_CAPACITY_BYTES)'",
      "        eval_time: 10m", "        exp_samples: []"]
open(out, "w").write("\n".join(o) + "\n")
print(n)
PY
n=$?
nq=$(grep -c "^      - expr:" $T/dcgm.test.yml 2>/dev/null)
[ "$n" = 0 ] && [ "${nq:-0}" -ge 4 ] && ok "the man page's $((nq - 1)) DCGM joins, and the old one, as promtool tests" ||
	fail "building the promtool test" "exit $n, $nq exprs"
out=$(cd $T && promtool test rules dcgm.test.yml 2>&1)
[ $? = 0 ] && ok "promtool test rules: each join over the default output gives faults/s per GPU, labelled" ||
	fail "promtool test rules" "$out"
# ... and it catches a join over a metric the default set lacks
sed 's/(DCGM_FI_DEV_FB_USED{/(DCGM_FI_DEV_FB_RESERVED{/' $T/dcgm.test.yml >$T/neg.test.yml
out=$(cd $T && promtool test rules neg.test.yml 2>&1)
[ $? != 0 ] && ok "a join over a metric not in the default set fails the test" || fail "negative" "passed"
summary
