#!/usr/bin/env python3
"""Every chapter's kernels compiled for the other GPUs a student may have, without a GPU.

  arch_check.py [--arch 75 --arch 120 ...] [-j N] [--nvcc PATH]

The build compiles for sm_80 and sm_90 (or this machine's GPU); this compiles each chapter's
main.cu, and the entry.cu of every GPU exercise with its committed stub, to machine code
(-cubin) for every architecture of common/BUILD.md's "A smaller GPU" table by default (sm_75, 80,
86, 89, 90, 100 and 120), with the build's warning flags. It fails on any compiler warning
except the ones common/scripts/arch_expected.txt lists, which common/BUILD.md's "GPU
architectures" section explains: register spills (bytes must match) and ptxas ignoring a __launch_bounds__
minimum of resident blocks that such a GPU cannot hold. A kernel that starts (or stops)
spilling must be fixed, or the list and common/BUILD.md's table updated. The list has no stub: a student
who has not written a line yet must see no warning.

Python 3 standard library only; nvcc from --nvcc, else the PATH or /usr/local/cuda/bin. The list
holds what nvcc 13.0 says; another toolkit (`--nvcc /opt/cuda-12.4/bin/nvcc --arch 75`) may
spill differently, and its differences are then failures to read, not to list.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from spill_note import expected_lines, ptxas_warning  # noqa: E402  (one reader of both)

REPO = Path(__file__).resolve().parents[2]
FLAGS = ["-std=c++17", "--expt-relaxed-constexpr", "-O3", "-lineinfo", "-Xptxas=--warn-on-spills",
         "-Xcompiler=-Wall,-Wextra", f"-I{REPO}"]


def chapters():
    names = []
    for line in (REPO / "common" / "chapters.txt").read_text().splitlines():
        words = line.split("#", 1)[0].split()
        if words:
            names.append(words[0])
    return names


def units():
    """(label, source): every chapter's main.cu, then every GPU exercise's entry.cu."""
    found = [(chapter, REPO / chapter / "main.cu") for chapter in chapters()]
    manifest = json.loads((REPO / "exercises" / "manifest.json").read_text())
    for exercise in manifest["exercises"]:
        if exercise["kind"] == "gpu":
            folder = exercise.get("dir", "exercises/" + exercise["name"])
            found.append((exercise["name"] + " stub", REPO / folder / "entry.cu"))
    return found


def nvcc(given=None):
    found = given or shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
    if not os.access(found, os.X_OK):
        sys.exit(f"error: nvcc not found ({given or 'PATH, /usr/local/cuda/bin'})")
    return found


def compile_one(compiler, source, arch):
    """(spills: {kernel: bytes}, other warnings and errors: [lines], exit code)."""
    proc = subprocess.run([compiler, "-cubin", f"-arch=sm_{arch}", *FLAGS, "-o", os.devnull,
                           str(source)],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    spills, other = {}, []
    for line in proc.stdout.splitlines():
        found = ptxas_warning(line)
        if found:
            spills[found[:2]] = found[2]
        elif line.strip():
            other.append(line.strip())
    return spills, other, proc.returncode


def expected_warnings(archs):
    """{(arch, kind, kernel): bytes} from arch_expected.txt: "sm_XX spill <kernel> <bytes>" or
    "sm_XX minblocks <kernel>" per line (mangled names, as ptxas prints them)."""
    return {(arch, kind, kernel): size for arch, kind, kernel, size in expected_lines()
            if arch in archs}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--arch", action="append", help="compute capability, e.g. 75 (repeatable)")
    parser.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--nvcc", help="the nvcc to use (default: PATH, then /usr/local/cuda/bin)")
    args = parser.parse_args(argv)
    archs = args.arch or ["75", "80", "86", "89", "90", "100", "120"]
    compiler = nvcc(args.nvcc)
    version = subprocess.run([compiler, "--version"], stdout=subprocess.PIPE, text=True).stdout
    release = [line for line in version.splitlines() if "release" in line]
    print(f"{compiler}: {release[0] if release else '?'}")
    order = units()
    jobs = [(label, source, arch) for arch in archs for label, source in order]

    # The biggest compilations first (a folder's CUDA sources, a proxy for the templates a
    # main.cu instantiates: chapter 05's takes a minute an architecture), so that the last
    # ones running, with cores left idle beside them, are short.
    def weight(job):
        folder = Path(job[1]).parent
        return -sum(f.stat().st_size for f in folder.iterdir() if f.suffix in (".cu", ".cuh"))
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        done = dict(zip(sorted(jobs, key=weight),
                        pool.map(lambda job: compile_one(compiler, *job[1:]),
                                 sorted(jobs, key=weight))))
    results = [done[job] for job in jobs]
    got, failures = {}, []
    for (chapter, _, arch), (spills, other, code) in zip(jobs, results):
        for (kind, kernel), size in spills.items():
            got[(arch, kind, kernel)] = size  # a kernel several chapters compile warns alike
        if code != 0 or other:
            failures.append(f"{chapter} sm_{arch}: exit {code}\n    " + "\n    ".join(other[:20]))
        print(f"{chapter:24} sm_{arch:4} {len(spills)} known warning(s)"
              f"{'' if code == 0 and not other else '  OTHER WARNINGS OR ERRORS'}")
    want = expected_warnings(archs)
    for key in sorted(set(got) | set(want)):
        if key not in got or key not in want or got[key] != want[key]:
            def text(table):
                if key not in table:
                    return "nothing"
                return f"{table[key]} B" if key[1] == "spill" else "a warning"
            said, seen = text(want), text(got)
            failures.append(f"sm_{key[0]} {key[1]} {key[2]}: the compiler says {seen}, "
                            f"arch_expected.txt says {said}")
    for failure in failures:
        print("FAILED " + failure)
    print(f"arch-check: sm_{', sm_'.join(archs)}: {len(jobs)} compilations, "
          f"{len(failures)} problem(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
