#!/usr/bin/env python3
"""Tests of bank_count.py on a fabricated SASS dump (no GPU, no CUDA Toolkit). Python 3
standard library only; exit status 0 when every test passes."""
import contextlib
import io
import sys
import tempfile
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bank_count  # noqa: E402

# Kernel one: a conflicting FFMA before the loop, then a loop of 7 FFMAs. The loop's first FFMA
# reads R12, R48, R100 (all even: one bank); the next six are the README's, each conflict-free
# once the reuse cache serves the operand its predecessor marked `.reuse`.
# Kernel two: nested loops; the inner one holds 2 FFMAs, one with a same-bank pair (R3, R5).
# Kernel three: no loop at all.
DUMP = """
\tcode for sm_90
\t\tFunction : ch05::demo_gemm<128, 128, 16, 32, 64, 8, 8, true>
\t.headerflags\t@"EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90)"
        /*0000*/                   MOV R1, c[0x0][0x28] ;                          /* 0x00000a0000017a02 */
        /*0010*/                   FFMA R2, R4, R6, R2 ;                           /* 0x0000000000000000 */
        /*0020*/                   LDS.128 R12, [R5+0x10] ;                        /* 0x0000000000000000 */
        /*0030*/                   FFMA R100, R12, R48.reuse, R100 ;               /* 0x0000000000000000 */
        /*0040*/                   FFMA R106, R13, R48.reuse, R106 ;               /* 0x0000000000000000 */
        /*0050*/                   FFMA R103, R14.reuse, R48.reuse, R103 ;         /* 0x0000000000000000 */
        /*0060*/                   FFMA R108, R15.reuse, R48, R108 ;               /* 0x0000000000000000 */
        /*0070*/                   FFMA R118, R15, R49.reuse, R118 ;               /* 0x0000000000000000 */
        /*0080*/                   FFMA R113, R14, R49.reuse, R113 ;               /* 0x0000000000000000 */
        /*0090*/                   FFMA R114, R13.reuse, R49.reuse, R114 ;         /* 0x0000000000000000 */
        /*00a0*/              @!P0 BRA 0x20 ;                                      /* 0x0000000000000000 */
        /*00b0*/                   STG.E.128 desc[UR4][R2.64], R100 ;              /* 0x0000000000000000 */
        /*00c0*/                   EXIT ;                                          /* 0x0000000000000000 */
        /*00d0*/                   BRA 0xd0;                                       /* 0x0000000000000000 */
\t\t..........

\t\tFunction : ch05::nested<1>
        /*0000*/                   FFMA R2, R4, R6, R2 ;                           /* 0x0000000000000000 */
        /*0010*/                   FFMA R7, R3, R5, R7 ;                           /* 0x0000000000000000 */
        /*0020*/                   FFMA R8, R9, RZ, R8 ;                           /* 0x0000000000000000 */
        /*0030*/               @P1 BRA 0x10 ;                                      /* 0x0000000000000000 */
        /*0040*/                   FFMA R10, R12, 0.5, R14 ;                       /* 0x0000000000000000 */
        /*0050*/               @P2 BRA 0x0 ;                                       /* 0x0000000000000000 */
        /*0060*/                   EXIT ;                                          /* 0x0000000000000000 */
\t\t..........

\t\tFunction : ch05::straight
        /*0000*/                   FFMA R2, R3, R5, R7 ;                           /* 0x0000000000000000 */
        /*0010*/                   FFMA R2, R4, c[0x0][0x160], R6 ;                /* 0x0000000000000000 */
        /*0020*/                   EXIT ;                                          /* 0x0000000000000000 */
\t\t..........
"""


def run(*args):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = bank_count.main(list(args))
    return status, out.getvalue(), err.getvalue()


class BankCount(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dump = Path(self.tmp.name) / "demo.sass"
        self.dump.write_text(DUMP)
        self.kernels = dict(bank_count.parse(DUMP.splitlines()))

    def tearDown(self):
        self.tmp.cleanup()

    def test_parse_finds_every_kernel_and_drops_predicates(self):
        self.assertEqual(list(self.kernels), ["ch05::demo_gemm<128, 128, 16, 32, 64, 8, 8, true>",
                                              "ch05::nested<1>", "ch05::straight"])
        demo = self.kernels["ch05::demo_gemm<128, 128, 16, 32, 64, 8, 8, true>"]
        self.assertEqual(demo[10], (0xa0, "BRA 0x20"))

    def test_names_lose_the_return_type_and_the_arguments(self):
        self.assertEqual(bank_count.short_name(
            "void ch05::stream_k_gemm<128, 128, 16, 32, 64, 8, 8, true>(float const*, float*, "
            "int, ch05::StreamKPlan)"), "ch05::stream_k_gemm<128, 128, 16, 32, 64, 8, 8, true>")
        self.assertEqual(bank_count.short_name("ch05::straight"), "ch05::straight")

    def test_the_main_loop_is_the_backward_branch_and_its_target(self):
        demo = self.kernels["ch05::demo_gemm<128, 128, 16, 32, 64, 8, 8, true>"]
        first, last = bank_count.main_loop(demo)
        self.assertEqual((demo[first][0], demo[last][0]), (0x20, 0xa0))  # not the BRA to itself

    def test_the_innermost_loop_is_chosen(self):
        nested = self.kernels["ch05::nested<1>"]
        first, last = bank_count.main_loop(nested)
        self.assertEqual((nested[first][0], nested[last][0]), (0x10, 0x30))

    def test_the_reuse_cache_serves_an_operand_marked_by_the_previous_instruction(self):
        demo = self.kernels["ch05::demo_gemm<128, 128, 16, 32, 64, 8, 8, true>"]
        first, last = bank_count.main_loop(demo)
        # 7 FFMAs; only the first (R12, R48, R100: nothing cached) has a same-bank pair.
        self.assertEqual(bank_count.count(demo[first:last + 1]), (7, 1))
        # Without the cache every one of the six would read two registers of one parity.
        plain = [(a, t.replace(".reuse", "")) for a, t in demo[first:last + 1]]
        self.assertEqual(bank_count.count(plain), (7, 7))

    def test_rz_immediates_and_constants_are_no_register_reads(self):
        nested = self.kernels["ch05::nested<1>"]
        self.assertEqual(bank_count.count(nested[2:3]), (1, 0))  # R9, RZ, R8
        self.assertEqual(bank_count.count(nested[4:5]), (1, 1))  # R12, 0.5, R14: both even
        straight = self.kernels["ch05::straight"]
        self.assertEqual(bank_count.count(straight), (2, 2))  # R3, R5, R7; R4, c[..], R6

    def test_four_banks(self):
        straight = self.kernels["ch05::straight"]
        # R3, R5, R7 are banks 3, 1, 3 (R3 and R7 meet); R4, R6 banks 0, 2.
        self.assertEqual(bank_count.count(straight, banks=4), (2, 1))
        self.assertEqual(bank_count.count(straight[1:], banks=4), (1, 0))

    def test_the_table(self):
        status, out, _ = run(str(self.dump), "--kernel", "demo|straight")
        self.assertEqual(status, 0)
        self.assertIn("| `ch05::demo_gemm<128, 128, 16, 32, 64, 8, 8, true>` | loop 0x20-0xa0 | 7 | 1 "
                      "| 14% |", out)
        self.assertIn("| `ch05::straight` | whole kernel | 2 | 2 | 100% |", out)
        self.assertNotIn("nested", out)
        status, out, _ = run(str(self.dump), "--kernel", "demo", "--whole")
        self.assertIn("| whole kernel | 8 | 2 | 25% |", out)

    def test_bad_input_is_one_line_and_a_nonzero_exit(self):
        status, _, err = run(str(self.dump) + ".missing")
        self.assertEqual(status, 1)
        self.assertTrue(err.startswith("error: cannot read"))
        status, _, err = run(str(self.dump), "--kernel", "no_such_kernel")
        self.assertEqual(status, 1)
        self.assertIn("no kernel with an FFMA", err)
        status, _, err = run(str(self.dump), "--kernel", "(")
        self.assertEqual(status, 1)
        self.assertIn("not a regular expression", err)


if __name__ == "__main__":
    unittest.main()
