#!/usr/bin/env python3
"""Runs a GEMM chapter's executable once per shape of a list and prints, per shape, cuBLAS's
GFLOP/s and each chosen kernel's GFLOP/s and % of cuBLAS (both timed in the same process, the
executable's own pct_of_ceiling), then the geometric mean and the worst shape per kernel.

    gemm_sweep.py --exe build/bin/05_double_buffer --shapes 05_double_buffer/sweep_shapes.txt \
        --kernel pipelined --kernel any_shape [--iters 9] [--out table.md]

--kernel picks rows whose kernel name starts with the text. A kernel whose result is WRONG
makes the exit status 1 (the table is still printed). Python 3, standard library only.
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
    m, n, k = shape
    cmd = [exe, "--m", str(m), "--n", str(n), "--k", str(k), "--iters", str(iters), "--csv"]
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

    lines, pct, wrong, header = [], {k: [] for k in args.kernel}, [], None
    cols = ["M × N × K", "cuBLAS GFLOP/s"]
    for k in args.kernel:
        cols += ["%s GFLOP/s" % k, "% of cuBLAS"]
    lines.append("| " + " | ".join(cols) + " |")
    lines.append("|---|" + "--:|" * (len(cols) - 1))
    for shape in read_shapes(args.shapes):
        rows = run_shape(args.exe, shape, args.iters)
        if not rows:
            sys.exit("error: no rows for %s" % (shape,))
        header = rows[0]
        cublas = next(r for r in rows if r["chapter"] == "ceiling")
        cells = ["%d×%d×%d" % shape, "{:,.0f}".format(float(cublas["rate"]))]
        for k in args.kernel:
            r = next((r for r in rows if r["kernel"].startswith(k)), None)
            if r is None or r["status"].startswith("skipped"):
                cells += ["-", "-"]
                continue
            if r["status"] != "ok":
                wrong.append("%s at %s: %s" % (r["kernel"], shape, r["status"]))
            p = float(r["pct_of_ceiling"])
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
        summary.append("%s: geometric mean %.1f%% of cuBLAS over %d shapes, worst %.1f%% (%s)"
                       % (k, geo, len(pct[k]), worst[0], "×".join(map(str, worst[1]))))
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
