#!/usr/bin/env python3
"""docs-test's prose checks (common/scripts/docs_test.py) on fabricated READMEs: unbalanced
parentheses and hand-written test counts are found in prose, and nowhere else."""
import sys
import tempfile
import unittest
from pathlib import Path

sys.dont_write_bytecode = True
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import docs_test  # noqa: E402

GOOD = """# Title

Built with CUDA 12.4 (nvcc 12.4.131, every target) and checked (`make check (a`).
A [link](https://example.com/a_(b)) and a list: 1) first; these parentheses (balance).

```sh
make check    # (an unbalanced comment in code is code
```

<!-- BEGIN GENERATED: build-times -->
| `make check`; 208 tests, 57 of them skipped | 9 min |
<!-- END GENERATED: build-times -->

| table | (cells are not prose |
"""


class Prose(unittest.TestCase):
    def problems(self, text):
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "README.md"
            path.write_text(text)
            return docs_test.prose_problems(path)

    def test_code_tables_and_generated_blocks_are_not_prose(self):
        self.assertEqual(self.problems(GOOD.replace("list: 1) first; ", "list: ")), [])

    def test_an_unbalanced_paragraph_is_found(self):
        found = self.problems("A\n\nBuilt with CUDA 12.4 (nvcc 12.4.131, every target (sm_80).\n")
        self.assertEqual(len(found), 1)
        self.assertIn(":3: unbalanced parentheses", found[0])

    def test_a_hand_written_test_count_is_found(self):
        for count in ("180/180 tests", "208 tests", "1,024 tests"):
            found = self.problems(f"Configure, build and {count} on the CPU backend.\n")
            self.assertEqual(len(found), 1, count)
            self.assertIn("test count", found[0])

    def test_a_list_items_wrapped_lines_are_prose(self):
        # A list item's continuation lines are indented like code but continue the paragraph:
        # parentheses opened on one line and closed on the next balance.
        item = "  * Device memory is `PROT_NONE` outside launches (and the\n    backend's copies).\n"
        self.assertEqual(self.problems(item), [])
        found = self.problems("  * Device memory (and the\n    backend's copies.\n")
        self.assertEqual(len(found), 1)
        self.assertEqual(self.problems("Text.\n\n    indented code (is code\n"), [])


class Home(unittest.TestCase):
    def test_a_chapters_commands_run_in_its_folder_every_other_pages_at_the_top(self):
        repo = docs_test.REPO
        self.assertEqual(docs_test.home_of(repo / "01_naive" / "README.md"), repo / "01_naive")
        for page in ("README.md", "common/README.md", "common/BUILD.md", "common/INSPECT.md",
                     "common/cpu_backend/README.md", "exercises/README.md",
                     "exercises/INSTRUCTORS.md"):
            self.assertEqual(docs_test.home_of(repo / page), repo, page)

    def test_every_page_of_a_chapter_is_tried_in_its_folder_and_no_lab_log(self):
        repo = docs_test.REPO
        pages = docs_test.readmes()
        for page in ("05_double_buffer/warp_tiles.md", "05_double_buffer/every_shape.md",
                     "06_transpose/every_shape.md"):
            self.assertIn(repo / page, pages)
            self.assertEqual(docs_test.home_of(repo / page), (repo / page).parent, page)
        self.assertFalse([p for p in pages if p.parent.name == "lab"])

    def test_the_exercises_pages_are_all_tried_once(self):
        pages = docs_test.readmes()
        self.assertEqual(len(pages), len(set(pages)))
        for page in ("exercises/README.md", "exercises/INSTRUCTORS.md"):
            self.assertIn(docs_test.REPO / page, pages)


if __name__ == "__main__":
    unittest.main()
