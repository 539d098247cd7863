#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# test_packaging.sh - what operators install: the systemd units pass
# systemd-analyze verify (against an installed tree) and keep their
# hardening; the Kubernetes manifests survive a typed round trip through
# the Kubernetes API models (python3-kubernetes: an unknown or misspelt
# field is dropped, a missing required one refused) and agree with the
# units and the image; the Debian package builds with debhelper and lintian
# accepts it; the static binary is static and the FROM-scratch image holds
# it alone, with the DaemonSet's entrypoint.  issue 35: the DaemonSet is
# hardened (not privileged, named capabilities and devices, no token,
# NODE_NAME); the Grafana dashboard and the PrometheusRule reference only
# metrics the exporter exports (its metric table: cmd/exporter/*.c), the
# rules pass promtool check rules and their alerts promtool test rules.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh

PY=/usr/bin/python3	# Debian's, with python3-kubernetes and python3-yaml
U=packaging/systemd
K=packaging/kubernetes
VERSION=$(sed -n 's/^VERSION *:= *//p' Makefile)
W=$T_DIR

# --- systemd units --------------------------------------------------------------
# An installed tree: gpuctl where the units say, man pages, the host's targets.
make -s install DESTDIR=$W/root PREFIX=/usr SBINDIR=/usr/sbin >/dev/null 2>&1 ||
	fail "make install into a staging tree" "failed"
mkdir -p $W/root/lib/systemd/system
cp /lib/systemd/system/*.target /lib/systemd/system/*.slice $W/root/lib/systemd/system/ 2>/dev/null
cp $U/*.service $W/root/lib/systemd/system/
verify() { systemd-analyze verify --root=$W/root --man=no "$@" 2>&1; }
for u in gpuctl-sched-watch gpuctl-exporter gpuctl-policies; do
	out=$(verify $W/root/lib/systemd/system/$u.service)
	[ $? = 0 ] && [ -z "$out" ] && ok "systemd-analyze verify $u.service" || fail "verify $u" "$out"
done
# ... and it catches a broken unit (the check can fail)
sed 's/^Type=oneshot/Type=oneshoot/; s|^ExecStart=/usr/sbin/gpuctl|ExecStart=/usr/sbin/gpuctlx|' \
	$U/gpuctl-policies.service >$W/root/lib/systemd/system/broken.service
out=$(verify $W/root/lib/systemd/system/broken.service)
[ -n "$out" ] && ok "verify catches a bad Type= and a missing binary" || fail "verify negative" "silent"

for u in $U/*.service; do
	n=$(basename $u)
	for d in NoNewPrivileges=yes ProtectSystem=strict ProtectHome=yes PrivateTmp=yes \
		 RestrictNamespaces=yes SystemCallArchitectures=native MemoryDenyWriteExecute=yes; do
		grep -qx "$d" $u || fail "$n: $d" "missing"
	done
	grep -q '^CapabilityBoundingSet=CAP_BPF CAP_PERFMON' $u && ok "$n: hardened, capabilities bounded" ||
		fail "$n: capabilities" "no CapabilityBoundingSet"
done
grep -q 'CAP_SYS_ADMIN' $U/gpuctl-exporter.service && fail "exporter unit" "has CAP_SYS_ADMIN" ||
	ok "exporter unit: no CAP_SYS_ADMIN"
grep -qx 'ExecStart=/usr/sbin/gpuctl exporter serve $GPUCTL_EXPORTER_OPTS' $U/gpuctl-exporter.service &&
	grep -qx 'Environment="GPUCTL_EXPORTER_OPTS=--listen :9471"' $U/gpuctl-exporter.service &&
	ok "exporter unit: serves on :9471 unless /etc/default/gpuctl-exporter says otherwise" ||
	fail "exporter unit" "ExecStart"
grep -q '^Before=.*kubelet.service' $U/gpuctl-sched-watch.service && ok "watcher unit: before GPU jobs" ||
	fail "watcher unit" "not ordered before GPU jobs"
grep -qx 'ExecStart=/usr/sbin/gpuctl batch file /etc/gpuctl/policies.batch' $U/gpuctl-policies.service &&
	grep -qx 'ConditionPathExists=/etc/gpuctl/policies.batch' $U/gpuctl-policies.service &&
	ok "policies unit: batch file at boot, when there is one" || fail "policies unit" "ExecStart/Condition"

# --- Kubernetes ---------------------------------------------------------------------
k8s_check() {	# k8s_check FILE: typed round trip of every document, then the fields that matter
	$PY - "$1" "$VERSION" <<'EOF'
import json, sys, yaml
from kubernetes import client

api = client.ApiClient()
models = {"DaemonSet": "V1DaemonSet", "Service": "V1Service", "Namespace": "V1Namespace"}


class Resp:
    def __init__(self, d):
        self.data = json.dumps(d)


docs = list(yaml.safe_load_all(open(sys.argv[1])))
bad = []
for d in docs:
    obj = api.deserialize(Resp(d), models[d["kind"]])
    if api.sanitize_for_serialization(obj) != d:
        bad.append("%s: fields the %s model does not know" % (d["kind"], models[d["kind"]]))
ds = [d for d in docs if d["kind"] == "DaemonSet"][0]
svc = [d for d in docs if d["kind"] == "Service"][0]
pod = ds["spec"]["template"]
spec = pod["spec"]
c = spec["containers"][0]
mounts = {m["mountPath"]: m for m in c["volumeMounts"]}
vols = {v["name"]: v for v in spec["volumes"]}
checks = {
    "selector matches the pod labels":
        ds["spec"]["selector"]["matchLabels"].items() <= pod["metadata"]["labels"].items(),
    "hostPID": spec.get("hostPID") is True,
    "not privileged, no escalation": c["securityContext"].get("privileged") is False and
        c["securityContext"].get("allowPrivilegeEscalation") is False,
    "capabilities: all dropped, BPF PERFMON SYS_PTRACE added":
        c["securityContext"]["capabilities"] == {"drop": ["ALL"], "add": ["BPF", "PERFMON", "SYS_PTRACE"]},
    "seccomp RuntimeDefault, read-only root":
        c["securityContext"]["seccompProfile"] == {"type": "RuntimeDefault"} and
        c["securityContext"]["readOnlyRootFilesystem"] is True,
    "no service-account token": spec.get("automountServiceAccountToken") is False,
    "NODE_NAME from the downward API":
        {"name": "NODE_NAME", "valueFrom": {"fieldRef": {"fieldPath": "spec.nodeName"}}} in c["env"],
    "devices through the NVIDIA runtime, not the host's /dev":
        {"name": "NVIDIA_VISIBLE_DEVICES", "value": "all"} in c["env"] and
        not any(v.get("hostPath", {}).get("path", "").startswith("/dev") for v in spec["volumes"]),
    "liveness on /healthz, readiness on /readyz": c["livenessProbe"]["httpGet"]["path"] == "/healthz" and
        c["readinessProbe"]["httpGet"]["path"] == "/readyz",
    "bpffs from the host at /sys/fs/bpf, read-only":
        vols[mounts["/sys/fs/bpf"]["name"]]["hostPath"]["path"] == "/sys/fs/bpf" and
        mounts["/sys/fs/bpf"]["readOnly"] is True,
    "/var/log/pods read-only for --pod-names": mounts["/var/log/pods"]["readOnly"] is True and
        "--pod-names" in c["args"],
    "image: the name kustomization.yaml sets (test_deploy.sh)": c["image"] == "gpuctl",
    "serves on 9471": c["args"][:4] == ["exporter", "serve", "--listen", ":9471"] and
        c["ports"][0]["containerPort"] == 9471,
    "scrape annotations name that port":
        pod["metadata"]["annotations"] == {"prometheus.io/scrape": "true", "prometheus.io/port": "9471",
                                           "prometheus.io/path": "/metrics"},
    "the Service selects the pods": svc["spec"]["selector"].items() <= pod["metadata"]["labels"].items(),
}
for k, v in checks.items():
    print("%s %s" % ("ok  " if v else "FAIL", k))
    if not v:
        bad.append(k)
for b in bad:
    print("bad:", b)
sys.exit(1 if bad else 0)
EOF
}
out=$(k8s_check $K/gpuctl-daemonset.yaml)
[ $? = 0 ] && ok "DaemonSet: typed round trip, $(printf '%s\n' "$out" | grep -c '^ok') field checks" ||
	fail "DaemonSet" "$out"
# the round trip catches a misspelt field
sed 's/hostPID: true/hostPid: true/' $K/gpuctl-daemonset.yaml >$W/typo.yaml
out=$(k8s_check $W/typo.yaml)
[ $? != 0 ] && printf '%s\n' "$out" | grep -q "does not know" && ok "DaemonSet check catches 'hostPid'" ||
	fail "DaemonSet negative" "$out"
out=$($PY - $K/gpuctl-servicemonitor.yaml $K/gpuctl-daemonset.yaml <<'EOF'
import sys, yaml
sm = yaml.safe_load(open(sys.argv[1]))
svc = [d for d in yaml.safe_load_all(open(sys.argv[2])) if d["kind"] == "Service"][0]
assert sm["apiVersion"] == "monitoring.coreos.com/v1" and sm["kind"] == "ServiceMonitor", "kind"
assert sm["spec"]["selector"]["matchLabels"].items() <= svc["metadata"]["labels"].items(), "selector"
assert sm["spec"]["endpoints"][0]["port"] in [p["name"] for p in svc["spec"]["ports"]], "port name"
assert sm["metadata"]["namespace"] in sm["spec"]["namespaceSelector"]["matchNames"], "namespace"
EOF
)
[ $? = 0 ] && ok "ServiceMonitor selects the Service's metrics port" || fail "ServiceMonitor" "$out"
# ... and a privileged container is caught
sed 's/privileged: false/privileged: true/' $K/gpuctl-daemonset.yaml >$W/priv.yaml
out=$(k8s_check $W/priv.yaml)
[ $? != 0 ] && printf '%s\n' "$out" | grep -q "FAIL not privileged" && ok "DaemonSet check catches privileged: true" ||
	fail "DaemonSet privileged negative" "$out"

# --- dashboard and alert rules ---------------------------------------------------------
# the metrics the exporter exports: its metric table (every family name in cmd/exporter/)
grep -oh '"gpuctl_[a-z_]*' cmd/exporter/*.c | tr -d '"' | sort -u >$W/metrics.txt
[ "$(wc -l <$W/metrics.txt)" -ge 30 ] && ok "the exporter's metric table: $(wc -l <$W/metrics.txt) families" ||
	fail "metric table" "$(cat $W/metrics.txt)"
refs_ok() {	# refs_ok FILE: the gpuctl_* names it uses that the exporter does not export
	grep -o 'gpuctl_[a-z_]*' "$1" | grep -v '^gpuctl_exporter$' | sort -u | grep -vxF -f $W/metrics.txt
}
dash_check() {
	$PY - "$1" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
panels = d["panels"]
exprs = " ".join(t["expr"] for p in panels for t in p["targets"])
need = ["gpuctl_uvm_gpu_faults_total", "gpuctl_uvm_migrated_bytes_total", "gpuctl_tsg_info",
        "gpuctl_sched_be_floor_kept", "gpuctl_exporter_source_up"]
bad = [n for n in need if n not in exprs]
bad += ["panel %s: no target" % p.get("title") for p in panels if not p.get("targets")]
bad += ["panel ids not unique"] if len({p["id"] for p in panels}) != len(panels) else []
bad += ["faults/migrations not by pod"] if "pod_uid" not in exprs else []
print("%d panels" % len(panels))
for b in bad:
    print("bad:", b)
sys.exit(1 if bad or len(panels) < 4 else 0)
EOF
}
D=packaging/grafana/gpuctl-dashboard.json
out=$(dash_check $D)
[ $? = 0 ] && ok "dashboard: JSON, $out: faults and migrations by pod and GPU, TSGs and class, BE floor, health" ||
	fail "dashboard" "$out"
out=$(refs_ok $D)
[ -z "$out" ] && ok "dashboard: every metric is one the exporter exports" || fail "dashboard metrics" "$out"
sed 's/gpuctl_tsg_info/gpuctl_tsg_infos/' $D >$W/typo.json
[ -n "$(refs_ok $W/typo.json)" ] && ok "the metric check catches a misspelt metric" || fail "metric check negative" "silent"
R=$K/gpuctl-prometheusrule.yaml
$PY - $R $W/rules/gpuctl-rules.yml <<'EOF'
import os, sys, yaml
d = yaml.safe_load(open(sys.argv[1]))
assert d["apiVersion"] == "monitoring.coreos.com/v1" and d["kind"] == "PrometheusRule"
os.makedirs(os.path.dirname(sys.argv[2]), exist_ok=True)
yaml.safe_dump({"groups": d["spec"]["groups"]}, open(sys.argv[2], "w"))
EOF
out=$(promtool check rules $W/rules/gpuctl-rules.yml 2>&1)
[ $? = 0 ] && ok "PrometheusRule: promtool check rules ($(printf '%s' "$out" | grep -o '[0-9]* rules found'))" ||
	fail "promtool check rules" "$out"
out=$(refs_ok $R)
[ -z "$out" ] && ok "PrometheusRule: every metric is one the exporter exports" || fail "rule metrics" "$out"
for a in GpuctlSourceDown GpuctlBeFloorNotKept GpuctlEventsDropped; do
	grep -q "alert: $a\$" $R || fail "alert $a" "missing"
done
cp tests/unit/promql/alerts.test.yml $W/rules/
out=$(cd $W/rules && promtool test rules alerts.test.yml 2>&1)
[ $? = 0 ] && ok "PrometheusRule: promtool test rules (source down, BE floor, events dropped)" ||
	fail "promtool test rules (alerts)" "$out"

# --- Debian package ------------------------------------------------------------------
out=$(packaging/deb.sh 2>&1)
rc=$?
printf '%s\n' "$out" | grep -v 'root privileges' | grep -E '^[EWI]: ' | sed 's/^/# /'
[ $rc = 0 ] && ok "debhelper builds the .deb and lintian accepts it (no error, no warning)" ||
	fail "deb" "$(printf '%s\n' "$out" | tail -5)"
if [ -f build/gpuctl_${VERSION}_amd64.deb ]; then
	files=$(dpkg-deb -c build/gpuctl_${VERSION}_amd64.deb | awk '{ print $6 }')
	for f in ./usr/sbin/gpuctl ./lib/systemd/system/gpuctl-exporter.service ./etc/default/gpuctl-exporter \
		 ./usr/share/man/man8/gpuctl-exporter.8.gz ./usr/share/bash-completion/completions/gpuctl; do
		printf '%s\n' "$files" | grep -qx "$f" || fail "deb contents" "$f missing"
	done
	ok "deb holds the binary, units, man pages, completion"
fi

# --- static binary and image -----------------------------------------------------------
if make -s gpuctl-static >$W/static.log 2>&1; then
	readelf -l gpuctl-static | grep -q INTERP && fail "static" "gpuctl-static has an interpreter" ||
		ok "gpuctl-static has no dynamic loader"
	[ -z "$(readelf -d gpuctl-static 2>/dev/null | grep NEEDED)" ] && ok "gpuctl-static needs no library" ||
		fail "static" "$(readelf -d gpuctl-static | grep NEEDED)"
	expect_exit 0 ./gpuctl-static version
	# glibc's dlopen from a static binary dies (SIGFPE on the H100): the
	# static build must take its no-NVML path, the dynamic one must not
	grep -q "NVML (libnvidia-ml.so.1) cannot be loaded by a" gpuctl-static &&
		ok "gpuctl-static does not dlopen NVML" || fail "static NVML" "the static build still loads NVML"
	grep -q "NVML (libnvidia-ml.so.1) cannot be loaded by a" gpuctl &&
		fail "dynamic NVML" "the dynamic gpuctl says it is static" || ok "gpuctl (dynamic) loads NVML"
	packaging/container/build.sh $W/image.tar >/dev/null 2>&1 && ok "image built (umoci, FROM scratch)" ||
		fail "image" "build.sh failed"
	mkdir $W/layout && tar -C $W/layout -xf $W/image.tar
	umoci unpack --rootless --image $W/layout:$VERSION $W/bundle >/dev/null 2>&1
	[ "$(cd $W/bundle/rootfs && find . -mindepth 1 | LC_ALL=C sort | tr '\n' ' ')" = "./etc ./etc/ld.so.conf ./etc/ld.so.conf.d ./gpuctl " ] &&
		ok "image: /gpuctl and the loader configuration, nothing else" ||
		fail "image contents" "$(cd $W/bundle/rootfs && find . | head)"
	cmp -s $W/bundle/rootfs/gpuctl gpuctl-static && ok "image: the static binary" || fail "image binary" "differs"
	# what the NVIDIA hook does to the root, as far as this machine goes: ldconfig -r
	cp -a $W/bundle/rootfs $W/hookroot
	ldconfig -r $W/hookroot 2>$W/ldconfig.err && [ -f $W/hookroot/etc/ld.so.cache ] &&
		ok "image: ldconfig -r on its root writes /etc/ld.so.cache (the hook's step)" ||
		fail "image ldconfig" "$(cat $W/ldconfig.err)"
	# the binary started in the image's root with only the device nodes the hook makes
	mkdir -p $W/hookroot/dev $W/hookroot/proc
	mknod $W/hookroot/dev/nvidiactl c 195 255 && mknod $W/hookroot/dev/nvidia-uvm c 1 3 &&
		mknod $W/hookroot/dev/nvidia-uvm-tools c 1 3
	chroot $W/hookroot /gpuctl version >$W/chroot.out 2>&1 && grep -q '^gpuctl v' $W/chroot.out &&
		ok "image: /gpuctl runs in its root (no loader, no library)" || fail "image run" "$(cat $W/chroot.out)"
	$PY - $W/bundle/config.json "$(git rev-parse HEAD 2>/dev/null)" <<'EOF' && ok "image: OCI labels source, revision, licenses" || fail "image labels" "$(grep -o '"Labels":{[^}]*}' $W/bundle/config.json)"
import json, sys
c = json.load(open(sys.argv[1]))
lab = c.get("annotations", {})
want = {"org.opencontainers.image.source": "https://example.org/gpuctl",
        "org.opencontainers.image.licenses": "GPL-2.0-only",
        "org.opencontainers.image.revision": sys.argv[2] or "unknown"}
sys.exit(0 if all(lab.get(k) == v for k, v in want.items()) else 1)
EOF
	$PY - $W/bundle/config.json <<'EOF' && ok "image: runs 'gpuctl exporter serve --listen :9471'" || fail "image config" "args"
import json, sys
args = json.load(open(sys.argv[1]))["process"]["args"]
sys.exit(0 if args == ["/gpuctl", "exporter", "serve", "--listen", ":9471"] else 1)
EOF
else
	fail "make gpuctl-static" "$(tail -5 $W/static.log)"
fi
summary
