#!/usr/bin/env python3
"""Targets that need a GPU stop before building where there is none (common/make/require_gpu.sh),
and point to the first table that needs none. CUDA_VISIBLE_DEVICES="" hides every GPU, so this
runs the same on a machine with one."""
import os
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

TOP = Path(__file__).resolve().parents[3]


def make(*args, cwd=TOP, build_dir):
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    env["CUDA_VISIBLE_DEVICES"] = ""
    return subprocess.run(["make", "-C", str(cwd), *args, f"BUILD_DIR={build_dir}"], env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=120)


class GpuGate(unittest.TestCase):
    def test_run_stops_before_building_and_points_to_the_first_table(self):
        for where, first in ((TOP, "make -C 01_naive analyze"), (TOP / "01_naive", "make analyze")):
            with tempfile.TemporaryDirectory() as tmp:
                build = Path(tmp) / "build"
                done = make("run", cwd=where, build_dir=build)
                self.assertNotEqual(done.returncode, 0, done.stdout)
                self.assertIn("no NVIDIA GPU found", done.stdout)
                self.assertIn(first, done.stdout)
                self.assertFalse(build.exists(), "make run configured or built without a GPU")

    def test_memory_system_stops_at_once_as_run_does(self):
        # A fresh clone once compiled for 83 s, printed "Measured ... on an unnamed GPU", then
        # failed: make memory-system is gated like make run, at the top and in chapter 01.
        import time
        for where, first in ((TOP, "make -C 01_naive analyze"), (TOP / "01_naive", "make analyze")):
            with tempfile.TemporaryDirectory() as tmp:
                build = Path(tmp) / "build"
                start = time.monotonic()
                done = make("memory-system", cwd=where, build_dir=build)
                self.assertEqual(done.returncode, 2, done.stdout)  # make's own exit status
                self.assertLess(time.monotonic() - start, 5, done.stdout)
                self.assertIn("no NVIDIA GPU found", done.stdout)
                self.assertIn("make memory-system", done.stdout)
                self.assertIn(first, done.stdout)
                self.assertNotIn("Measured by", done.stdout)
                self.assertFalse(build.exists(), "make memory-system configured or built")

    def test_other_goals_and_listing_benchmarks_pass_the_gate(self):
        with tempfile.TemporaryDirectory() as tmp:
            for args in (("-n", "check"), ("-n", "run", "check"),
                         ("-n", "bench", "BENCH_ARGS=--benchmark_list_tests")):
                done = make(*args, cwd=TOP / "01_naive", build_dir=Path(tmp) / "build")
                self.assertEqual(done.returncode, 0, done.stdout)
                self.assertNotIn("require_gpu.sh", done.stdout)


if __name__ == "__main__":
    unittest.main()
