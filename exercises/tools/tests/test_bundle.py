"""Solutions -> stubs, and the sealed bundle."""
import io
import os
import shutil
import tarfile
import tempfile
import textwrap
import unittest

from gradelib.bundle import BundleError, decrypt, encrypt, make_archive, read_archive
from gradelib.strip import StripError, strip_solution

SELFTEST = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "selftest")


class StripTests(unittest.TestCase):
    def test_regions_and_stub_lines(self):
        src = textwrap.dedent("""\
            int f(int x) {
              // BEGIN SOLUTION
              return x + 1;
              // END SOLUTION
              // STUB: return todo<int>("f", x);
            }
            """)
        self.assertEqual(strip_solution(src), 'int f(int x) {\n  return todo<int>("f", x);\n}\n')

    def test_errors(self):
        for text, message in {"// BEGIN SOLUTION\n": "never closed",
                              "// END SOLUTION\n": "without BEGIN",
                              "int x;  // END SOLUTION\n": "stand alone",
                              "int x;\n": "no BEGIN SOLUTION"}.items():
            with self.assertRaises(StripError) as cm:
                strip_solution(text, "f.cu")
            self.assertIn(message, str(cm.exception))

    def test_the_fixture_strips_to_its_stub(self):
        with open(os.path.join(SELFTEST, "fixture_solution", "fixture.hpp")) as f:
            stub = strip_solution(f.read())
        with open(os.path.join(SELFTEST, "fixture", "fixture.hpp")) as f:
            self.assertEqual(stub, f.read())


class BundleTests(unittest.TestCase):
    def test_archive_is_deterministic_and_safe(self):
        d = tempfile.mkdtemp()
        os.makedirs(os.path.join(d, "solutions", "x"))
        with open(os.path.join(d, "solutions", "x", "f.cu"), "w") as f:
            f.write("int x;\n")
        a1 = make_archive(d, ["solutions/x/f.cu"])
        os.utime(os.path.join(d, "solutions", "x", "f.cu"), (1, 1))
        self.assertEqual(a1, make_archive(d, ["solutions/x/f.cu"]))
        evil = io.BytesIO()
        with tarfile.open(fileobj=evil, mode="w:gz") as tar:
            info = tarfile.TarInfo("../escape")
            info.size = 1
            tar.addfile(info, io.BytesIO(b"x"))
        with self.assertRaises(BundleError):
            read_archive(evil.getvalue())
        shutil.rmtree(d)

    @unittest.skipUnless(shutil.which("gpg"), "gpg is not installed")
    def test_encryption_round_trip(self):
        secret = encrypt(b"solutions", "correct horse battery staple")
        self.assertNotIn(b"solutions", secret)
        self.assertEqual(decrypt(secret, "correct horse battery staple"), b"solutions")
        with self.assertRaises(BundleError):
            decrypt(secret, "wrong horse battery staple!!")
