#!/usr/bin/env python3
"""Tests of common/scripts/model_vs_ncu.py on fabricated model and ncu exports (no GPU).

Python 3 standard library only (unittest), like the script it tests.
"""
import os
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
SCRIPTS = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(SCRIPTS))
import model_vs_ncu  # noqa: E402

MODEL_HEADER = ("chapter,size,kernel,label,blocks,threads_per_block,gld_requests,gld_sectors,"
                "gst_requests,gst_sectors,sld_requests,sld_wavefronts,sld_ideal_wavefronts,"
                "sst_requests,sst_wavefronts,sst_ideal_wavefronts\n")
METRICS = list(model_vs_ncu.COUNTERS.values())


def ncu_csv(launches, sms=132):
    """An export as `ncu --csv --page raw --print-units base` prints it to stdout: ncu's own
    messages and the program's output first, then a header, a units row, then one row per
    launch (name, grid, the counters in COUNTERS order, the GPU's SM count)."""
    header = ['"ID"', '"Kernel Name"', '"Grid Size"'] + [f'"{m}"' for m in METRICS] + \
        [f'"{model_vs_ncu.SM_COUNT}"']
    units = ['""', '""', '""'] + ['""'] * len(METRICS) + ['""']
    lines = ["==PROF== Connected to process", "kernel  threads  regs", "naive_gemm, 1024, 32",
             ",".join(header), ",".join(units)]
    for i, (name, grid, values) in enumerate(launches):
        cells = [f'"{i}"', f'"{name}"', f'"{grid}"'] + [f'"{v:,}"' for v in values] + [f'"{sms}"']
        lines.append(",".join(cells))
    return "\n".join(lines) + "\n"


class ModelVsNcu(unittest.TestCase):
    def run_script(self, model_rows, launches, header=MODEL_HEADER):
        with tempfile.TemporaryDirectory() as tmp:
            model = Path(tmp) / "model.csv"
            model.write_text(header + "".join(model_rows))
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

    # The whole coalescing demo, as `make analyze` names it since its launches are named by
    # their kernel (they once read __start_tutorial_kernels and had no partner): strides 1 to
    # 32, then stride 1 one float off, in the model at 256^2 floats and under ncu at 2^24,
    # each ncu launch twice (the check, then the timed run).
    DEMO = [(1, 0, 4), (2, 0, 8), (4, 0, 16), (8, 0, 32), (16, 0, 32), (32, 0, 32), (1, 1, 5)]

    def test_the_coalescing_demo_is_compared_launch_by_launch(self):
        model = [f'06_transpose,256,"gather_copy","stride {s}{", offset +1 float" if o else ""}",'
                 f'256,256,2048,{2048 * sectors},2048,8192,0,0,0,0,0,0\n'
                 for s, o, sectors in self.DEMO]
        name = "void ch06::gather_copy(float const*, float*, int, int, int)"
        launches = [(name, "(65536, 1, 1)", [524288, 524288 * sectors, 524288, 2097152, 0, 0, 0, 0])
                    for _, _, sectors in self.DEMO for _ in range(2)]
        status, text = self.run_script(model, launches)
        self.assertEqual(status, 0, text)
        self.assertEqual(text.count("| per request |"), 7, text)
        self.assertNotIn("not compared", text)
        self.assertNotIn("differs", text)

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

    # Chapter 05's any_shape launcher: on the CPU backend's 1 SM it runs one 128x128 tile per
    # block, on 132 SMs split-K with 64x64 tiles; neither launch has a partner on the other side.
    SLICED = ('05_double_buffer,256,"sliced_gemm<128, 128, 16, 32, 64, 8, 8, 1>","any_shape",4,256,'
              '2048,8192,512,2048,0,0,0,0,0,0,{sms}\n')
    NCU_SLICED = [("void ch05::sliced_gemm<64, 64, 16, 32, 32, 4, 4, true>(float const*, float "
                   "const*, float*, int, int, int, int)", "(4, 4, 4)", [1024, 4096, 1024, 4096, 0, 0, 0, 0])]

    def test_a_plan_for_another_sm_count_is_not_compared_and_says_how_to_fix_it(self):
        status, text = self.run_script([self.SLICED.format(sms=1)], self.NCU_SLICED,
                                       header=MODEL_HEADER.rstrip("\n") + ",sms\n")
        self.assertEqual(status, 0, text)
        self.assertIn("not compared", text)
        self.assertIn("ANALYZE_SMS=132", text)

    def test_a_plan_for_this_sm_count_must_match(self):
        status, text = self.run_script([self.SLICED.format(sms=132)], self.NCU_SLICED,
                                       header=MODEL_HEADER.rstrip("\n") + ",sms\n")
        self.assertEqual(status, 1, text)
        self.assertIn("no ncu launch", text)

    def test_a_split_k_launcher_is_its_slices_plus_their_sum(self):
        # The model's row counts the whole launcher; ncu sees the slices and then the sum.
        slices = [4096, 16384, 4096, 16384, 8192, 8192, 1024, 1024]
        total = [4096 + 512, 16384 + 2048, 4096 + 128, 16384 + 512, 8192, 8192, 1024, 1024]
        row = ('05_double_buffer,256,"sliced_gemm<64, 64, 16, 32, 32, 8, 4, 1>","any_shape",256,'
               '128,{},{},{},{},{},{},{},{},{},{},132\n').format(
                   total[0], total[1], total[2], total[3], total[4], total[5], total[5],
                   total[6], total[7], total[7])
        launches = [("void ch05::sliced_gemm<64, 64, 16, 32, 32, 8, 4, true>(float const*, float "
                     "const*, float*, int, int, int, int)", "(4, 4, 16)", slices),
                    ("void ch05::sum_slices<float>(float const*, float*, int, int)", "(256, 1, 1)",
                     [512, 2048, 128, 512, 0, 0, 0, 0])]
        status, text = self.run_script([row], launches, header=MODEL_HEADER.rstrip("\n") + ",sms\n")
        self.assertEqual(status, 0, text)
        self.assertIn("| exact", text)
        self.assertIn("sum_slices", text)
        # Without the sum the slices alone are short of the model's count.
        status, text = self.run_script([row], launches[:1], header=MODEL_HEADER.rstrip("\n") + ",sms\n")
        self.assertEqual(status, 1, text)

    def test_a_missing_model_is_one_line_not_a_traceback(self):
        with tempfile.TemporaryDirectory() as tmp:
            done = subprocess.run(
                [sys.executable, str(SCRIPTS / "model_vs_ncu.py"), "--model",
                 str(Path(tmp) / "06_transpose-model.csv"), "--ncu", str(Path(tmp) / "raw.csv")],
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.assertEqual(done.returncode, 2)
        self.assertNotIn("Traceback", done.stderr)
        self.assertEqual(len(done.stderr.strip().splitlines()), 1, done.stderr)
        self.assertIn("make analyze", done.stderr)


class MakeModelCheck(unittest.TestCase):
    """`make model-check` without the model's CSVs: one line saying what to run (no GPU needed:
    the CSVs are looked for before ncu and the GPU)."""

    def run_make_target(self, build_dir, model_dir=None):
        env = {k: v for k, v in os.environ.items() if k not in ("MODEL_DIR", "BUILD_DIR")}
        env["BUILD_DIR"] = str(build_dir)
        if model_dir is not None:
            env["MODEL_DIR"] = str(model_dir)
        return subprocess.run(["bash", str(SCRIPTS / "inspect_model_check.sh"), "01_naive",
                               "06_transpose"], env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)

    def assert_one_line(self, done, *words):
        self.assertEqual(done.returncode, 2, done.stdout + done.stderr)
        self.assertNotIn("Traceback", done.stderr)
        self.assertEqual(len(done.stderr.strip().splitlines()), 1, done.stderr)
        for word in words:
            self.assertIn(word, done.stderr)

    def test_a_build_without_the_analyzers_says_what_to_run(self):
        with tempfile.TemporaryDirectory() as tmp:
            self.assert_one_line(self.run_make_target(tmp), "make analyze", "MODEL_DIR=")

    def test_a_model_dir_without_the_csvs_names_them(self):
        with tempfile.TemporaryDirectory() as tmp:
            (Path(tmp) / "01_naive-model.csv").write_text("chapter\n")
            self.assert_one_line(self.run_make_target(tmp, model_dir=tmp),
                                 "06_transpose-model.csv", "make analyze")


if __name__ == "__main__":
    unittest.main()
