#!/usr/bin/env python3
"""Every launch of `make analyze` is named by its kernel (a CTest test per chapter).

  check_kernel_names.py build/bin/<chapter>_analyze [--out-dir build/analyze]

Runs the analyzer (its digest, and `--csv-to`: one line per launch, the kernel as the memory
model names it) and fails on any name that is not a kernel's: a symbol the linker made (`__start_tutorial_kernels`,
the start of the section every kernel of the model's build is placed in, which once shared
the first kernel's address and took its name; `__stop_...`, `_end`, `__bss_start`, ...), a
name the model could not find (`(unnamed kernel)`), or anything that is not a C++ name with
template arguments. The names are what `make model-check` pairs with Nsight Compute's launches,
so a wrong one leaves a launch uncompared. With --out-dir the digest and the CSV are kept
there as `make analyze` writes them (<chapter>-analyze.md, <chapter>-model.csv), and `make
analyze` then shows them instead of running the analyzer again (common/scripts/
inspect_analyze.sh). Python 3 standard library only.
"""
import argparse
import os
import tempfile
from pathlib import Path
import csv
import io
import re
import subprocess
import sys

# ch06::transpose_vec4<64, 256, 0> as the analyzer writes it: namespaces stripped, a
# template's arguments kept. The tutorial's kernels never start with an underscore; the
# linker's symbols always do.
KERNEL = re.compile(r"^[A-Za-z][A-Za-z0-9_]*(::[A-Za-z][A-Za-z0-9_]*)*(<[^()]*>)?$")


def problems(names):
    return [name for name in names if not KERNEL.match(name)]


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("analyzer")
    parser.add_argument("--out-dir", help="keep the digest and the CSV here, as make analyze does")
    args = parser.parse_args(argv)
    chapter = Path(args.analyzer).name.replace("_analyze", "")
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(args.out_dir or tmp)
        out.mkdir(parents=True, exist_ok=True)
        digest, model = out / f"{chapter}-analyze.md", out / f"{chapter}-model.csv"
        # Written under other names first: make analyze must never see a half-written pair.
        (out / f".{chapter}.default-shape").unlink(missing_ok=True)
        partial = out / f".{chapter}.partial"
        done = subprocess.run([args.analyzer, "--csv-to", str(partial) + ".csv"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if done.returncode != 0:
            print(done.stdout + done.stderr)
            print(f"FAILED: {args.analyzer} exited with {done.returncode}")
            return 1
        text = Path(str(partial) + ".csv").read_text()
        Path(str(partial) + ".md").write_text(done.stdout)
        os.replace(str(partial) + ".csv", model)
        os.replace(str(partial) + ".md", digest)
        (out / f".{chapter}.default-shape").touch()  # for make analyze: made at the default shape
    rows = list(csv.DictReader(io.StringIO(text)))
    bad = problems(row["kernel"] for row in rows)
    for row in rows:
        print(f"{'BAD ' if row['kernel'] in bad else 'ok  '} {row['kernel']}  ({row['label']})")
    if not rows:
        print("FAILED: no launch in the analyzer's CSV")
        return 1
    if bad:
        print(f"FAILED: {len(bad)} of {len(rows)} launches are not named by their kernel")
        return 1
    print(f"{len(rows)} launches, each named by its kernel")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
