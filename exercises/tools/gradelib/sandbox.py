"""Where a student's code runs: the compiler on their files, and their runner.

Three levels, the strongest this machine allows (`--sandbox auto`), always named in the report:

  bwrap  bubblewrap: new mount, PID, network, IPC and user namespaces. The process sees the
         system's programs and libraries read-only, the exercise kit read-only, its own folder
         read-write, a private /tmp, and nothing else: not the repository, not the solutions or
         hidden tests, not other students, not the grades. When its time is up, killing bwrap
         ends every process in its PID namespace. As root, it also runs as a uid of its own.
  user   as root without a working bubblewrap (e.g. a Docker container such as Gradescope's):
         a uid of its own per student, with no supplementary groups and, where the kernel
         allows it, no network and IPC objects of its own. It can read only what is
         world-readable; the grader keeps the instructor's files and the grades out of its
         reach (0700), ends every process of that uid when a test ends, and removes what the
         uid left in the world-writable folders and System V IPC (leftovers.py), checking
         before each student that nothing of an earlier one is left.
  none   neither (a student checking their own work): their code runs as them.

In every mode: a syscall filter (seccomp.py) where the kernel has seccomp, resource limits
(CPU time, address space or data size, file size, processes, open files, no POSIX message
queues), a wall-clock deadline after which the whole process tree is killed, an early stop
for a CPU-only run that sits idle, a run that fills the disk or whose processes hold too much
memory together (watch.py), output
written to a file (never a pipe a leftover process could hold open) of which only the head
and the tail are read back, and no process of the run survives it (the grader is a
subreaper: a process that leaves its session still comes back to it, and is killed). Before
any student code runs, probe() tries, as a student and with the sandbox's view of the
machine, which of the instructor's files it could read or run.
"""

import ctypes
import fcntl
import glob
import os
import re
import resource
import shutil
import signal
import stat
import subprocess
import threading
import tempfile
import time
from dataclasses import dataclass, replace
from typing import List, Optional, Sequence, Tuple

from . import leftovers
from . import seccomp
from .watch import POLL_S, Watch

MODES = ("auto", "bwrap", "user", "none")
UID_BASE = 47000      # --sandbox-uid-base: the uids of students 0, 1, 2, ...
KEEP_OUTPUT = 24000   # characters kept from the head and from the tail of a run's output
TMPFS_BYTES = 1 << 30  # bubblewrap: the size of a run's private /tmp
SHM_BYTES = 256 << 20  # ... and of its /dev/shm
_libc = ctypes.CDLL(None, use_errno=True)
_PR_SET_CHILD_SUBREAPER = 36
_CLONE_NEWNET = 0x40000000
_CLONE_NEWIPC = 0x08000000
IDLE_S = 5.0          # a CPU-only test run that uses no CPU this long is stopped (watch.py)
# Set (to anything) to grade as in a container that refuses namespaces: the self-test checks
# the `user` sandbox's cleanup that way on a machine that would otherwise give it namespaces.
NO_NAMESPACES = "EXERCISES_SANDBOX_NO_NAMESPACES"
GiB = 1 << 30
MiB = 1 << 20


@dataclass
class Limits:
    wall_s: float
    cpu_s: Optional[int] = None
    address_space: Optional[int] = None  # RLIMIT_AS: not for GPU processes (CUDA maps a lot)
    data: Optional[int] = None           # RLIMIT_DATA: heap and private mappings
    file_size: int = 64 * MiB
    processes: int = 256                 # more than the student's processes already running
    open_files: int = 1024
    idle_s: Optional[float] = None       # stopped after this long without using CPU


COMPILE_CPU_S = 60  # per compiler process: the largest exercise's compiles take a few seconds


def compile_limits(wall_s):
    """A compiler process may use 4 GiB and COMPILE_CPU_S of CPU (the largest exercise's
    compiles take a few seconds and a few hundred MB: a template or macro bomb is stopped at
    that, and the build's order (runner.cmake) lets it cost one compile); the whole build
    `wall_s`."""
    return Limits(wall_s, cpu_s=COMPILE_CPU_S, address_space=4 * GiB, file_size=GiB,
                  processes=256, open_files=4096)


def run_limits(wall_s, gpu, large_output=False):
    """A test's run; one without a GPU computes all the time, so idling stops it early (a
    GPU run may wait on the device)."""
    return Limits(wall_s, cpu_s=int(wall_s * 2) + 10,
                  address_space=None if gpu else 8 * GiB,
                  data=16 * GiB if gpu else None,
                  file_size=(512 if large_output else 64) * MiB, processes=128,
                  idle_s=None if gpu else IDLE_S)


# Run as the student before any of its code (Sandbox.probe): which of the given paths it could
# read (a file opened, a folder listed) or run. The shell's tests ask the kernel (access(2))
# as the student's uid, path and all.
PROBE = r"""
for p in "$@"; do
  if [ -r "$p" ]; then echo "readable $p"
  elif [ -f "$p" ] && [ -x "$p" ]; then echo "readable $p (runnable)"
  fi
done
echo "probe done"
"""


@dataclass
class RunResult:
    returncode: Optional[int]   # None when killed at the deadline
    timed_out: bool
    seconds: float
    output: str                 # the head and the tail of what it printed
    output_bytes: int
    stopped: str = ""           # why the watch stopped it early (idle, disk, memory), if it did

    @property
    def signal(self):
        if self.returncode is not None and self.returncode < 0:
            try:
                return signal.Signals(-self.returncode).name
            except ValueError:
                return f"signal {-self.returncode}"
        return None


# Control characters (escape sequences, carriage returns...) and direction marks in what a run
# printed would reach the instructor's terminal and the report viewers, and what XML 1.0 may not
# hold (U+FFFE, U+FFFF, lone surrogates) would make the JUnit report unreadable: all are shown as
# U+FFFD.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ufffe\uffff"
                      "\ud800-\udfff]")


def _feed(fd, data):
    """Writes data into a pipe and closes it; stops when the reader is gone."""
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
    except OSError:  # the program ended (or closed its end) before reading it all
        pass
    finally:
        os.close(fd)


def printable(text):
    return _CONTROL.sub("\ufffd", text)


def _read_head_tail(path):
    size = os.path.getsize(path)
    with open(path, "rb") as f:
        if size <= 2 * KEEP_OUTPUT:
            data = f.read().decode("utf-8", "replace")
        else:
            head = f.read(KEEP_OUTPUT).decode("utf-8", "replace")
            f.seek(size - KEEP_OUTPUT)
            tail = f.read().decode("utf-8", "replace")
            data = f"{head}\n[... {size - 2 * KEEP_OUTPUT} bytes of output left out ...]\n{tail}"
    return printable(data), size


def _processes():
    """(pid, ppid, uid) of every live process we can see (a zombie runs nothing, holds
    nothing but its pid, and cannot be killed: its parent reaps it)."""
    out = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/status") as f:
                fields = dict(line.split(":", 1) for line in f if ":" in line)
            if fields["State"].split()[0] in ("Z", "X"):
                continue
            out.append((int(entry), int(fields["PPid"].split()[0]),
                        int(fields["Uid"].split()[0])))
        except (OSError, KeyError, ValueError):
            continue
    return out


def _kill_uid(uid):
    """Every process of `uid`: kill(-1) as that uid reaches all of them (and nothing else)."""
    for _ in range(20):
        if not any(u == uid for _, _, u in _processes()):
            return
        pid = os.fork()
        if pid == 0:
            try:
                os.setgid(uid)
                os.setuid(uid)
                os.kill(-1, signal.SIGKILL)
            finally:
                os._exit(0)
        os.waitpid(pid, 0)
        _reap()
        time.sleep(0.05)


def _reap():
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def _bwrap_works(uid=None):
    if not shutil.which("bwrap"):
        return False
    argv = ["bwrap", "--unshare-all", "--die-with-parent", "--ro-bind", "/", "/", "--proc",
            "/proc", "true"]

    def drop():
        if uid is not None:
            os.setgroups([])
            os.setgid(uid)
            os.setuid(uid)
    try:
        return subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              preexec_fn=drop, timeout=20).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


def _bwrap_sizes_tmpfs():
    """bubblewrap 0.7 and later take --size for the next tmpfs."""
    try:
        out = subprocess.run(["bwrap", "--version"], stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, timeout=10).stdout.decode()
        major, minor = (int(x) for x in out.split()[-1].split(".")[:2])
        return (major, minor) >= (0, 7)
    except (OSError, subprocess.SubprocessError, ValueError, IndexError):
        return False


def _can_unshare(flag):
    if os.environ.get(NO_NAMESPACES):
        return False
    pid = os.fork()
    if pid == 0:
        os._exit(0 if _libc.unshare(flag) == 0 else 1)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status) == 0


BLOCK = 1000  # uids per grading run


def _lock_folder():
    """Where grading runs as root take their uid blocks: a folder only root can write."""
    base = "/run" if os.path.isdir("/run") else tempfile.gettempdir()
    folder = os.path.join(base, "exercise-grader-uids")
    try:
        os.mkdir(folder, 0o700)
    except FileExistsError:
        pass
    info = os.lstat(folder)
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != 0 or info.st_mode & 0o022:
        raise RuntimeError(f"{folder} is not a folder that only root can write: remove it")
    return folder


def _take_uid_block(base):
    """(a block of BLOCK uids from `base` that no account, group or process uses and that no
    other grading run holds, the open lock file that holds it for this run)."""
    import grp
    import pwd
    used = {p.pw_uid for p in pwd.getpwall()} | {g.gr_gid for g in grp.getgrall()} | \
        {uid for _, _, uid in _processes()}
    folder = _lock_folder()
    while True:
        if not any(base + i in used for i in range(BLOCK)):
            lock = open(os.path.join(folder, f"{base}.lock"), "w")  # closed: released
            try:
                fcntl.flock(lock.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
                return base, lock
            except OSError:
                lock.close()  # another grading run holds it
        base += BLOCK


class Sandbox:
    """One student's sandbox (`for_student`); the grader keeps one per student."""

    def __init__(self, mode="auto", uid_base=UID_BASE, log=None):
        if mode not in MODES:
            raise ValueError(f"--sandbox must be one of {', '.join(MODES)}")
        self.root = os.geteuid() == 0
        self.log = log or (lambda m: None)
        # Before anything runs (the bubblewrap probe too): orphans come back to us, to be
        # reaped, rather than to an init that may never reap them (a container's).
        _libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
        self.uid = None
        self.uid_base, self._lock = _take_uid_block(uid_base) if self.root and mode != "none" \
            else (None, None)
        probe_uid = self.uid_base if self.root else None
        if mode == "auto":
            mode = "bwrap" if _bwrap_works(probe_uid) else ("user" if self.root else "none")
        elif mode == "bwrap" and not _bwrap_works(probe_uid):
            raise RuntimeError("--sandbox bwrap: bubblewrap is missing or cannot create "
                               "namespaces here (apt-get install bubblewrap; in a container "
                               "it may be refused: use --sandbox user as root)")
        elif mode == "user" and not self.root:
            raise RuntimeError("--sandbox user needs root (it runs each student as a uid of "
                               "their own)")
        self.mode = mode
        user = self.root and mode == "user"
        self.private_net = user and _can_unshare(_CLONE_NEWNET)
        self.private_ipc = user and _can_unshare(_CLONE_NEWIPC)
        # The syscall filter (seccomp.py) on every build and run, where the kernel allows it.
        self.filter = seccomp.works()
        if not self.filter:
            self.log("note: no syscall filter on this machine (seccomp unavailable, or not "
                     "x86-64): student code may make every system call the sandbox allows")
        self.folders, complete = leftovers.shared_folders() if user else ([], True)
        if not complete:
            self.log("note: the search for world-writable folders stopped early (a very large "
                     "file system): files a student leaves elsewhere are not removed")

    def close(self):
        """Gives the uid block back (once this run's students are gone: clear_block())."""
        if self._lock is not None:
            self._lock.close()

    def for_student(self, index):
        other = Sandbox.__new__(Sandbox)
        other.__dict__.update(self.__dict__)
        if self.root and self.mode != "none":
            other.uid = self.uid_base + index % 1000
        return other

    def describe(self):
        filtered = "; a syscall filter" if self.filter else \
            "; no syscall filter (seccomp unavailable)"
        if self.mode == "bwrap":
            who = f", uid {self.uid_base}+" if self.root else ""
            return (f"bubblewrap (own mount, PID, network and user namespaces{who}; the system "
                    f"read-only, the kit read-only, its own folder read-write{filtered})")
        if self.mode == "user":
            net = "no network" if self.private_net else "network not isolated (no namespaces here)"
            return (f"an unprivileged uid per student ({self.uid_base}+), {net}, what it "
                    f"leaves in the temporary folders and IPC removed, nothing of the "
                    f"instructor's readable by it{filtered} (no bubblewrap here)")
        return ("none: your code runs as you, as any program you start would (fine for your "
                "own work, not for grading a class)" + filtered.replace("a syscall filter",
                                                                        "system calls no exercise "
                                                                        "needs refused"))

    @property
    def isolated(self):
        return self.mode != "none"

    # -----------------------------------------------------------------------------------------

    def own(self, path):
        """Hands a folder (recursively) to the student's uid, mode 0700."""
        if self.uid is None:
            os.makedirs(path, exist_ok=True)
            return
        os.makedirs(path, exist_ok=True)
        for dirpath, dirnames, filenames in os.walk(path):
            os.lchown(dirpath, self.uid, self.uid)
            os.chmod(dirpath, 0o700)
            for name in filenames:
                os.lchown(os.path.join(dirpath, name), self.uid, self.uid)

    def _rlimits(self, limits, as_student=True):
        out = [(resource.RLIMIT_CORE, 0), (resource.RLIMIT_FSIZE, limits.file_size),
               (resource.RLIMIT_NOFILE, limits.open_files)]
        if limits.cpu_s:
            out.append((resource.RLIMIT_CPU, limits.cpu_s))
        if limits.address_space:
            out.append((resource.RLIMIT_AS, limits.address_space))
        if limits.data:
            out.append((resource.RLIMIT_DATA, limits.data))
        # POSIX message queues outlive their processes and cannot be listed where /dev/mqueue
        # is not mounted: none at all (nothing a student's code needs).
        out.append((resource.RLIMIT_MSGQUEUE, 0))
        running = 0 if self.uid is not None and as_student else sum(
            1 for _, _, uid in _processes() if uid == os.getuid())
        out.append((resource.RLIMIT_NPROC, running + limits.processes))
        return out

    def _preexec(self, limits, code=None, as_student=True):
        """The child's set-up between fork and exec: its own session, limits, namespaces and
        uid (`user` mode, unless not `as_student`), and last the syscall filter `code`
        (seccomp.py; bubblewrap installs it itself)."""
        rlimits = self._rlimits(limits, as_student)
        uid = self.uid if as_student else None
        namespaces = (_CLONE_NEWNET if self.private_net else 0) | \
            (_CLONE_NEWIPC if self.private_ipc else 0)

        def child():
            os.setsid()
            os.umask(0o077)
            for res, value in rlimits:
                soft, hard = resource.getrlimit(res)
                value = value if hard == resource.RLIM_INFINITY else min(value, hard)
                resource.setrlimit(res, (value, value))
            if namespaces:
                _libc.unshare(namespaces)
            if uid is not None:
                os.setgroups([])
                os.setgid(uid)
                os.setuid(uid)
            if code is not None:
                seccomp.install(code)
        return child

    def _bwrap(self, argv, cwd, read_only, writable, gpu, filter_fd=None):
        out = ["bwrap", "--unshare-user", "--unshare-pid", "--unshare-net", "--unshare-ipc",
               "--unshare-uts", "--unshare-cgroup-try", "--die-with-parent", "--new-session"]
        if filter_fd is not None:
            out += ["--seccomp", str(filter_fd)]
        for top in ("/usr", "/bin", "/sbin", "/lib", "/lib64", "/lib32", "/etc", "/opt"):
            if os.path.islink(top):
                out += ["--symlink", os.readlink(top), top]
            elif os.path.isdir(top):
                out += ["--ro-bind", top, top]
        out += ["--proc", "/proc", "--dev", "/dev", "--ro-bind-try", "/sys", "/sys"]
        # A private /tmp and /dev/shm in memory, but not all of it (--dev's own tmpfs would
        # take up to half the machine's memory).
        sized = _bwrap_sizes_tmpfs()
        out += (["--size", str(TMPFS_BYTES)] if sized else []) + ["--tmpfs", "/tmp"]
        out += (["--size", str(SHM_BYTES)] if sized else []) + ["--tmpfs", "/dev/shm"]
        if gpu:
            for node in sorted(glob.glob("/dev/nvidia*")):
                out += ["--dev-bind", node, node]
        for path in read_only:
            out += ["--ro-bind", path, path]
        for path in writable:
            out += ["--bind", path, path]
        return out + ["--chdir", cwd, "--"] + list(argv)

    def run(self, argv: Sequence[str], cwd: str, output_path: str, limits: Limits,
            read_only: List[str] = (), writable: List[str] = (), gpu=False, env=None,
            trusted=False, stdin_data=None):
        """Runs argv in the sandbox; returns a RunResult. `read_only` and `writable` are the
        folders (beyond the system) that it may see: only bubblewrap enforces that list; in
        `user` mode file permissions do, and `none` runs it as the caller. A `trusted` program
        (the reference timer: the instructor's code, none of the student's) keeps the caller's
        uid in `user` mode, where the trusted build is the caller's alone (mode 0700), with
        the same limits, filter and folders as the student's runs; it starts only when no
        process of the student's uid is left. `stdin_data` (bytes): its standard input, through
        a pipe that a thread of the grader fills (a runner's request: a pipe cannot be read
        again from its start, a file can)."""
        as_student = not (trusted and self.mode == "user")
        if not as_student and self.uid is not None:
            _kill_uid(self.uid)
            if any(u == self.uid for _, _, u in _processes()):
                raise RuntimeError(f"a process of uid {self.uid} outlived every kill: the "
                                   f"reference timer does not start beside it")
        environment = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": cwd,
                       "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8",
                       "TMPDIR": "/tmp" if self.mode == "bwrap" else cwd}
        for key in ("CUDA_VISIBLE_DEVICES", "TUTORIAL_CPU_ORDER", "TUTORIAL_CPU_SEED"):
            if key in os.environ:
                environment[key] = os.environ[key]
        environment.update(env or {})
        if trusted and self.mode == "user":
            # The CUDA driver looks for an MPS server's pipe in /tmp/nvidia-mps: one that a
            # student's uid made there is not the grader's to talk to.
            try:
                if os.stat("/tmp/nvidia-mps").st_uid != os.getuid():
                    environment["CUDA_MPS_PIPE_DIRECTORY"] = os.path.join(cwd, "no-mps")
            except OSError:
                pass
        # A run with a GPU may need a unix socket (the CUDA driver's MPS client); nothing
        # else needs any socket.
        code = seccomp.program(allow_unix_sockets=gpu) if self.filter else None
        filter_fd = seccomp.file_descriptor(code) if code and self.mode == "bwrap" else None
        if self.mode == "bwrap":
            argv = self._bwrap(argv, cwd, list(read_only), list(writable), gpu, filter_fd)
        fd = os.open(output_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        start = time.monotonic()
        timed_out = False
        feed = os.pipe() if stdin_data is not None else None
        if feed:
            # Mode 0: the pipe can be used through the descriptors it came with, never opened
            # again (/proc/self/fd/0 opened for writing would let code read the lines ahead and
            # put them back).
            os.fchmod(feed[0], 0)
        try:
            proc = subprocess.Popen(list(argv), cwd=cwd, env=environment,
                                    stdin=feed[0] if feed else subprocess.DEVNULL,
                                    stdout=fd, stderr=fd,
                                    preexec_fn=self._preexec(limits, None if filter_fd is not None
                                                             else code, as_student=as_student),
                                    close_fds=True,
                                    pass_fds=(filter_fd,) if filter_fd is not None else ())
        except OSError as e:
            os.close(fd)
            if filter_fd is not None:
                os.close(filter_fd)
            if feed:
                os.close(feed[0])
                os.close(feed[1])
            with open(output_path, "a") as f:
                f.write(f"cannot start {argv[0]}: {e}\n")
            return RunResult(127, False, 0.0, f"cannot start {argv[0]}: {e}", 0)
        os.close(fd)
        if filter_fd is not None:
            os.close(filter_fd)
        feeder = None
        if feed:
            os.close(feed[0])
            feeder = threading.Thread(target=_feed, args=(feed[1], stdin_data), daemon=True)
            feeder.start()
        watched = [cwd] + list(writable) + (["/tmp"] if self.mode != "bwrap" else []) + \
            list(self.folders)
        watch = Watch(proc.pid, self.uid, limits.idle_s, watched)
        stopped = ""
        while True:
            try:
                rc = proc.wait(timeout=max(0.0, min(POLL_S, start + limits.wall_s -
                                                    time.monotonic())))
                break
            except subprocess.TimeoutExpired:
                rc = None
            if time.monotonic() >= start + limits.wall_s:
                timed_out = True
                break
            stopped = watch.check() or ""
            if stopped:
                break
        seconds = time.monotonic() - start
        if self.mode == "bwrap" and rc is not None and 128 < rc < 128 + 65:
            rc = -(rc - 128)  # bwrap reports a child killed by signal N as 128 + N
        self.kill_all(proc)
        if rc is None:
            try:
                proc.wait(timeout=60)
            except subprocess.TimeoutExpired:  # unkillable (a process stuck in the driver)
                pass
        if feeder is not None:
            feeder.join(timeout=10)  # the run is over: its end of the pipe is closed
        output, size = _read_head_tail(output_path)
        return RunResult(rc, timed_out or bool(stopped), seconds, output, size, stopped)

    # --- what a student can read ---------------------------------------------------------------

    def probe(self, paths, folder):
        """Which of `paths` this student's code could read, list, or run, tried as that
        student (the uid, the namespaces, the filter and the mounts of a run), before any of
        its code runs. `folder`: a folder of the student's to run in. [] in `none` mode, where
        the code runs as the caller, who can read everything the grader can."""
        if self.mode == "none" or not paths:
            return []
        own_folder = os.path.join(folder, "probe")
        os.makedirs(own_folder, exist_ok=True)
        self.own(own_folder)
        output = os.path.join(folder, "probe.log")
        result = self.run(["/bin/sh", "-c", PROBE, "probe"] + sorted(set(paths)), own_folder,
                          output, Limits(60.0, cpu_s=30, address_space=2 * GiB),
                          writable=[own_folder])
        try:
            os.unlink(output)
        except OSError:
            pass
        leftovers.remove_tree(own_folder)
        if result.returncode != 0 or "probe done" not in result.output:
            return [f"(the probe as the student's uid did not run: {result.output[-300:]})"]
        return [line[len("readable "):] for line in result.output.splitlines()
                if line.startswith("readable ")]

    # --- what a student leaves behind -----------------------------------------------------------

    @property
    def block(self):
        """The uids of this grading run's students (none without a uid per student)."""
        return range(self.uid_base, self.uid_base + BLOCK) if self.uid_base is not None and \
            self.mode != "none" else range(0)

    def remove_leftovers(self):
        """Removes what this student's uid left in the world-writable folders and System V IPC
        (`user` mode: bubblewrap gives each run a /tmp, a /dev and IPC of its own), so that the
        next student finds nothing and the machine gets its disk and memory back. Returns what
        could not be removed (taken from the uid, out of every student's reach)."""
        if self.uid is not None and self.mode == "user":
            return leftovers.remove([self.uid], self.folders)
        return []

    def clear(self):
        """Nothing of this student's uid is left running or lying around; returns what could
        not be removed (see remove_leftovers)."""
        self.kill_all()
        return self.remove_leftovers()

    def clear_block(self):
        """Nothing of any uid of this run's block (an earlier run's, say) is left; returns what
        could not be removed (taken from its uid)."""
        uids = set(self.block)
        for uid in sorted({u for _, _, u in _processes() if u in uids}):
            _kill_uid(uid)
        if self.mode == "user" and uids:
            return leftovers.remove(uids, self.folders)
        return []

    def leftovers(self):
        """What any uid of the block still has (processes, files, IPC objects): [] before a
        student's code may run."""
        uids = set(self.block)
        out = [f"process {pid} (uid {uid})" for pid, _, uid in _processes() if uid in uids]
        if self.mode == "user" and uids:
            out += leftovers.leftovers(uids, self.folders)
        return out

    def kill_all(self, proc=None):
        """Ends every process the last run left: its process group, every process of the
        student's uid, and whatever came back to us as the subreaper."""
        if proc is not None:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        if self.uid is not None:
            _kill_uid(self.uid)
        # Orphans re-parented to us (we are a subreaper), and their descendants.
        me = os.getpid()
        for _ in range(20):
            table = _processes()
            children = {}
            for pid, ppid, _ in table:
                children.setdefault(ppid, []).append(pid)
            stray = [p for p in children.get(me, []) if proc is None or p != proc.pid]
            if not stray:
                break
            todo = list(stray)
            while todo:
                pid = todo.pop()
                todo.extend(children.get(pid, []))
                try:
                    os.kill(pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
            time.sleep(0.05)
            _reap()
        _reap()
