#!/usr/bin/env python3
"""Runs a transpose lab executable once per shape (every kernel it lists, both ceilings) and
prints, per kernel, the geometric mean and the worst shape of its % of the float4 copy kernel
(and of cudaMemcpy), and the same for the best candidate per shape.

    explore.py --exe build/bin/06_transpose_explore --shapes 06_transpose/sweep_shapes.txt
    explore.py --exe ... --random 24 --seed 7 [--out FILE]
    explore.py --exe ... --shapes FILE --kernel "copy kernel" --kernel pat --diagnostic pat
"""
import argparse
import csv
import io
import math
import os
import random
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "common",
                                "scripts"))
import sweep  # noqa: E402  (read_shapes, draw_shapes)


def run(exe, rows, cols, iters, kernels=()):
    picks = [v for k in kernels for v in ("--kernel", k)]
    done = subprocess.run([exe, "--rows", str(rows), "--cols", str(cols), "--iters", str(iters),
                           "--csv", *picks], capture_output=True, text=True)
    if done.returncode not in (0, 1):
        print("  %dx%d: exit %d: %s" % (rows, cols, done.returncode, done.stderr.strip()[-300:]))
        return []
    return list(csv.DictReader(io.StringIO(done.stdout)))


def geo(v):
    return math.exp(sum(math.log(x) for x in v) / len(v)) if v else float("nan")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--exe", required=True)
    ap.add_argument("--shapes")
    ap.add_argument("--random", type=int, default=0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--out")
    ap.add_argument("--kernel", action="append", default=[],
                    help="only the kernels whose names start with this (repeatable)")
    ap.add_argument("--diagnostic", action="append", default=[],
                    help="kernels whose names start with this are no transposes (pattern_copy.cuh):"
                         " timed although the check calls them WRONG, never the best (repeatable)")
    a = ap.parse_args()
    if a.shapes:
        shapes = sweep.read_shapes(a.shapes)
    else:
        r = sweep.RANDOM_RANGES["transpose"]
        shapes = sweep.draw_shapes(a.random, a.seed, r["dims"], r["side"], r["product"])
    per_kernel, best, best_memcpy, lines = {}, [], [], []
    for rows, cols in shapes:
        rs = run(a.exe, rows, cols, a.iters, a.kernel)
        if not rs:
            continue
        memcpy = next((r for r in rs if r["kernel"] == "cudaMemcpy D2D"), None)
        copyk = next((r for r in rs if r["kernel"].startswith("copy kernel")), None)
        if memcpy is None or copyk is None:
            sys.exit("error: no ceiling rows (pass --kernel \"copy kernel\" with --kernel)")
        tm, tc = float(memcpy["median_ms"]), float(copyk["median_ms"])
        cells, top = [], (0, "", float("nan"))
        for r in rs:
            if r["chapter"] == "ceiling":
                continue
            k = r["kernel"]
            diagnostic = any(k.startswith(p) for p in a.diagnostic)
            failed = not r["status"].startswith("ok") and r["status"] != "not checked"
            if failed and not (diagnostic and r["status"].startswith("WRONG")):
                cells.append("%s=%s" % (k, "-" if r["status"].startswith("skipped") else "WRONG"))
                if not r["status"].startswith("skipped"):
                    print("WRONG %s at %dx%d: %s" % (k, rows, cols, r["status"]))
                continue
            t = float(r["median_ms"])
            pct = 100.0 * tc / t
            per_kernel.setdefault(k, []).append((pct, 100.0 * tm / t, (rows, cols)))
            cells.append("%s=%.1f" % (k, pct))
            if pct > top[0] and not diagnostic:
                top = (pct, k, 100.0 * tm / t)
        best.append((top[0], (rows, cols), top[1]))
        best_memcpy.append(top[2])
        line = "%dx%d copyk/memcpy=%.1f%% | %s | best %s %.1f" % (
            rows, cols, 100.0 * tm / tc, " ".join(cells), top[1], top[0])
        print(line, flush=True)
        lines.append(line)
    summary = ["", "kernel: geomean % of copy kernel (of cudaMemcpy), worst, shapes"]
    for k, v in per_kernel.items():
        w = min(v)
        summary.append("%-10s %6.1f (%6.1f)  worst %5.1f at %dx%d  n=%d" % (
            k, geo([x[0] for x in v]), geo([x[1] for x in v]), w[0], w[2][0], w[2][1], len(v)))
    if not best:
        sys.exit("error: no shape ran")
    w = min(best)
    summary.append("best-of    %6.1f (%6.1f)  worst %5.1f at %dx%d (%s)  n=%d" % (
        geo([b[0] for b in best]), geo(best_memcpy), w[0], w[1][0], w[1][1], w[2], len(best)))
    print("\n".join(summary))
    if a.out:
        with open(a.out, "w") as f:
            f.write("\n".join(lines + summary) + "\n")


if __name__ == "__main__":
    main()
