#!/usr/bin/env python3
"""Tests of common/scripts/sweep.py without a GPU: a table an earlier run wrote (--out) is read
back (--from-table), its summary recomputed, put into a README's generated block (--readme)
and drawn (--plot); and a sweep measured with a fake chapter executable, which must be asked
for only the kernels shown. Exit 0 when all pass; the picture test reports itself skipped (77)
where gnuplot is missing.

    test_sweep.py [plot]
"""
import contextlib
import io
import os
import shutil
import sys
import tempfile
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import sweep  # noqa: E402

SKIP = 77
TABLE = """Measured on Some GPU, driver 13.0, CUDA runtime 13.0, 2026-11-26T00:00:00Z, --iters 9:

| M × N × K | cuBLAS GFLOP/s | old GFLOP/s | % of cuBLAS | new GFLOP/s | % of cuBLAS |
|---|--:|--:|--:|--:|--:|
| 64×64×64 | 76 | 52 | 50.0% | 62 | 100.0% |
| 4096×4096×4096 | 51,640 | - | - | 50,663 | 200.0% |
| 7×7×7 | 10 | 9 | 90.0% WRONG | 9 | 90.0% |

- this summary line is recomputed, not copied
"""


def run(*argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = sweep.main(list(argv))
    return code, out.getvalue(), err.getvalue()


class FromTable(unittest.TestCase):
    def setUp(self):
        self.dir = Path(tempfile.mkdtemp(prefix="sweep_test_"))
        self.table = self.dir / "table.md"
        self.table.write_text(TABLE)

    def test_the_summary_is_recomputed_and_a_wrong_row_fails(self):
        code, out, err = run("--from-table", str(self.table))
        self.assertEqual(code, 1)  # the WRONG row
        self.assertIn("WRONG: old at (7, 7, 7)", err)
        # old: one right answer (50%); new: 100, 200, 90 -> geometric mean 121.6, worst 90.0
        self.assertIn("- old: geometric mean 50.0% of cuBLAS over 1 shapes, "
                      "worst 50.0% (64×64×64)", out)
        self.assertIn("- new: geometric mean 121.6% of cuBLAS over 3 shapes, worst 90.0% (7×7×7)",
                      out)
        self.assertNotIn("recomputed, not copied", out)

    def test_the_readme_block_is_replaced_and_the_rest_kept(self):
        readme = self.dir / "README.md"
        readme.write_text("before\n<!-- BEGIN GENERATED: sweep -->\nold table\n"
                          "<!-- END GENERATED: sweep -->\nafter\n")
        run("--from-table", str(self.table), "--readme", str(readme))
        text = readme.read_text()
        self.assertTrue(text.startswith(
            "before\n<!-- BEGIN GENERATED: sweep -->\nMeasured on Some GPU"))
        self.assertTrue(text.endswith("<!-- END GENERATED: sweep -->\nafter\n"))
        self.assertNotIn("old table", text)
        self.assertIn("| 4096×4096×4096 | 51,640 | - | - | 50,663 | 200.0% |", text)

    def test_a_readme_without_the_block_is_refused(self):
        readme = self.dir / "README.md"
        readme.write_text("no block here\n")
        with self.assertRaises(SystemExit) as refused:
            run("--from-table", str(self.table), "--readme", str(readme))
        self.assertIn("GENERATED: sweep", str(refused.exception.code))
        self.assertEqual(readme.read_text(), "no block here\n")


# A chapter executable as sweep.py sees it: --m/--n[/--k] and --kernel in, CSV out; a prefix
# that starts no name exits 2, as the real ones do. Every call is logged to $FAKE_LOG.
FAKE = """#!/usr/bin/env python3
import os, sys
args = sys.argv[1:]
with open(os.environ["FAKE_LOG"], "a") as log:
    log.write(" ".join(args) + "\\n")
names = ["pipelined 128", "any_shape 128", "stream-K 128", "stream-K 64"]
picks = [args[i + 1] for i, a in enumerate(args) if a == "--kernel"]
for p in picks:
    if not any(n.startswith(p) for n in names):
        sys.exit(2)
run = [n for n in names if any(n.startswith(p) for p in picks)]
print("problem,gpu,driver,runtime,date,shape,chapter,kernel,status,rate,pct_of_ceiling")
head = "gemm,Fake GPU,13.0,13.0,2026-01-01T00:00:00Z,s,"
print(head + "ceiling,cuBLAS SGEMM,ok,1000,100")
for n in run:
    print(head + "05,%s,ok,500,50" % n)
"""


class Measure(unittest.TestCase):
    def setUp(self):
        self.dir = Path(tempfile.mkdtemp(prefix="sweep_measure_"))
        self.exe = self.dir / "fake"
        self.exe.write_text(FAKE)
        self.exe.chmod(0o755)
        self.shapes = self.dir / "shapes.txt"
        self.shapes.write_text("64 64 64\n# a comment\n1 2 3\n")
        self.log = self.dir / "log"
        os.environ["FAKE_LOG"] = str(self.log)

    def sweep(self, *kernels):
        picks = [v for k in kernels for v in ("--kernel", k)]
        return run("--exe", str(self.exe), "--shapes", str(self.shapes), "--iters", "3", *picks)

    def test_the_selection_is_passed_through_and_each_column_is_one_kernel(self):
        code, out, _ = self.sweep("pipelined", "any")
        self.assertEqual(code, 0)
        calls = self.log.read_text().splitlines()
        self.assertEqual(calls, ["--m 64 --n 64 --k 64 --kernel pipelined --kernel any --iters 3 "
                                 "--csv", "--m 1 --n 2 --k 3 --kernel pipelined --kernel any "
                                 "--iters 3 --csv"])
        self.assertIn("| M × N × K | cuBLAS GFLOP/s | pipelined GFLOP/s | % of cuBLAS | "
                      "any GFLOP/s | % of cuBLAS |", out)
        self.assertIn("| 1×2×3 | 1,000 | 500 | 50.0% | 500 | 50.0% |", out)

    def test_a_typo_stops_the_sweep(self):
        with self.assertRaises(SystemExit) as stopped:
            self.sweep("pipelined", "stream_K")
        self.assertIn("exit 2", str(stopped.exception.code))
        self.assertEqual(len(self.log.read_text().splitlines()), 1)  # nothing after that

    def test_a_prefix_of_two_kernels_stops_the_sweep(self):
        with self.assertRaises(SystemExit) as stopped:
            self.sweep("stream-K")
        self.assertIn("starts 2 kernel names", str(stopped.exception.code))


class Plot(unittest.TestCase):
    def test_one_bar_per_kernel_and_shape_in_the_table_order(self):
        folder = Path(tempfile.mkdtemp(prefix="sweep_plot_"))
        table = folder / "table.md"
        table.write_text(TABLE)
        run("--from-table", str(table), "--plot", str(folder / "sweep"))
        svg = (folder / "sweep.svg").read_text()
        self.assertIn("% of cuBLAS per shape: Some GPU", svg)
        for label in ("64×64×64", "4096×4096×4096", "7×7×7", "old", "new"):
            self.assertIn(label, svg)
        self.assertLess(svg.index("64×64×64"), svg.index("4096×4096×4096"))


def main():
    if sys.argv[1:] == ["plot"]:
        if shutil.which("gnuplot") is None:
            print("skipped: gnuplot is not installed (`make deps` installs gnuplot-nox)")
            return SKIP
        cases = [Plot]
    else:
        cases = [FromTable, Measure]
    suite = unittest.TestSuite(unittest.defaultTestLoader.loadTestsFromTestCase(c) for c in cases)
    return 0 if unittest.TextTestRunner(verbosity=2).run(suite).wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
