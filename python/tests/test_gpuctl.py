# SPDX-License-Identifier: GPL-2.0
"""The harness library against a stand-in binary (tests/fake_gpuctl.py):
documents, typed errors, policies put back after a block whatever ends it,
one experiment as one dict, the readers.  Run: python3 -m unittest."""
import json
import os
import signal
import sys
import tempfile
import threading
import unittest

import gpuctl

HERE = os.path.dirname(os.path.abspath(__file__))
FAKE = os.path.join(HERE, "fake_gpuctl.py")


class Base(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        os.environ["FAKE_STATE"] = os.path.join(self.tmp.name, "state.json")
        os.environ["FAKE_LOG"] = os.path.join(self.tmp.name, "log")
        self.g = gpuctl.Gpuctl(FAKE)

    def tearDown(self):
        self.tmp.cleanup()

    def state(self):
        p = os.environ["FAKE_STATE"]
        if not os.path.exists(p):
            return {}
        with open(p) as f:
            return json.load(f)

    def log(self):
        with open(os.environ["FAKE_LOG"]) as f:
            return [json.loads(line) for line in f]


class Documents(Base):
    def test_one_document(self):
        d = self.g.json("probe")
        self.assertEqual(d["verdict"]["sched"]["available"], False)
        self.assertEqual(d["schema_version"], 2)
        self.assertEqual(self.log()[-1], ["-j", "probe"])

    def test_json_lines(self):
        self.assertEqual([d["t"] for d in self.g.lines("stream")], [1, 2])
        with self.assertRaises(gpuctl.ProtocolError):
            self.g.json("stream")

    def test_newer_schema_refused(self):
        with self.assertRaises(gpuctl.ProtocolError) as c:
            self.g.json("future")
        self.assertIn("schema_version 99", str(c.exception))

    def test_documents_helper(self):
        self.assertEqual(gpuctl.documents(""), [])
        self.assertEqual(gpuctl.documents('{"a":1}\n{"a":2}\n'), [{"a": 1}, {"a": 2}])
        self.assertEqual(gpuctl.documents('{\n  "a": 1\n}\n'), [{"a": 1}])
        with self.assertRaises(gpuctl.ProtocolError):
            gpuctl.documents("{\"a\":1}\nnot json\n")

    def test_complete(self):
        self.assertEqual(self.g.complete("s"), ["stat", "sched", "shell"])


class Errors(Base):
    def check(self, cls, code, status, *args):
        with self.assertRaises(cls) as c:
            self.g.json(*args)
        e = c.exception
        self.assertIsInstance(e, gpuctl.GpuctlError)
        self.assertEqual((e.code, e.status), (code, status))
        self.assertTrue(e.message)
        self.assertEqual(e.argv[:2], [FAKE, "-j"])

    def test_codes(self):
        self.check(gpuctl.UsageError, "USAGE", 2, "bogus")
        self.check(gpuctl.UsageError, "USAGE", 2, "prefetch", "load", "nope")
        self.check(gpuctl.Busy, "EBUSY", 1, "evict", "load", "busy")
        self.check(gpuctl.PermissionDenied, "EPERM", 1, "replay", "load", "noperm")
        self.check(gpuctl.PermissionDenied, "PERMISSION", 1, "replay", "load", "nocap")
        self.check(gpuctl.BpffsAbsent, "BPFFS_ABSENT", 1, "evict", "load", "nobpffs")

    def test_no_document(self):
        with self.assertRaises(gpuctl.Failed) as c:
            self.g.json("crash")
        self.assertEqual(c.exception.status, 139)
        self.assertIn("Segmentation fault", c.exception.message)


class Loaded(Base):
    def test_unloaded_after(self):
        with self.g.loaded("prefetch", "stride", max_pages=64) as d:
            self.assertEqual(d["params"], {"max_pages": 64})
            self.assertEqual(self.state()["prefetch"]["name"], "stride")
        self.assertNotIn("prefetch", self.state())

    def test_unloaded_after_exception(self):
        with self.assertRaises(ZeroDivisionError):
            with self.g.loaded("evict", "lfu"):
                1 / 0
        self.assertNotIn("evict", self.state())

    def test_unloaded_after_ctrl_c(self):
        with self.assertRaises(KeyboardInterrupt):
            with self.g.loaded("replay", "batch"):
                os.kill(os.getpid(), signal.SIGINT)
                threading.Event().wait(5)   # the signal arrives here
        self.assertNotIn("replay", self.state())
        self.assertIs(signal.getsignal(signal.SIGINT), signal.default_int_handler)

    def test_previous_put_back(self):
        self.g.json("prefetch", "load", "adaptive", "max_pages", 16)
        with self.g.loaded("prefetch", "stride", max_pages=64):
            self.assertEqual(self.state()["prefetch"]["name"], "stride")
        self.assertEqual(self.state()["prefetch"], {"name": "adaptive", "params": {"max_pages": 16}})
        self.assertEqual(self.log()[-1], ["-j", "prefetch", "load", "adaptive", "max_pages", "16"])

    def test_previous_put_back_with_engines(self):
        self.g.json("prefetch", "load", "adaptive", "max_pages", 16)
        st = self.state()
        st["engines"] = [{"pid": 7, "policy": "stream"}]
        with open(os.environ["FAKE_STATE"], "w") as f:
            json.dump(st, f)
        with self.g.loaded("prefetch", "stride"):
            pass
        self.assertEqual(self.state()["prefetch"], {"name": "adaptive", "params": {"max_pages": 16}})

    def test_refused_load_changes_nothing(self):
        self.g.json("evict", "load", "fifo")
        with self.assertRaises(gpuctl.Busy):
            with self.g.loaded("evict", "busy"):
                self.fail("the block ran after a refused load")
        self.assertEqual(self.state()["evict"]["name"], "fifo")

    def test_sched_running(self):
        with self.assertRaises(RuntimeError):
            with self.g.sched_running("lc-be", "lc", "comm:llama") as d:
                self.assertEqual(d["policy"], "lc-be")
                self.assertEqual(self.state()["sched"], "lc-be")
                raise RuntimeError("harness failed")
        self.assertNotIn("sched", self.state())
        self.assertEqual(self.log()[0][-1], "--detach")


class Run(Base):
    def test_nothing(self):
        r = self.g.run([sys.executable, "-c", "raise SystemExit(4)"])
        self.assertEqual(r["command_status"], 4)
        self.assertIsNone(r["prefetch"])
        self.assertEqual(self.log()[-1][:3], ["-j", "run", "--"])

    def test_one_document(self):
        rec = os.path.join(self.tmp.name, "r.gtr")
        r = self.g.run(["sh", "-c", "exit 3"], prefetch="populate", params={"distance": 2},
                       stat=True, record=rec, attach_timeout=0.5)
        self.assertEqual(r["command_status"], 3)
        self.assertEqual(r["prefetch"]["policy"], "populate")
        self.assertEqual(r["stat"]["counters"]["gpu_faults"], 9)
        self.assertEqual(r["record"], rec)
        self.assertEqual(r["schema_version"], 2)
        self.assertEqual(self.log()[-1], ["-j", "run", "--prefetch", "populate", "distance", "2",
                                          "--stat", "--record", rec, "--attach-timeout", "500ms",
                                          "--", "sh", "-c", "exit 3"])

    def test_sched_class(self):
        with self.assertRaises(gpuctl.Failed) as c:
            self.g.run(["true"], sched="be")
        self.assertIn("sched run", c.exception.message)
        with self.g.sched_running("lc-be", "lc", "comm:llama"):
            r = self.g.run(["true"], sched="be", stat=True)
        self.assertEqual(r["sched"], {"class": "be", "mechanism": "tsg"})
        self.assertEqual(self.log()[-2][:5], ["-j", "run", "--sched", "be", "--stat"])

    def test_tool_error_raised(self):
        with self.assertRaises(gpuctl.UsageError) as c:
            self.g.run(["true"], prefetch="nope")
        self.assertIn("nope", c.exception.message)

    def test_params_need_a_policy(self):
        with self.assertRaises(ValueError):
            self.g.run(["true"], params={"distance": 2})


class Readers(Base):
    def test_textfile(self):
        text = ('# HELP gpuctl_gpu_info A GPU\n# TYPE gpuctl_gpu_info gauge\n'
                'gpuctl_gpu_info{gpu="0",UUID="GPU-1",name="a \\"b\\""} 1\n'
                'gpuctl_exporter_build_info{version="0.1.0"} 1\nup 0.5\n')
        s = gpuctl.read_textfile(text)
        self.assertEqual(s[0], ("gpuctl_gpu_info", {"gpu": "0", "UUID": "GPU-1", "name": 'a "b"'}, 1.0))
        self.assertEqual(s[2], ("up", {}, 0.5))
        with self.assertRaises(ValueError):
            gpuctl.read_textfile("not a sample {\n")
        self.assertEqual(gpuctl.sample_value(s, "gpuctl_gpu_info", gpu=0), 1.0)
        self.assertIsNone(gpuctl.sample_value(s, "gpuctl_gpu_info", gpu=1))
        self.assertEqual(gpuctl.sample_value(s, "up"), 0.5)

    def test_trace_report(self):
        d = self.g.trace_report("a.gtr", "b.gtr", sort="faults")
        self.assertEqual(d["records"][0]["version"], 2)
        self.assertEqual(self.log()[-1], ["-j", "trace", "report", "-i", "a.gtr", "-i", "b.gtr",
                                          "--sort", "faults"])


if __name__ == "__main__":
    unittest.main()
