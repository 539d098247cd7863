# SPDX-License-Identifier: GPL-2.0
"""Typed exceptions from gpuctl's JSON error codes (gpuctl(8), JSON OUTPUT).

Under -j a failing command writes {"error": MESSAGE, "code": CODE, ...} and
exits 1 (a failure) or 2 (a bad command line).  The code is stable; the
message is for people.  Each code maps to one exception class; a code this
library does not know yet becomes a plain GpuctlError carrying it.
"""


class GpuctlError(Exception):
    """gpuctl refused or failed: .code (stable), .message, .status (exit status), .argv."""

    def __init__(self, message, code="FAILED", status=1, argv=None):
        super().__init__(message)
        self.message = message
        self.code = code
        self.status = status
        self.argv = list(argv or [])

    def __str__(self):
        return "%s (%s, exit status %d)" % (self.message, self.code, self.status)


class UsageError(GpuctlError):
    """A bad command line (code USAGE, exit status 2): nothing was attempted."""


class PermissionDenied(GpuctlError):
    """EPERM or EACCES: a capability or a file's mode stood in the way."""


class NotFound(GpuctlError):
    """ENOENT or ESRCH: a file, a device or a process is not there."""


class Busy(GpuctlError):
    """EBUSY or EEXIST: something else holds it (another policy, another daemon)."""


class NotSupported(GpuctlError):
    """EOPNOTSUPP or ENOTSUP: the driver or kernel lacks what was asked for."""


class Failed(GpuctlError):
    """FAILED: any other failure gpuctl reports."""


class NoDriver(Failed):
    """NO_DRIVER: the NVIDIA driver piece the command needs is not there."""


class BpffsAbsent(Failed):
    """BPFFS_ABSENT: bpffs is not mounted where gpuctl keeps its pins."""


class NoBackend(Failed):
    """NO_BACKEND: no trace back-end can serve the request here."""


class ProtocolError(GpuctlError):
    """gpuctl's output was not the JSON document it promises (code PROTOCOL)."""


_BY_CODE = {
    "USAGE": UsageError,
    "PERMISSION": PermissionDenied,
    "EPERM": PermissionDenied,
    "EACCES": PermissionDenied,
    "ENOENT": NotFound,
    "ESRCH": NotFound,
    "EBUSY": Busy,
    "EEXIST": Busy,
    "EOPNOTSUPP": NotSupported,
    "ENOTSUP": NotSupported,
    "FAILED": Failed,
    "NO_DRIVER": NoDriver,
    "BPFFS_ABSENT": BpffsAbsent,
    "NO_BACKEND": NoBackend,
}


def error_from(doc, status, argv):
    """The exception for an error document gpuctl wrote."""
    code = doc.get("code") or "FAILED"
    cls = _BY_CODE.get(code, GpuctlError)
    return cls(str(doc.get("error", "")), code, status, argv)
