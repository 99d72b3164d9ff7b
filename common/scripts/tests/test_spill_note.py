#!/usr/bin/env python3
"""common/scripts/spill_note.py, the CUDA compile launcher, on a fake compiler (no nvcc): one
line before ptxas's spill warnings says how many arch_expected.txt expects and names the others;
a compile without them gets no line; the compile's output and exit status pass through."""
import subprocess
import sys
import unittest
from pathlib import Path

sys.dont_write_bytecode = True
SCRIPT = Path(__file__).resolve().parent.parent / "spill_note.py"
sys.path.insert(0, str(SCRIPT.parent))
import spill_note  # noqa: E402

# A kernel and its bytes as arch_expected.txt lists them (sm_80), and one it does not list.
KNOWN = "_ZN4ch059lean_gemmILi128ELi128ELi16ELi64ELi32ELi8ELi8ELb0EEEvPKfS2_Pfiii"
SPILL = ("ptxas warning : Registers are spilled to local memory in function '{}', {} bytes spill "
         "stores, {} bytes spill loads")


def fake_compiler(stderr_lines, stdout="", status=0):
    """argv of a 'compiler' that prints these lines to stderr and exits with status."""
    code = (f"import sys; sys.stdout.write({stdout!r}); "
            f"sys.stderr.write({''.join(line + chr(10) for line in stderr_lines)!r}); sys.exit({status})")
    return [sys.executable, "-c", code]


def launch(argv):
    done = subprocess.run([sys.executable, str(SCRIPT)] + argv, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True)
    return done.returncode, done.stdout, done.stderr


class SpillNote(unittest.TestCase):
    def test_expected_spills_get_one_line_first(self):
        warnings = [SPILL.format(KNOWN, 8, 16)]
        status, out, err = launch(fake_compiler(warnings, stdout="compiled\n"))
        self.assertEqual(status, 0)
        self.assertEqual(out, "compiled\n")
        lines = err.splitlines()
        self.assertEqual(len(lines), 2, err)
        self.assertTrue(lines[0].startswith("note: 1 of the 1 ptxas warnings below are expected"), err)
        self.assertNotIn("NOT expected", lines[0])
        self.assertEqual(lines[1], warnings[0])

    def test_a_new_spill_is_named(self):
        warnings = [SPILL.format(KNOWN, 8, 16), SPILL.format("_Z3newPf", 4, 4),
                    SPILL.format(KNOWN, 12, 24)]  # the known kernel, spilling more than listed
        status, _, err = launch(fake_compiler(warnings, status=0))
        self.assertEqual(status, 0)
        first = err.splitlines()[0]
        self.assertIn("1 of the 3 ptxas warnings below are expected", first)
        self.assertIn("NOT expected", first)
        self.assertIn("_Z3newPf", first)

    def test_no_warning_no_line_and_the_status_passes_through(self):
        status, out, err = launch(fake_compiler(["error: something else"], status=3))
        self.assertEqual(status, 3)
        self.assertEqual(err, "error: something else\n")

    def test_strict_passes_the_spills_listed_for_the_compiles_architecture(self):
        # KNOWN spills 8 bytes on sm_80 (arch_expected.txt); the fake compile says sm_80.
        compiler = fake_compiler([SPILL.format(KNOWN, 8, 16)]) + ["-arch=sm_80"]
        status, _, err = launch(["--strict"] + compiler)
        self.assertEqual(status, 0, err)

    def test_strict_fails_on_a_spill_not_listed_for_that_architecture(self):
        # The same spill, but the compile is for sm_90, whose list does not hold it.
        compiler = fake_compiler([SPILL.format(KNOWN, 8, 16)]) + [
            "--generate-code=arch=compute_90,code=[compute_90,sm_90]"]
        status, _, err = launch(["--strict"] + compiler)
        self.assertEqual(status, 1, err)
        self.assertIn("TUTORIAL_WARNINGS_AS_ERRORS", err)
        self.assertIn("sm_90", err)

    def test_strict_fails_on_any_other_warning_and_keeps_a_failed_compiles_status(self):
        status, _, err = launch(["--strict"] + fake_compiler(
            ["entry.cu(3): warning #177-D: variable \"x\" was declared but never referenced"]))
        self.assertEqual(status, 1, err)
        status, _, _ = launch(["--strict"] + fake_compiler(["error: no"], status=2))
        self.assertEqual(status, 2)
        status, _, err = launch(["--strict"] + fake_compiler(["nothing to say"]))
        self.assertEqual(status, 0, err)

    def test_the_architectures_come_from_the_architecture_flags_only(self):
        argv = ["nvcc", "-I/x/sm_80/include", "-DTAG=sm_75", "--generate-code=arch=compute_90,"
                "code=[compute_90,sm_90]", "-arch", "sm_86", "-c", "k.cu"]
        self.assertEqual(spill_note.compiled_archs(argv), {"90", "86"})

    def test_note_reads_arch_expected(self):
        self.assertIsNone(spill_note.note("nothing to see\n"))
        self.assertIn(("spill", KNOWN, 8), spill_note.expected())


if __name__ == "__main__":
    unittest.main()
