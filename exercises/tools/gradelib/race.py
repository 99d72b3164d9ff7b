"""Speed tests: the student's kernel against the chapter's, on the GPU, timed from outside.

Both run the same loop (exercises/support/timing_loop.cu) in a process of their own: R
repetitions, each on operands all of its own (drawn on the device from the round's seed and
the repetition's number), each followed by a checksum of the output. Each round runs the
reference first; the checker then compares every one of the student's R checksums with the
reference's (where one differs, it recomputes that repetition to tell whose answer is wrong),
and the last output with its own CPU answer, so every repetition must compute the whole answer. The grader does not believe a time that the student's process reports: it
measures each whole process's wall-clock time itself. The reference process (no student code
in it) reports its own time per repetition, t_ref, which is trusted; both processes do the
same setup, so

    t_student = t_ref + (wall_student - wall_reference) / R

and the score follows from t_ref / t_student (full points from full_at, none at zero_at). R is
chosen so that the repetitions take about TARGET_S seconds in the reference, which makes the
difference in the two processes' start-up (tens of milliseconds) a small error. Each side runs
ROUNDS times (each round the reference, then the student, at a seed of its own), and the
fastest run of each counts.
"""

import os
import random

from .execute import GraderError, Outcome, trim
from .spec import Call, op_option

TARGET_S = 1.5
ROUNDS = 2
MAX_REPS = 20000


def performance_points(test, ratio):
    """Full points at ratio >= full_at, none at ratio <= zero_at, linear in between."""
    if ratio is None or ratio != ratio:
        return 0.0
    if ratio >= test.full_at:
        return test.points
    if ratio <= test.zero_at:
        return 0.0
    return round(test.points * (ratio - test.zero_at) / (test.full_at - test.zero_at), 2)


def _median_ms(private, verdicts):
    try:
        with open(f"{private}/results/results.txt") as f:
            text = next(line for line in f.read().splitlines()[::-1] if line.startswith("0 "))
        return float(text.split("median_ms=")[1].split()[0])
    except (OSError, IndexError, ValueError, StopIteration):
        return None


def race(test, run_seed, tests, binary, reference_tool, verify):
    """`tests` is the student's TestRunner. Returns an Outcome."""
    spec = test.race
    kind = "gemm" if "gemm" in spec else "transpose"
    entry = spec[kind]
    shape = " ".join(str(int(d)) for d in spec["shape"])
    size = "x".join(str(int(d)) for d in spec["shape"])

    def seed_of(round_):  # reproducible from the printed run seed
        return random.Random(f"{run_seed}/{test.exercise}/{test.name}/{round_}").getrandbits(48)

    def calls(reps, seed, who, against):
        return [Call(f"time_{kind} {entry} {shape} seed={seed} reps={reps}{op_option(spec)}",
                     "timed -" + (" against=reference" if against else ""),
                     f"{who} at {size}, {reps} repetitions")]

    def reference(reps, seed):
        run, verdicts, private = timed_reference(tests, reference_tool, spec["reference"],
                                                 calls(reps, seed, "reference", False), verify)
        ms = _median_ms(private, verdicts)
        if run.returncode != 0 or ms is None or not verdicts or not verdicts[0]["ok"]:
            why = verdicts[0]["message"] if verdicts and not verdicts[0]["ok"] else \
                run.output[-2000:]
            raise GraderError(f"the reference {spec['reference']} did not run right: {why}")
        return run, ms, os.path.join(private, "results", "0.sums")

    log = []
    _, t0, _ = reference(5, seed_of("calibration"))
    reps = max(5, min(MAX_REPS, int(TARGET_S * 1000.0 / max(t0, 1e-3))))
    student_walls, reference_walls, reference_ms = [], [], []
    deadline = 60 + 3 * TARGET_S / test.zero_at
    for round_ in range(ROUNDS):
        seed = seed_of(round_)
        r_run, ms, sums = reference(reps, seed)
        reference_walls.append(r_run.seconds)
        reference_ms.append(ms)
        log.append(f"round {round_ + 1}: reference {r_run.seconds:.3f} s, {ms:.4f} ms per "
                   f"repetition (seed {seed})")
        run, verdicts, private = tests.execute([binary], test.exercise,
                                               calls(reps, seed, "your kernel", True), deadline,
                                               True, "speed", large_output=True,
                                               given={"0.ref.sums": sums})
        if getattr(run, "budget_cut", False):
            return Outcome("failed", 0.0, f"stopped: the submission used up its time budget "
                           f"({run.budget_s:g} s for builds and tests)", trim("\n".join(log)),
                           run.seconds)
        if run.timed_out:
            return Outcome("passed", 0.0, f"slower than {test.zero_at:g}x the reference: stopped "
                           f"after {deadline:.0f} s", trim("\n".join(log)), run.seconds, 0.0)
        bad = next((v for v in verdicts if not v["ok"]), None) if verdicts else {"message": "no result"}
        if bad and bad.get("grader_error") is True:  # set by the checker's code, never by text
            raise GraderError(bad["message"])
        if bad or run.returncode != 0:
            why = bad["message"] if bad else f"the program ended with {run.returncode}"
            return Outcome("failed", 0.0, f"the timed run was wrong: {why}",
                           trim(f"{why}\n\nThe program's output:\n{run.output}"), run.seconds)
        student_walls.append(run.seconds)
        log.append(f"round {round_ + 1}: your runner {run.seconds:.3f} s for {reps} repetitions, "
                   f"every checksum equal to the reference's")
    t_ref = min(reference_ms)
    t_student = max(t_ref + (min(student_walls) - min(reference_walls)) * 1000.0 / reps, 1e-6)
    ratio = t_ref / t_student
    points = performance_points(test, ratio)
    log.append(f"reference {spec['reference']}: {t_ref:.4f} ms per repetition (its own clock)")
    log.append(f"yours: {t_ref:.4f} + ({min(student_walls):.3f} - {min(reference_walls):.3f}) s / "
               f"{reps} = {t_student:.4f} ms per repetition (the processes' wall-clock times)")
    log.append(f"speed relative to the reference: {ratio:.3f}x")
    reason = (f"{ratio:.2f}x the reference's speed (full points from {test.full_at:g}x, none "
              f"below {test.zero_at:g}x)")
    return Outcome("passed", points, reason, "\n".join(log), sum(student_walls), ratio)


def timed_reference(tests, reference_tool, name, calls, verify):
    """Runs the reference timer in the student's sandbox, like the runner, so that both pay the
    same start-up costs; as the grader's uid (`trusted`): in the `user` sandbox the trusted
    build is closed to the students' uids."""
    verify(reference_tool)
    return tests.execute([reference_tool, name], name.split("::")[0], calls, 600, True,
                         "reference", large_output=True, budgeted=False, trusted=True)
