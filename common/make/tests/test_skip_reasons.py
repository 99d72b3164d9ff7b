#!/usr/bin/env python3
"""make check's closing line (common/make/skip_reasons.py) on a fabricated CTest JUnit file:
passed, skipped (each reason counted per kind of test, the kind read from the test's label),
failed; a test CTest could not run counts as failed."""
import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import skip_reasons  # noqa: E402


def case(name, status, skip=None, out=""):
    inner = f'<skipped message="{skip}"/>' if skip else ('<failure message=""/>' if status == "fail" else "")
    return f'<testcase name="{name}" classname="{name}" time="0.1" status="{status}">{inner}' \
           f'<system-out>{out}</system-out></testcase>'


XML = "<testsuite>" + "".join([
    case("common/gpu: cuBLAS matches", "notrun", "SKIP_RETURN_CODE=77",
         "  SKIPPED: no CUDA device found (cudaErrorNoDevice)\n"),
    case("05_double_buffer/gpu: two GPUs", "notrun", "SKIP_RETURN_CODE=77",
         "  SKIPPED: no CUDA device found (cudaErrorNoDevice)\n"
         "  SKIPPED: no CUDA device found (cudaErrorNoDevice)\n"),
    case("05_double_buffer/cpu: two GPUs", "notrun", "SKIP_RETURN_CODE=77",
         "  SKIPPED: needs a real GPU, not the CPU backend\n"),
    case("01_naive/host: the roofline", "run", out="All tests passed"),
    case("01_naive/host: the other roofline", "run"),
    case("02_tiled/host: wrong", "fail"),
    case("02_tiled/host: its program is missing", "notrun", "Unable to find executable"),
]) + "</testsuite>"


class ClosingLine(unittest.TestCase):
    def test_counts_and_reasons(self):
        passed, failed, skipped = skip_reasons.results(XML)
        self.assertEqual((passed, failed), (2, 2))
        self.assertEqual(skipped, {("GPU", "no CUDA device found (cudaErrorNoDevice)"): 2,
                                   ("CPU-backend", "needs a real GPU, not the CPU backend"): 1})
        self.assertEqual(skip_reasons.summary(passed, failed, skipped), [
            "check: 2 passed, 3 skipped (2 GPU tests: no CUDA device found (cudaErrorNoDevice); "
            "1 CPU-backend test: needs a real GPU, not the CPU backend), 2 failed"])

    def test_nothing_skipped(self):
        self.assertEqual(skip_reasons.summary(5, 0, {}), ["check: 5 passed, 0 skipped, 0 failed"])

    def test_many_reasons_go_to_notes(self):
        skipped = {("GPU", f"reason {i}"): 10 - i for i in range(5)}
        lines = skip_reasons.summary(1, 0, skipped)
        self.assertEqual(lines[:2], ["note: 7 GPU tests skipped: reason 3",
                                     "note: 6 GPU tests skipped: reason 4"])
        self.assertEqual(lines[2], "check: 1 passed, 40 skipped (10 GPU tests: reason 0; 9 GPU tests: "
                                   "reason 1; 8 GPU tests: reason 2; 13 more: the note lines above), 0 failed")

    def test_no_file_prints_nothing(self):
        self.assertEqual(skip_reasons.main(["/nonexistent/check-results.xml"]), 0)


if __name__ == "__main__":
    unittest.main()
