"""Grading one tree: build each exercise's targets separately, then run every test case of the
manifest in its own process."""

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from typing import List

from . import build as B
from .manifest import Exercise, Test
from .runner import Outcome, list_test_names, run_test


@dataclass
class TestResult:
    test: Test
    outcome: Outcome

    @property
    def max_score(self):
        return self.test.points


@dataclass
class ExerciseResult:
    exercise: Exercise
    results: List[TestResult] = field(default_factory=list)
    build_errors: dict = field(default_factory=dict)  # target -> compiler message
    note: str = ""  # e.g. "not submitted"

    @property
    def score(self):
        return sum(r.outcome.score for r in self.results if r.outcome.status != "pending")

    @property
    def max_score(self):
        return sum(r.max_score for r in self.results if r.outcome.status != "pending")

    @property
    def pending_points(self):
        return sum(r.max_score for r in self.results if r.outcome.status == "pending")


def _log_stderr(message):
    print(message, file=sys.stderr, flush=True)


def grade_tree(build_dir, exercises, jobs=2, build=True, log=_log_stderr, progress=True):
    """Builds and tests `exercises` in an already configured build folder."""
    targets = sorted({t for e in exercises for t in e.targets()})
    target_ok, target_log = {}, {}
    if build:
        log(f"building {len(targets)} target(s) in {build_dir} ...")
        B.build_all(build_dir, targets, jobs)
        for target in targets:
            ok, out = B.build_target(build_dir, target, jobs)
            target_ok[target], target_log[target] = ok, out
            if not ok:
                log(f"  {target}: does not compile")
    else:
        for target in targets:
            target_ok[target] = os.path.isfile(os.path.join(build_dir, "bin", target))
            target_log[target] = "" if target_ok[target] else f"{target} is not built (--no-build)"

    names = {}
    for target in targets:
        if target_ok[target]:
            names[target] = list_test_names(os.path.join(build_dir, "bin", target))

    results = []
    total = sum(len(e.tests) for e in exercises)
    done = 0
    for exercise in exercises:
        er = ExerciseResult(exercise)
        for target in exercise.targets():
            if not target_ok[target]:
                er.build_errors[target] = B.compiler_message(target_log[target])
        for test in exercise.tests:
            done += 1
            if not target_ok[test.target]:
                message = er.build_errors[test.target]
                outcome = Outcome("failed", 0.0, f"{test.target} does not compile", message)
            elif test.name.lower() not in {n.lower() for n in names[test.target]}:
                outcome = Outcome("failed", 0.0, f"no test case named {test.name!r} in "
                                  f"{test.target}", "")
            else:
                outcome = run_test(os.path.join(build_dir, "bin", test.target), test)
            er.results.append(TestResult(test, outcome))
            if progress:
                log(f"  [{done:>3}/{total}] {outcome.status:<7} {test.qualified} "
                    f"({outcome.seconds:.1f} s)")
        results.append(er)
    _pending_without_gpu(results)
    return results


def _machine_has_gpu():
    """For when no GPU test could run at all: does nvidia-smi list a GPU?"""
    if not shutil.which("nvidia-smi"):
        return False
    proc = subprocess.run(["nvidia-smi", "-L"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    return proc.returncode == 0 and b"GPU" in proc.stdout


def _pending_without_gpu(results):
    """On a machine without a GPU, GPU tests are pending, also those of an exercise that does
    not compile: the total of every student then covers the same (host) tests."""
    ran = [r for er in results for r in er.results
           if r.test.gpu and not er.build_errors.get(r.test.target)]
    if ran:
        no_gpu = [r for r in ran if r.outcome.status == "pending"]
        if not no_gpu:
            return
        reason = no_gpu[0].outcome.reason
    elif _machine_has_gpu():
        return
    else:
        reason = "pending: no GPU on this machine"
    for er in results:
        for r in er.results:
            if r.test.gpu and er.build_errors.get(r.test.target):
                r.outcome = Outcome("pending", 0.0, f"{reason} (and {r.test.target} does not "
                                    f"compile)", r.outcome.output)
