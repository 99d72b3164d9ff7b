"""From tests.json to calls: validation, reproducible random draws, the CPU backend's shrink."""
import json
import os
import re
import tempfile
import unittest

from gradelib.spec import SpecError, Test, cpu_backend_shape, expand, load_manifest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


def gemm_test(**call):
    return Test("03a_bounds", "t", 1, gpu=True, calls=[dict({"gemm": "tiled_gemm<32>"}, **call)])


class SpecTests(unittest.TestCase):
    def test_the_real_manifests_load(self):
        m = load_manifest(os.path.join(ROOT, "exercises", "manifest.json"), ROOT)
        # The course's total is what exercises/README.md tells students (`grade.py readme`).
        with open(os.path.join(ROOT, "exercises", "README.md")) as f:
            total = re.search(r"\| \*\*total\*\* \|.*\*\*(\d+)\*\* \|", f.read())
        self.assertIsNotNone(total)
        self.assertEqual(m.max_points, int(total.group(1)))
        self.assertTrue(all(e.tests for e in m.exercises))

    def test_every_host_test_with_arguments_draws_some(self):
        # A test scored on fixed arguments alone can be answered from a table of the public
        # tests.json: each test with calls must also make one at drawn arguments, unless all
        # its calls take no argument (a constant such as 01c's naive intensity).
        with open(os.path.join(ROOT, "exercises", "manifest.json")) as f:
            names = [e["name"] for e in json.load(f)["exercises"] if e.get("kind") == "host"]
        self.assertIn("03b_occupancy", names)
        for name in names:
            with open(os.path.join(ROOT, "exercises", name, "tests.json")) as f:
                tests = json.load(f)["tests"]
            for t in tests:
                calls = t.get("calls", [])
                if not calls or all(c.get("args") == [] for c in calls):
                    continue
                self.assertTrue(any("random" in c for c in calls),
                                f"{t['name']}: fixed arguments only")

    def test_same_seed_same_calls_other_seed_other_shapes(self):
        t = gemm_test(random={"m": [1, 300], "n": [1, 300], "k": [1, 700]}, count=3)
        a, b = expand(t, 1), expand(t, 1)
        self.assertEqual([c.request for c in a], [c.request for c in b])
        self.assertNotEqual([c.request for c in a], [c.request for c in expand(t, 2)])
        for c in a:
            m, n, k = map(int, c.request.split()[2:5])
            self.assertTrue(1 <= m <= 300 and 1 <= n <= 300 and 1 <= k <= 700)

    def test_multiples_and_odd(self):
        for c in expand(gemm_test(random={"m": [16, 256], "n": [16, 256], "k": [16, 256],
                                          "multiple_of": 16}, count=20), 5):
            self.assertTrue(all(int(d) % 16 == 0 for d in c.request.split()[2:5]))
        for c in expand(gemm_test(random={"m": [1, 300], "n": [1, 300], "k": [1, 300],
                                          "odd": True}, count=20), 5):
            self.assertTrue(all(int(d) % 2 == 1 for d in c.request.split()[2:5]))

    def test_expectations_never_reach_the_runner(self):
        t = Test("01b_sectors", "t", 1, calls=[{"call": "sectors_touched", "args": [1, 0],
                                               "expect": 4}])
        [c] = expand(t, 1)
        self.assertEqual(c.request, "call sectors_touched 1 0")
        self.assertEqual(c.expect, "values - 4")

    def test_grids_and_random_arguments(self):
        t = Test("x", "t", 1, calls=[{"call": "f", "grid": [[1, 3], [0, 10, 5]], "expect": "reference"},
                                     {"call": "g", "random": [{"log": [0.1, 10]}, {"choice": [8, 16]},
                                                              {"int": [32, 96], "step": 32}],
                                      "count": 5, "expect": "reference", "rel": 0.001}])
        calls = expand(t, 3)
        self.assertEqual(len(calls), 9 + 5)
        for c in calls[9:]:
            _, _, x, d, s = c.request.split()
            self.assertTrue(0.1 <= float(x) <= 10 and d in ("8", "16") and s in ("32", "64", "96"))
            self.assertEqual(c.expect, "reference - rel=0.001")

    def test_cpu_backend_shrinks_large_problems_only(self):
        self.assertEqual(cpu_backend_shape("gemm", [1000, 1000, 1000]), [232, 232, 232])
        self.assertEqual(cpu_backend_shape("gemm", [127, 33, 1025]), [127, 33, 1025])
        [c] = expand(gemm_test(shape=[1000, 1000, 1000]), 1, cpu_backend=True)
        self.assertIn("232 232 232", c.request)
        self.assertIn("1000x1000x1000 runs as 232x232x232", c.note)

    def test_a_model_test_asks_the_models_runner_with_its_limits(self):
        t = Test("01a_coalesce", "t", 3, gpu=True, model={"global": 1.25, "shared": 1},
                 calls=[{"gemm": "naive_gemm", "shape": [1000, 1000, 1000]}])
        [c] = expand(t, 1, cpu_backend=True)  # never shrunk: the shape is the test's
        self.assertTrue(c.request.startswith("model_gemm naive_gemm 1000 1000 1000 seed="))
        self.assertNotIn("guard", c.request)
        self.assertEqual(c.expect, "model - global=1.25 shared=1")

    def test_bad_specs_are_refused(self):
        bad_tests = [{"name": "x\"y", "points": 1, "calls": [{"call": "f", "args": [], "expect": 1}]},
                     {"name": "x", "points": -1, "calls": [{"call": "f", "args": [], "expect": 1}]},
                     {"name": "x", "points": 1, "calls": []},
                     {"name": "x", "points": 1, "calls": [{"gemm": "a b", "shape": [1, 1, 1]}]},
                     {"name": "x", "points": 1, "calls": [{"call": "f", "args": []}]},
                     {"name": "x", "points": 1, "performance": True},
                     {"name": "x", "points": 1, "calls": [{"gemm": "a", "shape": [0, 1, 1]}]},
                     {"name": "x", "points": 1, "calls": [{"gemm": "a", "shape": [1, 1]}]},
                     {"name": "x", "points": 1, "calls": [{"transpose": "a", "shape": [2, 2, 2]}]},
                     {"name": "x", "points": 1, "calls": [
                         {"gemm": "a", "random": {"m": [0, 9], "n": [1, 9], "k": [1, 9]}}]},
                     {"name": "x", "points": 1, "calls": [
                         {"gemm": "a", "random": {"m": [9, 1], "n": [1, 9], "k": [1, 9]}}]},
                     {"name": "x", "points": 1, "calls": [
                         {"gemm": "a", "random": {"m": [1, 9], "n": [1, 9]}}]},
                     {"name": "x", "points": 1, "calls": [{"gemm": "a", "random": {
                         "m": [1, 9], "n": [1, 9], "k": [1, 9], "multiple_of": 4, "odd": True}}]},
                     {"name": "x", "points": 1, "calls": [{"gemm": "a", "random": {
                         "m": [1, 9], "n": [1, 9], "k": [17, 31], "multiple_of": 32}}]},
                     {"name": "x", "points": 1, "model": {"global": 0.5},
                      "calls": [{"gemm": "a", "shape": [1, 1, 1]}]},
                     {"name": "x", "points": 1, "model": {"global": float("inf")},
                      "calls": [{"gemm": "a", "shape": [1, 1, 1]}]},
                     {"name": "x", "points": 1, "model": {"texture": 2},
                      "calls": [{"gemm": "a", "shape": [1, 1, 1]}]},
                     {"name": "x", "points": 1, "model": {},
                      "calls": [{"gemm": "a", "shape": [1, 1, 1]}]},
                     {"name": "x", "points": 1, "model": {"global": 1.25},
                      "calls": [{"gemm": "a", "shape": [1, 1, 1], "guard": True}]},
                     {"name": "x", "points": 1, "model": {"global": 1.25},
                      "calls": [{"call": "f", "args": [], "expect": 1}]},
                     # "backend": "cpu": a kernel test only (the exercise here is a host one),
                     # never a speed or memory-model test, and no other backend.
                     {"name": "x", "points": 1, "gpu": True, "backend": "cpu",
                      "calls": [{"gemm": "a", "shape": [1, 1, 1]}]},
                     {"name": "x", "points": 1, "gpu": True, "backend": "gpu",
                      "calls": [{"gemm": "a", "shape": [1, 1, 1]}]},
                     {"name": "x", "points": 1, "backend": "cpu",
                      "calls": [{"call": "f", "args": [], "expect": 1}]},
                     {"name": "x", "points": 1, "backend": "cpu", "model": {"global": 1.25},
                      "calls": [{"gemm": "a", "shape": [1, 1, 1]}]}]
        for test in bad_tests:
            d = tempfile.mkdtemp()
            os.makedirs(os.path.join(d, "exercises", "e"))
            with open(os.path.join(d, "m.json"), "w") as f:
                json.dump({"exercises": [{"name": "e", "kind": "host", "files": ["f.hpp"]}]}, f)
            with open(os.path.join(d, "exercises", "e", "tests.json"), "w") as f:
                json.dump({"tests": [test]}, f)
            with self.assertRaises(SpecError, msg=str(test)):
                load_manifest(os.path.join(d, "m.json"), d)


    def test_a_cpu_backend_test_of_a_kernel_exercise_loads(self):
        m = load_manifest(os.path.join(ROOT, "exercises", "manifest.json"), ROOT)
        flagged = [t for e in m.exercises for t in e.tests if t.cpu_backend]
        self.assertTrue(flagged)
        self.assertTrue(all(m.exercise(t.exercise).kind == "gpu" and t.gpu and
                            not t.performance and t.model is None for t in flagged))


class DrawTests(unittest.TestCase):
    def test_random_values_stay_in_range_and_keep_their_properties(self):
        from gradelib.spec import _allowed
        self.assertEqual(list(_allowed(1, 10, 1, True)), [1, 3, 5, 7, 9])
        self.assertEqual(list(_allowed(1, 7, 3, True)), [3])
        self.assertEqual(list(_allowed(5, 20, 8, False)), [8, 16])
        self.assertEqual(list(_allowed(2, 2, 1, True)), [])  # refused when the spec loads
        t = gemm_test(random={"m": [3, 5], "n": [1, 40], "k": [7, 7], "odd": True})
        for seed in range(50):
            [c] = expand(t, seed)
            m, n, k = map(int, c.request.split()[2:5])
            self.assertTrue(3 <= m <= 5 and 1 <= n <= 40 and k == 7)
            self.assertTrue(m % 2 and n % 2)
