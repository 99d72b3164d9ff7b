#!/usr/bin/env python3
"""Tests of common/scripts/code_quotes.py (the code on a lesson's page, quoted from marked
source) and of generated_blocks.py's options (a page's part of a generated block), on
fabricated files: each feature works, and each way a quote or a block can break is reported.
Python 3 standard library only (unittest)."""
import sys
import tempfile
import unittest
from pathlib import Path

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import code_quotes  # noqa: E402
import generated_blocks  # noqa: E402

SOURCE = """// a step file
template <int BK>
__global__ void k(float* out) {
  // BEGIN QUOTE main-loop
  for (int t = 0; t < 4; ++t) {
    out[t] = 0;  // (4)
    // BEGIN ELIDE main-loop: the math of chapter 04
#pragma unroll
    for (int k = 0; k < BK; ++k) out[t] += k;
    // END ELIDE main-loop
    __syncthreads();
  }
  // END QUOTE main-loop
}
"""

PAGE = """Text.

<!-- BEGIN CODE: step.cuh#main-loop -->
stale
<!-- END CODE: step.cuh#main-loop -->

More text.
"""

WANT = """```cuda
for (int t = 0; t < 4; ++t) {
  out[t] = 0;  // (4)
  // ... the math of chapter 04 ...
  __syncthreads();
}
```
"""


class CodeQuotes(unittest.TestCase):
    def setUp(self):
        self.root = Path(tempfile.mkdtemp())
        (self.root / "step.cuh").write_text(SOURCE)
        self.page = self.root / "page.md"
        self.page.write_text(PAGE)

    def test_a_quote_is_the_marked_piece_shifted_left_with_its_elision(self):
        self.assertEqual(code_quotes.render("step.cuh", "main-loop", self.root), WANT)
        new, problems = code_quotes.refill(PAGE, self.root)
        self.assertEqual(problems, [])
        self.assertIn(WANT, new)
        self.assertTrue(new.startswith("Text.\n\n<!-- BEGIN CODE: step.cuh#main-loop -->\n```cuda"))
        self.assertTrue(new.endswith("<!-- END CODE: step.cuh#main-loop -->\n\nMore text.\n"))

    def test_a_stale_quote_is_reported_and_written_fresh(self):
        problems = code_quotes.check_page(self.page, self.root)
        self.assertEqual(len(problems), 1)
        self.assertIn("differ from their source: step.cuh#main-loop", problems[0])
        self.assertEqual(code_quotes.main(["--root", str(self.root), str(self.page)]), 0)
        self.assertEqual(code_quotes.check_page(self.page, self.root), [])
        self.assertEqual(code_quotes.main(["--check", "--root", str(self.root), str(self.page)]), 0)

    def test_what_cannot_be_quoted_is_reported(self):
        for page, words in [(PAGE.replace("step.cuh#", "gone.cuh#"), "gone.cuh does not exist"),
                            (PAGE.replace("#main-loop", "#nothing"), "BEGIN QUOTE nothing"),
                            (PAGE.replace("<!-- END CODE: step.cuh#main-loop -->", ""),
                             "no matching")]:
            _, problems = code_quotes.refill(page, self.root)
            self.assertTrue(any(words in p for p in problems), (words, problems))
        (self.root / "step.cuh").write_text(SOURCE.replace("// END ELIDE main-loop\n", ""))
        with self.assertRaisesRegex(code_quotes.QuoteError, "has no `// END ELIDE main-loop`"):
            code_quotes.render("step.cuh", "main-loop", self.root)


RESULTS = """Measured by `make run` on **A GPU**, M=4096 N=4096 K=4096.

| kernel | GFLOP/s |
|---|--:|
| cuBLAS SGEMM (ceiling) | 100 |
| prefetch 128x128x8 8x8 | 70 |
| async 128x256x16 w64x64 | 80 |

Measured by `make run` on **A GPU**, M=8192 N=8192 K=8192.

| kernel | GFLOP/s |
|---|--:|
| cuBLAS SGEMM (ceiling) | 100 |
| prefetch 128x128x8 8x8 | 71 |

#### Nsight Compute digest: 05

| kernel | time |
| --- | ---: |
| `ch05::async_gemm<128, 256, 16, 1>` | 3 ms |
| `ch05::async_gemm<128, 256, 8, 1>` | 4 ms |

#### SASS summary: 05

| kernel | FFMA |
| --- | ---: |
| `ch05::prefetch_gemm<1>` | 512 |"""


class BlockOptions(unittest.TestCase):
    def fill(self, options):
        text = (f"<!-- BEGIN GENERATED: results {options} -->\nold\n<!-- END GENERATED: results -->\n")
        return generated_blocks.fill_blocks(text, lambda name: RESULTS)

    def test_no_option_shows_the_whole_block(self):
        text = "<!-- BEGIN GENERATED: results -->\nold\n<!-- END GENERATED: results -->\n"
        self.assertIn(RESULTS, generated_blocks.fill_blocks(text, lambda name: RESULTS))

    def test_sizes_parts_and_rows_show_a_pages_part(self):
        shown = self.fill("sizes=4096 rows=cuBLAS;async128x256x16")
        self.assertIn("M=4096", shown)
        self.assertNotIn("M=8192", shown)
        self.assertIn("| async 128x256x16 w64x64 | 80 |", shown)
        self.assertNotIn("prefetch", shown.split("####")[0])
        # a prefix with commas, spaces aside, picks one template among several
        shown = self.fill("parts=digest rows=async_gemm<128,256,16")
        self.assertIn("async_gemm<128, 256, 16, 1>", shown)
        self.assertNotIn("async_gemm<128, 256, 8, 1>", shown)
        self.assertNotIn("SASS summary", shown)
        self.assertNotIn("| prefetch", shown)
        # the BEGIN line keeps its options for the next refill
        self.assertTrue(shown.startswith("<!-- BEGIN GENERATED: results parts=digest rows="))

    def test_a_table_left_without_rows_is_left_out(self):
        shown = self.fill("rows=nothing")
        self.assertNotIn("| kernel |", shown)
        self.assertIn("Measured by", shown)

    def test_an_unknown_option_is_an_error(self):
        with self.assertRaisesRegex(generated_blocks.BlockError, "unknown option"):
            self.fill("colour=red")

    def test_replace_block_finds_a_block_with_options(self):
        text = "<!-- BEGIN GENERATED: sweep rows=x -->\nold\n<!-- END GENERATED: sweep -->\n"
        self.assertIn("new", generated_blocks.replace_block(text, "sweep", "| x | new |"))


if __name__ == "__main__":
    unittest.main(verbosity=2)
