"""Speed points for platforms without a GPU (Gradescope's runners have none).

Grading there scores everything but the speed tests, which are pending: listed without a score,
not counted. Later, the same submissions are graded on a GPU machine (`grade.py submission` or
`batch`), and `grade.py merge` takes each pending test's result from that run:

    grade.py merge grades-cpu/ grades-gpu/ --out grades/          # two batch folders
    grade.py merge results.json gpu/results.json --out merged.json

Only pending tests are taken from the GPU run; everything graded in the first run stays as it
was. The merged score is the sum of the tests' scores. Each results.json records a hash of the
files it graded, per exercise (extra_data.graded_files_sha256): a GPU run's test is taken only
when its exercise's files are the same, so another submission's results (a mixed-up folder, a
friend's fast kernel) are refused, not merged.
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
    """base, gpu: results.json dicts; returns the merged dict and how many tests it filled.
    Raises MergeRefused when the GPU run graded other files than the base run for an exercise
    whose pending tests it would fill."""
    mine, theirs = _hashes(base, "first"), _hashes(gpu, "GPU run's")
    needed = {t.get("extra_data", {}).get("exercise") for t in base.get("tests", [])
              if t.get("extra_data", {}).get("status") == "pending"}
    differ = sorted(e for e in needed if e in theirs and mine.get(e) != theirs.get(e))
    if differ:
        raise MergeRefused(f"the GPU run graded other files than this one for "
                           f"{', '.join(differ)} (another submission, or a later version)")
    by_key = {}
    for t in gpu.get("tests", []):
        extra = t.get("extra_data", {})
        by_key[(extra.get("exercise"), extra.get("test"))] = t
    merged, filled = dict(base), 0
    tests = []
    for t in base.get("tests", []):
        extra = t.get("extra_data", {})
        if extra.get("status") == "pending":
            other = by_key.get((extra.get("exercise"), extra.get("test")))
            same = mine.get(extra.get("exercise")) == theirs.get(extra.get("exercise"))
            if other is not None and same and \
                    other.get("extra_data", {}).get("status") != "pending":
                t = dict(other)
                t["output"] = "Graded on a GPU machine and merged (grade.py merge).\n" + \
                    t.get("output", "")
                filled += 1
        tests.append(t)
    merged["tests"] = tests
    merged["score"] = round(sum(t.get("score", 0) for t in tests), 4)
    still = sum(t.get("extra_data", {}).get("max_points", 0) for t in tests
                if t.get("extra_data", {}).get("status") == "pending")
    merged["output"] = base.get("output", "") + (
        f"\nMerged {filled} test(s) graded on a GPU machine (grade.py merge); score now "
        f"{reports.fmt(merged['score'])}" + (f", {reports.fmt(still)} points still pending"
                                             if still else ""))
    merged.setdefault("extra_data", {})["pending_points"] = still
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
        log(f"{out}: {filled} test(s) merged, score {merged['score']}")
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
