"""Runs one Catch2 test case in its own process, with a timeout, and turns what happened into
a status and points. A crash, a CUDA error, an illegal memory access or an infinite loop costs
that test case only: the next one starts in a fresh process (and a fresh CUDA context)."""

import os
import re
import signal
import subprocess
import time
from dataclasses import dataclass
from typing import Optional

SKIP_EXIT_CODE = 77  # common/test_main.cpp: every test case that ran was skipped (no GPU, or
                     # REQUIRE_REAL_GPU() on the CPU backend: "needs a real GPU")
MAX_OUTPUT = 20000   # characters of a test's output kept for the reports

_RATIO = re.compile(r"^GRADE_RATIO\s+([-+0-9.eE]+|nan|inf)\s*$", re.MULTILINE)


@dataclass
class Outcome:
    status: str           # "passed", "failed" or "pending"
    score: float
    reason: str           # one line for the console table
    output: str           # the test's output (trimmed)
    seconds: float = 0.0
    ratio: Optional[float] = None


def trim(text, limit=MAX_OUTPUT):
    if len(text) <= limit:
        return text
    half = limit // 2
    return text[:half] + f"\n[... {len(text) - limit} characters cut ...]\n" + text[-half:]


def run_process(argv, timeout, env=None, cwd=None):
    """Runs argv in its own process group; on timeout kills the whole group.
    Returns (returncode or None on timeout, output, seconds)."""
    start = time.monotonic()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL, env=env, cwd=cwd, start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=timeout)
        rc = proc.returncode
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        out, _ = proc.communicate()
        rc = None
    return rc, out.decode("utf-8", errors="replace"), time.monotonic() - start


def list_test_names(binary, timeout=60):
    """The TEST_CASE names a Catch2 binary holds (Catch2 2.x and 3.x spell the flag differently;
    2.x exits with the number of tests, so the exit code means nothing here)."""
    for flags in (["--list-test-names-only"], ["--list-tests", "--verbosity", "quiet"]):
        rc, out, _ = run_process([binary] + flags, timeout)
        if rc is None:
            continue
        lines = [l.rstrip() for l in out.splitlines()]
        if any("nrecognised" in l or "nrecognized" in l for l in lines):
            continue
        names = {l for l in lines if l and not l.startswith(" ")}
        if names:
            return names
    return set()


def performance_points(test, ratio):
    """Full points at ratio >= full_at, none at ratio <= zero_at, linear in between."""
    if ratio is None or ratio != ratio:  # NaN
        return 0.0
    if ratio >= test.full_at:
        return test.points
    if ratio <= test.zero_at:
        return 0.0
    return round(test.points * (ratio - test.zero_at) / (test.full_at - test.zero_at), 2)


def _indented_after(lines, i):
    """The indented lines that follow lines[i] (a Catch2 'with message:' block), joined."""
    parts = []
    for line in lines[i + 1:]:
        if not line.startswith("  ") or not line.strip():
            break
        parts.append(line.strip())
    return " ".join(parts)


def failure_reason(output):
    """One line that says why a Catch2 test case failed."""
    lines = output.splitlines()
    m = re.search(r"not implemented yet:[^\n]*(\n  [^\n]+)?", output)
    if m:
        return " ".join(m.group(0).split())
    for i, line in enumerate(lines):
        if line.rstrip().endswith("FAILED:"):
            for j in range(i + 1, min(i + 30, len(lines))):
                l = lines[j].strip()
                if l.startswith(("with message", "due to unexpected exception",
                                 "due to a fatal error condition")):
                    text = _indented_after(lines, j)
                    if l.startswith("due to a fatal"):
                        text = "fatal error: " + text
                    if text:
                        return text
                if lines[j].rstrip().endswith("FAILED:") or l.startswith("====="):
                    break
            return " ".join(lines[i + 1].split()) if i + 1 < len(lines) else "FAILED"
    for line in lines:
        if "error" in line.lower():
            return line.strip()
    return lines[-1].strip() if lines else "no output"


def signal_name(number):
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def classify(test, rc, output, seconds, timeout):
    """Maps a finished (or killed) test process to an Outcome."""
    output_t = trim(output)
    if rc is None:
        return Outcome("failed", 0.0, f"timed out after {timeout:g} s (an infinite loop or a "
                       f"deadlock?) and was killed", output_t, seconds)
    if rc < 0:
        name = signal_name(-rc)
        fatal = re.search(r"fatal error condition:\s*\n\s*(.+)", output)
        detail = f" ({fatal.group(1).strip()})" if fatal else ""
        return Outcome("failed", 0.0, f"crashed with {name}{detail}", output_t, seconds)
    if rc == SKIP_EXIT_CODE:
        why = re.search(r"SKIPPED: ([^\n\"]+)", output)
        why = why.group(1).strip() if why else "skipped"
        if test.gpu:
            return Outcome("pending", 0.0, f"pending: {why}", output_t, seconds)
        return Outcome("failed", 0.0, f"a host test reported itself skipped: {why}", output_t,
                       seconds)
    if rc != 0:
        return Outcome("failed", 0.0, failure_reason(output), output_t, seconds)
    if "No test cases matched" in output or "No tests ran" in output:
        return Outcome("failed", 0.0, "the test case did not run (not found in the binary)",
                       output_t, seconds)
    if test.performance:
        ratios = _RATIO.findall(output)
        if not ratios:
            return Outcome("failed", 0.0, "the performance test printed no GRADE_RATIO line",
                           output_t, seconds)
        ratio = float(ratios[-1])
        score = performance_points(test, ratio)
        return Outcome("passed", score, f"{ratio:.2f}x the reference's speed "
                       f"(full points from {test.full_at:g}x, none below {test.zero_at:g}x)",
                       output_t, seconds, ratio)
    return Outcome("passed", test.points, "", output_t, seconds)


def run_test(binary, test, env=None, timeout=None):
    """Runs one test case; `timeout` (seconds) overrides the manifest's."""
    timeout = timeout or test.timeout_s
    rc, output, seconds = run_process([binary, test.name], timeout, env=env)
    return classify(test, rc, output, seconds, timeout)
