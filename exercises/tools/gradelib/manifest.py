"""The manifest: which exercises exist, which files a student may edit, points per test."""

import json
import os
import re
from dataclasses import dataclass, field
from typing import List, Optional

# Characters Catch2 gives a meaning in a test spec: a name containing one could match other
# tests or none. (A leading "exclude:" is special too.)
_BAD_NAME = re.compile(r'[,\[\]*~\\"]')
VISIBILITIES = ("visible", "hidden", "after_due_date", "after_published")


class ManifestError(ValueError):
    pass


@dataclass
class Test:
    exercise: str
    name: str
    points: float
    gpu: bool = False
    performance: bool = False
    timeout_s: float = 30.0
    full_at: float = 0.8
    zero_at: float = 0.3
    visibility: str = "visible"
    hidden: bool = False  # from the instructor's hidden manifest: lives in <exercise>_hidden

    @property
    def target(self):
        return f"{self.exercise}_{'hidden' if self.hidden else 'tests'}"

    @property
    def qualified(self):
        return f"{self.exercise}: {self.name}"


@dataclass
class Exercise:
    name: str
    chapter: str
    dir: str          # relative to the repository root
    files: List[str]  # the files a student edits, relative to dir
    tests: List[Test] = field(default_factory=list)
    summary: str = ""

    def paths(self):
        """The editable files, relative to the repository root."""
        return [os.path.join(self.dir, f) for f in self.files]

    def targets(self):
        return sorted({t.target for t in self.tests})

    @property
    def max_points(self):
        return sum(t.points for t in self.tests)


@dataclass
class Manifest:
    path: str
    exercises: List[Exercise]
    defaults: dict

    def exercise(self, name) -> Optional[Exercise]:
        for e in self.exercises:
            if e.name == name:
                return e
        return None

    def select(self, names):
        if not names:
            return list(self.exercises)
        unknown = [n for n in names if self.exercise(n) is None]
        if unknown:
            raise ManifestError(f"unknown exercise(s): {', '.join(unknown)}; the manifest lists "
                                f"{', '.join(e.name for e in self.exercises)}")
        return [e for e in self.exercises if e.name in names]

    @property
    def max_points(self):
        return sum(e.max_points for e in self.exercises)


def _test_from(entry, exercise, defaults, where, hidden):
    if not isinstance(entry, dict) or "name" not in entry or "points" not in entry:
        raise ManifestError(f"{where}: every test needs a name and points: {entry!r}")
    name = entry["name"]
    if _BAD_NAME.search(name) or name.startswith("exclude:") or name != name.strip() or not name:
        raise ManifestError(f"{where}: test name {name!r} is not usable as a Catch2 test spec "
                            f"(avoid , [ ] * ~ \\ \" and leading/trailing spaces)")
    points = entry["points"]
    if not isinstance(points, (int, float)) or points < 0:
        raise ManifestError(f"{where}: {name!r}: points must be a number >= 0")
    gpu = bool(entry.get("gpu", False))
    performance = bool(entry.get("performance", False))
    timeouts = defaults.get("timeout_s", {})
    kind = "performance" if performance else ("gpu" if gpu else "host")
    timeout = float(entry.get("timeout_s", timeouts.get(kind, 30)))
    perf = defaults.get("performance", {})
    full_at = float(entry.get("full_at", perf.get("full_at", 0.8)))
    zero_at = float(entry.get("zero_at", perf.get("zero_at", 0.3)))
    if performance and not zero_at < full_at:
        raise ManifestError(f"{where}: {name!r}: zero_at must be below full_at")
    visibility = entry.get("visibility", "after_published" if hidden else "visible")
    if visibility not in VISIBILITIES:
        raise ManifestError(f"{where}: {name!r}: visibility must be one of {VISIBILITIES}")
    return Test(exercise, name, float(points), gpu, performance, timeout, full_at, zero_at,
                visibility, hidden)


def load_manifest(path, hidden_path=None):
    """Reads the manifest (and, for instructors, the hidden tests' manifest, which adds tests
    to exercises of the main one)."""
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    defaults = data.get("defaults", {})
    exercises = []
    seen = set()
    for e in data.get("exercises", []):
        name = e.get("name", "")
        if not re.fullmatch(r"[A-Za-z0-9_]+", name):
            raise ManifestError(f"{path}: exercise name {name!r}: letters, digits and _ only")
        if name in seen:
            raise ManifestError(f"{path}: exercise {name} is listed twice")
        seen.add(name)
        files = e.get("files", [])
        if not files:
            raise ManifestError(f"{path}: {name}: no student files listed")
        ex = Exercise(name, e.get("chapter", ""), e.get("dir", f"exercises/{name}"), list(files),
                      summary=e.get("summary", ""))
        names = set()
        for t in e.get("tests", []):
            test = _test_from(t, name, defaults, f"{path}: {name}", hidden=False)
            if test.name.lower() in names:
                raise ManifestError(f"{path}: {name}: test {test.name!r} is listed twice")
            names.add(test.name.lower())
            ex.tests.append(test)
        exercises.append(ex)
    manifest = Manifest(path, exercises, defaults)
    if hidden_path:
        add_hidden(manifest, hidden_path)
    return manifest


def add_hidden(manifest, path):
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    for e in data.get("exercises", []):
        ex = manifest.exercise(e.get("name"))
        if ex is None:
            raise ManifestError(f"{path}: exercise {e.get('name')!r} is not in {manifest.path}")
        names = {t.name.lower() for t in ex.tests if t.hidden}
        for t in e.get("tests", []):
            test = _test_from(t, ex.name, manifest.defaults, f"{path}: {ex.name}", hidden=True)
            if test.name.lower() in names:
                raise ManifestError(f"{path}: {ex.name}: hidden test {test.name!r} listed twice")
            names.add(test.name.lower())
            ex.tests.append(test)
