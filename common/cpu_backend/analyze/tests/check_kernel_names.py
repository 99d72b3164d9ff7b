#!/usr/bin/env python3
"""Every launch of `make analyze` is named by its kernel (a CTest test per chapter).

  check_kernel_names.py build/bin/<chapter>_analyze

Runs the analyzer (`--csv`: one line per launch, the kernel as the memory model names it) and
fails on any name that is not a kernel's: a symbol the linker made (`__start_tutorial_kernels`,
the start of the section every kernel of the model's build is placed in, which once shared
the first kernel's address and took its name; `__stop_...`, `_end`, `__bss_start`, ...), a
name the model could not find (`(unnamed kernel)`), or anything that is not a C++ name with
template arguments. The names are what `make model-check` pairs with Nsight Compute's launches,
so a wrong one leaves a launch uncompared. Python 3 standard library only.
"""
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
    if len(argv) != 1:
        print(__doc__.split("\n")[2].strip(), file=sys.stderr)
        return 2
    done = subprocess.run([argv[0], "--csv"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True)
    if done.returncode != 0:
        print(done.stdout + done.stderr)
        print(f"FAILED: {argv[0]} --csv exited with {done.returncode}")
        return 1
    rows = list(csv.DictReader(io.StringIO(done.stdout)))
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
