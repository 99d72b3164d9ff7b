"""Speed points for platforms without a GPU (Gradescope's runners have none).

Grading there scores everything but the speed tests, which are pending: listed without a score,
not counted. Later, the same submissions are graded on a GPU machine (`grade.py submission` or
`batch`), and `grade.py merge` takes each pending test's result from that run:

    grade.py merge grades-cpu/ grades-gpu/ --out grades/          # two batch folders
    grade.py merge results.json gpu/results.json --out merged.json

Pending tests are taken from the GPU run. A test both runs graded (a kernel's correctness:
on the CPU backend in the first run, on the GPU in the other) keeps the lower of its two
scores, and its output says so: a kernel that is right on the CPU backend but wrong on a GPU
(a race the CPU backend's order hides, a host pointer the GPU cannot follow) loses the
points, and one the GPU run passed does not gain any. The merged score is the sum of the
tests' scores. Each results.json records a hash of the files it graded, per exercise
(extra_data.graded_files_sha256): the two runs are merged only when every exercise they
share graded the same files, so another submission's results (a mixed-up folder, a friend's
fast kernel) are refused, not merged.
"""

import json
import os

from . import reports
from .reports import Roster


class MergeRefused(RuntimeError):
    pass


def _hashes(results, which):
    hashes = results.get("extra_data", {}).get("graded_files_sha256")
    if not isinstance(hashes, dict) or not hashes:
        raise MergeRefused(f"the {which} results.json does not say which files it graded (no "
                           f"graded_files_sha256: grade it again with this grader)")
    return hashes


def merge_results(base, gpu):
    """base, gpu: results.json dicts; returns the merged dict and how many tests it took from
    the GPU run (filled pending ones, and graded ones the GPU run scored lower). Raises
    MergeRefused when the GPU run graded other files than the base run for an exercise both
    graded."""
    mine, theirs = _hashes(base, "first"), _hashes(gpu, "GPU run's")
    shared = {t.get("extra_data", {}).get("exercise") for t in base.get("tests", [])} & \
        {t.get("extra_data", {}).get("exercise") for t in gpu.get("tests", [])}
    differ = sorted(e for e in shared if e in theirs and e in mine and mine[e] != theirs[e])
    if differ:
        raise MergeRefused(f"the GPU run graded other files than this one for "
                           f"{', '.join(differ)} (another submission, or a later version)")
    by_key = {}
    for t in gpu.get("tests", []):
        extra = t.get("extra_data", {})
        by_key[(extra.get("exercise"), extra.get("test"))] = t
    merged, filled, lowered = dict(base), 0, []
    tests = []
    for t in base.get("tests", []):
        extra = t.get("extra_data", {})
        key = (extra.get("exercise"), extra.get("test"))
        other = by_key.get(key)
        graded = other is not None and mine.get(key[0]) == theirs.get(key[0]) and \
            other.get("extra_data", {}).get("status") != "pending"
        if extra.get("status") == "pending" and graded:
            t = dict(other)
            t["output"] = "Graded on a GPU machine and merged (grade.py merge).\n" + \
                t.get("output", "")
            filled += 1
        elif extra.get("status") != "pending" and graded and \
                other.get("score", 0) < t.get("score", 0):
            note = (f"The GPU run scored this test {reports.fmt(other.get('score', 0))}, the "
                    f"run without a GPU {reports.fmt(t.get('score', 0))}: the lower score is "
                    f"kept (grade.py merge). The GPU run's output:\n")
            t = dict(other)
            t["output"] = note + t.get("output", "")
            t.setdefault("extra_data", {})["merged"] = "lower of the two runs"
            lowered.append(f"{key[0]}: {key[1]}")
            filled += 1
        tests.append(t)
    merged["tests"] = tests
    merged["score"] = round(sum(t.get("score", 0) for t in tests), 4)
    still = sum(t.get("extra_data", {}).get("max_points", 0) for t in tests
                if t.get("extra_data", {}).get("status") == "pending")
    merged["output"] = base.get("output", "") + (
        f"\nMerged with a GPU run (grade.py merge): the pending tests from it, and of the tests "
        f"both runs graded the lower score" +
        (f" ({len(lowered)} lower on the GPU: {'; '.join(lowered[:3])}"
         f"{' ...' if len(lowered) > 3 else ''})" if lowered else " (none lower on the GPU)") +
        f"; score now {reports.fmt(merged['score'])}" +
        (f", {reports.fmt(still)} points still pending" if still else ""))
    merged.setdefault("extra_data", {})["pending_points"] = still
    merged["extra_data"]["lower_on_gpu"] = lowered
    return merged, filled


def _load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def merge_paths(base, gpu, out, log=print):
    if os.path.isfile(base):
        try:
            merged, filled = merge_results(_load(base), _load(gpu))
        except MergeRefused as e:
            raise RuntimeError(f"merge refused: {e}")
        reports.write_file(out, json.dumps(merged, indent=2) + "\n")
        log(f"{out}: {filled} test(s) taken from the GPU run, score {merged['score']}" +
            (f" (lower on the GPU: {'; '.join(merged['extra_data']['lower_on_gpu'][:3])})"
             if merged["extra_data"]["lower_on_gpu"] else ""))
        return
    students = sorted(d for d in os.listdir(base)
                      if os.path.isfile(os.path.join(base, d, "results.json")))
    os.makedirs(out, exist_ok=True)
    rows = []
    for student in students:
        mine = _load(os.path.join(base, student, "results.json"))
        other = os.path.join(gpu, student, "results.json")
        note = ""
        if os.path.isfile(other):
            try:
                mine, filled = merge_results(mine, _load(other))
            except MergeRefused as e:
                filled, note = 0, f"not merged: {e}"
                log(f"{student}: {note}")
        else:
            filled, note = 0, "not merged: no GPU results"
            log(f"{student}: no GPU results in {gpu}; kept as it was")
        reports.write_file(os.path.join(out, student, "results.json"),
                           json.dumps(mine, indent=2) + "\n")
        rows.append((student, mine, filled, note))
    # A roster of the merged scores (per exercise from the tests' extra data).
    exercises = sorted({t.get("extra_data", {}).get("exercise") for _, r, _, _ in rows
                        for t in r.get("tests", [])} - {None})
    roster = Roster(os.path.join(out, "roster.csv"), exercises)
    for student, result, filled, note in rows:
        roster.add_merged(student, result, exercises, filled, note)
    log(f"{out}: {len(rows)} student(s) merged")
