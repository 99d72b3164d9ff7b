"""A copy of the repository's own code, handed in as an answer (issue 46).

For each exercise, what a student gets by pasting into the exercise's file the code this
repository already holds: the chapter's kernel (kernel exercises) or the harness's public
calculators, common/*.cpp and exercises/support/host_references.cpp (host exercises), under
the names the exercise's entry file calls. `grade.py selftest` grades them all as one
submission and requires that each builds and scores no more than the stub (0) on the graded
tests, for every exercise but the warm-ups that INSTRUCTORS.md names, whose copy is the answer.

Kernel copies are made from the chapters' sources at the time of the run (the text between
`namespace chNN {` and its closing line, under the exercise's namespace), so that they follow
the chapters; host copies are files in copies/<exercise>/, each saying which calculator it
re-types.

    python3 exercises/tools/selftest/copies.py DIR     writes the copies into DIR (a flat upload)
"""

import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))

# The two warm-ups: a step the chapter takes, re-typed on purpose (INSTRUCTORS.md).
WARMUPS = {"01a_coalesce": "01_naive/kernels.cuh", "06a_transpose": "06_transpose/3_padded.cuh"}

KIT_PREFIXES = ("common/", "exercises/support/")


def _read(root, rel):
    with open(os.path.join(root, rel), encoding="utf-8") as f:
        return f.read()


def chapter_body(root, rel, ns):
    """The declarations of chapter file `rel` inside `namespace ns { ... }`."""
    text = _read(root, rel)
    m = re.search(r"^namespace %s \{\n(.*)^\}  // namespace %s\n" % (ns, ns), text,
                  re.MULTILINE | re.DOTALL)
    if not m:
        raise ValueError(f"{rel}: no namespace {ns} block where the copies expect it")
    return m.group(1)


def chapter_includes(root, rel):
    """The chapter file's #include lines that a student's file may have (the kit's)."""
    out = []
    for line in _read(root, rel).splitlines():
        m = re.match(r'#include [<"]([^>"]+)[>"]', line)
        if m and ("/" not in m.group(1) or m.group(1).startswith(KIT_PREFIXES)):
            out.append(line)
    return out


def kernel_copy(root, exercise, sources, ns, extra=""):
    """The exercise's file made of chapter code: `sources` [(file, chapter namespace)], pasted
    under the exercise's namespace, plus `extra` (what the entry file calls besides)."""
    includes, bodies = [], []
    for rel, chapter_ns in sources:
        includes += [i for i in chapter_includes(root, rel) if i not in includes]
        bodies.append(f"// ---- {rel}, namespace {chapter_ns}, pasted ----\n" +
                      chapter_body(root, rel, chapter_ns))
    if '#include "exercises/support/exercise.hpp"' not in includes:
        includes.append('#include "exercises/support/exercise.hpp"')
    return (f"// A copy of the repository's own code for exercise {exercise} (selftest/copies.py):\n"
            f"// the chapter's kernel under the exercise's names. It must score no more than the stub.\n"
            f"#pragma once\n\n" + "\n".join(includes) + f"\n\nnamespace {ns} {{\n\n" +
            "\n".join(bodies) + extra + f"\n}}  // namespace {ns}\n")


def stub_functions(root, exercise, file, names):
    """The stub's own definitions of the host functions `names` (their todo bodies): what a
    student who pasted only the kernel leaves of the rest."""
    text = _read(root, f"exercises/{exercise}/{file}")
    out = []
    for name in names:
        m = re.search(r"^((?:template <[^\n]*>\n)?inline \w+ %s\([^)]*\) \{\n.*?^\}\n)" % name,
                      text, re.MULTILINE | re.DOTALL) or \
            re.search(r"^((?:template <[^\n]*>\n)?\w+ %s\([^)]*\) \{\n.*?^\}\n)" % name, text,
                      re.MULTILINE | re.DOTALL)
        if not m:
            raise ValueError(f"{exercise}/{file}: no function {name} where the copies expect it")
        out.append(m.group(1))
    return "\n// ---- from the stub: what the chapter does not have ----\n" + "\n".join(out)


def kernel_copies(root=ROOT):
    """{exercise: (file, text)} of the kernel exercises (warm-ups excluded)."""
    c = {}
    c["02a_tiled"] = ("tiled.cuh", kernel_copy(root, "02a_tiled", [("02_tiled/kernels.cuh", "ch02")],
                                               "ex02a"))
    c["03a_bounds"] = ("bounds.cuh", kernel_copy(root, "03a_bounds",
                                                 [("03_bounds/kernels.cuh", "ch03")], "ex03a"))
    c["03c_strips"] = ("strips.cuh", kernel_copy(
        root, "03c_strips", [("03_bounds/kernels.cuh", "ch03")], "ex03c",
        stub_functions(root, "03c_strips", "strips.cuh", ["strip_bytes"]) +
        "\n// The chapter's tiled kernel under the exercise's launcher name.\n"
        "template <int BLOCK>\n"
        "void launch_strip_gemm(const float* A, const float* B, float* C, int M, int N, int K) {\n"
        "  launch_tiled_gemm<BLOCK>(A, B, C, M, N, K);\n}\n"))
    c["04a_register_block"] = ("register_block.cuh", kernel_copy(
        root, "04a_register_block", [("04_register_block/kernels.cuh", "ch04")], "ex04a"))
    c["04b_vectorized"] = ("vectorized.cuh", kernel_copy(
        root, "04b_vectorized", [("04_register_block/kernels.cuh", "ch04")], "ex04b"))
    c["05a_double_buffer"] = ("double_buffer.cuh", kernel_copy(
        root, "05a_double_buffer", [("05_double_buffer/padding.cuh", "ch05"),
                                    ("05_double_buffer/2_prefetch.cuh", "ch05")], "ex05a",
        stub_functions(root, "05a_double_buffer", "double_buffer.cuh",
                       ["last_read_step", "barriers_per_step"])))
    c["05d_async_pipeline"] = ("pipeline.cuh", kernel_copy(
        root, "05d_async_pipeline", [("05_double_buffer/padding.cuh", "ch05"),
                                     ("05_double_buffer/warp_tile.cuh", "ch05"),
                                     ("05_double_buffer/appendix_async.cuh", "ch05")], "ex05d",
        "\n// The chapter's asynchronous-copy pipeline under the exercise's launcher name.\n"
        "template <int STAGES>\n"
        "void launch_pipelined_gemm(const float* A, const float* B, float* C, int M, int N, int K) {\n"
        "  launch_async_gemm<128, 256, 16, 64, 64, 8, 16, STAGES, 8>(A, B, C, M, N, K);\n}\n"))
    return c


def host_copies(root=ROOT):
    """{exercise: (file, text)} from copies/<exercise>/<file>."""
    out = {}
    folder = os.path.join(HERE, "copies")
    for exercise in sorted(os.listdir(folder)) if os.path.isdir(folder) else []:
        for name in os.listdir(os.path.join(folder, exercise)):
            with open(os.path.join(folder, exercise, name), encoding="utf-8") as f:
                out[exercise] = (name, f.read())
    return out


def copies(root=ROOT):
    out = kernel_copies(root)
    out.update(host_copies(root))
    return out


if __name__ == "__main__":
    dest = sys.argv[1] if len(sys.argv) > 1 else "copies-of-the-repository"
    os.makedirs(dest, exist_ok=True)
    for exercise, (file, text) in sorted(copies().items()):
        with open(os.path.join(dest, file), "w", encoding="utf-8") as f:
            f.write(text)
        print(f"{dest}/{file}: {exercise}")
