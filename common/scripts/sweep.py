#!/usr/bin/env python3
"""Runs a chapter's executable once per shape of a list and prints, per shape, the ceiling's
rate (cuBLAS's GFLOP/s for a GEMM, cudaMemcpy device-to-device's GB/s for a transpose) and each
chosen kernel's rate and % of the ceiling (both timed in the same process: the executable's own
pct_of_ceiling), then the geometric mean and the worst shape per kernel.

    sweep.py --exe build/bin/05_double_buffer --shapes 05_double_buffer/sweep_shapes.txt \
        --kernel pipelined --kernel any_shape [--iters 9] [--out table.md]
    sweep.py --exe build/bin/06_transpose --shapes 06_transpose/sweep_shapes.txt \
        --kernel "vec4 64x64, blocks along output rows"

A shape line holds M N K (a GEMM: --m --n --k) or ROWS COLS (a transpose: --rows --cols).
--kernel picks rows whose kernel name starts with the text. A kernel that refuses a shape
shows "-" there and is left out of its geometric mean (the summary says over how many shapes).
A kernel whose result is WRONG is shown so, left out of the summary, and makes the exit status
1 (the table is still printed). Python 3, standard library only.
"""
import argparse
import csv
import io
import math
import subprocess
import sys


def read_shapes(path):
    shapes = []
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0].split()
            if line:
                shapes.append(tuple(int(v) for v in line))
    return shapes


def run_shape(exe, shape, iters):
    if len(shape) == 3:
        flags = ["--m", str(shape[0]), "--n", str(shape[1]), "--k", str(shape[2])]
    elif len(shape) == 2:
        flags = ["--rows", str(shape[0]), "--cols", str(shape[1])]
    else:
        sys.exit("error: a shape line holds M N K or ROWS COLS, got %s" % (shape,))
    cmd = [exe, *flags, "--iters", str(iters), "--csv"]
    done = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if done.returncode not in (0, 1):  # 1: a kernel was wrong; its row says so
        sys.exit("error: %s failed (exit %d):\n%s" % (" ".join(cmd), done.returncode,
                                                      done.stderr[-2000:]))
    return list(csv.DictReader(io.StringIO(done.stdout)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--exe", required=True)
    ap.add_argument("--shapes", required=True)
    ap.add_argument("--kernel", action="append", required=True)
    ap.add_argument("--iters", type=int, default=9)
    ap.add_argument("--out", help="also write the table (Markdown) to this file")
    args = ap.parse_args()

    shapes = read_shapes(args.shapes)
    if not shapes:
        sys.exit("error: no shapes in %s" % args.shapes)
    gemm = len(shapes[0]) == 3
    unit, ceiling_name, shape_title = (("GFLOP/s", "cuBLAS", "M × N × K") if gemm else
                                       ("GB/s", "cudaMemcpy", "rows × cols"))
    lines, pct, wrong, header = [], {k: [] for k in args.kernel}, [], None
    cols = [shape_title, "%s %s" % (ceiling_name, unit)]
    for k in args.kernel:
        cols += ["%s %s" % (k, unit), "%% of %s" % ceiling_name]
    lines.append("| " + " | ".join(cols) + " |")
    lines.append("|---|" + "--:|" * (len(cols) - 1))
    for shape in shapes:
        rows = run_shape(args.exe, shape, args.iters)
        if not rows:
            sys.exit("error: no rows for %s" % (shape,))
        header = rows[0]
        ceiling = next((r for r in rows if r["chapter"] == "ceiling"), None)
        if ceiling is None:
            sys.exit("error: %s printed no ceiling row for %s (no cuBLAS or copy timing?)"
                     % (args.exe, shape))
        cells = ["×".join(map(str, shape)), "{:,.0f}".format(float(ceiling["rate"]))]
        for k in args.kernel:
            r = next((r for r in rows if r["kernel"].startswith(k)), None)
            if r is None or r["status"].startswith("skipped"):
                cells += ["-", "-"]
                continue
            p = float(r["pct_of_ceiling"])
            if r["status"] != "ok":  # shown, but a wrong answer's speed counts for nothing
                wrong.append("%s at %s: %s" % (r["kernel"], shape, r["status"]))
            else:
                pct[k].append((p, shape))
            cells += ["{:,.0f}".format(float(r["rate"])),
                      "%.1f%%%s" % (p, "" if r["status"] == "ok" else " WRONG")]
        lines.append("| " + " | ".join(cells) + " |")
        print(lines[-1], flush=True)
    summary = []
    for k in args.kernel:
        if not pct[k]:
            continue
        geo = math.exp(sum(math.log(p) for p, _ in pct[k]) / len(pct[k]))
        worst = min(pct[k])
        summary.append("%s: geometric mean %.1f%% of %s over %d shapes, worst %.1f%% (%s)"
                       % (k, geo, ceiling_name, len(pct[k]), worst[0],
                          "×".join(map(str, worst[1]))))
    stamp = "%s, driver %s, CUDA runtime %s, %s, --iters %d" % (
        header["gpu"], header["driver"], header["runtime"], header["date"], args.iters)
    text = "\n".join(["Measured on " + stamp + ":", ""] + lines + [""] +
                     ["- " + s for s in summary]) + "\n"
    print()
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)
    for w in wrong:
        print("WRONG: " + w, file=sys.stderr)
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
