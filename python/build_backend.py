# SPDX-License-Identifier: GPL-2.0
"""A PEP 517 build backend in the standard library alone: a wheel of the one
pure-Python package gpuctl/ (and an sdist of this folder), so that an
offline `pip install --no-build-isolation .` needs neither setuptools nor
wheel.  The name and version come from pyproject.toml's [project] table."""
import base64
import hashlib
import io
import os
import tarfile
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
PKG = "gpuctl"
TAG = "py3-none-any"


def _project():
    try:
        import tomllib
        with open(os.path.join(HERE, "pyproject.toml"), "rb") as f:
            p = tomllib.load(f)["project"]
        return p["name"], p["version"], p.get("description", ""), p.get("requires-python", "")
    except ImportError:     # Python < 3.11: the two lines are read by hand
        vals = {}
        with open(os.path.join(HERE, "pyproject.toml")) as f:
            for line in f:
                k, _, v = line.partition("=")
                if k.strip() in ("name", "version", "description", "requires-python"):
                    vals.setdefault(k.strip(), v.strip().strip('"'))
        return vals["name"], vals["version"], vals.get("description", ""), vals.get("requires-python", "")


def _metadata():
    name, version, desc, py = _project()
    text = "Metadata-Version: 2.1\nName: %s\nVersion: %s\nSummary: %s\n" % (name, version, desc)
    if py:
        text += "Requires-Python: %s\n" % py
    return name, version, text


def _files():
    for root, dirs, files in os.walk(os.path.join(HERE, PKG)):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for f in sorted(files):
            if f.endswith(".py"):
                full = os.path.join(root, f)
                yield os.path.relpath(full, HERE).replace(os.sep, "/"), full


def _dist_info(metadata_directory=None):
    name, version, meta = _metadata()
    info = "%s-%s.dist-info" % (name, version)
    wheel = "Wheel-Version: 1.0\nGenerator: gpuctl build_backend\nRoot-Is-Purelib: true\nTag: %s\n" % TAG
    return name, version, info, {"METADATA": meta, "WHEEL": wheel}


def _hash(data):
    d = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return "sha256=%s,%d" % (d, len(data))


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    _, _, info, files = _dist_info()
    os.makedirs(os.path.join(metadata_directory, info), exist_ok=True)
    for n, text in files.items():
        with open(os.path.join(metadata_directory, info, n), "w") as f:
            f.write(text)
    return info


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    name, version, info, meta = _dist_info()
    fname = "%s-%s-%s.whl" % (name, version, TAG)
    record = []
    with zipfile.ZipFile(os.path.join(wheel_directory, fname), "w", zipfile.ZIP_DEFLATED) as z:
        for arc, full in _files():
            with open(full, "rb") as f:
                data = f.read()
            z.writestr(arc, data)
            record.append("%s,%s" % (arc, _hash(data)))
        for n, text in meta.items():
            data = text.encode()
            z.writestr("%s/%s" % (info, n), data)
            record.append("%s/%s,%s" % (info, n, _hash(data)))
        record.append("%s/RECORD,," % info)
        z.writestr("%s/RECORD" % info, "\n".join(record) + "\n")
    return fname


def build_sdist(sdist_directory, config_settings=None):
    name, version, meta = _metadata()
    base = "%s-%s" % (name, version)
    fname = base + ".tar.gz"
    with tarfile.open(os.path.join(sdist_directory, fname), "w:gz") as t:
        for extra in ("pyproject.toml", "build_backend.py", "README"):
            t.add(os.path.join(HERE, extra), "%s/%s" % (base, extra))
        for arc, full in _files():
            t.add(full, "%s/%s" % (base, arc))
        data = meta.encode()
        ti = tarfile.TarInfo("%s/PKG-INFO" % base)
        ti.size = len(data)
        t.addfile(ti, io.BytesIO(data))
    return fname
