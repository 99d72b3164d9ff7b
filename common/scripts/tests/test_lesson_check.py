#!/usr/bin/env python3
"""Tests of common/scripts/lesson_check.py on fabricated chapters: a lesson of the right shape
passes, and each way of breaking the shape fails (a check that cannot fail proves nothing).
Python 3 standard library only (unittest)."""
import contextlib
import io
import json
import sys
import tempfile
import unittest
from pathlib import Path

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import lesson_check  # noqa: E402

RESULTS = """<!-- BEGIN GENERATED: results -->
Measured by `make run` on **A GPU**.

| kernel | time (ms) | GFLOP/s | % of cuBLAS | FLOP/byte (model) | status |
|---|--:|--:|--:|--:|---|
| cuBLAS SGEMM (ceiling) | 2.659 | 51,690 | 100.0% | 682.67 | ok |
| tiled_gemm&lt;8&gt; | 26.674 | 5,152 | 10.0% | 2.00 | ok |
<!-- END GENERATED: results -->

<!-- BEGIN GENERATED: inspect -->
| kernel | global loads asked of L1 | L1 misses read from L2 | DRAM read | DRAM written | time |
| --- | ---: | ---: | ---: | ---: | ---: |
| `tiled_gemm<8>` | 68.7 GB | 48.8 GB | 33.2 GB | 70.0 MB | 26.56 ms |
<!-- END GENERATED: inspect -->
"""

QUESTION = "{n}. A question?\n\n   <details><summary>Answer</summary>\n   An answer.\n   </details>\n\n"


def lesson(questions=3, predictions=1, quote="`tiled_gemm<8>` runs at 5,152 GFLOP/s.",
           sections=None, extra_lines=0, exercise_link=True):
    sections = sections or lesson_check.SECTIONS
    body = {
        "What you will learn": "- Tiling.\n",
        "The idea": "The idea. " + quote + "\n",
        "The code": "The loop.\n",
        "What the measurements show": RESULTS,
        "Run it": "```\nmake run\n```\n",
        "Predict, then measure": "".join(QUESTION.format(n=i + 1) for i in range(predictions)),
        "Exercises": "- [02a_tiled](../exercises/02a_tiled/): the kernel.\n" if exercise_link
                     else "- none\n",
        "Check yourself": "".join(QUESTION.format(n=i + 1) for i in range(questions)),
        "References": "- PMPP.\n",
    }
    text = "# 02 — Tiled\n\n" + "".join(f"## {name}\n\n{body[name]}\n" for name in sections)
    return text + "filler\n" * extra_lines


class LessonCheck(unittest.TestCase):
    def run_check(self, readme, pending=False, notes=None, pages=None, sources=None):
        root = Path(tempfile.mkdtemp())
        (root / "common").mkdir()
        (root / "common" / "chapters.txt").write_text("# list\n02_tiled  4096\n")
        (root / "02_tiled").mkdir()
        (root / "02_tiled" / "README.md").write_text(readme)
        for name, text in (pages or {}).items():  # more pages of the chapter
            (root / "02_tiled" / name).write_text(text)
        for name, text in (sources or {}).items():  # files the pages quote code from
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            (root / name).write_text(text)
        if notes is not None:
            (root / "02_tiled" / "lab").mkdir()
            (root / "02_tiled" / "lab" / "LOG.md").write_text(notes)
        (root / "exercises").mkdir()
        (root / "exercises" / "manifest.json").write_text(json.dumps(
            {"exercises": [{"name": "02a_tiled", "chapter": "02_tiled"}]}))
        saved = dict(lesson_check.PENDING)
        lesson_check.PENDING.clear()
        if pending:
            lesson_check.PENDING["02_tiled"] = "test"
        out = io.StringIO()
        try:
            with contextlib.redirect_stdout(out):
                code = lesson_check.main(["--root", str(root), "-v"])
        finally:
            lesson_check.PENDING.clear()
            lesson_check.PENDING.update(saved)
        return code, out.getvalue()

    def assertFails(self, readme, words):
        code, out = self.run_check(readme)
        self.assertEqual(code, 1, out)
        self.assertIn(words, out)

    def test_a_lesson_of_the_shape_passes(self):
        code, out = self.run_check(lesson())
        self.assertEqual(code, 0, out)
        self.assertIn("02_tiled: ok", out)

    def test_too_long(self):
        self.assertFails(lesson(extra_lines=400), "more than 400")

    def test_a_missing_or_misplaced_section(self):
        self.assertFails(lesson(sections=[s for s in lesson_check.SECTIONS if s != "Run it"]),
                         'no "## Run it" section')
        order = list(lesson_check.SECTIONS)
        order[0], order[1] = order[1], order[0]
        self.assertFails(lesson(sections=order), "comes before")

    def test_an_unlinked_exercise(self):
        self.assertFails(lesson(exercise_link=False), "does not link its exercise 02a_tiled")

    def test_too_few_or_too_many_questions(self):
        self.assertFails(lesson(questions=2), "wants 3 to 6")
        self.assertFails(lesson(questions=7), "wants 3 to 6")
        self.assertFails(lesson(predictions=0), "wants at least 1")

    def test_a_question_without_its_folded_answer(self):
        text = lesson().replace("   <details><summary>Answer</summary>\n   An answer.\n   </details>\n",
                                "   An answer in plain sight.\n", 1)
        self.assertFails(text, "no answer folded")

    def test_a_wrong_quote_of_a_generated_table(self):
        self.assertFails(lesson(quote="`tiled_gemm<8>` runs at 5,125 GFLOP/s."), "5,125 GFLOP/s")
        self.assertFails(lesson(quote="`tiled_gemm<8>` runs at 10.4% of cuBLAS."), "10.4 % of cuBLAS")
        # the error this check was written for: an L2 hit rate quoted as bytes
        self.assertFails(lesson(quote="`tiled_gemm<8>` reads less from L2 (49.0 against 48.8 GB)."),
                         "49.0 GB")

    def test_right_quotes_pass_at_the_precision_written(self):
        for quote in ["`tiled_gemm<8>` reads 48.8 GB from L2 and 33 GB from DRAM.",
                      "`tiled_gemm<8>` writes 70 MB and takes 26.674 ms (26.56 ms profiled).",
                      "`tiled_gemm<8>`: 10.0% of cuBLAS, 5,152 GFLOP/s.",
                      "A GPU without kernels named here: 1,234 GFLOP/s is not checked."]:
            code, out = self.run_check(lesson(quote=quote))
            self.assertEqual(code, 0, quote + "\n" + out)

    def test_a_figure_worked_out_in_notes_passes(self):
        quote = "`tiled_gemm<8>` moves 33.3 GB to and from DRAM."
        self.assertFails(lesson(quote=quote), "33.3 GB")
        code, out = self.run_check(lesson(quote=quote),
                                   notes="33.2 GB read + 70 MB written = 33.3 GB\n")
        self.assertEqual(code, 0, out)

    def test_a_sweep_shape_quoted_from_an_older_sweep_fails(self):
        sweep = ("<!-- BEGIN GENERATED: sweep -->\n| rows × cols | copy GB/s | padded GB/s | % of copy |\n"
                 "|---|--:|--:|--:|\n| 8193×8192 | 2,952 | 1,994 | 67.5% |\n"
                 "| 512×512 | 900 | 800 | 88.9% |\n<!-- END GENERATED: sweep -->\n")
        stale = lesson(quote="Padded runs 67.4% at 8193×8192.") + sweep
        self.assertFails(stale, "quotes 67.4% in a sentence naming 8193×8192")
        for quote in ["Padded runs 67.5% at 8193×8192.",
                      "Padded runs 67.5% at 8193×8192 and 88.9% at 512².",
                      "At 512² it runs 91.3% in make run's table."]:  # a square alone: not checked
            code, out = self.run_check(lesson(quote=quote) + sweep)
            self.assertEqual(code, 0, quote + "\n" + out)

    def test_a_chapter_of_several_pages_keeps_each_to_250_lines_and_quotes_its_code(self):
        source = {"02_tiled/kernels.cuh": "x\n  // BEGIN QUOTE loop\n  y += 1;\n  // END QUOTE loop\n"}
        quote = ("<!-- BEGIN CODE: 02_tiled/kernels.cuh#loop -->\n```cuda\ny += 1;\n```\n"
                 "<!-- END CODE: 02_tiled/kernels.cuh#loop -->\n")
        page = lesson(exercise_link=False).replace("## The code\n\nThe loop.\n", "## The code\n\n" + quote)
        code, out = self.run_check(lesson().replace("## The code\n\nThe loop.\n", "## The code\n\n" + quote),
                                   pages={"more.md": page}, sources=source)
        self.assertEqual(code, 0, out)
        # 250 lines a page once there are two, where one page may have 400
        code, out = self.run_check(lesson(extra_lines=200), pages={"more.md": page}, sources=source)
        self.assertEqual(code, 1, out)
        self.assertIn("more than 250", out)
        code, out = self.run_check(lesson(extra_lines=200))
        self.assertEqual(code, 0, out)
        # a page of several without a quote of its code
        code, out = self.run_check(lesson(), pages={"more.md": lesson()}, sources=source)
        self.assertIn("quotes no code", out)
        # an exercise linked from one page of the chapter is linked
        code, out = self.run_check(lesson(exercise_link=False).replace("## The code\n\nThe loop.\n", "## The code\n\n" + quote),
                                   pages={"more.md": page}, sources=source)
        self.assertIn("does not link its exercise 02a_tiled", out)

    def test_a_quote_that_drifted_from_its_source_fails(self):
        source = {"02_tiled/kernels.cuh": "// BEGIN QUOTE loop\ny += 2;\n// END QUOTE loop\n"}
        quote = ("<!-- BEGIN CODE: 02_tiled/kernels.cuh#loop -->\n```cuda\ny += 1;\n```\n"
                 "<!-- END CODE: 02_tiled/kernels.cuh#loop -->\n")
        code, out = self.run_check(lesson(quote="The loop.\n\n" + quote), sources=source)
        self.assertEqual(code, 1, out)
        self.assertIn("differ from their source: 02_tiled/kernels.cuh#loop", out)
        code, out = self.run_check(lesson(quote="The loop.\n\n" + quote.replace("#loop", "#gone")),
                                   sources=source)
        self.assertIn("BEGIN QUOTE gone", out)

    def test_the_lab_stays_out_of_the_lesson(self):
        for prose, words in [("Round eight found it faster.", "a round of the lab"),
                             ("It won in round 3.", "a round of the lab"),
                             ("The lab's runs 11 to 15 ranked them.", "a run of the lab by number"),
                             ("Six untuned draws gave 104%.", "untuned"),
                             ("Two seeds, 101 and 102.", "seeds"),
                             ("Measured on 2026-11-27.", "a date")]:
            self.assertFails(lesson(quote=prose), words)
        for prose in ["A round of applause.", "Two waves: the second runs one block.",
                      "Run `make sweep RANDOM=40 SEED=7` to repeat a draw.",
                      "The runs behind it: [lab log](lab/LOG.md#round-8)."]:
            code, out = self.run_check(lesson(quote=prose))
            self.assertEqual(code, 0, prose + "\n" + out)

    def test_internal_sources_are_not_cited(self):
        self.assertFails(lesson(quote="As the seeds say."), "internal source")

    def test_a_pending_chapter_is_reported_but_does_not_fail(self):
        code, out = self.run_check(lesson(questions=0), pending=True)
        self.assertEqual(code, 0, out)
        self.assertIn("02_tiled: pending", out)
        self.assertIn("wants 3 to 6", out)
        code, out = self.run_check(lesson(), pending=True)
        self.assertIn("pending, but passes: remove it from PENDING", out)


if __name__ == "__main__":
    unittest.main(verbosity=2)
