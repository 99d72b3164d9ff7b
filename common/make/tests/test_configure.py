#!/usr/bin/env python3
"""A failed `make configure` must not poison the build folder (common/make/configure.sh).

  test_configure.py --build-root DIR

Configures the repository into fresh folders under DIR, the way a student gets there:
  1. `CUDACXX=/nonexistent/nvcc make configure` fails naming the CUDA compiler; then
     `make configure` without CUDACXX succeeds (it used to fail for good with "No known
     features for CXX compiler", naming the wrong compiler);
  2. `make configure CMAKE_FLAGS=-DCMAKE_CUDA_COMPILER=/nonexistent` fails naming it; then plain
     `make configure` succeeds and the bad path is gone from the cache;
  3. the same bad flag on a folder that had configured fine, then plain `make configure`;
  4. on a folder configured with one nvcc, `CUDACXX=<another nvcc> make configure` configures it
     again from an empty cache, with that one (a wrapper script stands in for a second toolkit);
and checks that a second plain `make configure` of a good folder runs no cmake at all.
Python 3 standard library only; about 30 s (six configures).
"""
import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path

TOP = Path(__file__).resolve().parents[3]
failures = []


def make_configure(build, env_extra=None, flags=None):
    """(exit code, output) of `make -C TOP configure BUILD_DIR=build [CMAKE_FLAGS=...]`."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("CUDACXX", "MAKEFLAGS", "MFLAGS", "MAKELEVEL", "CMAKE_FLAGS")}
    env.update(env_extra or {})
    argv = ["make", "-C", str(TOP), "configure", f"BUILD_DIR={build}"]
    if flags:
        argv.append(f"CMAKE_FLAGS={flags}")
    done = subprocess.run(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, timeout=600)
    return done.returncode, done.stdout


def check(ok, what, output=""):
    print(("ok     " if ok else "FAILED ") + what)
    if not ok:
        failures.append(what)
        print("    " + "\n    ".join(output.strip().splitlines()[-25:]))


def cache_entry(build, name):
    for line in (build / "CMakeCache.txt").read_text().splitlines():
        if line.startswith(name + ":"):
            return line.split("=", 1)[1]
    return None


def fails_naming_cuda(build, what, **kwargs):
    rc, out = make_configure(build, **kwargs)
    check(rc != 0 and ("CUDACXX" in out or "CMAKE_CUDA_COMPILER" in out)
          and "No known features" not in out, f"{what}: fails, naming the CUDA compiler", out)


def recovers(build, what):
    rc, out = make_configure(build)
    check(rc == 0 and (build / "Makefile").is_file() and "No known features" not in out,
          f"{what}: then plain `make configure` succeeds", out)
    if rc == 0:
        check(cache_entry(build, "CMAKE_CUDA_COMPILER") not in (None, "/nonexistent"),
              f"{what}: the cache names a real nvcc ({cache_entry(build, 'CMAKE_CUDA_COMPILER')})")


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build-root", required=True, help="scratch folder (emptied first)")
    args = parser.parse_args(argv)
    root = Path(args.build_root).resolve()
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)

    one = root / "cudacxx"
    fails_naming_cuda(one, "CUDACXX=/nonexistent/nvcc", env_extra={"CUDACXX": "/nonexistent/nvcc"})
    recovers(one, "after CUDACXX=/nonexistent/nvcc")
    rc, out = make_configure(one)
    check(rc == 0 and "cmake -S" not in out, "a configured folder: `make configure` does nothing",
          out)

    two = root / "flag"
    bad = "-DCMAKE_CUDA_COMPILER=/nonexistent"
    fails_naming_cuda(two, f"CMAKE_FLAGS={bad} (new folder)", flags=bad)
    recovers(two, f"after CMAKE_FLAGS={bad} (new folder)")
    # `two` configured fine now: the same mistake on a folder that worked.
    fails_naming_cuda(two, f"CMAKE_FLAGS={bad} (configured folder)", flags=bad)
    recovers(two, f"after CMAKE_FLAGS={bad} (configured folder)")

    # `one` is configured with the toolkit's nvcc: switch it to "another" (a wrapper).
    other = root / "other-toolkit" / "nvcc"
    other.parent.mkdir()
    real = cache_entry(one, "CMAKE_CUDA_COMPILER")
    other.write_text(f'#!/bin/sh\nexec "{real}" "$@"\n')
    other.chmod(0o755)
    rc, out = make_configure(one, env_extra={"CUDACXX": str(other)})
    check(rc == 0 and "is not the CUDA compiler" in out and
          cache_entry(one, "CMAKE_CUDA_COMPILER") == str(other),
          "CUDACXX=<another nvcc> on a configured folder: configured again with it", out)
    rc, out = make_configure(one, env_extra={"CUDACXX": str(other)})
    check(rc == 0 and "cmake -S" not in out, "the same CUDACXX again: nothing to do", out)

    shutil.rmtree(root, ignore_errors=True)
    print(f"{len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
