#!/usr/bin/env python3
"""Tests of common/scripts/progression.py, on the fabricated sample_progression.json.

  test_progression.py tables [--out DIR]   the text table, CSV, README blocks, and `run` driving
                                           fake chapter executables (no GPU needed)
  test_progression.py plots  [--out DIR]   the four images; exits 77 (CTest: skipped) when
                                           gnuplot is not installed

Python 3 standard library only (unittest), like the script it tests.
"""
import contextlib
import copy
import csv
import io
import json
import shutil
import sys
import tempfile
import textwrap
import unittest
import xml.etree.ElementTree as ElementTree
from pathlib import Path

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import progression  # noqa: E402

FIXTURE = HERE / "sample_progression.json"
GPU = "Sample GPU (test fixture)"
SKIP = 77  # CTest's SKIP_RETURN_CODE for these tests
OUT = None  # folder for the files the tests write; set by main()


def sample():
    return progression.load_results(FIXTURE)


def kernels_of(doc, executable):
    return [row["kernel"] for run in doc["runs"] if run["executable"] == executable
            for row in run["rows"] if row["chapter"] != "ceiling"]


def quiet(function, *args):
    """Calls function; returns (result, what it wrote to stdout, what it wrote to stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        result = function(*args)
    return result, out.getvalue(), err.getvalue()


class Tables(unittest.TestCase):
    def test_text_table_has_header_every_row_and_each_ceiling_once(self):
        doc = sample()
        text = progression.text_table(doc)
        self.assertIn(f"GPU: {GPU} (driver 99.9, runtime 99.8)  2000-01-01T00:00:00Z", text)
        self.assertIn("copy bandwidth 2,000 GB/s", text)
        self.assertIn("FP32 peak 50,000 GFLOP/s", text)
        for title in ["chapter", "kernel", "size", "time ms", "rate", "% ceiling", "FLOP/B",
                      "% roofline", "occupancy", "status"]:
            self.assertIn(title, next(l for l in text.splitlines() if l.startswith("chapter")))
        for executable, _ in progression.SCHEDULE:
            for kernel in kernels_of(doc, executable):
                self.assertIn(kernel, text)
        # five GEMM chapters ran at 4096, four at 8192: cuBLAS is shown once per size, and so
        # is the transpose's copy
        ceilings = [line.split()[1] for line in text.splitlines() if line.startswith("ceiling ")]
        self.assertEqual(ceilings, ["cuBLAS", "cuBLAS", "cudaMemcpy", "copy", "cudaMemcpy", "copy"])
        self.assertIn("25% (shared memory)", text)
        self.assertIn("33,500 GFLOP/s", text)

    def test_csv_has_one_line_per_row_with_size_and_gpu(self):
        doc = sample()
        out = Path(tempfile.mkdtemp(dir=OUT))
        json_path, csv_path = progression.write_results(doc, out)
        self.assertEqual(json.loads(json_path.read_text()), doc)
        with csv_path.open() as f:
            rows = list(csv.DictReader(f))
        self.assertEqual(len(rows), sum(len(run["rows"]) for run in doc["runs"]))
        self.assertEqual(list(rows[0]), progression.CSV_FIELDS)
        self.assertEqual({r["gpu"] for r in rows}, {GPU})
        self.assertEqual({r["size"] for r in rows}, {"4096", "8192", "16384"})
        transpose = [r for r in rows if r["executable"] == "06_transpose"]
        self.assertEqual(transpose[0]["intensity"], "")  # null in JSON: empty in CSV

    def test_chapter_block_lists_its_rows_and_its_ceiling(self):
        block = progression.chapter_markdown(sample(), "02_tiled")
        self.assertTrue(block.startswith(
            f"Measured by `make run` on **{GPU}** (CUDA driver 99.9, CUDA runtime 99.8), "
            "2000-01-01T00:00:00Z, M=4096 N=4096 K=4096;"), block)
        self.assertIn("M=8192 N=8192 K=8192;", block)
        # No profile digest: no measured intensity, so no roofline columns (the model's
        # intensity alone does not place a kernel under its real roof).
        self.assertEqual(block.count("| kernel | time (ms) | GFLOP/s | % of cuBLAS | FLOP/byte "
                                     "(model) | occupancy (limiter) | status |"), 2)
        self.assertNotIn("roofline", block)
        self.assertIn("| cuBLAS SGEMM (ceiling) | 3.436 | 40,000 | 100.0% | 682.67 | - "
                      "| ok |", block)
        # < and > as entities: tiled_gemm<32> must not read as an HTML tag
        self.assertIn("| tiled_gemm&lt;32&gt; | 19.089 | 7,200 | 18.0% | 8.00 | "
                      "67% (blocks) | ok |", block)
        self.assertNotIn("bounds", block)  # only this chapter's kernels

    def test_transpose_block_drops_the_columns_it_has_no_numbers_for(self):
        block = progression.chapter_markdown(sample(), "06_transpose")
        self.assertIn("| kernel | time (ms) | GB/s | % of cudaMemcpy D2D | occupancy (limiter) | "
                      "status |", block)
        self.assertNotIn("FLOP/byte", block)
        self.assertIn("16384x16384 floats", block)
        self.assertIn("| copy 32x8 (ceiling) | 0.283 | 1,900 | 97.4% | 100% (warps) | ok |", block)
        self.assertIn("| padded 32x(32+1), 32x8 threads | 0.298 | 1,800 | 92.3% | 100% (warps) "
                      "| ok |", block)

    def test_progression_block_has_every_gemm_kernel_at_both_sizes(self):
        doc = sample()
        block = progression.progression_markdown(doc)
        self.assertIn(f"**{GPU}**", block)
        self.assertIn("| kernel | chapter | GFLOP/s at 4096 | % of cuBLAS at 4096 | "
                      "GFLOP/s at 8192 | % of cuBLAS at 8192 |", block)
        rows = [line for line in block.splitlines() if line.startswith("| ")][1:]
        gemm = [(k, c) for c, _ in progression.SCHEDULE[:5] for k in kernels_of(doc, c)]
        self.assertEqual(len(rows), len(set(gemm)) + 1)  # + cuBLAS
        for kernel, chapter in gemm:
            cell = progression.md_cell(kernel)
            self.assertTrue(any(line.startswith(f"| {cell} | {chapter} |") for line in rows),
                            kernel)
        self.assertEqual(rows[0], "| naive_gemm | 01_naive | 420 | 1.1% | not run | - |")
        # the same kernel name in two chapters: two rows
        self.assertIn("| tiled_gemm&lt;16&gt; | 03_bounds | 5,900 | 14.8% | 5,487 | 13.1% |", rows)
        self.assertEqual(rows[-1],
                         "| cuBLAS SGEMM | ceiling | 40,000 | 100.0% | 42,000 | 100.0% |")
        self.assertIn("| double_buffer 128x128x8 8x8 | 05_double_buffer | 33,500 | 83.8% | 31,155 "
                      "| 74.2% |", block)
        self.assertNotIn("transpose", block)

    def test_headline_block_has_each_chapters_fastest_kernel_at_every_size(self):
        doc = sample()
        block = progression.headline_markdown(doc)
        self.assertIn(f"**{GPU}**", block)
        rows = [line for line in block.splitlines() if line.startswith("| ")][1:]
        self.assertEqual([row.split(" | ")[0][2:] for row in rows],
                         [chapter for chapter, _ in progression.SCHEDULE])
        self.assertIn("| 01_naive | naive_gemm_swapped | 1.2% at 4096³ | cuBLAS |", rows)
        self.assertIn("| 04_register_block | register_2d 128x128x8 8x8 | 75.0% at 4096³, "
                      "66.4% at 8192³ | cuBLAS |", rows)
        # the copy kernel is a ceiling row, not the transpose's fastest kernel; of the two
        # ceilings the higher one counts, named at each size
        self.assertIn("| 06_transpose | padded 32x(32+1), 32x8 threads | 92.3% of cudaMemcpy D2D "
                      "at 8192², 92.3% of cudaMemcpy D2D at 16384² | the higher of copy 32x8 and "
                      "cudaMemcpy D2D |", rows)
        # a WRONG row never heads its chapter; nothing measured: no block
        for run in doc["runs"]:
            for row in run["rows"]:
                if row.get("kernel") == "register_2d 128x128x8 8x8":
                    row["status"] = "WRONG: 1 of 16 elements differ"
        self.assertIn("| 04_register_block | vectorized 32x32x32", progression.headline_markdown(doc))
        self.assertEqual(progression.headline_markdown({**doc, "runs": []}), "")

    def test_headline_takes_the_higher_of_two_ceilings(self):
        doc = copy.deepcopy(sample())
        run = next(r for r in doc["runs"] if r["executable"] == "06_transpose" and r["size"] == 16384)
        copy_row = next(r for r in run["rows"] if r.get("kernel") == "copy 32x8")
        copy_row["rate"] = 2000.0  # faster than cudaMemcpy's 1950 at this size only
        rows = [line for line in progression.headline_markdown(doc).splitlines()
                if line.startswith("| 06_transpose")]
        # 1800 / 2000: 90.0% of the copy kernel at 16384²; at 8192² still 92.3% of cudaMemcpy
        self.assertEqual(rows, ["| 06_transpose | padded 32x(32+1), 32x8 threads | 92.3% of "
                                "cudaMemcpy D2D at 8192², 90.0% of copy 32x8 at 16384² | the "
                                "higher of copy 32x8 and cudaMemcpy D2D |"])

    def test_skipped_wrong_and_failed_runs_are_named_not_hidden(self):
        doc = copy.deepcopy(sample())
        run = next(r for r in doc["runs"] if r["executable"] == "04_register_block")
        skipped, wrong = run["rows"][1], run["rows"][2]
        skipped.update(status="skipped: M must be a multiple of 64", median_ms=None, rate=None,
                       pct_of_ceiling=None, pct_of_roofline=None, occupancy=None)
        wrong["status"] = "WRONG: 12 of 16777216 elements differ"
        doc["runs"].append({"executable": "05_double_buffer", "size": 16384, "exit_code": 1,
                            "rows": [], "error": "exit code 1: error: out of memory"})
        block = progression.progression_markdown(doc)
        self.assertIn(f"| {skipped['kernel']} | 04_register_block | skipped | - |", block)
        self.assertIn(f"| {wrong['kernel']} | 04_register_block | 30,000 (WRONG) |", block)
        chapter = progression.chapter_markdown(doc, "05_double_buffer")
        self.assertIn("Not measured at size 16384: exit code 1: error: out of memory.", chapter)
        self.assertIn("FAILED: 05_double_buffer --size 16384", progression.text_table(doc))

    def test_readme_blocks_are_refilled_and_the_rest_is_left_alone(self):
        root = Path(tempfile.mkdtemp(dir=OUT))
        block = ("<!-- BEGIN GENERATED: {0} -->\n_Not measured yet._\n"
                 "<!-- END GENERATED: {0} -->\n")
        files = {
            "README.md": "# Top\n\n" + block.format("progression") + "\nafter\n",
            "02_tiled/README.md": "# Tiled\n\nbefore\n\n" + block.format("results") + "\nafter\n",
            "05_double_buffer/README.md": (block.format("results") + "\n"
                                           + block.format("progression")),
            "07_future/README.md": "x\n" + block.format("results") + block.format("something-else"),
            "common/results/README.md": "# Results\n\n" + block.format("progression"),
        }
        for name, text in files.items():
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            (root / name).write_text(text)
        doc = sample()
        changed, _, _ = quiet(progression.readme_tables, doc, root)
        self.assertEqual(sorted(str(p.relative_to(root)) for p in changed),
                         ["02_tiled/README.md", "05_double_buffer/README.md", "README.md",
                          "common/results/README.md"])
        tiled = (root / "02_tiled/README.md").read_text()
        self.assertEqual(tiled, "# Tiled\n\nbefore\n\n<!-- BEGIN GENERATED: results -->\n"
                         + progression.chapter_markdown(doc, "02_tiled")
                         + "\n<!-- END GENERATED: results -->\n\nafter\n")
        five = (root / "05_double_buffer/README.md").read_text()
        self.assertIn(progression.chapter_markdown(doc, "05_double_buffer"), five)
        self.assertIn(progression.progression_markdown(doc), five)
        self.assertIn(progression.progression_markdown(doc), (root / "README.md").read_text())
        self.assertIn(progression.progression_markdown(doc),
                      (root / "common/results/README.md").read_text())
        # no data for this chapter, and a block this script does not know: both left as they were
        self.assertEqual((root / "07_future/README.md").read_text(), files["07_future/README.md"])
        # running it again changes nothing
        self.assertEqual(quiet(progression.readme_tables, doc, root)[0], [])
        # a README block with no data (again) says so
        (root / "02_tiled/README.md").write_text(tiled)
        progression.readme_tables({**doc, "runs": []}, root)
        self.assertEqual((root / "02_tiled/README.md").read_text(), files["02_tiled/README.md"])

    def test_readme_with_an_unclosed_block_is_an_error(self):
        with self.assertRaisesRegex(progression.Failure, "no matching"):
            progression.fill_readme("<!-- BEGIN GENERATED: results -->\nx\n", "02_tiled", sample())
        # The markers named in prose (common/README.md does) are not blocks.
        prose = "| a table cell naming `<!-- BEGIN GENERATED: NAME -->` |\n"
        self.assertEqual(progression.fill_readme(prose, "02_tiled", sample()), prose)

    def test_missing_results_file_says_to_run_make_run(self):
        with self.assertRaisesRegex(progression.Failure, "make run"):
            progression.load_results(Path(tempfile.mkdtemp(dir=OUT)) / "progression.json")

    def test_table_command(self):
        code, out, _ = quiet(progression.main, ["table", "--json", str(FIXTURE)])
        self.assertEqual(code, 0)
        self.assertIn(GPU, out)


class Run(unittest.TestCase):
    """`run` against fake chapter executables that replay the fixture's reports."""

    def fake_build(self, chapters, body=None):
        build = Path(tempfile.mkdtemp(dir=OUT))
        (build / "bin").mkdir()
        for chapter in chapters:
            exe = build / "bin" / chapter
            exe.write_text(f"#!{sys.executable}\n" + (body or textwrap.dedent(f"""\
                import json, sys
                size = int(sys.argv[sys.argv.index("--size") + 1])
                print("[{chapter}] fake executable, argv:", " ".join(sys.argv[1:]), file=sys.stderr)
                runs = json.load(open({str(FIXTURE)!r}))["runs"]
                run = next(r for r in runs if r["executable"] == "{chapter}" and r["size"] == size)
                skip = ("executable", "size", "exit_code")  # added by `run`, not by a chapter
                print(json.dumps({{k: v for k, v in run.items() if k not in skip}}))
                """)))
            exe.chmod(0o755)
        return build

    def test_run_merges_every_report_and_passes_extra_flags(self):
        build = self.fake_build(["02_tiled", "06_transpose"])
        results = Path(tempfile.mkdtemp(dir=OUT))
        code, out, err = quiet(progression.main, [
            "run", "--build-dir", str(build), "--results", str(results),
            "--only", "02_tiled,06_transpose", "--", "--iters", "3"])
        self.assertEqual(code, 0, err)
        self.assertIn("== [1/4] 02_tiled --size 4096", err)  # progress: which chapter, which size
        self.assertIn("argv: --size 8192 --iters 3 --json", err)  # the executable's own stderr
        doc = json.loads((results / "progression.json").read_text())
        import progression_digests  # the rows as `run` stores them: no digest here, the model's
        expected = progression_digests.annotate_roofline(sample(), results / "inspect")["runs"]
        expected = [r for r in expected if r["executable"] in ("02_tiled", "06_transpose")]
        self.assertEqual(doc["runs"], expected)
        self.assertEqual((doc["gpu"], doc["driver"], doc["runtime"], doc["date"]),
                         (GPU, "99.9", "99.8", "2000-01-01T00:00:00Z"))
        self.assertEqual(doc["copy_bandwidth_gbs"], 2000.0)  # the best of the runs
        self.assertTrue((results / "progression.csv").is_file())
        self.assertIn("tiled_gemm<16>", out)

    def test_keep_others_replaces_only_the_chapters_measured(self):
        build = self.fake_build(["02_tiled"])
        results = Path(tempfile.mkdtemp(dir=OUT))
        stored = sample()
        for run in stored["runs"]:  # mark the stored runs, to tell them from the new ones
            run["date"] = "1999-01-01T00:00:00Z"
        (results / "progression.json").write_text(json.dumps(stored))
        code, _, err = quiet(progression.main, ["run", "--build-dir", str(build), "--results",
                                                str(results), "--only", "02_tiled",
                                                "--keep-others"])
        self.assertEqual(code, 0, err)
        doc = json.loads((results / "progression.json").read_text())
        # The same chapters and sizes, in the same order; only 02_tiled's runs are new.
        self.assertEqual([(r["executable"], r["size"]) for r in doc["runs"]],
                         [(r["executable"], r["size"]) for r in stored["runs"]])
        for run in doc["runs"]:
            new = run["executable"] == "02_tiled"
            self.assertEqual(run["date"] == "1999-01-01T00:00:00Z", not new, run["executable"])
        self.assertIn("--keep-others", doc["about"])
        # The landing page's line names each date with its chapters.
        headline = progression.headline_markdown(doc)
        self.assertIn("1999-01-01 (", headline)
        self.assertIn("2000-01-01 (02_tiled)", headline)
        # Stored runs of another GPU are refused, and nothing is written.
        stored["gpu"] = "Another GPU"
        (results / "progression.json").write_text(json.dumps(stored))
        code, _, err = quiet(progression.main, ["run", "--build-dir", str(build), "--results",
                                                str(results), "--only", "02_tiled",
                                                "--keep-others"])
        self.assertEqual(code, 2)
        self.assertIn("measured on Another GPU", err)
        self.assertEqual(json.loads((results / "progression.json").read_text())["gpu"],
                         "Another GPU")
        # ... but the new runs are not lost.
        self.assertEqual(json.loads((results / "progression.rejected.json").read_text())["gpu"],
                         GPU)

    def test_the_l2_roof_comes_from_01_memory_system(self):
        build = self.fake_build(["02_tiled"])
        results = Path(tempfile.mkdtemp(dir=OUT))
        fake = build / "bin" / "01_memory_system"
        fake.write_text(f"#!{sys.executable}\n" + textwrap.dedent("""\
            import json, sys
            assert "--json" in sys.argv and "--size" not in sys.argv
            rows = [{"kernel": "read 16 MB x 64", "rate": 7000.0},
                    {"kernel": "L2 read bandwidth (best working set <= half the L2)",
                     "rate": 7485.5}]
            print(json.dumps({"rows": rows}))
            """))
        fake.chmod(0o755)
        code, _, err = quiet(progression.main, ["run", "--build-dir", str(build), "--results",
                                                str(results), "--only", "02_tiled"])
        self.assertEqual(code, 0, err)
        doc = json.loads((results / "progression.json").read_text())
        self.assertEqual(doc["l2_bandwidth_gbs"], 7485.5)
        # Without the executable the document says so with null, and the plot has no L2 roof.
        fake.unlink()
        code, _, err = quiet(progression.main, ["run", "--build-dir", str(build), "--results",
                                                str(results), "--only", "02_tiled"])
        self.assertEqual(code, 0, err)
        self.assertIsNone(json.loads((results / "progression.json").read_text())["l2_bandwidth_gbs"])

    def test_no_gpu_surfaces_the_message_and_writes_nothing(self):
        build = self.fake_build(["01_naive", "02_tiled"], body=textwrap.dedent("""\
            import sys
            print("error: no CUDA device found.", file=sys.stderr)
            sys.exit(3)
            """))
        results = Path(tempfile.mkdtemp(dir=OUT)) / "results"
        code, _, err = quiet(progression.main, ["run", "--build-dir", str(build), "--results",
                                                str(results)])
        self.assertEqual(code, 3)
        self.assertIn("error: no CUDA device found.", err)
        self.assertIn("needs an NVIDIA GPU; no results were written", err)
        self.assertNotIn("02_tiled", err)  # stopped at the first chapter
        self.assertFalse(results.exists())

    def test_missing_executable_is_named_and_fails_the_run(self):
        build, results = self.fake_build(["02_tiled"]), Path(tempfile.mkdtemp(dir=OUT))
        code, _, err = quiet(progression.main, ["run", "--build-dir", str(build), "--results",
                                                str(results), "--only", "01_naive,02_tiled"])
        self.assertEqual(code, 1)
        self.assertIn("bin/01_naive does not exist: the chapter was not built", err)
        doc = json.loads((results / "progression.json").read_text())
        self.assertEqual([bool(r["rows"]) for r in doc["runs"]], [False, False, True, True])

    def test_size_flags_in_args_are_refused(self):
        code, _, err = quiet(progression.main, ["run", "--", "--size", "64"])
        self.assertEqual(code, 2)
        self.assertIn("ARGS may not contain --size", err)

    def test_sizes_override_the_schedule(self):
        self.assertEqual(progression.parse_schedule("01_naive", ["01_naive=4096"]),
                         [("01_naive", [4096])])
        with self.assertRaises(progression.Failure):
            progression.parse_schedule(None, ["99_nothing=1"])


class Plots(unittest.TestCase):
    def test_roofline_and_progression_as_png_and_svg(self):
        out = Path(OUT) / "plots"
        written = progression.make_plots(sample(), out)
        self.assertEqual(sorted(p.name for p in written),
                         ["progression.png", "progression.svg", "roofline.png", "roofline.svg"])
        for path in written:
            self.assertGreater(path.stat().st_size, 10_000, path)
            if path.suffix == ".png":
                head = path.read_bytes()[:24]
                self.assertEqual(head[:8], b"\x89PNG\r\n\x1a\n", path)
                self.assertGreaterEqual(int.from_bytes(head[16:20], "big"), 1100, path)  # width
            else:
                svg = path.read_text()
                self.assertEqual(ElementTree.fromstring(svg).tag, "{http://www.w3.org/2000/svg}svg")
                self.assertIn(GPU, svg)
                self.assertIn("double_buffer 128x128x8 8x8 (05_double_buffer)", svg)
        self.assertIn("ridge 25.0 FLOP/B", (out / "roofline.svg").read_text())
        self.assertNotIn("L2 roof", (out / "roofline.svg").read_text())  # none measured
        self.assertIn("not run at 8192", (out / "progression.svg").read_text())

    def test_no_l2_roof_on_an_axis_of_dram_bytes(self):
        # An L2 roof bounds FLOP per L2 byte; no point of this plot sits at such an intensity,
        # so even a measured L2 bandwidth draws none (chapter 01 has the L2's numbers).
        doc = {**sample(), "l2_bandwidth_gbs": 5000.0}
        progression.make_plots(doc, Path(OUT) / "plots-l2")
        svg = (Path(OUT) / "plots-l2" / "roofline.svg").read_text()
        self.assertNotIn("L2 roof", svg)
        # The title is centred on the picture, not on the plot area (it ran off the left edge).
        self.assertIn("Roofline of Sample GPU", svg)

    def test_roofline_at_another_size(self):
        progression.make_plots(sample(), Path(OUT) / "plots-8192", 8192)
        with self.assertRaisesRegex(progression.Failure, "measured: 4096, 8192"):
            progression.make_plots(sample(), Path(OUT) / "plots-none", 1234)


class Digests(unittest.TestCase):
    """progression_digests: the profiler's DRAM bytes reach the roofline only for the kernel,
    GPU and size they were measured on."""

    def digest(self, folder, gpu=GPU, size=4096, rows=None):
        rows = rows or [("naive_gemm", "4.3 GB", "68.7 MB", "327.24 ms"),
                        ("naive_gemm_swapped", "8.5 GB", "75.5 MB", "286.33 ms")]
        table = "\n".join(f"| `{name}` | 1 GB | 1 GB | {read} | {written} | 0 | {ms} |"
                          for name, read, written, ms in rows)
        Path(folder, "01_naive-profile.md").write_text(
            f"### Nsight Compute digest: 01_naive\n\n{gpu}; `ncu ... build/bin/01_naive --size "
            f"{size} --iters 1 --no-check`\n\nWhere the traffic goes (bytes per launch):\n\n"
            "| kernel | asked | L2 | DRAM read | DRAM written | wavefronts | time |\n"
            "| --- | ---: | ---: | ---: | ---: | ---: | ---: |\n" + table + "\n")

    def measured(self, **digest):
        import progression_digests
        folder = tempfile.mkdtemp(dir=OUT)
        self.digest(folder, **digest)
        return progression_digests.measured_intensities(sample(), folder, 4096)

    def test_the_measured_intensity_of_each_profiled_kernel(self):
        found = self.measured()
        # 2 * 4096^3 FLOP / (4.3 GB + 68.7 MB), and / (8.5 GB + 75.5 MB)
        self.assertAlmostEqual(found[("01_naive", "naive_gemm")], 137438953472 / 4.3687e9, 3)
        self.assertAlmostEqual(found[("01_naive", "naive_gemm_swapped")],
                               137438953472 / 8.5755e9, 3)

    def test_probe_launches_and_a_last_launcher_row_are_skipped(self):
        probe = ("sliced_gemm<64, 64, 16, 32, 32, 8, 4, 1>", "87 KB", "0 B", "0.00 ms")
        rows = [probe, ("naive_gemm", "4.3 GB", "68.7 MB", "327.24 ms")]
        # The sample's last row (naive_gemm_swapped) has no digest kernel of its own here: it
        # stands for a launcher that ran a kernel already listed.
        found = self.measured(rows=rows)
        self.assertEqual(list(found), [("01_naive", "naive_gemm")])

    def test_a_demo_launched_before_the_rows_is_skipped(self):
        # Chapter 01's executable runs its coalescing demo first: its launches (long enough not
        # to pass for probes) head the digest.
        demo = [("gather_copy", "536.9 MB", "65.8 MB", "38.00 ms"),
                ("x_of_points_aos", "268.4 MB", "59.4 MB", "11.00 ms")]
        rows = demo + [("naive_gemm", "4.3 GB", "68.7 MB", "327.24 ms"),
                       ("naive_gemm_swapped", "8.5 GB", "75.5 MB", "286.33 ms")]
        found = self.measured(rows=rows)
        self.assertEqual(sorted(found), [("01_naive", "naive_gemm"), ("01_naive", "naive_gemm_swapped")])

    def test_a_last_launcher_row_with_kernels_of_other_names_gets_no_point(self):
        # Chapter 05's stream-K row: the launcher ran stream_k_gemm and its fixup, listed after
        # the kernels of the rows before it.
        rows = [("naive_gemm", "4.3 GB", "68.7 MB", "327.24 ms"),
                ("stream_k_gemm<128, 128, 16, 32, 64, 8, 8, 1>", "964.9 MB", "77.2 MB", "290 ms"),
                ("stream_k_fixup<128, 128, 256, 1>", "32.0 MB", "2.5 MB", "0.02 ms")]
        found = self.measured(rows=rows)
        self.assertEqual(list(found), [("01_naive", "naive_gemm")])
        # A digest whose first kernel is not the first row's: nothing.
        self.assertEqual(self.measured(rows=rows[1:]), {})

    def test_the_results_block_puts_profiled_kernels_under_their_measured_roof(self):
        folder = tempfile.mkdtemp(dir=OUT)
        self.digest(folder)
        block = progression.chapter_markdown(sample(), "01_naive", folder)
        self.assertIn("| kernel | time (ms) | GFLOP/s | % of cuBLAS | FLOP/byte (model) | FLOP/byte "
                      "(DRAM, measured) | % of roofline (measured FLOP/byte) | occupancy (limiter) "
                      "| status |", block)
        # 2 * 4096^3 / 4.3687e9 B = 31.5 FLOP/B: the roof is the peak, 50,000 GFLOP/s (not
        # 0.25 x 2,000 GB/s); 420 / 50,000 = 0.8%. The swapped kernel: 16.0 FLOP/B x 2,000 GB/s
        # = 32,054 GFLOP/s; 480 / 32,054 = 1.5%. cuBLAS was not profiled: no roofline figure.
        self.assertIn("| naive_gemm | 327.236 | 420 | 1.1% | 0.25 | 31.5 | 0.8% | 100% (warps) "
                      "| ok |", block)
        self.assertIn("| naive_gemm_swapped | 286.331 | 480 | 1.2% | 0.25 | 16.0 | 1.5% |", block)
        self.assertIn("| cuBLAS SGEMM (ceiling) | 3.436 | 40,000 | 100.0% | 682.67 | - | - | - "
                      "| ok |", block)

    def test_the_memory_system_block_shows_the_kept_output(self):
        results = Path(tempfile.mkdtemp(dir=OUT))
        (results / "inspect").mkdir()
        self.assertEqual(progression.fill_readme(
            "<!-- BEGIN GENERATED: memory-system -->\nx\n<!-- END GENERATED: memory-system -->\n",
            "01_naive", sample(), results / "inspect"),
            "<!-- BEGIN GENERATED: memory-system -->\n_Not measured yet._\n"
            "<!-- END GENERATED: memory-system -->\n")
        (results / "memory-system.txt").write_text("Measured on a GPU.\nMemory system of X\n\n"
                                                   "level  ns\nL1     21\n\nA gather, ...\n"
                                                   "random 12%\n")
        # The whole output: chapter 01 owns the gather and __restrict__ too.
        self.assertEqual(progression.fill_readme(
            "<!-- BEGIN GENERATED: memory-system -->\nx\n<!-- END GENERATED: memory-system -->\n",
            "01_naive", sample(), results / "inspect"),
            "<!-- BEGIN GENERATED: memory-system -->\nMeasured on a GPU.\n\n```text\n"
            "Memory system of X\n\nlevel  ns\nL1     21\n\nA gather, ...\nrandom 12%\n```\n"
            "<!-- END GENERATED: memory-system -->\n")

    def test_make_runs_roofline_column_is_the_measured_one_where_a_digest_exists(self):
        # The error this was written for: `make run` printed naive_gemm at 843.98% of its
        # roofline, at the model's 0.25 FLOP/B, where chapter 01 shows 9.4% at the measured
        # intensity. With a digest the column is the measured figure; without, the model's,
        # labelled "(model)".
        import progression_digests
        folder = tempfile.mkdtemp(dir=OUT)
        self.digest(folder)
        doc = progression_digests.annotate_roofline(sample(), folder)
        rows = {(run["executable"], run["size"], row["kernel"]): row
                for run in doc["runs"] for row in run["rows"]}
        naive = rows[("01_naive", 4096, "naive_gemm")]
        self.assertEqual(naive["roofline_intensity"], "measured")
        self.assertAlmostEqual(naive["measured_intensity"], 31.460, 3)
        self.assertAlmostEqual(naive["pct_of_roofline"], 0.84, 2)  # 420 / 50,000 (the peak)
        self.assertEqual(naive["pct_of_roofline_model"], 84.0)      # the sample's model figure
        swapped = rows[("01_naive", 4096, "naive_gemm_swapped")]
        self.assertAlmostEqual(swapped["pct_of_roofline"], 1.50, 2)  # 480 / (16.0 x 2,000)
        tiled = rows[("02_tiled", 4096, "tiled_gemm<16>")]  # a chapter with no digest here
        self.assertEqual(tiled["roofline_intensity"], "model")
        self.assertIsNone(tiled["measured_intensity"])
        self.assertEqual(tiled["pct_of_roofline"], tiled["pct_of_roofline_model"])
        # Annotating again (`progression.py refresh` on stored results) changes nothing.
        self.assertEqual(progression_digests.annotate_roofline(copy.deepcopy(doc), folder), doc)
        # The table `make run` prints: the measured figure plain, the model's marked.
        table = progression.text_table(doc)
        line = next(l for l in table.splitlines() if "naive_gemm " in l and " 4096 " in l)
        self.assertRegex(line, r" 31\.5 +0\.8% ")
        self.assertNotIn("(model)", line)
        line = next(l for l in table.splitlines() if "tiled_gemm<16> " in l and " 4096 " in l)
        self.assertIn("% (model)", line)
        # The CSV and JSON `make run` writes carry both, and say which one the column uses.
        out = Path(tempfile.mkdtemp(dir=OUT))
        _, csv_path = progression.write_results(doc, out)
        with csv_path.open() as f:
            found = [r for r in csv.DictReader(f)
                     if r["kernel"] == "naive_gemm" and r["size"] == "4096"]
        self.assertEqual((found[0]["roofline_intensity"], found[0]["pct_of_roofline"]),
                         ("measured", "0.84"))

    def test_the_committed_results_use_the_measured_intensity_where_a_digest_exists(self):
        # common/results/progression.json/.csv as committed: every GEMM row a committed digest
        # covers is under the roof at its measured intensity, every other one labelled the
        # model's (rewritten without a GPU by `progression.py refresh`).
        import progression_digests
        results = progression.DEFAULT_RESULTS
        doc = progression.load_results(results / "progression.json")
        expected = progression_digests.annotate_roofline(copy.deepcopy(doc), results / "inspect")
        measured = 0
        for run, want in zip(doc["runs"], expected["runs"]):
            for row, right in zip(run.get("rows", []), want.get("rows", [])):
                self.assertEqual(row.get("roofline_intensity"), right.get("roofline_intensity"),
                                 (run["executable"], run["size"], row.get("kernel")))
                self.assertEqual(row.get("pct_of_roofline"), right.get("pct_of_roofline"),
                                 (run["executable"], run["size"], row.get("kernel")))
                measured += row.get("roofline_intensity") == "measured"
        self.assertGreater(measured, 0)
        naive = next(row for run in doc["runs"] if run["executable"] == "01_naive"
                     and run["size"] == 4096 for row in run["rows"] if row["kernel"] == "naive_gemm")
        self.assertLess(naive["pct_of_roofline"], 100)  # not the model's 843.98%
        with (results / "progression.csv").open() as f:
            rows = list(csv.DictReader(f))
        self.assertEqual(list(rows[0]), progression.CSV_FIELDS)
        self.assertEqual(sum(r["roofline_intensity"] == "measured" for r in rows), measured)

    def test_another_gpu_size_order_or_time_is_left_out(self):
        swapped = [("naive_gemm_swapped", "8.5 GB", "75.5 MB", "286.33 ms"),
                   ("naive_gemm", "4.3 GB", "68.7 MB", "327.24 ms")]
        slow = [("naive_gemm", "4.3 GB", "68.7 MB", "900 ms"),
                ("naive_gemm_swapped", "8.5 GB", "75.5 MB", "286.33 ms")]
        for digest in ({"gpu": "Another GPU"}, {"size": 8192}, {"rows": swapped},
                       {"rows": slow}, {"rows": swapped[:1]}):
            self.assertEqual(self.measured(**digest), {}, digest)


def main():
    global OUT
    args = sys.argv[1:]
    if not args or args[0] not in ("tables", "plots"):
        print(__doc__)
        return 2
    if "--out" in args:
        OUT = args[args.index("--out") + 1]
        shutil.rmtree(OUT, ignore_errors=True)
        Path(OUT).mkdir(parents=True)
    else:
        OUT = tempfile.mkdtemp(prefix="progression_test_")
    if args[0] == "plots" and shutil.which("gnuplot") is None:
        print("skipped: gnuplot is not installed (`make deps` installs gnuplot-nox)")
        return SKIP
    cases = [Tables, Run, Digests] if args[0] == "tables" else [Plots]
    suite = unittest.TestSuite(unittest.defaultTestLoader.loadTestsFromTestCase(c) for c in cases)
    result = unittest.TextTestRunner(verbosity=2).run(suite)
    print(f"files written under {OUT}")
    return 0 if result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
