#!/usr/bin/env python3
"""make check's skip notes (common/make/skip_reasons.py) on a fabricated CTest log: each reason
once, counted per kind of test, the kind read from the test's label."""
import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import skip_reasons  # noqa: E402

LOG = """Start testing: Nov 26 14:22 UTC
----------------------------------------------------------
1/4 Testing: common/gpu: cuBLAS matches
1/4 Test: common/gpu: cuBLAS matches
Output:
----------------------------------------------------------
  SKIPPED: no CUDA device found (cudaErrorNoDevice)
<end of output>
2/4 Test: 05_double_buffer/gpu: two GPUs
Output:
  SKIPPED: no CUDA device found (cudaErrorNoDevice)
  SKIPPED: no CUDA device found (cudaErrorNoDevice)
<end of output>
3/4 Test: 05_double_buffer/cpu: two GPUs
Output:
  SKIPPED: needs a real GPU, not the CPU backend
<end of output>
4/4 Test: 01_naive/host: the roofline
Output:
All tests passed
<end of output>
"""


class SkipReasons(unittest.TestCase):
    def test_each_reason_once_per_kind(self):
        got = skip_reasons.reasons(LOG)
        self.assertEqual(got, {("GPU", "no CUDA device found (cudaErrorNoDevice)"): 2,
                               ("CPU-backend", "needs a real GPU, not the CPU backend"): 1})

    def test_no_skips_no_notes(self):
        self.assertEqual(skip_reasons.reasons(LOG.split("1/4 Testing")[0]), {})


if __name__ == "__main__":
    unittest.main()
