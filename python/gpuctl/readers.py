# SPDX-License-Identifier: GPL-2.0
"""Readers for what gpuctl leaves behind: a trace record (through gpuctl
trace report -j, which keeps the record's header) and the exporter's
textfile (Prometheus text exposition)."""
import re

_SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})?\s+(\S+)(\s+\d+)?$')
_LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*,?\s*')


def _unescape(v):
    return v.replace('\\"', '"').replace("\\n", "\n").replace("\\\\", "\\")


def read_textfile(text):
    """Samples of a Prometheus text exposition: a list of (name, {label: value}, float)."""
    out = []
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        m = _SAMPLE.match(line)
        if not m:
            raise ValueError("not a sample line: %r" % line)
        labels = {}
        if m.group(3):
            for lm in _LABEL.finditer(m.group(3)):
                labels[lm.group(1)] = _unescape(lm.group(2))
        out.append((m.group(1), labels, float(m.group(4))))
    return out


def sample_value(samples, name, **labels):
    """The value of the first sample of read_textfile's list named name whose
    labels include labels (values compared as strings), or None."""
    want = {k: str(v) for k, v in labels.items()}
    for n, lab, value in samples:
        if n == name and all(lab.get(k) == v for k, v in want.items()):
            return value
    return None


def trace_report(g, *paths, **opts):
    """gpuctl -j trace report -i PATH... [--OPT VALUE]...: the report as a dict."""
    args = ["trace", "report"]
    for p in paths:
        args += ["-i", p]
    for k, v in opts.items():
        args += ["--" + k.replace("_", "-"), v]
    return g.json(*args)
