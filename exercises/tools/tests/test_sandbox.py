"""The sandbox: deadlines that kill the whole process tree, leftovers killed, output capped,
limits, and (as root) another uid and, with bubblewrap, a filesystem of its own."""
import os
import shutil
import sys
import tempfile
import textwrap
import time
import unittest

from gradelib import sandbox as S

# Student uids must be able to run it: the system's Python, not one under /root.
PYTHON = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable


def alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split()[2] != "Z"
    except OSError:
        return False


class FolderCase(unittest.TestCase):
    """A test with a folder of its own that sandboxed programs can read (self.dir)."""
    prefix = "sandbox-test-"

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix=self.prefix)
        os.chmod(self.dir, 0o755)

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)


class SandboxTests(FolderCase):
    modes = ["none"]

    def script(self, body):
        path = os.path.join(self.dir, f"prog{len(os.listdir(self.dir))}.py")
        with open(path, "w") as f:
            f.write(textwrap.dedent(body))
        os.chmod(path, 0o755)
        return [PYTHON, path]

    def each_mode(self):
        for mode in self.modes:
            try:
                box = S.Sandbox(mode).for_student(1)
            except RuntimeError:
                continue
            work = tempfile.mkdtemp(dir=self.dir)
            box.own(work)
            yield mode, box, work

    def run_in(self, box, work, argv, limits):
        return box.run(argv, work, os.path.join(self.dir, f"out-{time.monotonic_ns()}.log"),
                       limits, read_only=[self.dir], writable=[work])

    def test_a_grandchild_that_leaves_the_session_dies_at_the_deadline(self):
        argv = self.script(f"""
            import os, time
            if os.fork() == 0:
                os.setsid()
                if os.fork() == 0:
                    open("{self.dir}/grandchild.%d" % os.getpid(), "w").close()
                    time.sleep(120)
                os._exit(0)
            time.sleep(120)
            """)
        for mode, box, work in self.each_mode():
            start = time.monotonic()
            r = self.run_in(box, work, argv, S.Limits(2.0, processes=64))
            self.assertTrue(r.timed_out, mode)
            self.assertLess(time.monotonic() - start, 15, mode)
            time.sleep(0.2)
            for name in os.listdir(self.dir):
                if name.startswith("grandchild."):
                    pid = int(name.split(".")[1])
                    self.assertFalse(mode == "none" and alive(pid), f"{mode}: it survived")

    def test_a_leftover_process_after_a_normal_exit_is_killed(self):
        argv = self.script("""
            import os, time, sys
            if os.fork() == 0:
                os.setsid()
                print(os.getpid(), flush=True)
                time.sleep(120)
            time.sleep(0.3)
            """)
        for mode, box, work in self.each_mode():
            start = time.monotonic()
            r = self.run_in(box, work, argv, S.Limits(30.0, processes=64))
            self.assertEqual(r.returncode, 0, mode + r.output)
            self.assertLess(time.monotonic() - start, 10, mode)
            if mode == "none":
                self.assertFalse(alive(int(r.output.split()[0])), "the leftover survived")

    def test_output_is_capped_and_only_head_and_tail_are_read(self):
        argv = self.script("""
            import sys
            line = "x" * 1023 + "\\n"
            for i in range(200 * 1024):
                sys.stdout.write(line)
            """)
        for mode, box, work in self.each_mode():
            r = self.run_in(box, work, argv, S.Limits(60.0, file_size=8 * S.MiB, processes=64))
            self.assertLessEqual(r.output_bytes, 8 * S.MiB, mode)
            self.assertLess(len(r.output), 3 * S.KEEP_OUTPUT, mode)
            self.assertIn(r.signal, ("SIGXFSZ", None), mode)

    def test_the_syscall_filter(self):
        """What no exercise needs fails with an error (not a kill): tracing, a network socket
        (any socket without a GPU), the keyrings, new namespaces, personality."""
        if not S.seccomp.works():
            self.skipTest("no seccomp here")
        argv = self.script("""
            import ctypes, errno, os, socket
            libc = ctypes.CDLL(None, use_errno=True)
            def tried(what, ok):
                print(what, "worked" if ok else "refused")
            tried("ptrace", libc.ptrace(0, 0, 0, 0) == 0)
            try:
                socket.socket(socket.AF_INET, socket.SOCK_STREAM).close(); tried("inet", True)
            except OSError:
                tried("inet", False)
            try:
                socket.socket(socket.AF_UNIX, socket.SOCK_STREAM).close(); tried("unix", True)
            except OSError:
                tried("unix", False)
            tried("keyctl", libc.syscall(250, 0, -4, 0) >= 0)
            tried("unshare", libc.unshare(0x10000000) == 0)
            tried("personality", libc.personality(0x0040000) != -1)
            tried("fork", os.fork() == 0 or os.wait() is None)
            libc.shmat.restype = ctypes.c_void_p
            segment = libc.shmget(0, 1 << 20, 0o1600)  # IPC_PRIVATE, IPC_CREAT | 0600
            tried("shmat", libc.shmat(segment, None, 0) not in (None, 2**64 - 1))
            libc.shmctl(segment, 0, None)  # IPC_RMID
            tried("memfd", libc.syscall(319, b"m", 0) >= 0)
            libc.syscall(285, -1, 0, 0, 1 << 30)  # fallocate: "not supported" (else EBADF)
            print("fallocate", ctypes.get_errno() == errno.EOPNOTSUPP and "unsupported")
            """)
        for mode, box, work in self.each_mode():
            r = self.run_in(box, work, argv, S.Limits(30.0, processes=64))
            for what in ("ptrace", "inet", "unix", "keyctl", "unshare", "personality", "shmat",
                         "memfd"):
                self.assertIn(f"{what} refused", r.output, (mode, r.output))
            self.assertIn("fallocate unsupported", r.output, (mode, r.output))
            self.assertIn("fork worked", r.output, mode)
        for mode, box, work in self.each_mode():  # a run with a GPU may use a unix socket
            r = box.run(argv, work, os.path.join(self.dir, "gpu.log"), S.Limits(30.0, processes=64),
                        read_only=[self.dir], writable=[work], gpu=True)
            self.assertIn("unix worked", r.output, mode)
            self.assertIn("inet refused", r.output, mode)
            self.assertIn("memfd refused", r.output, mode)

    def test_memory_and_cpu_limits(self):
        hog = self.script("""
            blocks = [bytearray(256 << 20) for _ in range(64)]
            """)
        spin = self.script("""
            while True: pass
            """)
        for mode, box, work in self.each_mode():
            r = self.run_in(box, work, hog, S.Limits(60.0, address_space=2 * S.GiB, processes=64))
            self.assertNotEqual(r.returncode, 0, mode)
            self.assertIn("MemoryError", r.output, mode)
            r = self.run_in(box, work, spin, S.Limits(60.0, cpu_s=1, processes=64))
            self.assertIn(r.signal, ("SIGXCPU", "SIGKILL"), mode)
            self.assertLess(r.seconds, 20, mode)


@unittest.skipUnless(os.geteuid() == 0, "needs root")
class IsolatedSandboxTests(SandboxTests):
    modes = ["user", "bwrap"]

    def test_another_uid_that_cannot_read_private_folders(self):
        secret = os.path.join(self.dir, "private")
        os.makedirs(secret, mode=0o700)
        with open(os.path.join(secret, "key"), "w") as f:
            f.write("s3cret")
        argv = self.script(f"""
            import os
            print("uid", os.getuid())
            try:
                print(open("{secret}/key").read())
            except OSError as e:
                print("refused", type(e).__name__)
            """)
        for mode, box, work in self.each_mode():
            r = self.run_in(box, work, argv, S.Limits(30.0, processes=64))
            self.assertNotIn("s3cret", r.output, mode)
            self.assertIn("refused", r.output, mode)
            if mode == "user":
                self.assertIn(f"uid {box.uid}", r.output)

    def test_a_trusted_run_keeps_the_graders_uid(self):
        # The reference timer lives in the trusted build, which the user sandbox closes to
        # the students' uids (mode 0700): it must run as the grader, the student's code not.
        private = os.path.join(self.dir, "trusted")
        os.makedirs(private, mode=0o700)
        argv = [PYTHON, "-c", "import os; print('uid', os.getuid())"]
        tool = os.path.join(private, "tool.py")
        with open(tool, "w") as f:
            f.write("import os\nprint('uid', os.getuid())\n")
        for mode, box, work in self.each_mode():
            if mode != "user":
                continue
            out = os.path.join(self.dir, f"out-{time.monotonic_ns()}.log")
            r = box.run([PYTHON, tool], work, out, S.Limits(30.0, processes=64),
                        read_only=[self.dir], writable=[work], trusted=True)
            self.assertEqual(r.returncode, 0, r.output)
            self.assertIn(f"uid {os.getuid()}", r.output)
            r = self.run_in(box, work, [PYTHON, tool], S.Limits(30.0, processes=64))
            self.assertNotEqual(r.returncode, 0, r.output)  # the student's uid cannot read it
            r = self.run_in(box, work, argv, S.Limits(30.0, processes=64))
            self.assertIn(f"uid {box.uid}", r.output)

    def test_the_probe_finds_what_a_student_could_read(self):
        readable = os.path.join(self.dir, "readable")
        private = os.path.join(self.dir, "private")
        runnable = os.path.join(self.dir, "runnable")
        for path, mode in ((readable, 0o644), (private, 0o600), (runnable, 0o711)):
            with open(path, "w") as f:
                f.write("x")
            os.chmod(path, mode)
        locked = os.path.join(self.dir, "locked")
        os.makedirs(locked, mode=0o700)
        for mode, box, work in self.each_mode():
            if mode != "user":
                continue  # bubblewrap shows none of them (the test folder is not bound)
            got = box.probe([readable, private, runnable, locked], work)
            self.assertEqual(sorted(got), sorted([readable, runnable + " (runnable)"]), got)

    def test_bubblewrap_shows_only_what_it_binds(self):
        hidden = tempfile.mkdtemp(prefix="not-bound-")
        os.chmod(hidden, 0o755)
        argv = self.script(f"""
            import os
            print("sees" if os.path.exists("{hidden}") else "does not see")
            """)
        for mode, box, work in self.each_mode():
            if mode != "bwrap":
                continue
            r = self.run_in(box, work, argv, S.Limits(30.0, processes=64))
            self.assertIn("does not see", r.output)
        shutil.rmtree(hidden)


class OutputTests(unittest.TestCase):
    def test_control_characters_never_reach_a_report(self):
        self.assertEqual(S.printable("a\x1b[2Jb\r\nc\td\x07"), "a\ufffd[2Jb\ufffd\nc\td\ufffd")
        self.assertEqual(S.printable("x\u202ey\u2066"), "x\ufffdy\ufffd")  # bidi overrides
        # What XML 1.0 may not hold: a JUnit report quoting it could not be read at all.
        self.assertEqual(S.printable("p\ufffeq\uffffr\ud800s"), "p\ufffdq\ufffdr\ufffds")


class StandardInputTests(FolderCase):
    prefix = "sandbox-stdin-"

    def program(self, text):
        path = os.path.join(self.dir, "prog.py")
        with open(path, "w") as f:
            f.write(text)
        os.chmod(path, 0o755)
        return [PYTHON, path]

    def test_the_request_comes_through_a_pipe_that_cannot_be_read_again(self):
        argv = self.program("import os, sys\n"
                            "first = sys.stdin.buffer.readline()\n"
                            "try:\n"
                            "    os.pread(0, 10, 0); again = 'read again'\n"
                            "except OSError:\n"
                            "    again = 'not again'\n"
                            "print(first.decode().strip(), again, len(sys.stdin.buffer.read()))\n")
        data = b"line one\n" + b"x" * (1 << 20)  # more than a pipe holds
        r = S.Sandbox("none").run(argv, self.dir, os.path.join(self.dir, "out.log"),
                                  S.Limits(30.0), stdin_data=data)
        self.assertEqual(r.output.split(), ["line", "one", "not", "again", str(1 << 20)])

    def test_the_pipe_cannot_be_opened_again_to_put_lines_back(self):
        argv = self.program("import os, stat\n"
                            "print('mode', oct(stat.S_IMODE(os.fstat(0).st_mode)))\n"
                            "try:\n"
                            "    os.close(os.open('/proc/self/fd/0', os.O_WRONLY)); print('reopened')\n"
                            "except OSError:\n"
                            "    print('refused')\n")
        # The pipe's mode is 0 in every mode; opening it again is refused wherever the code
        # runs as a uid that is not root (root may open anything: `none` as root).
        tried = 0
        for mode in ("none", "bwrap", "user"):
            try:
                box = S.Sandbox(mode).for_student(1)
            except RuntimeError:
                continue
            work = tempfile.mkdtemp(dir=self.dir)
            box.own(work)
            r = box.run(argv, work, os.path.join(self.dir, f"{mode}.log"),
                        S.Limits(30.0, processes=64), read_only=[self.dir], writable=[work],
                        stdin_data=b"a line\n")
            self.assertIn("mode 0o0", r.output, (mode, r.output))
            if not (mode == "none" and os.geteuid() == 0):
                self.assertIn("refused", r.output, (mode, r.output))
            tried += 1
        if not tried:
            self.skipTest("no sandbox here")


class WatchTests(unittest.TestCase):
    def test_shared_memory_no_process_maps_counts(self):
        """A memfd filled and held, but never mapped, is no process's resident memory."""
        from gradelib.watch import Watch
        watch = Watch(os.getpid(), None, 0, [], memory=96 << 20)
        self.assertIsNone(watch.check())
        fd = os.memfd_create("held")
        try:
            block = b"\1" * (1 << 20)
            for _ in range(256):
                os.write(fd, block)
            said = watch.check()
            self.assertIsNotNone(said)
            self.assertIn("shared memory", said)
            # Another run's (here: this process's) shared memory is not charged to a run.
            import subprocess
            other = subprocess.Popen([PYTHON, "-c", "import time; time.sleep(30)"],
                                     start_new_session=True)
            try:
                self.assertIsNone(Watch(other.pid, None, 0, [], memory=96 << 20).check())
            finally:
                other.kill()
                other.wait()
        finally:
            os.close(fd)

    def test_shared_memory_kept_by_one_mapped_page_counts(self):
        """A memfd filled, one page of it mapped, then closed: still held, by the mapping."""
        import ctypes
        import mmap
        from gradelib.watch import Watch
        watch = Watch(os.getpid(), None, 0, [], memory=96 << 20)
        fd = os.memfd_create("mapped")
        block = b"\1" * (1 << 20)
        for _ in range(256):
            os.write(fd, block)
        # libc's mmap, not Python's: mmap.mmap keeps a duplicate of the descriptor open
        libc = ctypes.CDLL(None, use_errno=True)
        libc.mmap.restype = ctypes.c_void_p
        libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                              ctypes.c_int, ctypes.c_long]
        page = libc.mmap(None, mmap.PAGESIZE, mmap.PROT_READ, mmap.MAP_SHARED, fd, 0)
        os.close(fd)
        try:
            self.assertNotEqual(page, ctypes.c_void_p(-1).value)
            said = watch.check()
            self.assertIsNotNone(said)
            self.assertIn("shared memory", said)
        finally:
            libc.munmap(ctypes.c_void_p(page), ctypes.c_size_t(mmap.PAGESIZE))


class ResultsTests(unittest.TestCase):
    def test_a_results_folder_replaced_by_a_link_is_not_followed(self):
        from gradelib.execute import collect_results
        d = tempfile.mkdtemp()
        try:
            other = os.path.join(d, "someone_else")
            os.makedirs(other)
            with open(os.path.join(other, "results.txt"), "w") as f:
                f.write("0 ok launches=1\n")
            run = os.path.join(d, "run")
            os.makedirs(run)
            os.symlink(other, os.path.join(run, "results"))
            collect_results(os.path.join(run, "results"), os.path.join(d, "got"), 1, 1 << 20)
            self.assertEqual(os.listdir(os.path.join(d, "got")), [])
            os.unlink(os.path.join(run, "results"))
            shutil.copytree(other, os.path.join(run, "results"))
            os.symlink(os.path.join(other, "results.txt"), os.path.join(run, "results", "1.bin"))
            collect_results(os.path.join(run, "results"), os.path.join(d, "got"), 2, 1 << 20)
            self.assertEqual(os.listdir(os.path.join(d, "got")), ["results.txt"])  # the real file
            for name in ("0.bin", "7.bin", "0.txt", "notes"):  # call 7 was never asked for
                with open(os.path.join(run, "results", name), "w") as f:
                    f.write("x")
            collect_results(os.path.join(run, "results"), os.path.join(d, "got"), 2, 1 << 20)
            self.assertEqual(sorted(os.listdir(os.path.join(d, "got"))), ["0.bin", "results.txt"])
            # A hard link to a file the student could not read would be copied by the grader.
            secret = os.path.join(d, "secret")
            with open(secret, "w") as f:
                f.write("key")
            os.link(secret, os.path.join(run, "results", "1.sums"))
            got = os.path.join(d, "got2")
            collect_results(os.path.join(run, "results"), got, 2, 1 << 20)
            self.assertNotIn("1.sums", os.listdir(got))
            collect_results(os.path.join(run, "results"), os.path.join(d, "got3"), 2, 1 << 20,
                            owner=os.getuid() + 1)  # another uid's files: none taken
            self.assertEqual(os.listdir(os.path.join(d, "got3")), [])
        finally:
            shutil.rmtree(d, ignore_errors=True)
