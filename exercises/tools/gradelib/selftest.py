"""`grade.py selftest`: the grader's own tests.

  1. unit tests (exercises/tools/tests/: the pieces, with fake programs; seconds)
  2. consistency: every test calls an entry its exercise's entry file defines; the READMEs'
     points tables are current; the committed stubs are the ones `seal` wrote (the key-less
     drift check) and, with the solutions, strip(solution) == stub byte for byte
  3. end to end, with real builds (selftest_e2e.py):
     a. the committed stubs score 0, every test saying "not implemented yet"
     b. the self-test fixture in batch mode: its solution full marks, its stub 0, each planted
        fault exactly its own points, a pending GPU test shown as pending
     c. with the solutions (unsealed, or the key): full marks (speed pending without a GPU;
        --gpu: speed included), and each fault of instructor/planted.json exactly its own
        points
     d. the hostile corpus (selftest/hostile.py), in three batches: the attacks on a kernel
        exercise's answer, build and definitions on 03a (as root in the `user` sandbox), those
        on the sandbox, the runner's protocol, the time budget and the submission on host
        exercise 01b (whose build the kernel exercises' allow-list does not refuse, so they
        reach the sandbox; two batches, hostile.host_batches): every attack gets the score it
        must, its refusal naming each variant, and the control students graded after the
        attackers get what they get alone (the stub 0, the solution full marks); nothing of any
        student is left on the machine; no secret in any report; the idle, the dozing and the
        endless are stopped saying why
     f. (root) the `user` sandbox without namespaces, as in a container, then with them: what
        one student plants in the shared folders and IPC (a folder 2,500 levels deep too)
        reaches nobody, in the same batch or a later one; a probe as a student finds nothing
        of the instructor's; the checker, the keys and the syscall filter hold
     g. answer tables of the public tests' fixed arguments score nothing
     h. the GitHub Classroom recipe grades with the template's tests, not the student's
     e. `grade.py gradescope`'s zip, unpacked into a simulated /autograder and run as on
        Gradescope (the `user` sandbox, no namespaces) for a stub, a hostile submission, the
        solution after it, a refused submission, a dozer and a grader the platform stops
"""

import os
import re
import sys
import time
import unittest

from . import reports
from .bundle import BundleError, Layout, check_lock, check_strip, ensure_solutions
from .spec import load_manifest

TOOLS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROOT = os.path.dirname(os.path.dirname(TOOLS))
SELFTEST = os.path.join(TOOLS, "selftest")


class Checks:
    def __init__(self):
        self.passed = 0
        self.failed = []

    def check(self, ok, what, detail=""):
        if ok:
            self.passed += 1
            print(f"  ok    {what}", flush=True)
        else:
            self.failed.append(what + (f": {detail}" if detail else ""))
            print(f"  FAIL  {what}" + (f"\n        {detail}" if detail else ""), flush=True)


def run_unit_tests():
    suite = unittest.defaultTestLoader.discover(os.path.join(TOOLS, "tests"), top_level_dir=TOOLS)
    import io
    stream = io.StringIO()
    result = unittest.TextTestRunner(stream=stream, verbosity=1).run(suite)
    return result, stream.getvalue()


def unit_tests(checks, args=None):
    print("1. unit tests", flush=True)
    result, text = run_unit_tests()
    checks.check(result.wasSuccessful(), f"{result.testsRun} unit tests",
                 text[-6000:] if not result.wasSuccessful() else "")


def entry_names(path):
    with open(path, encoding="utf-8") as f:
        return set(re.findall(r'_entry\(\s*"([^"]+)"', f.read()))


def consistency(checks):
    for manifest_path in (os.path.join(ROOT, "exercises", "manifest.json"),
                          os.path.join(SELFTEST, "manifest.json")):
        manifest = load_manifest(manifest_path, ROOT)
        for e in manifest.exercises:
            names = entry_names(os.path.join(ROOT, e.dir, e.entry))
            missing = set()
            for t in e.tests:
                for call in t.calls:
                    for kind in ("gemm", "transpose", "refuse_gemm", "call"):
                        if kind in call and call[kind] not in names:
                            missing.add(call[kind])
                if t.race:
                    entry = t.race.get("gemm") or t.race.get("transpose")
                    if entry not in names:
                        missing.add(entry)
            checks.check(not missing, f"{e.name}: every test calls an entry of {e.entry}",
                         ", ".join(sorted(missing)))
    manifest = load_manifest(os.path.join(ROOT, "exercises", "manifest.json"), ROOT)
    stale = []
    for e in manifest.exercises:
        path = os.path.join(ROOT, e.dir, "README.md")
        with open(path, encoding="utf-8") as f:
            text = f.read()
        if reports.replace_between(text, reports.BEGIN_POINTS, reports.END_POINTS,
                                   reports.points_table(e)) != text:
            stale.append(path)
    with open(os.path.join(ROOT, "exercises", "README.md"), encoding="utf-8") as f:
        text = f.read()
    if reports.replace_between(text, reports.BEGIN_OVERVIEW, reports.END_OVERVIEW,
                               reports.overview_table(manifest)) != text:
        stale.append("exercises/README.md")
    checks.check(not stale, "the READMEs' points tables are current (grade.py readme)",
                 ", ".join(stale))
    layout = Layout(ROOT)
    problems = check_lock(layout, manifest)
    checks.check(not problems, "key-less drift check: every stub and the bundle match the lock",
                 "; ".join(problems[:5]))
    return manifest


def main(args):
    checks = Checks()
    start = time.monotonic()
    if getattr(args, "job", None):
        # One end-to-end part, started by the self-test itself (selftest_e2e.side_by_side),
        # which ran the unit tests, the consistency checks and the unsealing already.
        from . import selftest_e2e
        return selftest_e2e.run_job(checks, args)
    # With the end-to-end parts side by side (--lanes), the unit tests are one of them.
    side_by_side = getattr(args, "lanes", 1) > 1 and not args.unit_only
    if not side_by_side and not (getattr(args, "no_unit_tests", False) and not args.unit_only):
        unit_tests(checks)
    print("2. consistency", flush=True)
    manifest = consistency(checks)
    solutions = False
    if not args.unit_only:
        try:
            ensure_solutions(ROOT, args.key_file)
            solutions = True
        except BundleError as e:
            print(f"  note  the solutions are sealed and no key was given ({e}): the checks "
                  f"that need them are skipped", flush=True)
        if solutions:
            problems = check_strip(Layout(ROOT), manifest)
            checks.check(not problems, "full drift check: strip(solution) == stub, byte for "
                         "byte", "\n".join(problems[:3]))
        from . import selftest_e2e
        selftest_e2e.run(checks, args, solutions)
    print(f"\nself-test: {checks.passed} passed, {len(checks.failed)} failed "
          f"({time.monotonic() - start:.0f} s)", flush=True)
    for f in checks.failed:
        print(f"  FAILED: {f}")
    return 1 if checks.failed else 0


if __name__ == "__main__":
    sys.exit(main(None))
