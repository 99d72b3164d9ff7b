"""What a student's uid leaves on a shared machine (leftovers.py, the `user` sandbox): found in
the world-writable folders and System V IPC, removed, and nothing of anyone else touched; the
sandbox's runs watched for idling and for filling the disk; one uid block per grading run."""
import ctypes
import os
import shutil
import sys
import tempfile
import textwrap
import time
import unittest

from gradelib import leftovers as L
from gradelib import sandbox as S
from gradelib import watch as W

PYTHON = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable
STUDENT, OTHER = 46990, 46991  # below every uid block (UID_BASE 47000)


def as_uid(uid, body):
    """Runs `body` (Python) as `uid` in a child process and waits for it."""
    pid = os.fork()
    if pid == 0:
        try:
            os.setgroups([])
            os.setgid(uid)
            os.setuid(uid)
            exec(textwrap.dedent(body), {"os": os, "ctypes": ctypes})
        finally:
            os._exit(0)
    os.waitpid(pid, 0)


PLANT = """
    libc = ctypes.CDLL(None)
    os.umask(0)
    with open(FOLDER + "/file", "w") as f:
        f.write("planted")
    os.mkdir(FOLDER + "/dir", 0o777)
    open(FOLDER + "/dir/inside", "w").close()
    os.mkfifo(FOLDER + "/fifo", 0o666)
    libc.shmget(KEY, 4096, 0o1000 | 0o666)   # IPC_CREAT
    libc.semget(KEY + 1, 1, 0o1000 | 0o666)
    libc.msgget(KEY + 2, 0o1000 | 0o666)
"""


@unittest.skipUnless(os.geteuid() == 0, "needs root")
class LeftoverTests(unittest.TestCase):
    def setUp(self):
        self.folder = tempfile.mkdtemp(prefix="shared-")
        os.chmod(self.folder, 0o1777)  # like /tmp

    def tearDown(self):
        L.remove([STUDENT, OTHER], [self.folder])
        shutil.rmtree(self.folder, ignore_errors=True)

    def plant(self, uid, key):
        as_uid(uid, f"FOLDER = {self.folder!r}\nKEY = {key}\n" + textwrap.dedent(PLANT))

    def test_files_and_ipc_of_a_uid_are_found_and_removed_and_nobody_elses(self):
        self.plant(STUDENT, 0x5EED0)
        left = L.leftovers([STUDENT], [self.folder])
        self.assertEqual(len([x for x in left if x.startswith(self.folder)]), 3, left)
        self.assertEqual(len([x for x in left if "System V" in x]), 3, left)
        os.makedirs(os.path.join(self.folder, "root's"))
        L.remove([STUDENT], [self.folder])
        self.assertEqual(L.leftovers([STUDENT], [self.folder]), [])
        self.assertEqual(os.listdir(self.folder), ["root's"])

    def test_another_uids_things_stay(self):
        self.plant(OTHER, 0x5EED8)
        L.remove([STUDENT], [self.folder])
        self.assertEqual(len(L.leftovers([OTHER], [self.folder])), 6)

    def test_the_world_writable_folders_are_found(self):
        folders, complete = L.shared_folders()
        self.assertTrue(complete)
        self.assertIn("/tmp", folders)
        self.assertNotIn("/proc", folders)


class RemovalTests(unittest.TestCase):
    """leftovers.remove_tree: no recursion, no link followed, whatever the modes."""

    def test_a_deep_tree_with_locked_folders_and_links_goes(self):
        top = tempfile.mkdtemp(prefix="remove-test-")
        outside = tempfile.mkdtemp(prefix="remove-outside-")
        with open(os.path.join(outside, "keep"), "w") as f:
            f.write("keep")
        path = os.path.join(top, "deep")
        os.makedirs(path)
        here = os.getcwd()
        os.chdir(path)
        try:
            for i in range(3000):  # deeper than Python's recursion limit and PATH_MAX
                os.mkdir("d")
                os.chdir("d")
                if i % 1000 == 0:
                    os.symlink(outside, "link")
                    with open("f", "w") as f:
                        f.write("x")
            os.chmod(".", 0o500)  # not writable by its owner
        finally:
            os.chdir(here)
        wide = os.path.join(top, "wide")
        for i in range(50):
            os.makedirs(os.path.join(wide, f"s{i}", "t"))
        os.chmod(os.path.join(wide, "s3"), 0)
        self.assertEqual(L.remove_tree(top), [])
        self.assertFalse(os.path.exists(top))
        self.assertTrue(os.path.isfile(os.path.join(outside, "keep")))  # never followed
        self.assertEqual(L.remove_tree(top), [])  # gone already: nothing to say
        shutil.rmtree(outside)


class WatchTests(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="watch-test-")
        os.chmod(self.dir, 0o755)

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def run_script(self, body, limits):
        path = os.path.join(self.dir, "prog.py")
        with open(path, "w") as f:
            f.write(textwrap.dedent(body))
        box = S.Sandbox("none").for_student(0)
        return box.run([PYTHON, path], self.dir, os.path.join(self.dir, "out.log"), limits)

    def test_a_dozing_run_is_stopped_too(self):
        """Asleep 0.9 s of every second, never idle 1 s in a row: the idle moments add up."""
        start = time.monotonic()
        r = self.run_script("""
            import time
            while True:
                time.sleep(0.9)
                end = time.monotonic() + 0.1
                while time.monotonic() < end: pass
            """, S.Limits(60.0, idle_s=1.0))
        self.assertIn("used no CPU", r.stopped)
        self.assertLess(time.monotonic() - start, 10)

    def test_an_idle_run_is_stopped_and_a_busy_one_is_not(self):
        start = time.monotonic()
        r = self.run_script("import time\ntime.sleep(60)\n", S.Limits(60.0, idle_s=1.0))
        self.assertIn("used no CPU", r.stopped)
        self.assertTrue(r.timed_out)
        self.assertLess(time.monotonic() - start, 15)
        r = self.run_script("""
            import time
            end = time.monotonic() + 2.5
            while time.monotonic() < end: pass
            """, S.Limits(60.0, idle_s=1.0))
        self.assertEqual((r.returncode, r.stopped), (0, ""))

    def test_processes_that_hold_too_much_memory_together_are_stopped(self):
        limit = W.memory_limit
        W.memory_limit = lambda: 96 << 20
        try:
            r = self.run_script("""
                import os, time
                for _ in range(4):  # each under any per-process limit, together over 96 MB
                    if os.fork() == 0:
                        block = bytearray(48 << 20)
                        time.sleep(30)
                        os._exit(0)
                time.sleep(30)
                """, S.Limits(60.0))
        finally:
            W.memory_limit = limit
        self.assertIn("held", r.stopped)
        self.assertLess(r.seconds, 20)

    def test_a_run_that_fills_the_disk_is_stopped(self):
        quota = W.QUOTA_BYTES
        W.QUOTA_BYTES = 16 << 20
        try:
            r = self.run_script(f"""
                block = b"x" * (1 << 20)
                for i in range(200):
                    with open("{self.dir}/fill%d" % i, "wb") as f:
                        f.write(block * 4)
                        f.flush()
                        import os
                        os.fsync(f.fileno())
                """, S.Limits(60.0, file_size=64 << 20))
        finally:
            W.QUOTA_BYTES = quota
        self.assertIn("filled the disk", r.stopped)


@unittest.skipUnless(os.geteuid() == 0, "needs root")
class UidBlockTests(unittest.TestCase):
    def test_two_grading_runs_never_share_a_uid_block(self):
        first = S.Sandbox("user")
        second = S.Sandbox("user")
        self.assertNotEqual(first.uid_base, second.uid_base)
        self.assertGreaterEqual(abs(first.uid_base - second.uid_base), S.BLOCK)
        base = first.uid_base
        first.close()
        third = S.Sandbox("user", uid_base=base)
        self.assertEqual(third.uid_base, base)  # given back, taken again
        second.close()
        third.close()

    def test_what_a_student_leaves_in_user_mode_is_gone_after_the_run(self):
        saved = os.environ.get(S.NO_NAMESPACES)
        os.environ[S.NO_NAMESPACES] = "1"  # as in a container: no private IPC
        try:
            box = S.Sandbox("user").for_student(3)
        finally:
            if saved is None:
                del os.environ[S.NO_NAMESPACES]
        self.assertFalse(box.private_ipc)
        work = tempfile.mkdtemp(prefix="user-run-")
        box.own(work)
        path = os.path.join(work, "prog.py")
        with open(path, "w") as f:
            f.write(textwrap.dedent(f"""
                import ctypes, os
                os.umask(0)
                open("/tmp/left_by_{box.uid}", "w").write("x")
                ctypes.CDLL(None).shmget(0, 1 << 20, 0o1000 | 0o600)  # IPC_PRIVATE
                """))
        os.chmod(path, 0o755)
        r = box.run([PYTHON, path], work, os.path.join(tempfile.mkdtemp(), "out.log"),
                    S.Limits(30.0, processes=64), writable=[work])
        self.assertEqual(r.returncode, 0, r.output)
        self.assertTrue(box.leftovers(), "the run should have left a file and a segment")
        box.remove_leftovers()
        self.assertEqual(box.leftovers(), [])
        shutil.rmtree(work, ignore_errors=True)
        box.close()


class IsolationTests(unittest.TestCase):
    def test_submissions_never_fall_back_to_no_sandbox_silently(self):
        from gradelib.session import check_isolation
        with self.assertRaisesRegex(RuntimeError, "--sandbox none"):
            check_isolation("none", "auto", required=True)
        check_isolation("none", "none", required=True)   # asked for: allowed
        check_isolation("none", "auto", required=False)  # a student's own tree
        check_isolation("user", "auto", required=True)
