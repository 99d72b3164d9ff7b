"""Running one test: the student's runner makes the calls (in the sandbox), the checker judges
what it left (outside the sandbox), and the outcome says why.

A test passes when the checker verified every one of its calls and the runner then ended
normally. Nothing the runner prints, and no exit code, can pass a test on its own: exiting
early, `exit(77)`, redefining test macros or printing fake lines all leave calls without a
verified result, and the test fails.
"""

import json
import os
import re
import shutil
import stat
import subprocess
import time
from dataclasses import dataclass, field
from typing import List, Optional

from . import sandbox as S
from .leftovers import remove_tree

MAX_OUTPUT = 20000  # characters of a run's output kept in a report
MAX_FAILED_SHOWN = 12  # failed calls listed one by one in a test's details
# Lines like the grader's protocol ("call 3: ok launches=1 ..."): the runners of earlier
# versions printed them; the checker judges the result files, and people need not read them.
_PROTOCOL = re.compile(r"^call \d+: .*$\n?", re.MULTILINE)


class BudgetSpent(RuntimeError):
    """The submission used up its time budget: nothing more of it runs."""


class GraderError(RuntimeError):
    """The grader's own side failed (the reference did not run, say): the test is pending, not
    charged to the student, and the report says to grade again."""


@dataclass
class Outcome:
    status: str               # passed, failed or pending
    score: float
    reason: str               # one line for the tables
    output: str = ""          # what the student may see: verdicts, then the program's output
    seconds: float = 0.0
    ratio: Optional[float] = None
    notes: List[str] = field(default_factory=list)


def trim(text, limit=MAX_OUTPUT):
    if len(text) <= limit:
        return text
    half = limit // 2
    return text[:half] + f"\n[... {len(text) - limit} characters left out ...]\n" + text[-half:]


def collect_results(results_dir, dest, count, max_bytes, owner=None):
    """Copies the result files (results.txt, and the .bin and .sums of calls 0..count-1:
    protocol.hpp; regular files only, no links, no larger
    than max_bytes) out of the student's reach before anything reads them. The folder itself
    must be a real folder: the student owns its parent, and a `results` replaced by a link
    would make the grader (who can read everything) copy someone else's results. A file must
    have one name (a hard link to a file the student cannot read, the key say, would be copied
    by the grader, who can, and quoted by the checker) and, with a uid per student (`owner`),
    be that uid's."""
    os.makedirs(dest, exist_ok=True)
    try:
        folder = os.open(results_dir, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    except OSError:
        return  # gone, or not a folder: no results
    try:
        # The names a runner writes (protocol.hpp), read from the listing: a host test's
        # thousands of calls leave one results.txt, and asking for each call's possible files
        # by name would cost thousands of lookups. The listing stops past what a runner writes.
        wanted = re.compile(r"([0-9]+)\.(bin|sums)")
        names = []
        with os.scandir(folder) as entries:
            for seen, entry in enumerate(entries):
                if seen > 2 * count + 2:
                    break
                m = wanted.fullmatch(entry.name)
                if entry.name in ("done", "results.txt") or (m and int(m.group(1)) < count):
                    names.append(entry.name)
        for name in names:
            try:
                fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=folder)
            except OSError:
                continue
            try:
                info = os.fstat(fd)
                if not stat.S_ISREG(info.st_mode) or info.st_size > max_bytes or \
                        info.st_nlink != 1 or (owner is not None and info.st_uid != owner):
                    continue
                with os.fdopen(fd, "rb", closefd=False) as f, \
                        open(os.path.join(dest, name), "wb") as out:
                    shutil.copyfileobj(f, out, 1 << 20)
            finally:
                os.close(fd)
    finally:
        os.close(folder)


_SITE = re.compile(r"(worst_\w+=\d+,\d+,)@0x([0-9a-f]+)")


def resolve_sites(results, binary, addr2line):
    """The memory model's runner names the instruction of a worst request by its offset in
    the runner ("@0x1a2b": it may start no program); the grader, before the checker reads
    the results, writes the source line instead ("transpose.cuh:41"), from its own copy of
    the runner."""
    texts = {}
    for name in sorted(os.listdir(results)) if os.path.isdir(results) else []:
        if name.endswith(".txt"):
            with open(os.path.join(results, name), encoding="utf-8", errors="replace") as f:
                texts[name] = f.read()
    offsets = sorted({m.group(2) for t in texts.values() for m in _SITE.finditer(t)})
    if not offsets:
        return
    where = {}
    if addr2line:
        try:
            proc = subprocess.run([addr2line, "-a", "-i", "-e", binary] +
                                  ["0x" + o for o in offsets], stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL,
                                  timeout=120)
            current = None
            for line in proc.stdout.decode("utf-8", "replace").splitlines():
                if line.startswith("0x"):
                    current = line[2:].lstrip("0") or "0"
                    continue
                line = re.sub(r" \(discriminator \d+\)$", "", line.strip())
                if current is not None and current not in where and not line.startswith("??"):
                    where[current] = re.sub(r"[ ,]", "_", os.path.basename(line))  # innermost
        except (OSError, subprocess.SubprocessError):
            pass

    def replace(m):
        return m.group(1) + where.get(m.group(2).lstrip("0") or "0", "?")
    for name, text in texts.items():
        new = _SITE.sub(replace, text)
        if new != text:
            with open(os.path.join(results, name), "w", encoding="utf-8") as f:
                f.write(new)


def run_checker(checker, exercise, request, expect, results, timeout=900):
    """The checker's verdicts, one dict per call: {"call", "ok", "message"}."""
    try:
        proc = subprocess.run([checker, exercise, request, expect, results],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              stdin=subprocess.DEVNULL, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise RuntimeError(f"the checker took more than {timeout} s")
    if proc.returncode != 0:
        raise RuntimeError("the checker failed: " + proc.stderr.decode("utf-8", "replace")[-2000:])
    verdicts = []
    for line in proc.stdout.decode("utf-8", "replace").splitlines():
        if line.startswith("{"):
            verdict = json.loads(line)
            # A message may quote what the runner wrote: shown without control characters.
            verdict["message"] = S.printable(str(verdict.get("message", "")))
            verdict["grader_error"] = verdict.get("grader_error") is True
            verdicts.append(verdict)
    return verdicts


def write_lines(path, lines):
    with open(path, "w") as f:
        f.write("".join(line + "\n" for line in lines))


def describe_exit(run):
    if run.timed_out:
        return None
    if run.signal == "SIGXFSZ":
        return "stopped: it wrote more than the file-size limit (printed too much?)"
    if run.signal:
        return f"crashed with {run.signal}"
    if run.returncode not in (0, None):
        return f"exited with code {run.returncode}"
    return None


def crash_detail(output):
    """The line of the runner's output that explains a crash: the CPU backend's fault report,
    a CUDA error, an exception."""
    for line in output.splitlines():
        low = line.lower()
        if ("out of bounds" in low or "illegal" in low or "fault" in low or "cuda error" in low
                or "terminate called" in low or "what():" in low):
            return line.strip()[:300]
    return ""


def program_output(output):
    """What a run printed, as a student may see it: without the runner's protocol lines."""
    return _PROTOCOL.sub("", output).strip("\n")


def details(calls, verdicts_by_index, reason_call=None, ended=False):
    """A test's details: its failed calls but the one the test's reason already names
    (`reason_call`), calls that failed the same way in one line, at most MAX_FAILED_SHOWN
    lines, and how many calls passed. ended: the run ended early (the reason says how), so
    the calls it never finished are not listed one by one."""
    failed, passed, unfinished = [], 0, 0
    for i, call in enumerate(calls):
        v = verdicts_by_index.get(i, {"ok": False, "message": "no verdict"})
        if v["ok"]:
            passed += 1
        elif ended and v["message"].startswith("no result"):
            unfinished += 1
        elif i != reason_call:
            failed.append((call.label + (f" [{call.note}]" if call.note else ""), v["message"]))
    groups = {}  # message -> labels, in order
    for label, message in failed:
        groups.setdefault(message, []).append(label)
    lines = []
    for message, labels in groups.items():
        if len(labels) == 1:
            lines.append(f"also failed: {labels[0]}: {message}")
        else:
            named = ", ".join(labels[:3]) + (", ..." if len(labels) > 3 else "")
            lines.append(f"also failed, {len(labels)} calls ({named}): {message}")
    if len(lines) > MAX_FAILED_SHOWN:
        lines = lines[:MAX_FAILED_SHOWN] + [f"... and {len(lines) - MAX_FAILED_SHOWN} more "
                                            f"failed call(s)"]
    if 0 < passed < len(calls):
        lines.append(f"{passed} of the test's {len(calls)} calls passed")
    return lines


def judge(test, calls, run, verdicts, seconds):
    """The outcome of a test from its run and the checker's verdicts."""
    by_index = {v["call"]: v for v in verdicts}
    own = next((v for v in verdicts if v.get("grader_error") is True), None)
    if own is not None:  # the checker's own failure (never text the runner wrote): pending
        raise GraderError(own["message"])
    first_bad, at = None, None
    for i, call in enumerate(calls):
        v = by_index.get(i, {"ok": False, "message": "no verdict"})
        if not v["ok"]:
            first_bad, at = (call, v), i
            break
    how = describe_exit(run)
    ended = bool(how or run.timed_out)
    lines = details(calls, by_index, None if run.timed_out else at, ended)
    printed = program_output(run.output)
    if printed:
        lines += ["", "The program's output:", printed]
    report = trim("\n".join(lines).strip("\n"))
    notes = sorted({c.note for c in calls if c.note})
    if getattr(run, "budget_cut", False):
        return Outcome("failed", 0.0, f"stopped: the submission used up its time budget "
                       f"({getattr(run, 'budget_s', 0):g} s for builds and tests)", report,
                       seconds, notes=notes)
    if run.stopped:
        return Outcome("failed", 0.0, run.stopped, report, seconds, notes=notes)
    if run.timed_out:
        return Outcome("failed", 0.0, f"timed out after {run_limit(run):g} s (an infinite loop or "
                       f"a deadlock?) and was killed", report, seconds, notes=notes)
    if first_bad is not None:
        call, v = first_bad
        reason = f"{call.label}: {v['message']}"
        if how and v["message"].startswith("no result"):
            detail = crash_detail(run.output)
            reason = f"{how} during {call.label}" + (f" ({detail})" if detail else "")
        return Outcome("failed", 0.0, reason, report, seconds, notes=notes)
    if how:
        return Outcome("failed", 0.0, f"every answer was right, but the program then {how}",
                       report, seconds, notes=notes)
    # A memory-model test shows the figures that passed it (the first call's, one line).
    shown = by_index.get(0, {}).get("message", "") if getattr(test, "model", None) else ""
    return Outcome("passed", test.points, shown, report, seconds, notes=notes)


def run_limit(run):
    return getattr(run, "limit_s", 0) or round(run.seconds)


class TestRunner:
    """Runs tests of one student (one sandbox) with the trusted checker."""

    def __init__(self, sandbox, checker, verify, runs_dir, private_dir, log=None, deadline=None,
                 budget_s=0.0, cleanup=None):
        self.sandbox = sandbox
        self.deadline = deadline        # time.monotonic() when the submission's budget ends
        self.budget_s = budget_s
        self.checker = checker
        self.verify = verify            # raises if a trusted program changed
        self.runs_dir = runs_dir        # the student's (sandbox-writable)
        self.private_dir = private_dir  # the grader's (0700)
        self.count = 0
        self.log = log or (lambda m: None)
        self.cleanup = cleanup if cleanup is not None else []  # what could not be removed
        self.addr2line = None           # the memory model's source lines (resolve_sites)

    def fresh(self, tag):
        self.count += 1
        run_dir = os.path.join(self.runs_dir, f"{self.count:03d}-{tag}")
        private = os.path.join(self.private_dir, f"{self.count:03d}-{tag}")
        remove_tree(run_dir)
        os.makedirs(os.path.join(run_dir, "results"))
        os.makedirs(private, exist_ok=True)
        return run_dir, private

    def execute(self, program, exercise, calls, wall_s, gpu, tag, large_output=False, env=None,
                given=None, budgeted=True, trusted=False):
        """Runs `calls` in one process of `program` (argv before the request and results
        paths); returns (RunResult, the checker's verdicts, the private folder). `given`:
        {name: path} of trusted files put beside the results for the checker after the run
        (the reference timer's checksums), out of the runner's reach. A `budgeted` run (the
        student's code) ends at the submission's deadline at the latest; a `trusted` one (the
        reference timer) runs as the grader's uid in the `user` sandbox (Sandbox.run)."""
        cut = False
        if budgeted and self.deadline is not None:
            left = self.deadline - time.monotonic()
            if left <= 0:
                raise BudgetSpent()
            cut, wall_s = left < wall_s, min(wall_s, left)
        run_dir, private = self.fresh(tag)
        request = [c.request for c in calls]
        write_lines(os.path.join(private, "request.txt"), request)
        write_lines(os.path.join(private, "expect.txt"), [c.expect for c in calls])
        if trusted and self.sandbox.uid is not None:
            os.chmod(run_dir, 0o700)  # the grader's own, not the student's uid's
        else:
            self.sandbox.own(run_dir)
        self.verify(program[0])  # the binary we built (hashed then), nothing put in its place
        limits = S.run_limits(wall_s, gpu, large_output)
        # The request on standard input, through a pipe (runner_main.cpp says why), not a
        # file the student's code could read again.
        run = self.sandbox.run(list(program) + ["-", os.path.join(run_dir, "results")],
                               run_dir, os.path.join(private, "output.log"), limits,
                               read_only=[os.path.dirname(program[0])], writable=[run_dir],
                               gpu=gpu, env=env, trusted=trusted,
                               stdin_data="".join(line + "\n" for line in request).encode())
        run.limit_s = wall_s
        run.budget_cut = cut and run.timed_out and not run.stopped
        run.budget_s = self.budget_s
        results = os.path.join(private, "results")
        collect_results(os.path.join(run_dir, "results"), results, len(calls),
                        limits.file_size,
                        owner=None if trusted else self.sandbox.uid)
        for name, path in (given or {}).items():
            shutil.copyfile(path, os.path.join(results, name))
        resolve_sites(results, program[0], self.addr2line)
        # Nothing of it is left for a later test, nor in the shared temporary folders (user
        # mode); what cannot go is taken from the student's uid and noted.
        self.cleanup += remove_tree(run_dir) + self.sandbox.remove_leftovers()
        self.verify(self.checker)
        verdicts = run_checker(self.checker, exercise, os.path.join(private, "request.txt"),
                               os.path.join(private, "expect.txt"), results)
        return run, verdicts, private

    def run_test(self, test, calls, binary, gpu, wall_s, env=None):
        run, verdicts, _ = self.execute([binary], test.exercise, calls, wall_s, gpu, "test",
                                        env=env)
        return judge(test, calls, run, verdicts, run.seconds)
