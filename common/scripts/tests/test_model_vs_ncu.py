#!/usr/bin/env python3
"""Tests of common/scripts/model_vs_ncu.py on fabricated model and ncu exports (no GPU).

Python 3 standard library only (unittest), like the script it tests.
"""
import sys
import tempfile
import unittest
from pathlib import Path

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import model_vs_ncu  # noqa: E402

MODEL_HEADER = ("chapter,size,kernel,label,blocks,threads_per_block,gld_requests,gld_sectors,"
                "gst_requests,gst_sectors,sld_requests,sld_wavefronts,sld_ideal_wavefronts,"
                "sst_requests,sst_wavefronts,sst_ideal_wavefronts\n")
METRICS = list(model_vs_ncu.COUNTERS.values())


def ncu_csv(launches):
    """An export as `ncu --csv --page raw --print-units base` prints it to stdout: ncu's own
    messages and the program's output first, then a header, a units row, then one row per
    launch (name, grid, the counters in COUNTERS order)."""
    header = ['"ID"', '"Kernel Name"', '"Grid Size"'] + [f'"{m}"' for m in METRICS]
    units = ['""', '""', '""'] + ['""'] * len(METRICS)
    lines = ["==PROF== Connected to process", "kernel  threads  regs", "naive_gemm, 1024, 32",
             ",".join(header), ",".join(units)]
    for i, (name, grid, values) in enumerate(launches):
        cells = [f'"{i}"', f'"{name}"', f'"{grid}"'] + [f'"{v:,}"' for v in values]
        lines.append(",".join(cells))
    return "\n".join(lines) + "\n"


class ModelVsNcu(unittest.TestCase):
    def run_script(self, model_rows, launches):
        with tempfile.TemporaryDirectory() as tmp:
            model = Path(tmp) / "model.csv"
            model.write_text(MODEL_HEADER + "".join(model_rows))
            raw = Path(tmp) / "raw.csv"
            raw.write_text(ncu_csv(launches))
            out = Path(tmp) / "out.md"
            status = model_vs_ncu.main(["--model", str(model), "--ncu", str(raw), "--out", str(out)])
            return status, out.read_text()

    def test_equal_counts_on_the_same_grid_are_exact(self):
        status, text = self.run_script(
            ['02_tiled,128,"tiled_gemm<8>","tiled_gemm<8>",256,64,16384,65536,512,2048,'
             '131072,131072,131072,16384,16384,16384\n'],
            [("void ch02::tiled_gemm<8>(float const*, float const*, float*, int, int, int)",
              "(4, 4, 1)", [2048, 8192, 64, 256, 16384, 16384, 2048, 2048]),  # resources launch
             ("void ch02::tiled_gemm<8>(float const*, float const*, float*, int, int, int)",
              "(16, 16, 1)", [16384, 65536, 512, 2048, 131072, 131072, 16384, 16384])])
        self.assertEqual(status, 0, text)
        self.assertIn("| exact", text)

    def test_a_sector_more_fails(self):
        status, text = self.run_script(
            ['01_naive,128,"naive_gemm","naive_gemm",16,1024,131072,327680,512,2048,0,0,0,0,0,0\n'],
            [("void ch01::naive_gemm(float const*, float const*, float*, int, int, int)",
              "(1, 16, 1)", [131072, 327681, 512, 2048, 0, 0, 0, 0])])
        self.assertEqual(status, 1)
        self.assertIn("differs", text)

    def test_merged_shared_instructions_are_reported_not_judged(self):
        status, text = self.run_script(
            ['02_tiled,128,"tiled_gemm<32>","tiled_gemm<32>",16,1024,4096,16384,512,2048,'
             '131072,131072,131072,4096,4096,4096\n'],
            [("void ch02::tiled_gemm<32>(float const*, float const*, float*, int, int, int)",
              "(4, 4, 1)", [4096, 16384, 512, 2048, 65536, 81920, 4096, 4096])])
        self.assertEqual(status, 0, text)
        self.assertIn("not compared", text)

    def test_another_grid_is_compared_per_request(self):
        # The coalescing demo: 2^24 floats under ncu, 256^2 in the model; stride 32 either way.
        status, text = self.run_script(
            ['06_transpose,256,"gather_copy","stride 32",256,256,2048,65536,2048,8192,0,0,0,0,0,0\n'],
            [("void ch06::gather_copy(float const*, float*, int, int, int)", "(65536, 1, 1)",
              [524288, 16777216, 524288, 2097152, 0, 0, 0, 0])])
        self.assertEqual(status, 0, text)
        self.assertIn("per request", text)

    def test_names_as_the_model_writes_them(self):
        self.assertEqual(model_vs_ncu.normalize(
            "void ch06::transpose_vec4<64, 256, (ch06::BlockOrder)1>(float const*, float*, int, int)"),
            "transpose_vec4<64, 256, 1>")
        self.assertEqual(model_vs_ncu.normalize(
            "void ch05::lean_gemm<128, 128, 16, 64, 32, 8, 8, true>(float const*, float const*, "
            "float*, int, int, int)"), "lean_gemm<128, 128, 16, 64, 32, 8, 8, 1>")

    def test_a_kernel_ncu_never_saw_fails(self):
        status, text = self.run_script(
            ['01_naive,128,"naive_gemm","naive_gemm",16,1024,131072,327680,512,2048,0,0,0,0,0,0\n'],
            [])
        self.assertEqual(status, 1)
        self.assertIn("no ncu launch", text)


if __name__ == "__main__":
    unittest.main()
