"""The checker (exercises/support/checker_main.cpp) on fabricated result files: only a right,
complete, well-formed answer from a kernel launch passes."""
import json
import os
import re
import shutil
import struct
import subprocess
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
BUILD = os.environ.get("BUILD_DIR") or os.path.join(ROOT, "build")
CHECK = os.path.join(BUILD, "bin", "exercise_check")
FIXTURE = os.path.join(BUILD, "bin", "selftest_fixture_runner")


# exercises/support/inputs.hpp, in Python.
M64 = 0xFFFFFFFFFFFFFFFF


def mix(x):
    x = (x + 0x9E3779B97F4A7C15) & M64
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & M64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & M64
    return x ^ (x >> 31)


def hash_(seed, index):
    return mix(mix(seed) ^ index)


def raw_value(seed, index):
    return ((hash_(seed, index) >> 40) - (1 << 23)) / float(1 << 23)


def value(seed, index, operand=0):
    return raw_value(hash_(seed, 0x0BE4A4D0 + operand), index)


def weight(seed, index):
    return 1.0 if hash_(seed ^ 0xC0FFEE, index) & 1 else -1.0


def repetition_seed(seed, rep):
    return hash_(seed ^ 0x7E4E5EED, rep)


def repetition_sums(M, N, K, seed, reps):
    """The outputs of a timed GEMM's repetitions (each on operands of its own) and their
    checksums, as the timing loop and the checker compute them."""
    def gemm(rep):
        s = repetition_seed(seed, rep)
        a = [value(s, i, 0) for i in range(M * K)]
        b = [value(s, i, 1) for i in range(K * N)]
        return [sum(a[i * K + k] * b[k * N + j] for k in range(K)) for i in range(M)
                for j in range(N)]
    outputs = [gemm(r) for r in range(reps)]
    return outputs, [sum(weight(seed, i) * c for i, c in enumerate(out)) for out in outputs]


@unittest.skipUnless(os.path.isfile(CHECK), "exercise_check is not built")
class CheckerTests(unittest.TestCase):
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
        for name, lines in (("request.txt", request), ("expect.txt", expect)):
            with open(os.path.join(self.dir, name), "w") as f:
                f.write("\n".join(lines) + "\n")
        out = subprocess.run([CHECK, exercise, os.path.join(self.dir, "request.txt"),
                              os.path.join(self.dir, "expect.txt"), self.results],
                             stdout=subprocess.PIPE, check=True).stdout.decode()
        return [json.loads(l) for l in out.splitlines()]

    def transpose_bytes(self, rows, cols, seed, poke=None):
        out = [value(seed, r * cols + c) for c in range(cols) for r in range(rows)]
        if poke:
            out[poke[0]] = poke[1]
        return struct.pack(f"{len(out)}f", *out)

    def test_a_right_transpose_passes_and_every_flaw_fails(self):
        req = ["transpose t 3 5 seed=7 guard=0"]
        good = self.transpose_bytes(3, 5, 7)
        [v] = self.check("x", req, ["none -"], {"0.txt": "ok launches=1", "0.bin": good})
        self.assertTrue(v["ok"], v)
        for files, why in (({}, "no result"),
                           ({"0.txt": "ok launches=0", "0.bin": good}, "no kernel"),
                           ({"0.txt": "ok launches=1", "0.bin": good[:-4]}, "wrong size"),
                           ({"0.txt": "ok launches=1",
                             "0.bin": self.transpose_bytes(3, 5, 7, (4, 0.5))}, "differ"),
                           ({"0.txt": "not_implemented not implemented yet: x"}, "not implemented")):
            shutil.rmtree(self.results)
            os.makedirs(self.results)
            [v] = self.check("x", req, ["none -"], files)
            self.assertFalse(v["ok"], why)
            self.assertIn(why, v["message"])

    def test_a_model_call_is_judged_by_its_worst_request_and_must_see_every_access(self):
        req = ["model_transpose t 3 5 seed=7"]
        good = self.transpose_bytes(3, 5, 7)
        # 8 requests of 32 lanes x 4 bytes each side: 4 sectors, 1 wavefront would do.
        figures = ("ok launches=1 gld=8,32,1024 worst_gld=4,128,t.cuh:4 gst=8,33,1024 "
                   "worst_gst=5,128,t.cuh:9 sld=8,8,1024 worst_sld=1,128,t.cuh:5 sst=8,8,1024 "
                   "worst_sst=1,128,t.cuh:8 covered=1,1")
        [v] = self.check("x", req, ["model - global=1.25 shared=1"],
                         {"0.txt": figures, "0.bin": good})
        self.assertTrue(v["ok"], v)
        self.assertIn("worst request at t.cuh:9: 5 where 4.0 would do", v["message"])
        cases = (
            # one request at 8x: cheap ones beside it do not average it away
            (figures.replace("gld=8,32,1024 worst_gld=4,128", "gld=1000,1028,128000 "
                             "worst_gld=32,128"), "global=1.25", "over the limit"),
            # a warp of one lane asking for 4 bytes needs 1/32 of a sector, not a whole one
            (figures.replace("gld=8,32,1024 worst_gld=4,128", "gld=256,256,1024 worst_gld=1,4"),
             "global=1.25", "over the limit"),
            (figures.replace("worst_sld=1,128", "worst_sld=2,128").replace("sld=8,8,1024",
                                                                           "sld=8,9,1024"),
             "shared=1", "over the limit"),
            (figures.replace("sld=8,8,1024 worst_sld=1,128,t.cuh:5", "sld=0,0,0"), "shared=1",
             "no shared loads"),
            (figures.replace("covered=1,1", "covered=0,1"), "global=1.25", "did not see"),
            (figures.replace(" covered=1,1", ""), "global=1.25", "did not see"),
            (figures.replace("worst_gld=4,128", "worst_gld=40,128"), "global=1.25", "malformed"),
            (figures.replace(" worst_gld=4,128,t.cuh:4", ""), "global=1.25", "malformed"),
            ("ok launches=1", "global=1.25", "did not see"),
            ("ok launches=0" + figures[len("ok launches=1"):], "global=1.25", "no kernel"),
        )
        for text, limits, why in cases:
            shutil.rmtree(self.results)
            os.makedirs(self.results)
            [v] = self.check("x", req, [f"model - {limits}"], {"0.txt": text, "0.bin": good})
            self.assertFalse(v["ok"], (text, v))
            self.assertIn(why, v["message"])
        # A wrong answer fails whatever the figures say.
        shutil.rmtree(self.results)
        os.makedirs(self.results)
        [v] = self.check("x", req, ["model - global=1.25"],
                         {"0.txt": figures, "0.bin": self.transpose_bytes(3, 5, 7, (2, 9.0))})
        self.assertFalse(v["ok"])
        self.assertIn("differ", v["message"])

    def test_the_guard_band_catches_writes_outside_the_output(self):
        poison = b"\xff" * 4
        req = ["transpose t 2 2 seed=3 guard=1"]
        body = self.transpose_bytes(2, 2, 3)
        after = 128 * (2 + 128) + 1024
        clean = poison * 1024 + body + poison * after
        [v] = self.check("x", req, ["none -"], {"0.txt": "ok launches=1", "0.bin": clean})
        self.assertTrue(v["ok"], v)
        dirty = poison * 1024 + body + struct.pack("f", 1.0) + poison * (after - 1)
        [v] = self.check("x", req, ["none -"], {"0.txt": "ok launches=1", "0.bin": dirty})
        self.assertFalse(v["ok"])
        self.assertIn("outside the output", v["message"])

    def test_host_values_references_and_refusals(self):
        req = ["call sectors_touched 1 0", "call sectors_touched 3 0", "refuse_gemm t 100 96 96",
               "refuse_gemm t 100 96 96"]
        exp = ["values - 4", "reference -", "refuse - contains=16", "refuse - contains=16"]
        verdicts = self.check("01b_sectors", req, exp, {
            "0.txt": "value 4", "1.txt": "value 11", "2.txt": "refused needs multiples of 16",
            "3.txt": "ok launches=0 (it did not refuse)"})
        self.assertEqual([v["ok"] for v in verdicts], [True, False, True, False])
        self.assertIn("expected 12", verdicts[1]["message"])
        # the grader names the call (its label): the verdict does not repeat it
        self.assertEqual(verdicts[1]["message"], "returned 11, expected 12")

    def test_results_lines_count_only_for_the_calls_asked_for(self):
        """results.txt is the student's: a call's last line counts; a line of a call the
        request does not hold, or not "<digits> <result>", counts for nothing."""
        req = ["call sectors_touched 1 0", "call sectors_touched 1 0", "call sectors_touched 1 0"]
        with open(os.path.join(self.results, "results.txt"), "w") as f:
            f.write("0 value 3\n0 value 4\n+1 value 4\n 1 value 4\n-1 value 4\n1value 4\n"
                    "2 value 4\0 junk\n99999999999999999999 value 4\n7 value 4\n" +
                    "".join(f"{n} value 4\n" for n in range(3, 3000)))
        verdicts = self.check("01b_sectors", req, ["values - 4"] * 3, {})
        self.assertEqual([v["ok"] for v in verdicts], [True, False, True])  # call 2: 4, then junk
        self.assertIn("no result", verdicts[1]["message"])


    def test_timed_repetitions_must_each_be_computed(self):
        """A small GEMM timed 6 times, every repetition on operands of its own: the right
        checksums pass; a repetition that returned the one before's answer, or checksums that
        differ from the reference timer's, fail; a student's check without the reference's
        checksums is the grader's error."""
        M = N = K = 6
        seed, reps = 99, 6
        outputs, sums = repetition_sums(M, N, K, seed, reps)
        req = [f"time_gemm t {M} {N} {K} seed={seed} reps={reps}"]
        files = {"0.txt": "ok launches=7 median_ms=0.01",
                 "0.bin": struct.pack(f"{M * N}f", *outputs[-1]),
                 "0.sums": struct.pack(f"{reps}d", *sums),
                 "0.ref.sums": struct.pack(f"{reps}d", *sums)}
        [v] = self.check("x", req, ["timed - against=reference"], files)
        self.assertTrue(v["ok"], v)
        self.assertIn("all 6 repetitions", v["message"])
        stale = list(sums)
        stale[3] = sums[2]  # repetition 3 returned repetition 2's answer
        files["0.sums"] = struct.pack(f"{reps}d", *stale)
        [v] = self.check("x", req, ["timed - against=reference"], files)
        self.assertFalse(v["ok"])
        self.assertIn("repetition 3", v["message"])
        [v] = self.check("x", req, ["timed -"], files)
        self.assertTrue(v["ok"], "a reference run: only the last repetition is checked")
        stale[-1] = sums[-2]
        files["0.sums"] = struct.pack(f"{reps}d", *stale)
        [v] = self.check("x", req, ["timed -"], files)
        self.assertFalse(v["ok"], "the last checksum is checked against the checker's own answer")
        files["0.sums"] = struct.pack(f"{reps}d", *sums)
        os.remove(os.path.join(self.results, "0.ref.sums"))
        del files["0.ref.sums"]
        [v] = self.check("x", req, ["timed - against=reference"], files)
        self.assertFalse(v["ok"])
        self.assertTrue(v["grader_error"], v)

    def test_a_wrong_reference_is_the_graders_error_and_a_runner_cannot_claim_one(self):
        M = N = K = 4
        seed, reps = 5, 3
        outputs, sums = repetition_sums(M, N, K, seed, reps)
        req = [f"time_gemm t {M} {N} {K} seed={seed} reps={reps}"]
        bad_reference = list(sums)
        bad_reference[1] += 10.0  # the reference kernel got repetition 1 wrong, the student not
        files = {"0.txt": "ok launches=4 median_ms=0.01",
                 "0.bin": struct.pack(f"{M * N}f", *outputs[-1]),
                 "0.sums": struct.pack(f"{reps}d", *sums),
                 "0.ref.sums": struct.pack(f"{reps}d", *bad_reference)}
        [v] = self.check("x", req, ["timed - against=reference"], files)
        self.assertFalse(v["ok"])
        self.assertTrue(v["grader_error"], v)
        self.assertIn("reference kernel's repetition 1", v["message"])
        # A runner that writes the words itself gets a plain failure, never a grader error.
        shutil.rmtree(self.results)
        os.makedirs(self.results)
        [v] = self.check("x", req, ["timed - against=reference"], {
            "0.txt": "not_implemented grader error: the reference timer's checksums are missing"})
        self.assertFalse(v["ok"])
        self.assertFalse(v["grader_error"], v)


@unittest.skipUnless(os.path.isfile(FIXTURE), "selftest_fixture_runner is not built")
class RunnerTests(unittest.TestCase):
    def test_the_runner_writes_results_and_nothing_else(self):
        d = tempfile.mkdtemp()
        with open(os.path.join(d, "request.txt"), "w") as f:
            f.write("call add 2 3\ncall no_such_function 1\n")
        os.makedirs(os.path.join(d, "results"))
        subprocess.run([FIXTURE, os.path.join(d, "request.txt"), os.path.join(d, "results")],
                       stdout=subprocess.DEVNULL, check=True)
        self.assertEqual(sorted(os.listdir(os.path.join(d, "results"))), ["done", "results.txt"])
        with open(os.path.join(d, "results", "results.txt")) as f:
            lines = f.read().splitlines()
        self.assertEqual([line.split(" ", 1)[0] for line in lines], ["0", "1"])  # a line a call
        self.assertIn("no entry named no_such_function", lines[1])
        shutil.rmtree(d)
