"""Speed tests: the student's kernel against the chapter's, on the GPU, timed from outside.

Both run the same loop (exercises/support/timing_loop.cu) in a process of their own: R
repetitions, each on an input with one row changed, each followed by a checksum of the output;
the checker verifies the last output and the checksums of 64 repetitions picked at random
after the run, so every repetition must really compute. The grader does not
believe a time that the student's process reports: it measures each whole process's wall-clock
time itself. The reference process (no student code in it) reports its own time per
repetition, t_ref, which is trusted; both processes do the same setup, so

    t_student = t_ref + (wall_student - wall_reference) / R

and the score follows from t_ref / t_student (full points from full_at, none at zero_at). R is
chosen so that the repetitions take about TARGET_S seconds in the reference, which makes the
difference in the two processes' start-up (tens of milliseconds) a small error. Each side runs
ROUNDS times, alternating, and the fastest run of each counts.
"""

import random

from .execute import GraderError, Outcome, trim
from .spec import Call

TARGET_S = 1.5
ROUNDS = 2
MAX_REPS = 20000
CHECKED_REPS = 64  # repetitions whose checksum the checker verifies, picked at random


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
        with open(f"{private}/results/0.txt") as f:
            text = f.read()
        return float(text.split("median_ms=")[1].split()[0])
    except (OSError, IndexError, ValueError):
        return None


def race(test, run_seed, tests, binary, reference_tool, verify):
    """`tests` is the student's TestRunner. Returns an Outcome."""
    spec = test.race
    kind = "gemm" if "gemm" in spec else "transpose"
    entry = spec[kind]
    shape = " ".join(str(int(d)) for d in spec["shape"])
    seed = random.Random(f"{run_seed}/{test.exercise}/{test.name}").getrandbits(48)
    size = "x".join(str(int(d)) for d in spec["shape"])

    def calls(reps, who):
        # The repetitions whose checksums the checker verifies: picked from the system's
        # randomness (not the printed run seed) and never shown to the runner, so skipping
        # even a few repetitions is caught with near certainty.
        pick = random.SystemRandom().sample(range(reps), min(reps, CHECKED_REPS))
        check = ",".join(str(r) for r in sorted(set(pick) | {reps - 1}))
        return [Call(f"time_{kind} {entry} {shape} seed={seed} reps={reps}",
                     f"timed - check={check}", f"{who} at {size}, {reps} repetitions")]

    log = []
    run, verdicts, private = timed_reference(tests, reference_tool, spec["reference"],
                                             calls(5, "reference"), verify)
    t0 = _median_ms(private, verdicts)
    if run.returncode != 0 or t0 is None or not verdicts or not verdicts[0]["ok"]:
        raise GraderError(f"the reference {spec['reference']} did not run: {run.output[-2000:]}")
    reps = max(5, min(MAX_REPS, int(TARGET_S * 1000.0 / max(t0, 1e-3))))
    student_walls, reference_walls, reference_ms = [], [], []
    deadline = 60 + 3 * TARGET_S / test.zero_at
    for round_ in range(ROUNDS):
        run, verdicts, private = tests.execute([binary], test.exercise,
                                               calls(reps, "your kernel"), deadline, True,
                                               "speed", large_output=True)
        if run.timed_out:
            return Outcome("passed", 0.0, f"slower than {test.zero_at:g}x the reference: stopped "
                           f"after {deadline:.0f} s", trim("\n".join(log)), run.seconds, 0.0)
        bad = next((v for v in verdicts if not v["ok"]), None) if verdicts else {"message": "no result"}
        if bad or run.returncode != 0:
            why = bad["message"] if bad else f"the program ended with {run.returncode}"
            return Outcome("failed", 0.0, f"the timed run was wrong: {why}",
                           trim(f"{why}\n\nThe program's output:\n{run.output}"), run.seconds)
        student_walls.append(run.seconds)
        log.append(f"round {round_ + 1}: your runner {run.seconds:.3f} s for {reps} repetitions")
        r_run, r_verdicts, r_private = timed_reference(tests, reference_tool, spec["reference"],
                                                       calls(reps, "reference"), verify)
        ms = _median_ms(r_private, r_verdicts)
        if r_run.returncode != 0 or ms is None:
            raise GraderError(f"the reference {spec['reference']} failed: {r_run.output[-2000:]}")
        reference_walls.append(r_run.seconds)
        reference_ms.append(ms)
        log.append(f"round {round_ + 1}: reference {r_run.seconds:.3f} s, {ms:.4f} ms per "
                   f"repetition")
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
    """Runs the reference timer (trusted) in the student's sandbox, like the runner, so that
    both pay the same start-up costs."""
    verify(reference_tool)
    return tests.execute([reference_tool, name], name.split("::")[0], calls, 600, True,
                         "reference", large_output=True)
