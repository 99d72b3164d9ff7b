"""`grade.py selftest`'s "copies" part (issue 46): a copy of the repository's own code scores
no more than the stub.

selftest/copies.py makes, for every exercise but the two warm-ups, the submission a student
would make by pasting the chapter's kernel (kernel exercises) or the harness's public
calculators (host exercises) into the exercise's file. All of them are graded as one
submission (one build of every exercise, without a GPU on the CPU backend); each must build,
and score no more than its stub does (0) on the graded tests. The table it prints is the one
INSTRUCTORS.md quotes.

The host calls drawn at random ("call" with "random") are left out of this grading
(spec.drop_drawn_calls): a test passes only if every call passes, so a copy that fails a test
on its fixed calls alone fails it under every run seed. Graded with the random calls in, the
copy's score would depend on the seed (a square block drawn twice once made 01c's copy score
1). A host test must therefore carry a fixed call that tells the copy from the answer; one
with none fails here by name. Kernel calls stay, drawn shapes included: a kernel copy fails
them because it computes another product (A B where the exercise asks A^T B or A B^T) at every
shape the tests draw (tests/test_exercise_design.py, CopiesOfThePlainProduct).
"""

import os
import sys

from .bundle import Layout
from .spec import drop_drawn_calls
from .selftest_e2e import ROOT, SELFTEST, session_for

sys.path.insert(0, SELFTEST)
import copies as C  # noqa: E402


def run(checks, args):
    print("3i. a copy of the repository's own code scores no more than the stub, under any "
          "run seed", flush=True)
    made = C.copies(ROOT)
    layout = Layout(ROOT)
    hidden = os.path.join(layout.hidden, "tests.json")
    s = session_for(args, os.path.join(ROOT, "exercises", "manifest.json"),
                    exercises=sorted(made), hidden=hidden if os.path.isfile(hidden) else None)
    empty = drop_drawn_calls(s.manifest, set(made))
    checks.check(not empty, "copies: every graded test keeps a call besides the drawn host "
                 "calls (a fixed call, or a kernel call)", "; ".join(empty[:6]))
    files = s.stub_files()
    for exercise, (file, text) in made.items():
        files[f"exercises/{exercise}/{file}"] = text.encode()
    report = s.grade_files("copies", files)
    rows = []
    for er in report.results:
        name = er.exercise.name
        counted = [r for r in er.results if r.outcome.status != "pending"]
        got = sum(r.outcome.score for r in counted)
        maximum = sum(r.test.points for r in counted)
        built = not er.build_errors
        scored = [f"{r.test.name}: {r.outcome.score:g}" for r in counted if r.outcome.score]
        rows.append((name, f"{got:g}/{maximum:g}", "built" if built else "did not build"))
        checks.check(built and got == 0,
                     f"copies: {name}, the repository's own code under the exercise's names, "
                     f"builds and scores {got:g}/{maximum:g} (the stub: 0)",
                     "; ".join(list(er.build_errors)[:2] + scored[:4]))
    missing = sorted(e.name for e in s.manifest.exercises
                     if e.name not in made and e.name not in C.WARMUPS)
    checks.check(not missing, "copies: every exercise but the warm-ups has a copy",
                 ", ".join(missing))
    print("\nexercise -> a copy of the repository's code scores (graded tests; the stub: 0)",
          flush=True)
    for name, shown, built in rows:
        print(f"  {name:<22} {shown:<8} ({built})", flush=True)
    for name, source in sorted(C.WARMUPS.items()):
        print(f"  {name:<22} warm-up: {source} is its answer", flush=True)
