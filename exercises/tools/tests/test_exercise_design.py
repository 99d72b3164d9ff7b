"""Issue 46's pieces of the grader: GEMM products other than A B (spec "op", the checker's
reference), host references and verifiers beside an exercise ("expect": "verify"), and the
`grade.py new` scaffold."""
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
from gradelib import scaffold  # noqa: E402
from gradelib.spec import SpecError, expand, load_manifest  # noqa: E402
from tests.test_checker import BUILD, CHECK, value  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))


def write_json(path, data):
    with open(path, "w") as f:
        json.dump(data, f)


class CopiesOfThePlainProduct(unittest.TestCase):
    """An exercise whose product is C = A^T B (op atb: A stored K x M) or A B^T (abt: B stored
    N x K) turns into the plain C = A B where the stored operand is a vector: M = 1 or K = 1
    for atb, N = 1 or K = 1 for abt. A test all of whose calls can be such shapes would, at
    some seeds, give its points to the chapter's kernel pasted under the exercise's names; so
    each test holds a call that never is (the hidden tests too, where they are unsealed)."""

    def test_every_test_of_a_transposed_product_holds_a_shape_the_plain_one_gets_wrong(self):
        manifest = json.load(open(os.path.join(ROOT, "exercises", "manifest.json")))
        files = []
        for e in manifest["exercises"]:
            if e.get("op") in ("atb", "abt"):
                path = os.path.join(ROOT, e.get("dir", "exercises/" + e["name"]), "tests.json")
                files.append((e["op"], e["name"], json.load(open(path))["tests"]))
        from gradelib.spec import is_drawn_host_call
        hidden = os.path.join(ROOT, "exercises", "instructor", "hidden", "tests.json")
        if os.path.isfile(hidden):
            ops = {e["name"]: e.get("op") for e in manifest["exercises"]}
            for e in json.load(open(hidden))["exercises"]:
                if ops.get(e["name"]) in ("atb", "abt"):
                    files.append((ops[e["name"]], e["name"] + " (hidden)", e.get("tests", [])))
        for op, name, tests in files:
            dims = ("m", "k") if op == "atb" else ("n", "k")
            for t in tests:
                calls = [c for c in t.get("calls", []) if "gemm" in c or "model_gemm" in c]
                if not calls:
                    continue

                def never(c):
                    if "shape" in c:
                        return all(dict(zip("mnk", c["shape"]))[d] > 1 for d in dims)
                    return "random" in c and all(c["random"][d][0] > 1 for d in dims
                                                 if d in c["random"])
                with self.subTest(exercise=name, test=t["name"]):
                    self.assertTrue(any(never(c) for c in calls),
                                    f"every call of this test may be a shape where {op} is "
                                    f"the plain product")


class SubmissionsGradedOnFixedCalls(unittest.TestCase):
    """The self-test grades a copy of the chapters' code and an answer table without the host
    calls whose arguments the seed draws (spec.drop_drawn_calls), so that their score of 0
    holds under every seed; a test left with no call is dropped and named."""

    def test_drawn_host_calls_go_and_the_rest_stay(self):
        from gradelib.spec import Exercise, Manifest, Test, drop_drawn_calls
        fixed = {"call": "f", "args": [1, 2], "expect": 3}
        grid = {"call": "f", "grid": [[1, 2], [1, 2]], "expect": "reference"}
        drawn = {"call": "f", "random": [[1, 9], [1, 9]], "count": 2, "expect": "reference"}
        shape = {"gemm": "g", "random": {"m": [1, 9], "n": [1, 9], "k": [1, 9]}}
        a = Test("x", "a", 1, calls=[fixed, drawn, grid])
        b = Test("x", "b", 1, calls=[drawn, drawn])
        c = Test("x", "c", 1, calls=[shape, drawn])
        race = Test("x", "r", 1, calls=[], race={"gemm": "g", "shape": [64, 64, 64]})
        other = Test("y", "d", 1, calls=[drawn])
        x = Exercise("x", "01", "host", "d", ["f.hpp"], tests=[a, b, c, race])
        y = Exercise("y", "01", "host", "d", ["f.hpp"], tests=[other])
        self.assertEqual(drop_drawn_calls(Manifest("m.json", [x, y], {}), {"x"}), ["x: b"])
        self.assertEqual(x.tests, [a, c, race])  # b dropped; the race kept as it was
        self.assertEqual(a.calls, [fixed, grid])
        self.assertEqual(c.calls, [shape])
        self.assertEqual(other.calls, [drawn])  # not among the names

    def test_every_host_test_keeps_a_fixed_call(self):
        """What the self-test's copies and tables parts need of the tests themselves, checked
        here in a second: every test of a host exercise (and every host-call test of a kernel
        exercise) has a call that is not drawn. The hidden tests too, where they are unsealed."""
        from gradelib.spec import is_drawn_host_call
        hidden = os.path.join(ROOT, "exercises", "instructor", "hidden", "tests.json")
        manifest = load_manifest(os.path.join(ROOT, "exercises", "manifest.json"), ROOT,
                                 hidden if os.path.isfile(hidden) else None)
        bare = [t.qualified for e in manifest.exercises for t in e.tests
                if t.race is None and t.calls and
                all(is_drawn_host_call(c) for c in t.calls)]
        self.assertEqual(bare, [])


class SpecOps(unittest.TestCase):
    def setUp(self):
        self.root = tempfile.mkdtemp()
        os.makedirs(os.path.join(self.root, "exercises", "x1"))

    def tearDown(self):
        shutil.rmtree(self.root)

    def manifest(self, op=None, tests=None):
        entry = {"name": "x1", "chapter": "", "kind": "gpu", "files": ["x.cuh"]}
        if op:
            entry["op"] = op
        path = os.path.join(self.root, "exercises", "manifest.json")
        write_json(path, {"exercises": [entry]})
        write_json(os.path.join(self.root, "exercises", "x1", "tests.json"), {"tests": tests or [
            {"name": "t", "points": 1, "gpu": True,
             "calls": [{"gemm": "g", "shape": [2, 3, 4]}, {"refuse_gemm": "g", "shape": [5, 5, 5]},
                       {"gemm": "g", "shape": [2, 2, 2], "op": "ab"}]},
            {"name": "race", "points": 1, "performance": True,
             "race": {"gemm": "g", "shape": [64, 64, 64], "reference": "r"}}]})
        return load_manifest(path, self.root)

    def test_the_exercise_op_reaches_every_gemm_line_and_the_race(self):
        m = self.manifest("atb")
        calls = expand(m.exercises[0].tests[0], 7)
        self.assertTrue(calls[0].request.endswith(" op=atb"), calls[0].request)
        self.assertTrue(calls[1].request.endswith(" op=atb"), calls[1].request)
        self.assertNotIn("op=", calls[2].request)  # a call may name its own product
        self.assertEqual(m.exercises[0].tests[1].race["op"], "atb")

    def test_without_an_op_the_lines_are_as_they_were(self):
        m = self.manifest()
        for call in expand(m.exercises[0].tests[0], 7):
            self.assertNotIn("op=", call.request)

    def test_an_unknown_op_is_refused(self):
        with self.assertRaises(SpecError):
            self.manifest("aatb")
        with self.assertRaises(SpecError):
            self.manifest(tests=[{"name": "t", "points": 1,
                                  "calls": [{"transpose": "t", "shape": [2, 2], "op": "atb"}]}])

    def test_verify_expectations(self):
        path = os.path.join(self.root, "exercises", "manifest.json")
        write_json(path, {"exercises": [{"name": "x1", "chapter": "", "kind": "host",
                                         "files": ["x.hpp"]}]})
        write_json(os.path.join(self.root, "exercises", "x1", "tests.json"), {"tests": [
            {"name": "t", "points": 1, "calls": [{"call": "f", "args": [1, 2], "expect": "verify"}]}]})
        calls = expand(load_manifest(path, self.root).exercises[0].tests[0], 3)
        self.assertEqual(calls[0].expect, "verify -")


def floats(values):
    return struct.pack(f"{len(values)}f", *values)


@unittest.skipUnless(os.path.isfile(CHECK), "exercise_check is not built")
class CheckerOpsAndVerifiers(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.results = os.path.join(self.dir, "results")
        os.makedirs(self.results)

    def tearDown(self):
        shutil.rmtree(self.dir)

    def check(self, exercise, request, expect, results):
        # "<i>.txt": call i's result line, written to results.txt as the runner writes it
        # (protocol.hpp); a later check's line for the same call replaces it.
        lines = {}
        if any(re.fullmatch(r"\d+\.txt", name) for name in results) and \
                os.path.isfile(os.path.join(self.results, "results.txt")):
            with open(os.path.join(self.results, "results.txt")) as f:
                lines = {int(l.split(" ", 1)[0]): l.split(" ", 1)[1].rstrip("\n") for l in f}
        for name, data in results.items():
            call = re.fullmatch(r"(\d+)\.txt", name)
            if call:
                lines[int(call.group(1))] = data.strip()
                continue
            with open(os.path.join(self.results, name), "wb") as f:
                f.write(data if isinstance(data, bytes) else data.encode())
        if any(re.fullmatch(r"\d+\.txt", name) for name in results):
            with open(os.path.join(self.results, "results.txt"), "w") as f:
                f.writelines(f"{i} {text}\n" for i, text in sorted(lines.items()))
        for name, line in (("request.txt", request), ("expect.txt", expect)):
            with open(os.path.join(self.dir, name), "w") as f:
                f.write(line + "\n")
        out = subprocess.run([CHECK, exercise, os.path.join(self.dir, "request.txt"),
                              os.path.join(self.dir, "expect.txt"), self.results],
                             stdout=subprocess.PIPE, check=True).stdout.decode()
        return json.loads(out.splitlines()[0])

    def product(self, M, N, K, seed, op):
        a = [value(seed, i, 0) for i in range(M * K)]
        b = [value(seed, i, 1) for i in range(K * N)]
        A = (lambda i, k: a[k * M + i]) if op == "atb" else (lambda i, k: a[i * K + k])
        B = (lambda k, j: b[j * K + k]) if op == "abt" else (lambda k, j: b[k * N + j])
        return [sum(A(i, k) * B(k, j) for k in range(K)) for i in range(M) for j in range(N)]

    def test_each_product_passes_its_own_op_and_fails_the_others(self):
        M, N, K, seed = 3, 5, 4, 99
        for op in ("ab", "atb", "abt"):
            out = floats(self.product(M, N, K, seed, op))
            for asked in ("ab", "atb", "abt"):
                suffix = "" if asked == "ab" else f" op={asked}"
                v = self.check("x", f"gemm g {M} {N} {K} seed={seed} guard=0{suffix}", "none -",
                               {"0.txt": "ok launches=1", "0.bin": out})
                self.assertEqual(v["ok"], op == asked, (op, asked, v["message"]))

    def test_an_unknown_op_is_a_grader_error(self):
        v = self.check("x", "gemm g 2 2 2 seed=1 guard=0 op=zz", "none -",
                       {"0.txt": "ok launches=1", "0.bin": floats([0.0] * 4)})
        self.assertFalse(v["ok"])
        self.assertTrue(v["grader_error"], v)

    def test_a_verifier_judges_the_numbers(self):
        # 05c's verifier: the chapter's lane grid for 64 x 32 with 8 x 8 per lane is right.
        runs = []
        for lane in range(32):
            r, c = lane // 4, lane % 4
            runs += [r * 4, 32 + r * 4, c * 4, 16 + c * 4]
        good = "value " + " ".join(map(str, runs))
        v = self.check("05c_warp_tile", "call lane_layout 8 8 8", "verify -", {"0.txt": good})
        self.assertTrue(v["ok"], v["message"])
        runs[0] = 4  # lane 0 now owns rows 4..7 twice over with lane 4... and misses 0..3
        v = self.check("05c_warp_tile", "call lane_layout 8 8 8", "verify -",
                       {"0.txt": "value " + " ".join(map(str, runs))})
        self.assertFalse(v["ok"])
        self.assertIn("owned twice", v["message"])
        v = self.check("05c_warp_tile", "call lane_layout 8 8 8", "verify -",
                       {"0.txt": good.replace(" 0 ", " nan ", 1)})
        self.assertFalse(v["ok"])
        self.assertIn("not finite", v["message"])

    def test_a_function_without_a_verifier_is_a_grader_error(self):
        v = self.check("05c_warp_tile", "call nothing_here 1", "verify -", {"0.txt": "value 1"})
        self.assertTrue(v["grader_error"], v)


class Scaffold(unittest.TestCase):
    def setUp(self):
        self.root = tempfile.mkdtemp()
        os.makedirs(os.path.join(self.root, "04_register_block"))
        os.makedirs(os.path.join(self.root, "exercises", "instructor", "solutions"))
        with open(os.path.join(ROOT, "exercises", "manifest.json")) as f:
            self.manifest = f.read()
        with open(os.path.join(self.root, "exercises", "manifest.json"), "w") as f:
            f.write(self.manifest)

    def tearDown(self):
        shutil.rmtree(self.root)

    def test_a_host_and_a_gpu_exercise(self):
        lines = []
        for name, kind in (("04y_demo", "host"), ("04z_demo", "gpu")):
            written = scaffold.create(self.root, name, kind, "04_register_block", log=lines.append)
            self.assertTrue(any(p.endswith("tests.json") for p in written))
            folder = os.path.join(self.root, "exercises", name)
            stub_file = "demo.hpp" if kind == "host" else "demo.cuh"
            with open(os.path.join(folder, stub_file)) as f:
                stub = f.read()
            self.assertNotIn("BEGIN SOLUTION", stub)
            self.assertIn("exercise::todo", stub)
            self.assertTrue(os.path.isfile(os.path.join(
                self.root, "exercises", "instructor", "solutions", name, stub_file)))
            self.assertTrue(os.path.isfile(os.path.join(
                folder, "reference.cpp" if kind == "host" else "race.cu")))
        # The manifest still loads, in the chapters' order, with both new exercises.
        with open(os.path.join(self.root, "exercises", "manifest.json")) as f:
            data = json.load(f)
        names = [e["name"] for e in data["exercises"]]
        self.assertEqual(names, sorted(names))
        self.assertIn("04y_demo", names)
        with self.assertRaises(scaffold.ScaffoldError):
            scaffold.create(self.root, "04y_demo", "host", "04_register_block", log=lines.append)
        with self.assertRaises(scaffold.ScaffoldError):
            scaffold.create(self.root, "bad name", "host", "04_register_block", log=lines.append)


if __name__ == "__main__":
    unittest.main()
