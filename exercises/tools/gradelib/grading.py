"""Grading one tree: build each exercise's targets separately, then run every test case of the
manifest in its own process.

Where the GPU tests run:
  * on a machine with a GPU, in <exercise>_tests (and <exercise>_hidden), as always;
  * on a machine without one, in the CPU twins <exercise>_tests_cpu (<exercise>_hidden_cpu) that
    exercises/CMakeLists.txt builds when the CPU backend is enabled (common/cpu_backend/): the
    correctness tests score as usual there, and the speed tests are pending (they start with
    REQUIRE_REAL_GPU(), so they skip, and a speed test that did not skip is pending anyway:
    nothing is ever timed on the CPU);
  * without a GPU and without CPU twins (no Boost.Context, or -DTUTORIAL_CPU_BACKEND=OFF),
    every GPU test is pending.
Host tests always run in <exercise>_tests. A GPU test on the CPU backend counts only if both
binaries compile: the student's file must build for the GPU too.
"""

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from typing import List

from . import build as B
from .manifest import Exercise, Test
from .runner import Outcome, list_test_names, run_test


CPU_TWIN_SUFFIX = "_cpu"
CPU_PERF_TIMEOUT_S = 30.0  # a speed test skips at once on the CPU backend; this is a backstop
BACKENDS = ("auto", "gpu", "cpu")


@dataclass
class TestResult:
    test: Test
    outcome: Outcome
    on_cpu: bool = False  # a GPU test that ran (or was to run) on the CPU backend

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
    def on_cpu(self):
        return any(r.on_cpu for r in self.results)

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


def cpu_twins(build_dir):
    """The CPU-backend test binaries this build has (the cache entry exercises/CMakeLists.txt
    writes); None when the build predates them."""
    value = B.cache_value(build_dir, "EXERCISES_CPU_TWINS")
    return None if value is None else {t for t in value.split(";") if t}


def choose_backend(build_dir, backend="auto"):
    """Where the GPU tests run: ("gpu", set()) or ("cpu", the CPU twins of the build).
    auto: the CPU twins when the machine has no GPU and the build has them."""
    if backend not in BACKENDS:
        raise B.BuildError(f"unknown backend {backend!r}: one of {', '.join(BACKENDS)}")
    if backend == "gpu":
        return "gpu", set()
    twins = cpu_twins(build_dir) or set()
    if backend == "cpu":
        if not twins:
            raise B.BuildError(f"--backend cpu: {build_dir} has no CPU-backend test binaries "
                               f"(configure it with -DTUTORIAL_CPU_BACKEND=ON; the backend needs "
                               f"Boost.Context: `make deps`)")
        return "cpu", twins
    if not twins or _machine_has_gpu():
        return "gpu", set()
    return "cpu", twins


def _plan(exercise, mode, twins):
    """{test name: (the target it runs in, the targets that must compile for it)}."""
    plan = {}
    for test in exercise.tests:
        twin = test.target + CPU_TWIN_SUFFIX
        if mode == "cpu" and test.gpu and twin in twins:
            plan[test.name] = (twin, [test.target, twin])
        else:
            plan[test.name] = (test.target, [test.target])
    return plan


def _speed_pending_on_cpu(outcome):
    """A speed test on the CPU backend is pending whatever happened: nothing is timed there."""
    if outcome.status == "pending":  # skipped: REQUIRE_REAL_GPU()
        return Outcome("pending", 0.0, "pending: speed is measured on a real GPU only, not on "
                       "the CPU backend", outcome.output, outcome.seconds)
    return Outcome("pending", 0.0, "pending: speed is measured on a real GPU only (this test "
                   "did not skip on the CPU backend: it should start with REQUIRE_REAL_GPU())",
                   outcome.output, outcome.seconds)


def grade_tree(build_dir, exercises, jobs=2, build=True, log=_log_stderr, progress=True,
               backend="auto"):
    """Builds and tests `exercises` in an already configured build folder."""
    if build and cpu_twins(build_dir) is None:
        # Configured before the exercises had CPU twins: configure again so that the cache
        # says which there are (the build would do it anyway, but only after we ask).
        source = B.cache_value(build_dir, "CMAKE_HOME_DIRECTORY")
        if source:
            B.configure(source, build_dir, [], log)
    mode, twins = choose_backend(build_dir, backend)
    plans = {e.name: _plan(e, mode, twins) for e in exercises}
    if any(binary.endswith(CPU_TWIN_SUFFIX) for p in plans.values() for binary, _ in p.values()):
        log("no GPU here: the GPU tests run on the CPU backend (correctness only; speed tests "
            "are pending)")
    targets = sorted({t for p in plans.values() for _, needed in p.values() for t in needed})
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
        plan = plans[exercise.name]
        for target in sorted({t for _, needed in plan.values() for t in needed}):
            if not target_ok[target]:
                message = B.compiler_message(target_log[target])
                if target.endswith(CPU_TWIN_SUFFIX):
                    message = ("(the build for the CPU backend, common/cpu_backend/; its README "
                               "lists what the backend supports)\n" + message)
                er.build_errors[target] = message
        for test in exercise.tests:
            done += 1
            binary, needed = plan[test.name]
            on_cpu = binary != test.target
            broken = [t for t in needed if not target_ok[t]]
            if broken:
                outcome = Outcome("failed", 0.0, f"{broken[0]} does not compile",
                                  er.build_errors[broken[0]])
            elif test.name.lower() not in {n.lower() for n in names[binary]}:
                outcome = Outcome("failed", 0.0, f"no test case named {test.name!r} in "
                                  f"{binary}", "")
            else:
                timeout = min(test.timeout_s, CPU_PERF_TIMEOUT_S) \
                    if on_cpu and test.performance else None
                outcome = run_test(os.path.join(build_dir, "bin", binary), test,
                                   timeout=timeout)
            if on_cpu and test.performance:
                outcome = _speed_pending_on_cpu(outcome)
                if broken:
                    outcome.reason = (f"pending: speed is measured on a real GPU only (and "
                                      f"{broken[0]} does not compile)")
            er.results.append(TestResult(test, outcome, on_cpu))
            if progress:
                where = " [CPU backend]" if on_cpu else ""
                log(f"  [{done:>3}/{total}] {outcome.status:<7} {test.qualified}{where} "
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
    """On a machine without a GPU (and without the CPU backend), GPU tests are pending, also
    those of an exercise that does not compile: the total of every student then covers the
    same tests. (Tests planned on the CPU backend are settled: correctness counts there.)"""
    ran = [r for er in results for r in er.results
           if r.test.gpu and not r.on_cpu and not er.build_errors.get(r.test.target)]
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
            if r.test.gpu and not r.on_cpu and er.build_errors.get(r.test.target):
                r.outcome = Outcome("pending", 0.0, f"{reason} (and {r.test.target} does not "
                                    f"compile)", r.outcome.output)
