"""Submissions: links, devices, .. paths, duplicates and name collisions are refused."""
import io
import os
import shutil
import tarfile
import tempfile
import unittest
import zipfile

from gradelib.spec import Exercise
from gradelib.submissions import SubmissionError, list_submissions, read_submission, safe_name

EX = [Exercise("03a_bounds", "03_bounds", "gpu", "exercises/03a_bounds", ["bounds.cuh"])]


class SubmissionTests(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def folder(self, name, files):
        for rel, data in files.items():
            path = os.path.join(self.dir, name, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "wb") as f:
                f.write(data)
        return os.path.join(self.dir, name)

    def test_found_flat_in_the_tree_or_nested(self):
        for layout in ("bounds.cuh", "exercises/03a_bounds/bounds.cuh", "03a_bounds/bounds.cuh",
                       "deep/er/bounds.cuh"):
            found, _ = read_submission(self.folder(layout.replace("/", "_"), {layout: b"x"}), EX)
            self.assertEqual(found, {"exercises/03a_bounds/bounds.cuh": b"x"}, layout)

    def test_links_and_duplicates_are_refused(self):
        path = self.folder("linked", {"other.txt": b""})
        os.symlink("/etc/passwd", os.path.join(path, "bounds.cuh"))
        with self.assertRaises(SubmissionError):
            read_submission(path, EX)
        twice = self.folder("twice", {"a/bounds.cuh": b"1", "b/bounds.cuh": b"2"})
        with self.assertRaises(SubmissionError):
            read_submission(twice, EX)

    def test_a_file_name_twice_anywhere_is_refused(self):
        """What the grader grades must be what the instructor opens: the same name at two
        depths, in another case, or one path twice in an archive."""
        nested = self.folder("nested", {"bounds.cuh": b"stub", "exercises/03a_bounds/bounds.cuh": b"x"})
        case = self.folder("case", {"bounds.cuh": b"1", "deep/Bounds.cuh": b"2"})
        alone = self.folder("alone", {"deep/BOUNDS.CUH": b"2"})
        for path, says in ((nested, "2 times"), (case, "2 times"), (alone, "named bounds.cuh")):
            with self.assertRaisesRegex(SubmissionError, says):
                read_submission(path, EX)
        zpath = os.path.join(self.dir, "twice.zip")
        import warnings
        with warnings.catch_warnings(), zipfile.ZipFile(zpath, "w") as z:
            warnings.simplefilter("ignore")
            z.writestr("bounds.cuh", b"first")
            z.writestr("./bounds.cuh", b"second")
        with self.assertRaisesRegex(SubmissionError, "twice"):
            read_submission(zpath, EX)
        tpath = os.path.join(self.dir, "twice.tar.gz")
        with tarfile.open(tpath, "w:gz") as t:
            for data in (b"first", b"second"):
                info = tarfile.TarInfo("bounds.cuh")
                info.size = len(data)
                t.addfile(info, io.BytesIO(data))
        with self.assertRaisesRegex(SubmissionError, "twice"):
            read_submission(tpath, EX)

    def test_archives(self):
        zpath = os.path.join(self.dir, "z.zip")
        with zipfile.ZipFile(zpath, "w") as z:
            z.writestr("../escape.cuh", b"x")
        with self.assertRaises(SubmissionError):
            read_submission(zpath, EX)
        tpath = os.path.join(self.dir, "t.tar.gz")
        with tarfile.open(tpath, "w:gz") as t:
            info = tarfile.TarInfo("bounds.cuh")
            info.type = tarfile.SYMTYPE
            info.linkname = "/etc/passwd"
            t.addfile(info)
        with self.assertRaises(SubmissionError):
            read_submission(tpath, EX)
        ok = os.path.join(self.dir, "ok.tar.gz")
        with tarfile.open(ok, "w:gz") as t:
            info = tarfile.TarInfo("work/bounds.cuh")
            info.size = 2
            t.addfile(info, io.BytesIO(b"ok"))
        self.assertEqual(read_submission(ok, EX)[0], {"exercises/03a_bounds/bounds.cuh": b"ok"})

    def test_name_collisions_and_links_in_the_submissions_folder(self):
        self.folder("alice", {"bounds.cuh": b"1"})
        with zipfile.ZipFile(os.path.join(self.dir, "alice.zip"), "w") as z:
            z.writestr("bounds.cuh", b"2")
        self.folder("bob", {"bounds.cuh": b"3"})
        os.symlink(os.path.join(self.dir, "bob"), os.path.join(self.dir, "carol"))
        ok, refused = list_submissions(self.dir)
        self.assertEqual([s for s, _ in ok], ["bob"])
        self.assertEqual(sorted(s for s, _ in refused), ["alice", "carol"])

    def test_safe_names(self):
        self.assertEqual(safe_name("../../etc"), "etc")
        self.assertEqual(safe_name("=HYPERLINK(x)"), "HYPERLINK_x")
        self.assertNotEqual(safe_name("Zoë"), safe_name("Zoé"))  # other alphabets stay apart

    def test_broken_archives_are_refused_with_a_message(self):
        broken = os.path.join(self.dir, "broken.zip")
        with open(broken, "wb") as f:
            f.write(b"PK\x03\x04 not really a zip")
        with self.assertRaises(SubmissionError):
            read_submission(broken, EX)
        truncated = os.path.join(self.dir, "cut.tar.gz")
        with tarfile.open(truncated, "w:gz") as t:
            info = tarfile.TarInfo("bounds.cuh")
            info.size = 4000
            t.addfile(info, io.BytesIO(os.urandom(4000)))
        with open(truncated, "rb") as f:
            data = f.read()
        with open(truncated, "wb") as f:
            f.write(data[:len(data) // 2])
        with self.assertRaises(SubmissionError):
            read_submission(truncated, EX)

    def test_a_corrupt_xz_archive_is_refused(self):
        bad = os.path.join(self.dir, "x.tar")
        with open(bad, "wb") as f:
            f.write(b"\xfd7zXZ\x00" + os.urandom(200))  # xz magic, then garbage
        with self.assertRaises(SubmissionError):
            read_submission(bad, EX)

    def test_leading_dot_slash_only_is_dropped(self):
        ok = os.path.join(self.dir, "dots.zip")
        with zipfile.ZipFile(ok, "w") as z:
            z.writestr("./exercises/03a_bounds/bounds.cuh", b"mine")
            z.writestr(".hidden/other.cuh", b"x")
        self.assertEqual(read_submission(ok, EX)[0], {"exercises/03a_bounds/bounds.cuh": b"mine"})
