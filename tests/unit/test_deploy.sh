#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# issue 43: the Kubernetes deploy is right the first time, as far as it can
# be checked without a cluster (none is reachable here).  The pod of the
# DaemonSet checked against the Pod Security Standards' documented rules
# (kubernetes.io/docs/concepts/security/pod-security-standards, the
# baseline and restricted controls, written out below): baseline refuses it
# for hostPID, the hostPath volumes and the capabilities it adds, and
# nothing else; so the Namespace must enforce "privileged", and does (with
# warn and audit), and a Namespace at baseline is caught.  The image
# reference: one place (kustomization.yaml's images:), which the DaemonSet's
# image name points to, at the Makefile's version, and which build.sh tags
# with; the kustomize image transform gives the reference.  The README
# shows both ways onto the nodes.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
PY=/usr/bin/python3
K=packaging/kubernetes
VERSION=$(sed -n 's/^VERSION *:= *//p' Makefile)

pss() {	# pss FILE: the PSS verdicts on its Namespace and pod
	$PY - "$1" <<'PY'
import sys, yaml
docs = list(yaml.safe_load_all(open(sys.argv[1])))
ns = [d for d in docs if d["kind"] == "Namespace"][0]
ds = [d for d in docs if d["kind"] == "DaemonSet"][0]
spec = ds["spec"]["template"]["spec"]
ctrs = spec.get("containers", []) + spec.get("initContainers", []) + spec.get("ephemeralContainers", [])
BASE_CAPS = {"AUDIT_WRITE", "CHOWN", "DAC_OVERRIDE", "FOWNER", "FSETID", "KILL", "MKNOD",
             "NET_BIND_SERVICE", "SETFCAP", "SETGID", "SETPCAP", "SETUID", "SYS_CHROOT"}
VOL_OK = {"configMap", "csi", "downwardAPI", "emptyDir", "ephemeral", "persistentVolumeClaim",
          "projected", "secret"}
def sc(c):
    return c.get("securityContext") or {}
psc = spec.get("securityContext") or {}
baseline = {
    "hostProcess": any(sc(c).get("windowsOptions", {}).get("hostProcess") for c in ctrs) or
        psc.get("windowsOptions", {}).get("hostProcess"),
    "host namespaces (hostNetwork, hostPID, hostIPC)":
        any(spec.get(k) for k in ("hostNetwork", "hostPID", "hostIPC")),
    "privileged containers": any(sc(c).get("privileged") for c in ctrs),
    "capabilities beyond the baseline set": any(set(sc(c).get("capabilities", {}).get("add", [])) - BASE_CAPS
        for c in ctrs),
    "hostPath volumes": any("hostPath" in v for v in spec.get("volumes", [])),
    "host ports": any(p.get("hostPort") for c in ctrs for p in c.get("ports", [])),
    "AppArmor unconfined": any(sc(c).get("appArmorProfile", {}).get("type") == "Unconfined" for c in ctrs),
    "SELinux type or user/role": any(sc(c).get("seLinuxOptions", {}).get(k) for c in ctrs
        for k in ("user", "role")),
    "/proc mount type": any(sc(c).get("procMount", "Default") != "Default" for c in ctrs),
    "seccomp Unconfined": psc.get("seccompProfile", {}).get("type") == "Unconfined" or
        any(sc(c).get("seccompProfile", {}).get("type") == "Unconfined" for c in ctrs),
    "unsafe sysctls": bool(psc.get("sysctls")),
}
restricted = dict(baseline)
restricted.update({
    "volume types": any(not (set(v) - {"name"}) <= VOL_OK for v in spec.get("volumes", [])),
    "privilege escalation": any(sc(c).get("allowPrivilegeEscalation") is not False for c in ctrs),
    "running as non-root": not all(sc(c).get("runAsNonRoot", psc.get("runAsNonRoot")) is True for c in ctrs),
    "running as non-root user": any(sc(c).get("runAsUser", psc.get("runAsUser")) == 0 for c in ctrs),
    "seccomp RuntimeDefault or Localhost": any(sc(c).get("seccompProfile", psc.get("seccompProfile", {})).get("type")
        not in ("RuntimeDefault", "Localhost") for c in ctrs),
    "capabilities: drop ALL, add at most NET_BIND_SERVICE": any("ALL" not in sc(c).get("capabilities", {}).get("drop", [])
        or set(sc(c).get("capabilities", {}).get("add", [])) - {"NET_BIND_SERVICE"} for c in ctrs),
})
level = ns.get("metadata", {}).get("labels", {}).get("pod-security.kubernetes.io/enforce", "(none)")
for name, rules in (("baseline", baseline), ("restricted", restricted)):
    print("%s: %s" % (name, "; ".join(k for k, v in rules.items() if v) or "admitted"))
admitted = {"privileged": True, "baseline": not any(baseline.values()),
            "restricted": not any(restricted.values())}.get(level, False)
print("namespace enforces %s: pods %s" % (level, "admitted" if admitted else "REFUSED"))
sys.exit(0 if admitted else 1)
PY
}
out=$(pss $K/gpuctl-daemonset.yaml)
rc=$?
printf '%s\n' "$out" | sed 's/^/# /'
[ $rc = 0 ] && ok "the Namespace enforces a level that admits the pod (privileged)" || fail "PSS" "$out"
printf '%s\n' "$out" | grep -qx 'baseline: host namespaces (hostNetwork, hostPID, hostIPC); capabilities beyond the baseline set; hostPath volumes' &&
	ok "baseline refuses exactly hostPID, the added capabilities and hostPath: privileged is the only level" ||
	fail "baseline verdict" "$out"
for l in enforce warn audit; do
	grep -q "pod-security.kubernetes.io/$l: privileged" $K/gpuctl-daemonset.yaml || fail "label $l" "missing"
done
ok "enforce, warn and audit labels: privileged"
sed 's|pod-security.kubernetes.io/enforce: privileged|pod-security.kubernetes.io/enforce: baseline|' \
	$K/gpuctl-daemonset.yaml >$T_DIR/baseline.yaml
out=$(pss $T_DIR/baseline.yaml)
[ $? != 0 ] && printf '%s\n' "$out" | grep -q "enforces baseline: pods REFUSED" &&
	ok "a Namespace at baseline is caught: no pods, as the issue saw" || fail "baseline negative" "$out"
grep -q 'pod-security.kubernetes.io/enforce' README.md && grep -qi 'baseline' README.md &&
	ok "README says why privileged" || fail "README PSS" "no word on the label"

# --- the image reference: one place ----------------------------------------------------
out=$($PY - $K "$VERSION" <<'PY'
import os, sys, yaml
k, version = sys.argv[1], sys.argv[2]
kz = yaml.safe_load(open(os.path.join(k, "kustomization.yaml")))
bad = []
files = sorted(f for f in os.listdir(k) if f.endswith(".yaml") and f != "kustomization.yaml")
if sorted(kz["resources"]) != files:
    bad.append("resources %s are not the manifests %s" % (kz["resources"], files))
imgs = {i["name"]: i for i in kz["images"]}
refs = []
for f in files:
    for d in yaml.safe_load_all(open(os.path.join(k, f))):
        for c in d.get("spec", {}).get("template", {}).get("spec", {}).get("containers", []):
            name = c["image"].split(":")[0]
            if ":" in c["image"] or "/" in c["image"] or name not in imgs:
                bad.append("%s: image %s is not a name kustomization.yaml sets" % (f, c["image"]))
            else:
                i = imgs[name]   # kustomize's image transform
                refs.append("%s:%s" % (i.get("newName", name), i.get("newTag", "latest")))
if not refs:
    bad.append("no container image")
if any(i.get("newTag") != version for i in imgs.values()):
    bad.append("newTag is not the Makefile's version %s" % version)
print(" ".join(sorted(set(refs))))
for b in bad:
    print("bad: " + b)
sys.exit(1 if bad else 0)
PY
)
[ $? = 0 ] && ok "kustomization.yaml sets the image of every manifest: $out" || fail "image reference" "$out"
REF=$out
grep -q 'kustomization.yaml' packaging/container/build.sh && ok "build.sh reads the reference there" ||
	fail "build.sh" "does not read kustomization.yaml"
grep -rn 'localhost/gpuctl:\|gpuctl:0\.' $K/*.yaml | grep -v kustomization.yaml && fail "one place" "a reference elsewhere" ||
	ok "no other manifest names a reference"
grep -q "skopeo copy oci-archive" README.md && grep -q "ctr -n k8s.io images import" README.md &&
	grep -q "kubectl apply -k packaging/kubernetes" README.md &&
	ok "README: a registry push and a per-node import, then apply -k" || fail "README" "both ways onto the nodes"
summary
