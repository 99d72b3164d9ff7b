"""`grade.py new NAME --kind host|gpu`: the skeleton of a new exercise (INSTRUCTORS.md, "Adding
an exercise").

Writes, and refuses to overwrite:

    exercises/NAME/Makefile            make check / test / test-cpu (make/exercise.mk)
    exercises/NAME/README.md           the goal, the file to edit, how to test, how it is scored
    exercises/NAME/entry.cpp|entry.cu  the functions or launchers the tests may call
    exercises/NAME/tests.json          one test to start from
    exercises/NAME/reference.cpp       host: the checker's references and verifiers, beside the
                                       exercise (support/host_references.hpp)
    exercises/NAME/race.cu             gpu: the reference kernels of its speed tests
                                       (support/race_references.hpp), none registered yet
    exercises/instructor/solutions/NAME/FILE   the solution, with BEGIN/END SOLUTION and STUB:
                                       lines (`seal` strips it into the stub)
    exercises/NAME/FILE                the stub, stripped from that solution now

and adds the exercise to manifest.json. What is left (the command prints it): the solution and
the tests, `grade.py seal` and `grade.py readme`, a copy for the self-test's corpus
(tools/selftest/copies/NAME/FILE for a host exercise, copies.py for a kernel exercise), a line
in the chapter README's exercises, and the exercise in exercises/README.md's order.
"""

import os
import re

from .strip import strip_solution

MAKEFILE = """# make check: build this exercise and run its tests with points (see README.md)
EXERCISE := {name}
include ../make/exercise.mk
"""

README = """# Exercise {short}: {summary}

Chapter: [{chapter}](../../{chapter}/) · {runs}

## Goal

TODO: what the student writes, in a paragraph: the skill, the definitions the functions use,
what the chapter's own code does NOT already answer.

## What to edit

`{file}` only.

## How to test

    make check                       # build, run every test, show the points and the run's seed
    make test TEST="some words"      # only the tests whose name contains the text, with details
{cpu_line}
Until you write your part every test fails with "not implemented yet". Arguments and shapes are
drawn afresh each run; `make check SEED=<seed>` repeats a run.

## How it is scored

TODO: each test in a sentence (its fixed examples, its drawn arguments or shapes).

<!-- BEGIN GENERATED: points -->
<!-- END GENERATED: points -->
"""

HOST_SOLUTION = """// Exercise {short}: {summary} ({chapter}). Host only: no GPU needed.
//
// TODO: the definitions and a worked example, then "Your task: ...".
// Test with `make check` in this folder.
#pragma once

#include "exercises/support/exercise.hpp"

namespace {ns} {{

// TODO: what the function returns, for which arguments.
inline int example(int n) {{
  // BEGIN SOLUTION
  return 2 * n;
  // END SOLUTION
  // STUB: return exercise::todo<int>("{name}: example", n);
}}

}}  // namespace {ns}
"""

HOST_ENTRY = """// What the grader calls in exercise {short} (exercises/support/entry.hpp).
#include "exercises/{name}/{file}"
#include "exercises/support/entry.hpp"

namespace {{
using Args = std::vector<double>;
int i(const Args& a, size_t k) {{ return int(a.at(k)); }}
}}  // namespace

const std::vector<exercise::Entry>& exercise::entries() {{
  static const std::vector<Entry> list = {{
      host_entry("example", [](const Args& a) {{ return Args{{double({ns}::example(i(a, 0)))}}; }}),
  }};
  return list;
}}
"""

HOST_REFERENCE = """// The checker's answers for exercise {short} (support/host_references.hpp): compiled into
// the checker only, never into a runner. A reference computes what a function must return
// ("expect": "reference"); a verifier judges what it returned ("expect": "verify"), for
// questions with many right answers.
#include <stdexcept>
#include <string>

#include "exercises/support/host_references.hpp"

namespace {{

using exercise::Args;

Args example(const Args& a) {{
  if (a.size() != 1) throw std::invalid_argument("example takes one argument");
  return {{2.0 * a[0]}};
}}

const exercise::HostReferences references("{name}", {{{{"example", example}}}});

}}  // namespace
"""

HOST_TESTS = """{{"tests": [
  {{"name": "{short} example: twice 21 is 42, and at drawn arguments", "points": 1,
   "calls": [{{"call": "example", "args": [21], "expect": 42}},
             {{"call": "example", "random": [[0, 1000]], "count": 10, "expect": "reference"}}]}}
]}}
"""

GPU_SOLUTION = """// Exercise {short}: {summary} ({chapter}).
//
// TODO: the kernel's job, its layout of threads and data, a picture; then "Your task: ...".
// Test with `make check` in this folder.
#pragma once

#include "common/ceil_div.hpp"
#include "common/gemm_shape.hpp"
#include "common/launch.cuh"
#include "exercises/support/exercise.hpp"

namespace {ns} {{

__global__ void example_gemm(const float* A, const float* B, float* C, int M, int N, int K) {{
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= M || col >= N) return;
  float sum = 0.0f;
  // BEGIN SOLUTION
  for (int k = 0; k < K; ++k) sum += A[row * K + k] * B[k * N + col];
  // END SOLUTION
  // STUB: // TODO({short}): the dot product of row `row` of A and column `col` of B.
  C[row * N + col] = sum;
}}

inline void launch_example_gemm(const float* A, const float* B, float* C, int M, int N, int K) {{
  // STUB: exercise::todo("{name}: write example_gemm, then delete this line");
  tutorial::check_gemm_shape("{ns}::example_gemm", M, N, K);
  const dim3 block(32, 8);
  const dim3 grid(tutorial::ceil_div(N, 32), tutorial::ceil_div(M, 8));
  tutorial::launch(example_gemm, grid, block, 0, A, B, C, M, N, K);
}}

}}  // namespace {ns}
"""

GPU_ENTRY = """// What the grader calls in exercise {short} (exercises/support/entry.hpp).
#include "exercises/{name}/{file}"
#include "exercises/support/entry.hpp"

const std::vector<exercise::Entry>& exercise::entries() {{
  static const std::vector<Entry> list = {{
      gemm_entry("example_gemm", {ns}::launch_example_gemm),
  }};
  return list;
}}
"""

GPU_RACE = """// The reference kernels of exercise {short}'s speed tests (support/race_references.hpp):
// compiled into the reference timer only. A speed test's "reference" names one of them; none
// is registered yet. For example, a chapter's kernel on the exercise's product:
//
//   #include "04_register_block/kernels.cuh"
//   #include "exercises/support/race_references.hpp"
//   static const exercise::race::Register ref(
//       "ch04::register_2d_gemm<128,128,8,8,8> on A^T",
//       exercise::race::with_a_transposed<ch04::launch_register_2d_gemm<128, 128, 8, 8, 8>>);
"""

GPU_TESTS = """{{"tests": [
  {{"name": "{short} correct at 1x1x1 and 127x33x1025", "points": 1, "gpu": true,
   "calls": [{{"gemm": "example_gemm", "shape": [1, 1, 1]}}, {{"gemm": "example_gemm", "shape": [127, 33, 1025]}}]}},
  {{"name": "{short} correct at random odd shapes", "points": 1, "gpu": true,
   "calls": [{{"gemm": "example_gemm", "random": {{"m": [1, 300], "n": [1, 300], "k": [1, 300]}}, "count": 3}}]}},
  {{"name": "{short} writes nothing outside C", "points": 1, "gpu": true,
   "calls": [{{"gemm": "example_gemm", "random": {{"m": [1, 200], "n": [1, 200], "k": [1, 100]}}, "guard": true}}]}}
]}}
"""


class ScaffoldError(ValueError):
    pass


def manifest_entry(name, chapter, kind, file, summary):
    return (f'    {{"name": "{name}", "chapter": "{chapter}", "kind": "{kind}", "files": ["{file}"],\n'
            f'     "summary": "{summary}"}}')


def add_to_manifest(path, name, entry):
    """Inserts the entry in the order of the names (the chapters' order: exercises/README.md's
    table follows the manifest), keeping the file's layout (json.dump would reformat it)."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    starts = [(m.group(1), m.start()) for m in
              re.finditer(r'^ *\{"name": "([^"]+)"', text, re.MULTILINE)]
    if not starts:
        raise ScaffoldError(f"{path}: no exercises list")
    after = [at for other, at in starts if other > name]
    if after:
        text = text[:after[0]] + entry + ",\n" + text[after[0]:]
    else:
        at = text.rstrip().rfind("]")
        text = text[:at].rstrip() + ",\n" + entry + "\n  " + text[at:].lstrip()
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def create(root, name, kind, chapter, file=None, summary=None, log=print):
    """Writes the skeleton of exercise `name`; returns the paths written."""
    if not re.fullmatch(r"\d\d[a-z]_[a-z0-9_]+", name):
        raise ScaffoldError(f"{name!r}: an exercise is named <chapter number><letter>_<words>, "
                            f"e.g. 04c_wavefronts")
    if kind not in ("host", "gpu"):
        raise ScaffoldError("--kind is host or gpu")
    if not os.path.isdir(os.path.join(root, chapter)):
        raise ScaffoldError(f"--chapter {chapter!r}: no such chapter folder")
    short = name.split("_")[0]
    words = name.split("_", 1)[1]
    ns = "ex" + short
    file = file or (words + (".hpp" if kind == "host" else ".cuh"))
    if "/" in file or file.startswith("."):
        raise ScaffoldError("--file is a plain file name")
    summary = summary or f"TODO: one line, what a student writes"
    folder = os.path.join(root, "exercises", name)
    solution_dir = os.path.join(root, "exercises", "instructor", "solutions", name)
    manifest = os.path.join(root, "exercises", "manifest.json")
    with open(manifest, encoding="utf-8") as f:
        if f'"name": "{name}"' in f.read():
            raise ScaffoldError(f"{name} is in manifest.json already")
    if os.path.exists(folder):
        raise ScaffoldError(f"{folder} exists")
    if not os.path.isdir(os.path.dirname(solution_dir)):
        raise ScaffoldError("the instructor solutions are sealed: `grade.py unseal` first")
    values = dict(name=name, short=short, ns=ns, file=file, chapter=chapter, summary=summary)
    host = kind == "host"
    files = {
        os.path.join(folder, "Makefile"): MAKEFILE.format(**values),
        os.path.join(folder, "README.md"): README.format(
            runs="host only: no GPU needed" if host else
            "a GPU for its speed tests; without one the kernel tests run on the "
            "[CPU backend](../../common/cpu_backend/README.md)",
            cpu_line="" if host else
            "    make test-cpu                    # the kernel tests on the CPU backend, even with a GPU\n",
            **values),
        os.path.join(folder, "entry.cpp" if host else "entry.cu"):
            (HOST_ENTRY if host else GPU_ENTRY).format(**values),
        os.path.join(folder, "tests.json"): (HOST_TESTS if host else GPU_TESTS).format(**values),
        os.path.join(folder, "reference.cpp" if host else "race.cu"):
            (HOST_REFERENCE if host else GPU_RACE).format(**values),
        os.path.join(solution_dir, file): (HOST_SOLUTION if host else GPU_SOLUTION).format(**values),
    }
    files[os.path.join(folder, file)] = strip_solution(files[os.path.join(solution_dir, file)])
    written = []
    for path, text in files.items():
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "x", encoding="utf-8") as f:
            f.write(text)
        written.append(os.path.relpath(path, root))
    add_to_manifest(manifest, name, manifest_entry(name, chapter, kind, file, summary))
    written.append("exercises/manifest.json (added)")
    for path in written:
        log(f"wrote {path}")
    log(f"""
Next:
  1. the solution: exercises/instructor/solutions/{name}/{file} (BEGIN/END SOLUTION, STUB: lines);
     the entries: exercises/{name}/{'entry.cpp' if host else 'entry.cu'}; the tests: exercises/{name}/tests.json
     (random arguments or shapes in every test; "expect": "reference" or "verify" for a host
     function, answered in exercises/{name}/{'reference.cpp' if host else 'race.cu (speed tests)'})
  2. cmake --build build --target exercise_{name}    (reconfigures: the new entry, the checker)
  3. python3 exercises/tools/grade.py seal            (the stub, the bundle, the lock)
     python3 exercises/tools/grade.py readme          (the points tables)
  4. make -C exercises/{name} check                   (the stub: 0)
     python3 exercises/tools/grade.py --solutions -e {name}   (the solution: full marks)
  5. a copy of the repository's code for the self-test's corpus: {'exercises/tools/selftest/copies/' + name + '/' + file if host else 'a builder in exercises/tools/selftest/copies.py'}
  6. the README (goal, scoring), a line in {chapter}/README.md's exercises, its row in
     exercises/README.md's order (grade.py readme keeps the table in manifest order)""")
    return written
