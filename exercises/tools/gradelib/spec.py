"""What is graded: the exercises (manifest.json), their tests (<exercise>/tests.json) and the
instructor's hidden tests, and how a test becomes concrete calls for one grading run.

A test is data: a list of calls of the exercise's entries (entry.cu / entry.cpp), at fixed or
random shapes and arguments, or one race against a chapter kernel. Random shapes, arguments
and the inputs' seeds are drawn per grading run from the run's seed (printed in every report),
so a run can be reproduced with --seed and nobody can answer only the shapes the tests use.

    {"gemm": "<entry>", "shape": [M, N, K]}                     fixed
    {"gemm": "<entry>", "random": {"m": [lo, hi], "n": [...], "k": [...],
                                   "multiple_of": 16, "odd": true}, "count": 2}
    {"transpose": "<entry>", "shape": [rows, cols]} / {"random": {"rows": [..], "cols": [..]}}
        "guard": true   the output sits in a poisoned guard band: a write outside it fails
    {"refuse_gemm": "<entry>", "shape": [M, N, K], "contains": "16"}   must throw first
    {"call": "<function>", "args": [...], "expect": <number or list> [, "rel": 1e-5]}
    {"call": "<function>", "grid": [[lo, hi(, step)], ...], "expect": "reference"}
    {"call": "<function>", "random": [<arg>, ...], "count": n, "expect": "reference"}
        <arg>: [lo, hi] (an integer), {"int": [lo, hi], "step": s}, {"real": [lo, hi]},
               {"log": [lo, hi]} or {"choice": [...]}
    a test with "race": {"gemm": "<entry>", "shape": [...], "reference": "<kernel>"} is a
    speed test (gradelib/race.py)
    {"call": "<function>", ..., "expect": "verify"}   the checker judges the returned numbers
        itself (an exercise's verifier, <exercise>/reference.cpp: a layout, a swizzle, a split
        that must have some property) instead of comparing them with a reference's
    "op" on a gemm, refuse_gemm or race call (default: the exercise's "op" in the manifest,
    else "ab"): which product the launcher computes from the same buffers, A (M*K floats)
    and B (K*N floats): ab C = A B (A stored M x K, B K x N, row-major); atb C = A^T B (A
    stored K x M); abt C = A B^T (B stored N x K)
    a test with "model": {"global": 1.25, "shared": 1.0} runs its gemm/transpose calls under
    the CPU backend's memory model (the <exercise>_runner_model runner, no GPU needed): each
    answer must be right, every access seen, and at every global (shared) instruction the
    sectors (wavefronts) per request at most that many times the fewest that would serve it
"""

import itertools
import json
import math
import os
import random
import re
from dataclasses import dataclass, field
from typing import List, Optional

VISIBILITIES = ("visible", "hidden", "after_due_date", "after_published")
KINDS = ("gpu", "host")
CALL_KINDS = ("gemm", "transpose", "refuse_gemm", "call")
GEMM_OPS = ("ab", "atb", "abt")  # protocol.hpp: the products a GEMM launcher may be asked for
MODEL_LIMITS = ("global", "shared")
_NAME = re.compile(r"^[^\x00-\x1f\"\\]{1,200}$")
_ENTRY = re.compile(r"^[A-Za-z0-9_<>,]{1,100}$")
_TOKEN = re.compile(r"^[^\s]{1,100}$")


class SpecError(ValueError):
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
    hidden: bool = False
    calls: list = field(default_factory=list)
    race: Optional[dict] = None
    model: Optional[dict] = None  # memory-model limits: {"global": x, "shared": y}
    # "backend": "cpu": a kernel test run on the CPU backend wherever the grader runs, for a
    # mistake the GPU's timing usually hides (an async copy waited for too early: on the CPU
    # backend a copy lands only at its wait).
    cpu_backend: bool = False

    @property
    def qualified(self):
        return f"{self.exercise}: {self.name}"


@dataclass
class Exercise:
    name: str
    chapter: str
    kind: str         # gpu: entry.cu (a GPU and a CPU-backend runner); host: entry.cpp
    dir: str          # relative to the repository root
    files: List[str]  # the files a student edits, relative to dir
    summary: str = ""
    tests: List[Test] = field(default_factory=list)
    op: str = "ab"    # the GEMM product its launchers compute (GEMM_OPS), unless a call says

    def paths(self):
        return [os.path.join(self.dir, f) for f in self.files]

    @property
    def entry(self):
        return "entry.cu" if self.kind == "gpu" else "entry.cpp"

    @property
    def max_points(self):
        return sum(t.points for t in self.tests)


@dataclass
class Manifest:
    path: str
    exercises: List[Exercise]
    defaults: dict

    def exercise(self, name):
        return next((e for e in self.exercises if e.name == name), None)

    def select(self, names):
        if not names:
            return list(self.exercises)
        unknown = [n for n in names if self.exercise(n) is None]
        if unknown:
            raise SpecError(f"unknown exercise(s): {', '.join(unknown)}; the manifest lists "
                            f"{', '.join(e.name for e in self.exercises)}")
        return [e for e in self.exercises if e.name in names]

    @property
    def max_points(self):
        return sum(e.max_points for e in self.exercises)


# ---------------------------------------------------------------------------------------------
# Loading and checking
# ---------------------------------------------------------------------------------------------

def _read_json(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        raise SpecError(f"{path}: {e}")


def _check_random(spec, dims, where):
    """A random shape's ranges: every dimension [lo, hi] with 1 <= lo <= hi, and at least one
    value in each range that is a multiple of multiple_of (and odd, with odd)."""
    if not isinstance(spec, dict) or any(d not in spec for d in dims):
        raise SpecError(f"{where}: random needs a range for each of {', '.join(dims)}")
    step = spec.get("multiple_of", 1)
    if not isinstance(step, int) or step < 1:
        raise SpecError(f"{where}: multiple_of must be a whole number >= 1")
    if spec.get("odd") and step % 2 == 0:
        raise SpecError(f"{where}: odd and multiple_of {step} exclude each other")
    for d in dims:
        r = spec[d]
        if not (isinstance(r, list) and len(r) == 2 and all(isinstance(x, int) for x in r)
                and 1 <= r[0] <= r[1]):
            raise SpecError(f"{where}: random {d} must be [lo, hi] with 1 <= lo <= hi")
        if not _allowed(r[0], r[1], step, bool(spec.get("odd"))):
            raise SpecError(f"{where}: random {d} {r} holds no value that is a multiple of "
                            f"{step}{' and odd' if spec.get('odd') else ''}")


def _allowed(lo, hi, step, odd):
    """The values of [lo, hi] that are multiples of step (and odd, if asked), as a range."""
    first = max(step, -(-lo // step) * step)
    stride = step
    if odd:
        if first % 2 == 0:
            first += step  # step is odd: the next multiple is odd
        stride = 2 * step
    return range(first, hi + 1, stride)


def _check_call(call, where):
    kinds = [k for k in CALL_KINDS if k in call]
    if len(kinds) != 1:
        raise SpecError(f"{where}: a call names exactly one of {', '.join(CALL_KINDS)}: {call!r}")
    kind = kinds[0]
    if not _ENTRY.match(str(call[kind])):
        raise SpecError(f"{where}: entry name {call[kind]!r}: letters, digits, _ < > , only")
    if kind == "call":
        forms = [k for k in ("args", "grid", "random") if k in call]
        if len(forms) != 1:
            raise SpecError(f"{where}: {call[kind]}: give exactly one of args, grid, random")
        if "expect" not in call:
            raise SpecError(f"{where}: {call[kind]}: no expect")
    else:
        if ("shape" in call) == ("random" in call):
            raise SpecError(f"{where}: {call[kind]}: give exactly one of shape, random")
        dims = ("rows", "cols") if kind == "transpose" else ("m", "n", "k")
        if "shape" in call:
            shape = call["shape"]
            if not (isinstance(shape, list) and len(shape) == len(dims) and
                    all(isinstance(d, int) and d >= 1 for d in shape)):
                raise SpecError(f"{where}: {call[kind]}: shape must be {len(dims)} whole "
                                f"numbers >= 1, not {shape!r}")
        else:
            _check_random(call["random"], dims, f"{where}: {call[kind]}")
        if "contains" in call and not _TOKEN.match(str(call["contains"])):
            raise SpecError(f"{where}: contains must be one word")
    if "op" in call and (kind not in ("gemm", "refuse_gemm") or call["op"] not in GEMM_OPS):
        raise SpecError(f"{where}: op is one of {', '.join(GEMM_OPS)}, on a gemm or refuse_gemm "
                        f"call only")


def _test_from(entry, exercise, defaults, where, hidden):
    if not isinstance(entry, dict) or "name" not in entry or "points" not in entry:
        raise SpecError(f"{where}: every test needs a name and points: {entry!r}")
    name = entry["name"]
    if not isinstance(name, str) or not _NAME.match(name) or name != name.strip():
        raise SpecError(f"{where}: test name {name!r}: one line, no quotes or backslashes")
    points = entry["points"]
    if not isinstance(points, (int, float)) or points < 0:
        raise SpecError(f"{where}: {name!r}: points must be a number >= 0")
    performance = bool(entry.get("performance", False))
    gpu = bool(entry.get("gpu", False)) or performance
    timeouts = defaults.get("timeout_s", {})
    kind = "performance" if performance else ("gpu" if gpu else "host")
    timeout = float(entry.get("timeout_s", timeouts.get(kind, 30)))
    perf = defaults.get("performance", {})
    full_at = float(entry.get("full_at", perf.get("full_at", 0.8)))
    zero_at = float(entry.get("zero_at", perf.get("zero_at", 0.3)))
    if performance and not zero_at < full_at:
        raise SpecError(f"{where}: {name!r}: zero_at must be below full_at")
    visibility = entry.get("visibility", "after_published" if hidden else "visible")
    if visibility not in VISIBILITIES:
        raise SpecError(f"{where}: {name!r}: visibility must be one of {VISIBILITIES}")
    race = entry.get("race")
    calls = entry.get("calls", [])
    if performance:
        if not isinstance(race, dict) or "reference" not in race or "shape" not in race \
                or not any(k in race for k in ("gemm", "transpose")):
            raise SpecError(f"{where}: {name!r}: a speed test needs race: {{gemm|transpose, "
                            f"shape, reference}}")
        if "op" in race and ("gemm" not in race or race["op"] not in GEMM_OPS):
            raise SpecError(f"{where}: {name!r}: a race's op is one of {', '.join(GEMM_OPS)}, "
                            f"on a gemm race only")
    elif not calls:
        raise SpecError(f"{where}: {name!r}: no calls")
    for call in calls:
        _check_call(call, f"{where}: {name!r}")
    model = entry.get("model")
    if model is not None:
        if performance or not isinstance(model, dict) or not model or \
                any(k not in MODEL_LIMITS for k in model) or \
                any(isinstance(v, bool) or not isinstance(v, (int, float)) or
                    not math.isfinite(v) or v < 1 for v in model.values()):
            raise SpecError(f"{where}: {name!r}: model must map some of {', '.join(MODEL_LIMITS)} "
                            f"to a number >= 1 (a limit on cost over the ideal)")
        if any(k not in ("gemm", "transpose") for c in calls for k in CALL_KINDS if k in c) or \
                any(c.get("guard") for c in calls):
            raise SpecError(f"{where}: {name!r}: a model test makes gemm or transpose calls only, "
                            f"without a guard band")
        gpu = True
    backend = entry.get("backend")
    if backend not in (None, "cpu"):
        raise SpecError(f"{where}: {name!r}: backend is \"cpu\" or absent")
    if backend == "cpu" and (performance or model is not None or not gpu):
        raise SpecError(f"{where}: {name!r}: backend \"cpu\" is for a kernel test (gpu: true), "
                        f"not a speed or memory-model test")
    return Test(exercise, name, float(points), gpu, performance, timeout, full_at, zero_at,
                visibility, hidden, list(calls), race, model, cpu_backend=backend == "cpu")


def _tests_of(exercise, data, defaults, where, hidden):
    names = {t.name.lower() for t in exercise.tests}
    for t in data.get("tests", []):
        test = _test_from(t, exercise.name, defaults, where, hidden)
        if test.name.lower() in names:
            raise SpecError(f"{where}: test {test.name!r} is listed twice")
        if test.cpu_backend and exercise.kind != "gpu":
            raise SpecError(f"{where}: {test.name!r}: backend \"cpu\" is for a kernel "
                            f"exercise's test; a host exercise has no CPU backend to run on")
        names.add(test.name.lower())
        # The exercise's product, where a GEMM call or race does not name its own.
        for call in test.calls + ([test.race] if test.race else []):
            if "gemm" in call or "refuse_gemm" in call:
                call.setdefault("op", exercise.op)
        exercise.tests.append(test)


def load_manifest(path, root, hidden_path=None):
    """The manifest at `path` (exercise folders relative to `root`), each exercise's
    tests.json, and, for instructors, the hidden tests' file."""
    data = _read_json(path)
    defaults = data.get("defaults", {})
    exercises, seen = [], set()
    for e in data.get("exercises", []):
        name = e.get("name", "")
        if not re.fullmatch(r"[A-Za-z0-9_]+", name):
            raise SpecError(f"{path}: exercise name {name!r}: letters, digits and _ only")
        if name in seen:
            raise SpecError(f"{path}: exercise {name} is listed twice")
        seen.add(name)
        kind = e.get("kind")
        if kind not in KINDS:
            raise SpecError(f"{path}: {name}: kind must be one of {KINDS}")
        files = e.get("files", [])
        if not files or any("/" in f or f.startswith(".") for f in files):
            raise SpecError(f"{path}: {name}: files must be plain file names")
        op = e.get("op", "ab")
        if op not in GEMM_OPS:
            raise SpecError(f"{path}: {name}: op must be one of {', '.join(GEMM_OPS)}")
        ex = Exercise(name, e.get("chapter", ""), kind, e.get("dir", f"exercises/{name}"),
                      list(files), e.get("summary", ""), op=op)
        tests_path = os.path.join(root, ex.dir, "tests.json")
        _tests_of(ex, _read_json(tests_path), defaults, tests_path, hidden=False)
        exercises.append(ex)
    manifest = Manifest(path, exercises, defaults)
    if hidden_path:
        hidden = _read_json(hidden_path)
        for e in hidden.get("exercises", []):
            ex = manifest.exercise(e.get("name"))
            if ex is None:
                raise SpecError(f"{hidden_path}: exercise {e.get('name')!r} is not in {path}")
            _tests_of(ex, e, defaults, hidden_path, hidden=True)
    return manifest


# ---------------------------------------------------------------------------------------------
# From a test to the calls of one run
# ---------------------------------------------------------------------------------------------

def op_option(call):
    """The request's product option: " op=atb", or nothing for C = A B (the lines of the
    exercises that compute A B stay as they were)."""
    op = call.get("op", "ab")
    return "" if op == "ab" else f" op={op}"


@dataclass
class Call:
    request: str      # the runner's line (protocol.hpp): no expectations in it
    expect: str       # the checker's line
    label: str        # for people: "tiled_gemm<32> at 127x33x1025"
    note: str = ""    # e.g. shrunk for the CPU backend


def is_drawn_host_call(call):
    """A host call whose arguments the run's seed draws."""
    return "call" in call and "random" in call


def drop_drawn_calls(manifest, names):
    """The self-test's view of `names`' tests for submissions that must score 0 under every
    run seed (a copy of the chapters' code, an answer table): the host calls whose arguments
    the seed draws are dropped, in place. A test passes only if every call does, so one failed
    on its fixed calls alone is failed under any seed. Tests left with no call are dropped too
    and returned by name: their score would be the seed's to decide."""
    emptied = []
    for exercise in manifest.exercises:
        if exercise.name not in names:
            continue
        kept = []
        for test in exercise.tests:
            if test.race is None:
                test.calls = [c for c in test.calls if not is_drawn_host_call(c)]
                if not test.calls:
                    emptied.append(test.qualified)
                    continue
            kept.append(test)
        exercise.tests = kept
    return emptied


def test_rng(run_seed, test):
    """The random numbers of one test in one run: the same run seed gives the same calls."""
    return random.Random(f"{run_seed}/{test.exercise}/{test.name}")


def _number(x):
    if isinstance(x, bool):
        x = int(x)
    if isinstance(x, int) or (isinstance(x, float) and x.is_integer() and abs(x) < 2 ** 53):
        return str(int(x))
    return repr(float(x))


def _draw(spec, rng):
    if isinstance(spec, list) and len(spec) == 2:
        return rng.randint(int(spec[0]), int(spec[1]))
    if isinstance(spec, dict):
        if "int" in spec:
            lo, hi = spec["int"]
            step = int(spec.get("step", 1))
            return int(lo) + step * rng.randint(0, (int(hi) - int(lo)) // step)
        if "real" in spec:
            lo, hi = spec["real"]
            return round(rng.uniform(lo, hi), 6)
        if "log" in spec:
            lo, hi = spec["log"]
            return round(math.exp(rng.uniform(math.log(lo), math.log(hi))), 6)
        if "choice" in spec:
            return rng.choice(spec["choice"])
    raise SpecError(f"cannot draw an argument from {spec!r}")


def _grid(spec):
    axes = []
    for axis in spec:
        lo, hi = int(axis[0]), int(axis[1])
        step = int(axis[2]) if len(axis) > 2 else 1
        axes.append(range(lo, hi + 1, step))
    return itertools.product(*axes)


def _expect_line(call):
    expect = call["expect"]
    tol = "".join(f" {k}={_number(call[k])}" for k in ("rel", "abs") if k in call)
    if expect == "reference":
        return "reference -" + tol
    if expect == "verify":
        return "verify -"
    values = expect if isinstance(expect, list) else [expect]
    return "values - " + " ".join(_number(v) for v in values) + tol


def _shape(call, dims, rng):
    if "shape" in call:
        return [int(d) for d in call["shape"]]
    spec = call["random"]
    step = int(spec.get("multiple_of", 1))
    shape = []
    for d in dims:
        lo, hi = spec[d]
        values = _allowed(int(lo), int(hi), step, bool(spec.get("odd")))
        shape.append(values[rng.randrange(len(values))])  # uniform over the allowed values
    return shape


def cpu_backend_shape(kind, shape):
    """The CPU backend runs a kernel some hundred times slower than a GPU: dimensions above
    256 of a large problem shrink to 128 + their remainder mod 128 (so every tile size up to
    128 still meets the same edge cases), as common/cpu_backend/size_cap.hpp does."""
    big = (math.prod(shape) > 256 ** 3) if kind == "gemm" else (math.prod(shape) > 2048 ** 2)
    if not big:
        return shape
    return [d if d <= 256 else 128 + d % 128 for d in shape]


def expand(test, run_seed, cpu_backend=False):
    """The concrete calls of a (non-speed) test in this run."""
    rng = test_rng(run_seed, test)
    calls = []
    for call in test.calls:
        count = int(call.get("count", 1))
        if "call" in call:
            name = call["call"]
            if "args" in call:
                arg_lists = [call["args"]]
            elif "grid" in call:
                arg_lists = [list(a) for a in _grid(call["grid"])]
            else:
                arg_lists = [[_draw(s, rng) for s in call["random"]] for _ in range(count)]
            for args in arg_lists:
                text = " ".join(_number(a) for a in args)
                calls.append(Call(f"call {name} {text}".rstrip(), _expect_line(call),
                                  f"{name}({', '.join(_number(a) for a in args)})"))
            continue
        kind = next(k for k in ("gemm", "transpose", "refuse_gemm") if k in call)
        dims = ("m", "n", "k") if kind in ("gemm", "refuse_gemm") else ("rows", "cols")
        for _ in range(count if "random" in call else 1):
            shape = _shape(call, dims, rng)
            seed = rng.getrandbits(48)
            note = ""
            if test.model is not None:  # small shapes already: the model counts every access
                limits = " ".join(f"{k}={_number(v)}" for k, v in sorted(test.model.items()))
                size = "x".join(map(str, shape))
                calls.append(Call(f"model_{kind} {call[kind]} {' '.join(map(str, shape))} "
                                  f"seed={seed}{op_option(call)}", f"model - {limits}",
                                  f"{call[kind]} at {size} (memory model)"))
                continue
            if cpu_backend and kind != "refuse_gemm":
                small = cpu_backend_shape(kind, shape)
                if small != shape:
                    note = (f"on the CPU backend {'x'.join(map(str, shape))} runs as "
                            f"{'x'.join(map(str, small))}")
                    shape = small
            size = "x".join(map(str, shape))
            if kind == "refuse_gemm":
                contains = f" contains={call['contains']}" if "contains" in call else ""
                calls.append(Call(f"refuse_gemm {call[kind]} {' '.join(map(str, shape))}"
                                  f"{op_option(call)}",
                                  f"refuse -{contains}", f"{call[kind]} refuses {size}"))
                continue
            guard = 1 if call.get("guard") else 0
            calls.append(Call(f"{kind} {call[kind]} {' '.join(map(str, shape))} seed={seed} "
                              f"guard={guard}{op_option(call)}", "none -",
                              f"{call[kind]} at {size}" + (" (guard band)" if guard else ""),
                              note))
    return calls
