"""The grader's own tests (`grade.py selftest`).

  1. unit tests of the pieces, with fake test binaries for crashes, hangs and skips;
  2. the manifest against the test sources (every TEST_CASE has points, every test exists);
  3. the drift check (committed stubs against the lock, and against the stripped solutions
     where they are available);
  4. end to end, with real CMake builds of real Catch2 binaries:
     a. the committed stubs of every exercise score 0, every failure saying "not implemented
        yet"; where there is no GPU, the GPU correctness tests run (and fail) on the CPU
        backend's <exercise>_tests_cpu and the speed tests are pending (every GPU test is
        pending if the build has no CPU backend);
     b. the self-test fixture, graded in batch mode from a folder of submissions: its solution
        scores full marks, its stub 0, and each planted fault (segfault, infinite loop,
        out-of-bounds write, missing barrier, wrong answer, abort, compile error) costs exactly
        the points of its own tests;
     c. the instructor solutions score full marks (needs the solutions: unsealed, or a key);
        without a GPU: full correctness marks on the CPU backend, speed tests pending, and the
        planted faults of exercises/instructor/planted.json (missing barrier, out-of-bounds
        write, infinite loop in a kernel, illegal address, segfault, compile error) each cost
        exactly their own points there too;     d. with --gpu (on a GPU machine): no test is pending, the solutions' speed tests earn
        full points, and the planted GPU faults of exercises/instructor/planted.json (missing
        barrier, out-of-bounds write, infinite loop in a kernel, illegal memory access,
        segfault, compile error) each cost exactly their own points.
"""

import csv
import io
import json
import os
import shutil
import stat
import sys
import tarfile
import tempfile
import textwrap
import time
import unittest
import xml.etree.ElementTree as ET
import zipfile

from . import build as B
from . import reports
from .bundle import (BundleError, Layout, check_lock, check_strip, decrypt, encrypt,
                     make_archive, read_archive)
from .grading import ExerciseResult, TestResult, choose_backend, cpu_twins, grade_tree
from .manifest import ManifestError, Test, load_manifest
from .runner import Outcome, classify, failure_reason, list_test_names, performance_points, run_test
from .strip import StripError, strip_solution

TOOLS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROOT = os.path.dirname(os.path.dirname(TOOLS))
SELFTEST = os.path.join(TOOLS, "selftest")


def log(message):
    print(message, file=sys.stderr, flush=True)


# =============================================================================================
# 1. Unit tests
# =============================================================================================

class StripTests(unittest.TestCase):
    def test_regions_and_stub_lines(self):
        src = textwrap.dedent("""\
            int f(int x) {
              // BEGIN SOLUTION
              return x + 1;
              // END SOLUTION
              // STUB: return todo<int>("f", x);
            }
            # STUB:
            keep   \r
            """)
        self.assertEqual(strip_solution(src), textwrap.dedent("""\
            int f(int x) {
              return todo<int>("f", x);
            }

            keep   \r
            """))

    def test_errors(self):
        bad = {"// BEGIN SOLUTION\n": "never closed",
               "// END SOLUTION\n": "without BEGIN",
               "// BEGIN SOLUTION\n// BEGIN SOLUTION\n// END SOLUTION\n": "do not nest",
               "// BEGIN SOLUTION\n// STUB: x\n// END SOLUTION\n": "inside the solution region",
               "int x;  // END SOLUTION\n": "stand alone",
               "int x;\n": "no BEGIN SOLUTION"}
        for text, message in bad.items():
            with self.assertRaises(StripError) as cm:
                strip_solution(text, "f.cu")
            self.assertIn(message, str(cm.exception))

    def test_idempotent_on_real_fixture(self):
        with open(os.path.join(SELFTEST, "fixture_solution", "fixture.hpp")) as f:
            stub = strip_solution(f.read())
        self.assertNotIn("SOLUTION", stub)
        self.assertIn('exercise::todo<int>("selftest_fixture: add", a, b);', stub)


def _test(name="t", points=4.0, gpu=False, performance=False, timeout=5.0):
    return Test("ex", name, points, gpu, performance, timeout, 0.8, 0.3)


class PointsTests(unittest.TestCase):
    def test_linear_between_thresholds(self):
        t = _test(points=6, performance=True)
        self.assertEqual(performance_points(t, 0.8), 6)
        self.assertEqual(performance_points(t, 1.7), 6)
        self.assertEqual(performance_points(t, 0.3), 0)
        self.assertEqual(performance_points(t, 0.1), 0)
        self.assertAlmostEqual(performance_points(t, 0.55), 3.0)
        self.assertEqual(performance_points(t, float("nan")), 0)


CATCH_FAILURE = """\
-------------------------------------------------------------------------------
02a correct
-------------------------------------------------------------------------------
tests.cu:25
...............................................................................

tests.cu:27: FAILED:
  REQUIRE( r.ok() )
with expansion:
  false
with message:
  ex02a::tiled_gemm<16> at M=16 N=16 K=16: 3 mismatches, first at (0, 1)

===============================================================================
"""


class ClassifyTests(unittest.TestCase):
    def test_reasons(self):
        self.assertEqual(failure_reason(CATCH_FAILURE),
                         "ex02a::tiled_gemm<16> at M=16 N=16 K=16: 3 mismatches, first at (0, 1)")
        wrapped = "FAILED:\ndue to unexpected exception with message:\n  not implemented yet: " \
                  "02a_tiled: write tiled_gemm, then\n  delete this line\n"
        self.assertEqual(failure_reason(wrapped),
                         "not implemented yet: 02a_tiled: write tiled_gemm, then delete this line")

    def test_exit_codes(self):
        host, gpu = _test(), _test(gpu=True)
        self.assertEqual(classify(host, 0, "", 0.1, 5).status, "passed")
        self.assertEqual(classify(host, 0, "", 0.1, 5).score, 4)
        self.assertEqual(classify(gpu, 77, "SKIPPED: no CUDA device found (x)", 0, 5).status,
                         "pending")
        self.assertEqual(classify(host, 77, "", 0, 5).status, "failed")  # a host test can't skip
        real = classify(_test(gpu=True, performance=True), 77,
                        "SKIPPED: needs a real GPU, not the CPU backend", 0, 5)
        self.assertEqual((real.status, real.score), ("pending", 0))
        self.assertIn("needs a real GPU", real.reason)
        self.assertIn("SIGSEGV", classify(host, -11, "", 0, 5).reason)
        self.assertIn("timed out", classify(host, None, "", 5, 5).reason)
        self.assertEqual(classify(host, 0, "No test cases matched 't'", 0, 5).status, "failed")
        perf = _test(points=6, gpu=True, performance=True)
        o = classify(perf, 0, "GRADE_RATIO 9\nGRADE_RATIO 0.55\n", 1, 5)  # the last line counts
        self.assertEqual((o.status, o.score, o.ratio), ("passed", 3.0, 0.55))
        self.assertEqual(classify(perf, 0, "no ratio", 1, 5).status, "failed")
        self.assertEqual(classify(perf, 1, "GRADE_RATIO 1.0", 1, 5).score, 0)  # wrong: nothing


FAKE_BINARY = r'''#!/usr/bin/env python3
# A stand-in for a Catch2 test binary: lists its test cases and runs one by name.
import os, signal, subprocess, sys, time
names = ["pass", "fail", "gpu skip", "segfault", "abort", "hang", "hang with child", "ratio",
         "illegal address"]
if sys.argv[1:] == ["--list-test-names-only"]:
    print("\n".join(names)); sys.exit(len(names))
name = sys.argv[1]
if name == "pass": sys.exit(0)
if name == "fail":
    print("x.cu:1: FAILED:\n  CHECK( 1 == 2 )\nwith message:\n  one is not two"); sys.exit(1)
if name == "gpu skip":
    print("warning:\n  SKIPPED: no CUDA device found (cudaErrorNoDevice)"); sys.exit(77)
if name == "segfault": os.kill(os.getpid(), signal.SIGSEGV)
if name == "abort": os.abort()
if name == "hang":
    while True: time.sleep(1)
if name == "hang with child":
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    open(sys.argv[0] + ".child", "w").write(str(child.pid)); time.sleep(600)
if name == "ratio": print("GRADE_RATIO 0.8"); sys.exit(0)
if name == "illegal address":
    print("x.cu:3: FAILED:\ndue to unexpected exception with message:\n"
          "  CUDA error: an illegal memory access was encountered"); sys.exit(1)
print("No test cases matched '%s'" % name); sys.exit(0)
'''


class RunnerTests(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="fake-catch-")
        self.binary = os.path.join(self.dir, "fake_tests")
        with open(self.binary, "w") as f:
            f.write(FAKE_BINARY)
        os.chmod(self.binary, os.stat(self.binary).st_mode | stat.S_IEXEC)

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def run_named(self, name, **kw):
        return run_test(self.binary, _test(name, timeout=kw.pop("timeout", 3.0), **kw))

    def test_listing(self):
        self.assertIn("hang with child", list_test_names(self.binary))

    def test_each_fault_costs_its_test_only(self):
        self.assertEqual(self.run_named("pass").score, 4)
        fail = self.run_named("fail")
        self.assertEqual((fail.status, fail.reason), ("failed", "one is not two"))
        self.assertEqual(self.run_named("gpu skip", gpu=True).status, "pending")
        self.assertIn("SIGSEGV", self.run_named("segfault").reason)
        self.assertIn("SIGABRT", self.run_named("abort").reason)
        self.assertIn("illegal memory access", self.run_named("illegal address").reason)
        self.assertEqual(self.run_named("ratio", performance=True).score, 4)
        self.assertEqual(self.run_named("pass").score, 4)  # and the next one runs normally

    def test_timeout_kills_the_process_group(self):
        start = time.monotonic()
        o = self.run_named("hang with child", timeout=1.5)
        self.assertLess(time.monotonic() - start, 10)
        self.assertEqual(o.status, "failed")
        self.assertIn("timed out after 1.5 s", o.reason)
        with open(self.binary + ".child") as f:
            child = int(f.read())
        time.sleep(0.2)
        try:
            os.kill(child, 0)
            with open(f"/proc/{child}/stat") as f:  # a zombie is dead too
                alive = f.read().split()[2] != "Z"
        except (ProcessLookupError, FileNotFoundError):
            alive = False
        self.assertFalse(alive, "the hanging test's child process survived the timeout")


FAKE_TWIN_BINARY = r'''#!/usr/bin/env python3
# A stand-in for an exercise's test binaries on a machine without a GPU: <ex>_tests (built for
# the GPU: its GPU tests skip) and <ex>_tests_cpu (the CPU backend: they run, speed skips).
import os, signal, sys
cpu = os.path.basename(sys.argv[0]).endswith("_cpu")
names = ["host", "gpu ok", "gpu crash", "gpu wrong", "speed", "speed that does not skip"]
if sys.argv[1:] == ["--list-test-names-only"]:
    print("\n".join(names)); sys.exit(len(names))
name = sys.argv[1]
if name == "host": sys.exit(0)
if not cpu:
    print("warning:\n  SKIPPED: no CUDA device found (cudaErrorNoDevice)"); sys.exit(77)
if name == "gpu ok": sys.exit(0)
if name == "gpu crash": os.kill(os.getpid(), signal.SIGSEGV)
if name == "gpu wrong":
    print("x.cu:1: FAILED:\nwith message:\n  3 mismatches"); sys.exit(1)
if name == "speed":
    print("warning:\n  SKIPPED: needs a real GPU, not the CPU backend"); sys.exit(77)
if name == "speed that does not skip": print("GRADE_RATIO 1.0"); sys.exit(0)
'''


class CpuBackendTests(unittest.TestCase):
    """Without a GPU the GPU tests run in the CPU twin: correctness counts, speed is pending."""

    def setUp(self):
        from .manifest import Exercise
        self.dir = tempfile.mkdtemp(prefix="fake-build-")
        os.makedirs(os.path.join(self.dir, "bin"))
        for name in ("ex_tests", "ex_tests_cpu"):
            path = os.path.join(self.dir, "bin", name)
            with open(path, "w") as f:
                f.write(FAKE_TWIN_BINARY)
            os.chmod(path, os.stat(path).st_mode | stat.S_IEXEC)
        self.cache("ex_tests_cpu")
        self.tests = [_test("host", 1), _test("gpu ok", 2, gpu=True),
                      _test("gpu crash", 4, gpu=True), _test("gpu wrong", 8, gpu=True),
                      _test("speed", 16, gpu=True, performance=True),
                      _test("speed that does not skip", 32, gpu=True, performance=True)]
        self.exercise = Exercise("ex", "01_naive", "exercises/ex", ["ex.cuh"], self.tests)

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def cache(self, twins):
        with open(os.path.join(self.dir, "CMakeCache.txt"), "w") as f:
            f.write(f"EXERCISES_CPU_TWINS:INTERNAL={twins}\n")

    def grade(self, backend):
        [er] = grade_tree(self.dir, [self.exercise], build=False, progress=False,
                          log=lambda m: None, backend=backend)
        return er, {r.test.name: r for r in er.results}

    def test_cpu_backend_scores_correctness_and_leaves_speed_pending(self):
        er, r = self.grade("cpu")
        self.assertEqual((er.score, er.max_score, er.pending_points), (3, 15, 48))
        self.assertFalse(r["host"].on_cpu)  # host tests stay in <ex>_tests
        self.assertTrue(all(r[n].on_cpu for n in r if n != "host"))
        self.assertEqual(r["gpu ok"].outcome.status, "passed")
        self.assertIn("SIGSEGV", r["gpu crash"].outcome.reason)
        self.assertEqual(r["gpu wrong"].outcome.reason, "3 mismatches")
        self.assertEqual(r["speed"].outcome.status, "pending")
        self.assertIn("real GPU", r["speed"].outcome.reason)
        never_timed = r["speed that does not skip"].outcome
        self.assertEqual((never_timed.status, never_timed.score, never_timed.ratio),
                         ("pending", 0, None))
        self.assertIn("REQUIRE_REAL_GPU", never_timed.reason)
        self.assertIn("CPU backend", reports.console([er]))
        self.assertIn("CPU backend", json.dumps(reports.gradescope([er])))

    def test_gpu_build_without_a_gpu_leaves_gpu_tests_pending(self):
        er, r = self.grade("gpu")
        self.assertEqual((er.score, er.max_score), (1, 1))
        self.assertTrue(all(r[n].outcome.status == "pending" for n in r if n != "host"))
        self.assertFalse(any(x.on_cpu for x in r.values()))

    def test_a_twin_that_does_not_build_fails_correctness_not_speed(self):
        os.remove(os.path.join(self.dir, "bin", "ex_tests_cpu"))
        er, r = self.grade("cpu")
        self.assertEqual((er.score, er.max_score, er.pending_points), (1, 15, 48))
        self.assertEqual(r["gpu ok"].outcome.status, "failed")
        self.assertEqual(r["speed"].outcome.status, "pending")

    def test_choice_of_backend(self):
        self.assertEqual(cpu_twins(self.dir), {"ex_tests_cpu"})
        self.assertEqual(choose_backend(self.dir, "gpu"), ("gpu", set()))
        self.assertEqual(choose_backend(self.dir, "cpu"), ("cpu", {"ex_tests_cpu"}))
        self.cache("")
        self.assertEqual(choose_backend(self.dir, "auto"), ("gpu", set()))
        with self.assertRaises(B.BuildError):
            choose_backend(self.dir, "cpu")


def _fake_results():
    tests = [_test("a", 2), _test("b", 3, gpu=True), _test("c", 6, gpu=True, performance=True)]
    from .manifest import Exercise
    ex = Exercise("ex", "01_naive", "exercises/ex", ["ex.cuh"], tests)
    er = ExerciseResult(ex, [TestResult(tests[0], Outcome("passed", 2, "", "out")),
                             TestResult(tests[1], Outcome("pending", 0, "pending: no GPU", "")),
                             TestResult(tests[2], Outcome("passed", 3.0, "0.55x", "GRADE_RATIO 0.55",
                                                          1.0, 0.55))])
    return [er]


class ReportTests(unittest.TestCase):
    def test_console_ends_with_score(self):
        text = reports.console(_fake_results())
        self.assertTrue(text.rstrip().splitlines()[-1] == "Score: 5/8", text)
        self.assertIn("Pending", text)

    def test_gradescope_schema(self):
        data = reports.gradescope(_fake_results())
        self.assertEqual(data["score"], 5)
        for t in data["tests"]:
            self.assertEqual(set(t), {"name", "score", "max_score", "status", "output",
                                      "visibility"})
            self.assertIn(t["status"], ("passed", "failed"))
            self.assertIn(t["visibility"], ("visible", "hidden", "after_due_date",
                                            "after_published"))
        pending = [t for t in data["tests"] if "pending" in t["name"]]
        self.assertEqual((len(pending), pending[0]["max_score"]), (1, 0))
        json.dumps(data)

    def test_junit_parses(self):
        root = ET.fromstring(reports.junit(_fake_results()).split("?>", 1)[1])
        suite = root.find("testsuite")
        self.assertEqual((suite.get("tests"), suite.get("skipped"), suite.get("failures")),
                         ("3", "1", "0"))

    def test_roster(self):
        path = os.path.join(tempfile.mkdtemp(), "roster.csv")
        reports.roster([("ann", _fake_results(), ""), ("bob", None, "cannot grade")], ["ex"],
                       path)
        with open(path) as f:
            rows = list(csv.reader(f))
        self.assertEqual(rows[0][:4], ["student", "score", "max", "ex"])
        self.assertEqual(rows[1][:4], ["ann", "5", "8", "5"])
        self.assertEqual(rows[2][0], "bob")


class ManifestTests(unittest.TestCase):
    def test_bad_names_are_refused(self):
        for bad in ("a,b", "x [gpu]", "star*", " lead", "exclude:x"):
            path = os.path.join(tempfile.mkdtemp(), "m.json")
            with open(path, "w") as f:
                json.dump({"exercises": [{"name": "e", "files": ["f"],
                                          "tests": [{"name": bad, "points": 1}]}]}, f)
            with self.assertRaises(ManifestError):
                load_manifest(path)

    def test_manifest_matches_the_test_sources(self):
        for manifest_path in (os.path.join(ROOT, "exercises", "manifest.json"),
                              os.path.join(SELFTEST, "manifest.json")):
            manifest = load_manifest(manifest_path)
            for e in manifest.exercises:
                folder = os.path.join(ROOT, e.dir)
                for f in e.files:
                    self.assertTrue(os.path.isfile(os.path.join(folder, f)), f"{e.dir}/{f}")
                source = ""
                for name in ("tests.cu", "tests.cpp"):
                    if os.path.isfile(os.path.join(folder, name)):
                        with open(os.path.join(folder, name)) as fh:
                            source += fh.read()
                import re
                found = re.findall(r'TEST_CASE\("([^"]+)"(?:,\s*"([^"]*)")?\)', source)
                in_source = {n: "[gpu]" in tags for n, tags in found}
                in_manifest = {t.name: t.gpu for t in e.tests}
                self.assertEqual(set(in_source), set(in_manifest),
                                 f"{e.name}: test cases without points, or points without tests")
                for n, gpu in in_source.items():
                    self.assertEqual(gpu, in_manifest[n], f"{e.name}: {n!r}: [gpu] tag vs manifest")
                # A GPU test starts with REQUIRE_GPU(); a speed test with REQUIRE_REAL_GPU(), so
                # that it skips on the CPU backend (never timed there: pending).
                first = dict(re.findall(r'TEST_CASE\("([^"]+)"[^)]*\)\s*\{\s*(\w+)\(', source))
                for t in e.tests:
                    if t.performance:
                        self.assertEqual(first.get(t.name), "REQUIRE_REAL_GPU",
                                         f"{e.name}: {t.name!r}: a speed test must start with "
                                         f"REQUIRE_REAL_GPU()")
                    elif t.gpu:
                        self.assertIn(first.get(t.name), ("REQUIRE_GPU", "REQUIRE_REAL_GPU"),
                                      f"{e.name}: {t.name!r}: a GPU test must start with "
                                      f"REQUIRE_GPU()")


class ReadmeTests(unittest.TestCase):
    def test_points_tables_are_current(self):
        manifest = load_manifest(os.path.join(ROOT, "exercises", "manifest.json"))
        for e in manifest.exercises:
            path = os.path.join(ROOT, e.dir, "README.md")
            self.assertTrue(os.path.isfile(path), f"{e.name} has no README.md")
            with open(path, encoding="utf-8") as f:
                text = f.read()
            new = reports.readme_with_points(text, e)
            self.assertIsNotNone(new, f"{path}: no generated points markers")
            self.assertEqual(new, text, f"{path}: stale points table: run `grade.py readme`")
        with open(os.path.join(ROOT, "exercises", "README.md"), encoding="utf-8") as f:
            text = f.read()
        new = reports.replace_between(text, reports.BEGIN_OVERVIEW, reports.END_OVERVIEW,
                                      reports.overview_table(manifest))
        self.assertEqual(new, text, "exercises/README.md: stale table: run `grade.py readme`")


class TreeTests(unittest.TestCase):
    def test_sync_keeps_unchanged_timestamps(self):
        src, dst = tempfile.mkdtemp(), tempfile.mkdtemp()
        for name, text in (("a.txt", "a"), ("d/b.txt", "b")):
            os.makedirs(os.path.dirname(os.path.join(src, name)), exist_ok=True)
            with open(os.path.join(src, name), "w") as f:
                f.write(text)
        with open(os.path.join(dst, "stale.txt"), "w") as f:
            f.write("x")
        B.sync_tree(src, dst, ["a.txt", "d/b.txt"])
        self.assertFalse(os.path.exists(os.path.join(dst, "stale.txt")))
        before = os.stat(os.path.join(dst, "a.txt")).st_mtime_ns
        time.sleep(0.01)
        self.assertEqual(B.sync_tree(src, dst, ["a.txt", "d/b.txt"]), 0)
        self.assertEqual(os.stat(os.path.join(dst, "a.txt")).st_mtime_ns, before)
        # An overlay already in place is not rewritten (so its targets are not rebuilt).
        self.assertEqual(B.sync_tree(src, dst, ["a.txt", "d/b.txt"], overlays={"a.txt": b"o"}), 1)
        before = os.stat(os.path.join(dst, "a.txt")).st_mtime_ns
        time.sleep(0.01)
        self.assertEqual(B.sync_tree(src, dst, ["a.txt", "d/b.txt"], overlays={"a.txt": b"o"}), 0)
        self.assertEqual(os.stat(os.path.join(dst, "a.txt")).st_mtime_ns, before)


class BundleTests(unittest.TestCase):
    def test_archive_is_deterministic_and_safe(self):
        d = tempfile.mkdtemp()
        os.makedirs(os.path.join(d, "solutions", "x"))
        with open(os.path.join(d, "solutions", "x", "f.cu"), "w") as f:
            f.write("int x;\n")
        a1 = make_archive(d, ["solutions/x/f.cu"])
        os.utime(os.path.join(d, "solutions", "x", "f.cu"), (1, 1))
        self.assertEqual(a1, make_archive(d, ["solutions/x/f.cu"]))
        self.assertEqual(read_archive(a1), {os.path.join("solutions", "x", "f.cu"): b"int x;\n"})
        evil = io.BytesIO()
        with tarfile.open(fileobj=evil, mode="w:gz") as tar:
            info = tarfile.TarInfo("../escape")
            info.size = 1
            tar.addfile(info, io.BytesIO(b"x"))
        with self.assertRaises(BundleError):
            read_archive(evil.getvalue())

    @unittest.skipUnless(shutil.which("gpg"), "gpg is not installed")
    def test_encryption_round_trip(self):
        secret = encrypt(b"solutions", "correct horse battery staple")
        self.assertNotIn(b"solutions", secret)
        self.assertEqual(decrypt(secret, "correct horse battery staple"), b"solutions")
        with self.assertRaises(BundleError):
            decrypt(secret, "wrong horse battery staple!!")


def run_unit_tests():
    suite = unittest.TestSuite()
    for case in (StripTests, PointsTests, ClassifyTests, RunnerTests, CpuBackendTests,
                 ReportTests, ManifestTests, ReadmeTests, TreeTests, BundleTests):
        suite.addTests(unittest.defaultTestLoader.loadTestsFromTestCase(case))
    stream = io.StringIO()
    result = unittest.TextTestRunner(stream=stream, verbosity=1).run(suite)
    return result, stream.getvalue()


# =============================================================================================
# 4. End to end
# =============================================================================================

class Checks:
    def __init__(self):
        self.failed = []
        self.passed = 0

    def check(self, ok, what, detail=""):
        if ok:
            self.passed += 1
            print(f"  ok    {what}", flush=True)
        else:
            self.failed.append(what)
            print(f"  FAIL  {what}" + (f"\n        {detail}" if detail else ""), flush=True)
        return ok


def by_name(results):
    return {(er.exercise.name, r.test.name): r for er in results for r in er.results}


def backend_of(results):
    """"cpu" if the GPU tests ran on the CPU backend, else "gpu" (or pending without one)."""
    return "cpu" if any(r.on_cpu for er in results for r in er.results) else "gpu"


def cpu_backend_expected(checks, build_dir, label):
    """Whether a build on this machine (no GPU) runs the GPU tests on the CPU backend: it does
    when the build has CPU twins. With -DTUTORIAL_CPU_BACKEND=ON it must have them; with AUTO
    and no Boost.Context it has none, and every GPU test is pending (a note, not a failure)."""
    twins = cpu_twins(build_dir) or set()
    if B.cache_value(build_dir, "TUTORIAL_CPU_BACKEND") == "ON":
        checks.check(bool(twins), f"{label}: -DTUTORIAL_CPU_BACKEND=ON builds the CPU twins")
    if not twins:
        print(f"  note  {label}: no CPU backend in this build (Boost.Context missing? `make "
              f"deps`): the GPU tests are pending, not run on the CPU", flush=True)
    return bool(twins)


def check_stubs_score_zero(checks, results, gpu, label, expect_cpu=False):
    score, _, pending, pending_tests = reports.totals(results)
    checks.check(score == 0, f"{label}: the stubs score 0", f"score {score}")
    silent = [f"{er.exercise.name}: {r.test.name}: {r.outcome.reason}" for er in results
              for r in er.results if r.outcome.status == "failed"
              and "not implemented yet" not in r.outcome.reason]
    checks.check(not silent, f"{label}: every stub failure says 'not implemented yet' (no crash, "
                 "no hang)", "; ".join(silent[:5]))
    gpu_tests = [r for er in results for r in er.results if r.test.gpu]
    if gpu:
        checks.check(pending_tests == 0, f"{label}: no test is pending on a GPU machine")
    elif expect_cpu:
        correctness = [r for r in gpu_tests if not r.test.performance]
        speed = [r for r in gpu_tests if r.test.performance]
        wrong = [f"{r.test.name}: {r.outcome.status}" for r in correctness
                 if not (r.on_cpu and r.outcome.status == "failed")]
        checks.check(not wrong, f"{label}: all {len(correctness)} GPU correctness tests ran on "
                     f"the CPU backend and failed", "; ".join(wrong[:5]))
        wrong = [f"{r.test.name}: {r.outcome.status} {r.outcome.reason}" for r in speed
                 if not (r.on_cpu and r.outcome.status == "pending"
                         and "real GPU" in r.outcome.reason)]
        checks.check(not wrong, f"{label}: all {len(speed)} speed tests are pending on the CPU "
                     f"backend (skipped: needs a real GPU), not 0", "; ".join(wrong[:5]))
    else:
        checks.check(all(r.outcome.status == "pending" for r in gpu_tests),
                     f"{label}: all {len(gpu_tests)} GPU tests are pending without a GPU")


def check_full_marks(checks, results, gpu, label, expect_cpu=False):
    short = [f"{er.exercise.name}: {r.test.name}: {reports.fmt(r.outcome.score)}/"
             f"{reports.fmt(r.max_score)} {r.outcome.reason}" for er in results
             for r in er.results if r.outcome.status != "pending" and r.outcome.score < r.max_score]
    score, max_score, pending, pending_tests = reports.totals(results)
    checks.check(not short, f"{label}: full marks ({reports.fmt(score)}/{reports.fmt(max_score)}"
                 + (f", {pending_tests} GPU tests pending" if pending_tests else "") + ")",
                 "; ".join(short[:8]))
    if gpu:
        checks.check(pending_tests == 0, f"{label}: nothing pending on a GPU machine")
    elif expect_cpu:
        gpu_tests = [r for er in results for r in er.results if r.test.gpu]
        wrong = [f"{r.test.name}: {r.outcome.status}" for r in gpu_tests
                 if not r.on_cpu or (r.outcome.status == "pending") != r.test.performance]
        checks.check(not wrong, f"{label}: on the CPU backend every GPU correctness test counts "
                     f"({sum(1 for r in gpu_tests if not r.test.performance)}) and every speed "
                     f"test is pending ({sum(1 for r in gpu_tests if r.test.performance)})",
                     "; ".join(wrong[:5]))


def patched(text, fault):
    if text.count(fault["replace"]) != 1:
        raise BundleError(f"planted fault {fault['name']!r}: its text occurs "
                          f"{text.count(fault['replace'])} times in {fault['file']}, not once")
    return text.replace(fault["replace"], fault["with"])


def check_planted(checks, fault, results, baseline, label):
    """The fault must cost its must_fail tests and nothing else."""
    must = fault.get("must_fail", [])
    may = fault.get("may_fail", [])
    base = by_name(baseline)
    problems = []
    for er in results:
        if er.exercise.name != fault["exercise"]:
            continue
        for r in er.results:
            key = (er.exercise.name, r.test.name)
            ref = base[key].outcome
            if ref.status == "pending":
                if r.outcome.status != "pending":
                    problems.append(f"{r.test.name}: {r.outcome.status}, expected pending")
                continue
            if must == "*" or r.test.name in must:
                if r.outcome.score != 0:
                    problems.append(f"{r.test.name}: scored {r.outcome.score}, expected 0")
                elif fault.get("reason_contains", "") not in r.outcome.reason:
                    problems.append(f"{r.test.name}: failed with {r.outcome.reason!r}, expected "
                                    f"{fault['reason_contains']!r} in the reason")
            elif r.test.name in may:
                continue
            elif r.test.performance:
                if r.outcome.score <= 0:
                    problems.append(f"{r.test.name}: speed test lost its points "
                                    f"({r.outcome.reason})")
            elif r.outcome.score != ref.score:
                problems.append(f"{r.test.name}: {r.outcome.score}/{r.max_score} "
                                f"({r.outcome.reason}), the solution got {ref.score}")
    if must == "*":
        er = next(e for e in results if e.exercise.name == fault["exercise"])
        messages = "\n".join(er.build_errors.values())
        if "error" not in messages:
            problems.append("no compiler message was reported")
    checks.check(not problems, f"{label}: planted {fault['name']!r} costs exactly its own points",
                 "; ".join(problems[:6]))


def fixture_end_to_end(checks, scratch, jobs, gpu, layout, base_overlays=None):
    """Batch mode on a folder of fixture submissions."""
    from .cli import cmd_batch
    manifest_path = os.path.join(SELFTEST, "manifest.json")
    manifest = load_manifest(manifest_path)
    exercise = manifest.exercises[0]
    with open(os.path.join(SELFTEST, "fixture_solution", "fixture.hpp")) as f:
        solution = f.read()
    with open(os.path.join(SELFTEST, "planted.json")) as f:
        faults = json.load(f)["faults"]
    subs = tempfile.mkdtemp(prefix="fixture-submissions-")
    out = os.path.join(scratch, "fixture-grades")
    shutil.rmtree(out, ignore_errors=True)

    def put(student, text, how="flat"):
        if how == "flat":  # a flat upload: just the file
            path = os.path.join(subs, student, "fixture.hpp")
        else:              # the repository's layout
            path = os.path.join(subs, student, exercise.dir, "fixture.hpp")
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)

    put("00_solution", solution, how="tree")
    os.makedirs(os.path.join(subs, "01_stub_nothing_submitted"))
    for i, fault in enumerate(faults):
        put(f"{i + 2:02d}_{fault['name'].replace(' ', '_')}", patched(solution, fault))
    # One submission as a .tar.gz and one as a .zip: archives are unpacked safely.
    tar_path = os.path.join(subs, "10_solution_tar.tar.gz")
    with tarfile.open(tar_path, "w:gz") as tar:
        tar.add(os.path.join(subs, "00_solution", exercise.dir, "fixture.hpp"),
                arcname="work/fixture.hpp")
    with zipfile.ZipFile(os.path.join(subs, "11_solution_zip.zip"), "w") as z:
        z.writestr("fixture.hpp", solution)

    class Args:
        pass
    args = Args()
    args.manifest, args.exercise, args.jobs, args.hidden = manifest_path, None, jobs, False
    args.cmake_flag, args.work, args.quiet, args.verbose = [], scratch, True, False
    args.submissions, args.out = subs, out
    start = time.monotonic()
    # The same configuration as the instructor scratch tree (hidden tests built in when they
    # are unsealed), so that the whole self-test shares one build.
    hidden = layout.hidden if os.path.isfile(os.path.join(layout.hidden, "manifest.json")) else None
    cmd_batch(args, selftest=True, hidden_build_dir=hidden, base_overlays=base_overlays)
    log(f"fixture batch: {time.monotonic() - start:.0f} s")

    graded = {}
    for student in sorted(os.listdir(out)):
        path = os.path.join(out, student, "results.json")
        if os.path.isfile(path):
            with open(path) as f:
                graded[student] = json.load(f)
    with open(os.path.join(out, "roster.csv")) as f:
        roster = list(csv.DictReader(f))
    checks.check(len(roster) == len(faults) + 4 and len(graded) == len(faults) + 4,
                 f"fixture batch: {len(roster)} students in roster.csv, each with results.json")
    for student in graded:
        ET.parse(os.path.join(out, student, "results.xml"))
    checks.check(True, "fixture batch: every results.xml parses as XML")

    def points(student):
        return {t["name"].split(": ", 1)[1].split(" [pending")[0]: (t["score"], t["max_score"],
                                                                     t["output"])
                for t in graded[student]["tests"]}

    host_max = sum(t.points for t in exercise.tests if not t.gpu or gpu)
    missing = sorted({"00_solution", "01_stub_nothing_submitted"} - set(graded))
    if missing:
        checks.check(False, f"fixture batch: no results for {', '.join(missing)}")
        return
    for student in ("00_solution", "10_solution_tar", "11_solution_zip"):
        checks.check(graded.get(student, {}).get("score") == host_max,
                     f"fixture: {student} scores full marks ({graded[student]['score']}/{host_max})")
    gpu_entry = points("00_solution")["fixture on the GPU"]
    if gpu:
        checks.check(gpu_entry[0] == 7, "fixture: the GPU test passes on a GPU machine")
    else:
        checks.check(gpu_entry[1] == 0 and "PENDING" in gpu_entry[2],
                     "fixture: the GPU test is reported as pending (0 of 0 points), not as 0 of 7")
    stub = graded["01_stub_nothing_submitted"]
    checks.check(stub["score"] == 0 and all(
        "not implemented yet" in t["output"] for t in stub["tests"]
        if not t["name"].endswith("[pending: not graded, no GPU]")),
        "fixture: the stub scores 0, every test saying 'not implemented yet'")
    row = {r["student"]: r for r in roster}
    checks.check(row["01_stub_nothing_submitted"]["notes"].endswith("not submitted"),
                 "fixture: roster.csv notes the missing submission")

    solution_points = points("00_solution")
    for i, fault in enumerate(faults):
        student = f"{i + 2:02d}_{fault['name'].replace(' ', '_')}"
        if student not in graded:
            checks.check(False, f"fixture: planted {fault['name']!r}: no results")
            continue
        got = points(student)
        must = fault["must_fail"]
        problems = []
        for name, (score, max_score, output) in got.items():
            expect = 0 if (must == "*" or name in must) and max_score else solution_points[name][0]
            if score != expect:
                problems.append(f"{name}: {score}, expected {expect}")
        if must == "*":
            if not any("error" in o for _, _, o in got.values()):
                problems.append("no compiler message in the results")
        expected_loss = sum(t.points for t in exercise.tests
                            if (must == "*" or t.name in must) and (not t.gpu or gpu))
        loss = graded["00_solution"]["score"] - graded[student]["score"]
        checks.check(not problems and loss == expected_loss,
                     f"fixture: planted {fault['name']!r} costs exactly its {expected_loss} "
                     f"point(s)", "; ".join(problems))
    def output_of(fault_name, test):
        student = f"{[f['name'] for f in faults].index(fault_name) + 2:02d}_" + \
            fault_name.replace(" ", "_")
        return points(student)[test][2] if student in graded else ""
    checks.check("timed out" in output_of("infinite loop", "fixture sum_to"),
                 "fixture: the infinite loop is reported as a timeout")
    checks.check("SIGSEGV" in output_of("segfault", "fixture max_of"),
                 "fixture: the segfault is reported as SIGSEGV")
    shutil.rmtree(subs, ignore_errors=True)


def main(args):
    checks = Checks()
    gpu = bool(args.gpu)
    layout = Layout(ROOT)
    manifest = load_manifest(os.path.join(ROOT, "exercises", "manifest.json"))

    print("1-2. unit tests of the grader, manifest against the test sources", flush=True)
    result, text = run_unit_tests()
    checks.check(result.wasSuccessful(), f"{result.testsRun} unit tests",
                 text[-4000:] if not result.wasSuccessful() else "")

    print("3. drift: committed stubs against the sealed solutions", flush=True)
    problems = check_lock(layout, manifest)
    checks.check(not problems, "key-less check: every stub and the bundle match the lock",
                 "; ".join(problems[:5]))
    with open(os.path.join(SELFTEST, "fixture_solution", "fixture.hpp")) as f:
        fixture_stub = strip_solution(f.read())
    with open(os.path.join(SELFTEST, "fixture", "fixture.hpp")) as f:
        checks.check(f.read() == fixture_stub, "fixture: strip(solution) == committed stub")
    solutions = False
    try:
        from .cli import ensure_solutions
        ensure_solutions(layout, args.key_file)
        solutions = True
    except BundleError as e:
        print(f"  skip  full drift check and solution grading: {e}", flush=True)
    if solutions:
        problems = check_strip(layout, manifest)
        checks.check(not problems, "full check: strip(solution) == committed stub, byte for byte",
                     "\n".join(problems[:3]))

    if not args.skip_build_tests:
        from .cli import instructor_scratch, solution_overlays
        print("4a. the committed stubs, graded in the work tree", flush=True)
        build_dir = os.path.join(ROOT, "build")
        B.ensure_configured(ROOT, build_dir, [], {}, log=log)
        stub_results = grade_tree(build_dir, manifest.exercises, jobs=args.jobs, log=log,
                                  progress=False)
        expect_cpu = not gpu and cpu_backend_expected(checks, build_dir, "work tree")
        check_stubs_score_zero(checks, stub_results, gpu, "work tree", expect_cpu)

        print("4b. batch mode on the self-test fixture (solution, stub, planted faults)",
              flush=True)
        work = os.path.abspath(args.work or os.path.join(ROOT, "build", "grade-work",
                                                         "instructor"))
        # The fixture is graded in the scratch tree of the solutions, with the solutions in
        # place, so that 4c (and a later `grade.py --solutions`) rebuilds nothing.
        fixture_end_to_end(checks, work, args.jobs, gpu, layout,
                           solution_overlays(layout, manifest.exercises) if solutions else None)

        if solutions:
            print("4c. the instructor solutions", flush=True)
            hidden_json = os.path.join(layout.hidden, "manifest.json")
            if os.path.isfile(hidden_json):  # the hidden tests are graded too
                manifest = load_manifest(manifest.path, hidden_json)
                checks.check(any(t.hidden for e in manifest.exercises for t in e.tests),
                             "the hidden tests' manifest adds tests")
            scratch = instructor_scratch(layout, work)
            overlays = solution_overlays(layout, manifest.exercises)
            scratch.checkout(overlays)
            solution_results = grade_tree(scratch.build, manifest.exercises, jobs=args.jobs,
                                          log=log, progress=gpu)
            hidden_ran = [r for er in solution_results for r in er.results if r.test.hidden
                          and r.outcome.status != "failed"]
            checks.check(bool(hidden_ran) or not os.path.isfile(hidden_json),
                         f"hidden tests built into <exercise>_hidden and run "
                         f"({len(hidden_ran)} of them)")
            on_cpu = not gpu and cpu_backend_expected(checks, scratch.build, "scratch tree")
            check_full_marks(checks, solution_results, gpu, "solutions", on_cpu)
            if gpu or on_cpu:
                where = "on the CPU backend" if on_cpu else "on the GPU"
                print(f"4d. planted faults {where}", flush=True)
                with open(layout.planted) as f:
                    faults = json.load(f)["faults"]
                twins = cpu_twins(scratch.build) or set()
                start = time.monotonic()
                for fault in faults:
                    ex = manifest.exercise(fault["exercise"])
                    if on_cpu and (fault.get("cpu_backend") is False
                                   or ex.name + "_tests_cpu" not in twins):
                        print(f"  skip  planted {fault['name']!r}: not applicable on the CPU "
                              f"backend", flush=True)
                        continue
                    rel = os.path.join(ex.dir, fault["file"])
                    faulty = dict(overlays)
                    faulty[rel] = patched(overlays[rel].decode("utf-8"), fault).encode("utf-8")
                    scratch.checkout(faulty)
                    # A GPU correctness test takes seconds, on the CPU backend well under one:
                    # 30 s (10 s) is plenty to call a hang one.
                    limit = 10.0 if on_cpu else 30.0
                    for t in ex.tests:
                        if not t.performance:
                            t.timeout_s = min(t.timeout_s, limit)
                    results = grade_tree(scratch.build, [ex], jobs=args.jobs, log=log,
                                         progress=True)
                    check_planted(checks, fault, results, solution_results, f"solutions {where}")
                scratch.checkout(overlays)
                log(f"planted faults: {time.monotonic() - start:.0f} s")
        elif gpu:
            checks.check(False, "--gpu needs the solutions (unsealed, or a key)")

    print(f"\nself-test: {checks.passed} passed, {len(checks.failed)} failed", flush=True)
    for f in checks.failed:
        print(f"  FAILED: {f}")
    return 1 if checks.failed else 0
