#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""smon2scrape.py SERVICEMONITOR TARGET OUT.yml [overrideHonorLabels] [enforcedNamespaceLabel=L]

The scrape config the Prometheus Operator generates for the first endpoint
of a ServiceMonitor (its generateServiceMonitorConfig: honor_labels, the
keep rules of the Service selector and port, node/pod/namespace/service/
container from the endpoints' metadata, job, endpoint, then the endpoint's
relabelings, then the enforced namespace label last; the metric
relabelings likewise), with one static target standing for what the
Kubernetes service discovery gives for the exporter's pod (its
__meta_kubernetes_* labels): no API server is needed.  One scrape job per
Prometheus setting named on the command line ("plain" always), in one
config, each with job_name "sm-SETTING"."""
import sys
import yaml


def relabel(r):
    """A ServiceMonitor RelabelConfig (camelCase) as Prometheus's relabel_config."""
    keys = {"sourceLabels": "source_labels", "targetLabel": "target_label", "action": "action",
            "regex": "regex", "replacement": "replacement", "separator": "separator",
            "modulus": "modulus"}
    return {keys[k]: v for k, v in r.items()}


def job(sm, target, setting):
    ep = sm["spec"]["endpoints"][0]
    ns = sm["metadata"]["namespace"]
    override = setting == "overrideHonorLabels"
    enforced = setting.split("=", 1)[1] if setting.startswith("enforcedNamespaceLabel=") else None
    rc = []
    for k, v in sorted(sm["spec"]["selector"]["matchLabels"].items()):
        n = k.replace(".", "_").replace("/", "_").replace("-", "_")
        rc.append({"action": "keep", "source_labels": ["__meta_kubernetes_service_label_" + n,
                   "__meta_kubernetes_service_labelpresent_" + n], "regex": "(%s);true" % v})
    rc.append({"action": "keep", "source_labels": ["__meta_kubernetes_endpoint_port_name"],
               "regex": ep["port"]})
    src = ["__meta_kubernetes_endpoint_address_target_kind", "__meta_kubernetes_endpoint_address_target_name"]
    rc += [{"source_labels": src, "separator": ";", "regex": "Node;(.*)", "replacement": "${1}",
            "target_label": "node"},
           {"source_labels": src, "separator": ";", "regex": "Pod;(.*)", "replacement": "${1}",
            "target_label": "pod"},
           {"source_labels": ["__meta_kubernetes_namespace"], "target_label": "namespace"},
           {"source_labels": ["__meta_kubernetes_service_name"], "target_label": "service"},
           {"source_labels": ["__meta_kubernetes_pod_name"], "target_label": "pod"},
           {"source_labels": ["__meta_kubernetes_pod_container_name"], "target_label": "container"},
           {"action": "drop", "source_labels": ["__meta_kubernetes_pod_phase"], "regex": "(Failed|Succeeded)"},
           {"source_labels": ["__meta_kubernetes_service_name"], "target_label": "job", "replacement": "${1}"},
           {"target_label": "endpoint", "replacement": ep["port"]}]
    rc += [relabel(r) for r in ep.get("relabelings", [])]
    mrc = [relabel(r) for r in ep.get("metricRelabelings", [])]
    if enforced:
        rc.append({"target_label": enforced, "replacement": ns})
        mrc.append({"target_label": enforced, "replacement": ns})
    # the job label is the Service's; ours tells the settings apart in one server
    rc.append({"target_label": "setting", "replacement": setting})
    j = {"job_name": "sm-" + setting.split("=")[0],
         "honor_labels": bool(ep.get("honorLabels", False)) and not override,
         "scrape_interval": "1s", "scrape_timeout": "1s",
         "metrics_path": ep.get("path", "/metrics"),
         "static_configs": [{"targets": [target], "labels": {
             "__meta_kubernetes_namespace": ns,
             "__meta_kubernetes_service_name": "gpuctl-exporter",
             "__meta_kubernetes_service_label_app_kubernetes_io_name": "gpuctl-exporter",
             "__meta_kubernetes_service_labelpresent_app_kubernetes_io_name": "true",
             "__meta_kubernetes_endpoint_port_name": "metrics",
             "__meta_kubernetes_endpoint_address_target_kind": "Pod",
             "__meta_kubernetes_endpoint_address_target_name": "gpuctl-exporter-x7k2p",
             "__meta_kubernetes_endpoint_node_name": "gpu-node-7",
             "__meta_kubernetes_pod_name": "gpuctl-exporter-x7k2p",
             "__meta_kubernetes_pod_container_name": "exporter",
             "__meta_kubernetes_pod_node_name": "gpu-node-7",
             "__meta_kubernetes_pod_phase": "Running"}}],
         "relabel_configs": rc}
    if mrc:
        j["metric_relabel_configs"] = mrc
    return j


sm = yaml.safe_load(open(sys.argv[1]))
settings = ["plain"] + sys.argv[4:]
cfg = {"global": {"scrape_interval": "1s"},
       "scrape_configs": [job(sm, sys.argv[2], s) for s in settings]}
yaml.safe_dump(cfg, open(sys.argv[3], "w"), sort_keys=False)
