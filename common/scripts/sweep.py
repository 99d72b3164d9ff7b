#!/usr/bin/env python3
"""Runs a chapter's executable once per shape of a list and prints, per shape, the ceiling's
rate (cuBLAS's GFLOP/s for a GEMM, cudaMemcpy device-to-device's GB/s for a transpose) and each
chosen kernel's rate and % of the ceiling (both timed in the same process: the executable's own
pct_of_ceiling), then the geometric mean and the worst shape per kernel.

    sweep.py --exe build/bin/05_double_buffer --shapes 05_double_buffer/sweep_shapes.txt \
        --kernel pipelined --kernel any_shape [--iters 9] [--out table.md]
    sweep.py --exe build/bin/06_transpose --shapes 06_transpose/sweep_shapes.txt \
        --kernel "padded 64x(64+1)" --kernel dispatch

A shape line holds M N K (a GEMM) or ROWS COLS (a transpose), passed as --m --n [--k]; the
rows the executable prints say which problem it is (their "problem" field).

    sweep.py --exe ... --random 40 --problem gemm [--seed S] --kernel ...

draws the shapes instead of reading a list: each side log-uniform in a range, kept only when the
product of the sides is in a second range (RANDOM_RANGES: a GEMM's M, N, K in [8, 16384] with
2^24 <= M*N*K <= 2^36; a transpose's rows and cols in [1, 2^28] with 2^20 to 2^28 elements;
--side LO HI and --product LO HI change them). Without --seed the seed is drawn from
os.urandom; it is printed, and in the table's stamp, so that the same shapes can be drawn
again (Python's random.Random(seed)). Each --kernel is
passed through to the executable, which then runs and times only the kernels whose names start
with it (and the ceiling); a prefix that starts no kernel's name stops the sweep before
anything is timed (the executable exits 2 and lists the names), and one that starts several
stops it after the first shape: each column is one kernel. A kernel that refuses a shape
shows "-" there and is left out of its geometric mean (the summary says over how many shapes).
A kernel whose result is WRONG is shown so, left out of the summary, and makes the exit status
1 (the table is still printed).

    --readme README.md   put the table between `<!-- BEGIN GENERATED: sweep -->` and
                         `<!-- END GENERATED: sweep -->` in that file (make sweep: the chapter's;
                         generated_blocks.py writes it)
    --plot STEM          draw STEM.svg: % of the ceiling per shape, one bar per kernel (gnuplot;
                         skipped with a note where gnuplot is missing)
    --from-table FILE    no measuring: read a table an earlier run wrote (--out) and redo the
                         summary, the README block and the picture from it

A GEMM whose compulsory bytes (A and B read, C written once) take longer at the copy bandwidth
than its FLOPs at the FP32 peak (both measured or read by the executable: the rows'
copy_bandwidth_gbs and fp32_peak_gflops) is bandwidth-bound: its last column gives cuBLAS's and
each kernel's % of that DRAM roof, compulsory bytes / time / copy bandwidth.

Python 3 and the standard library; gnuplot for --plot.
"""
import argparse
import collections
import csv
import io
import math
import os
import random
import shutil
import subprocess
import sys

import generated_blocks


def read_shapes(path):
    shapes = []
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0].split()
            if line:
                shapes.append(tuple(int(v) for v in line))
    return shapes


# The ranges of --random: sides (each drawn log-uniform) and the product of the sides.
RANDOM_RANGES = {"gemm": {"dims": 3, "side": (8, 16384), "product": (2 ** 24, 2 ** 36)},
                 "transpose": {"dims": 2, "side": (1, 2 ** 28), "product": (2 ** 20, 2 ** 28)}}


def draw_shapes(count, seed, dims, side, product):
    """`count` shapes of `dims` sides, each side log-uniform in [side[0], side[1]], kept when the
    product of the sides lies in [product[0], product[1]]."""
    if not (1 <= side[0] <= side[1] and product[0] <= product[1]):
        sys.exit("error: empty range for --random (sides %s, product %s)" % (side, product))
    if side[1] ** dims < product[0] or side[0] ** dims > product[1]:
        sys.exit("error: no shape of sides in %s has a product in %s" % (side, product))
    rng = random.Random(seed)
    lo, hi = math.log(side[0]), math.log(side[1])
    shapes = []
    for _ in range(1000000 * count):
        if len(shapes) == count:
            return shapes
        shape = tuple(min(side[1], max(side[0], round(math.exp(rng.uniform(lo, hi)))))
                      for _ in range(dims))
        if product[0] <= math.prod(shape) <= product[1]:
            shapes.append(shape)
    sys.exit("error: could not draw %d shapes from those ranges" % count)


def random_seed():
    return int.from_bytes(os.urandom(4), "little")


def run_shape(exe, shape, iters, kernels):
    if len(shape) not in (2, 3):
        sys.exit("error: a shape line holds M N K or ROWS COLS, got %s" % (shape,))
    flags = [v for flag, size in zip(["--m", "--n", "--k"], shape) for v in (flag, str(size))]
    picks = [v for k in kernels for v in ("--kernel", k)]
    cmd = [exe, *flags, *picks, "--iters", str(iters), "--csv"]
    done = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if done.returncode not in (0, 1):  # 1: a kernel was wrong; its row says so
        sys.exit("error: %s failed (exit %d):\n%s" % (" ".join(cmd), done.returncode,
                                                      done.stderr[-2000:]))
    # The launchers' choices (TUTORIAL_CHOOSE_PRINT=1, common/chooser.hpp) pass through.
    for line in done.stderr.splitlines():
        if line.startswith("[choose]"):
            print(line, file=sys.stderr)
    return list(csv.DictReader(io.StringIO(done.stdout)))


SWEEP = "sweep"  # the README block's name


# A sweep, measured or read back: the stamp (GPU, driver, date, iterations), the table's
# Markdown lines, the shapes in order, the kernels, pct[k] = [(percent, shape)] for the right
# answers, the ceiling's name and the wrong answers.
Sweep = collections.namedtuple("Sweep", "stamp table shapes kernels pct ceiling wrong")


def text_of(sweep):
    """The stamp, the table, and per kernel the geometric mean and the worst shape."""
    summary = []
    for k in sweep.kernels:
        pct = sweep.pct[k]
        if not pct:
            continue
        geo = math.exp(sum(math.log(p) for p, _ in pct) / len(pct))
        worst = min(pct)
        summary.append("- %s: geometric mean %.1f%% of %s over %d shapes, worst %.1f%% (%s)"
                       % (k, geo, sweep.ceiling, len(pct), worst[0],
                          "×".join(map(str, worst[1]))))
    # A transpose's second ceiling, the float4 copy kernel timed in the same process (--kernel
    # "copy kernel"): each kernel's % of it, shape by shape (its % of cudaMemcpy over the copy's).
    copy = next((k for k in sweep.kernels if k.startswith("copy kernel")), None)
    if copy is not None:
        copy_pct = dict((shape, p) for p, shape in sweep.pct[copy])
        for k in sweep.kernels:
            ratios = [(100.0 * p / copy_pct[shape], shape) for p, shape in sweep.pct[k]
                      if k != copy and shape in copy_pct]
            if not ratios:
                continue
            geo = math.exp(sum(math.log(p) for p, _ in ratios) / len(ratios))
            worst = min(ratios)
            summary.append("- %s: geometric mean %.1f%% of the %s over %d shapes, worst %.1f%% "
                           "(%s)" % (k, geo, copy, len(ratios), worst[0],
                                     "×".join(map(str, worst[1]))))
    return "\n".join(["Measured on " + sweep.stamp + ":", ""] + sweep.table + [""] +
                     summary) + "\n"


# What a sweep's table calls the rate and the ceiling, by the rows' "problem" field.
KINDS = {"gemm": ("GFLOP/s", "cuBLAS", "M × N × K"),
         "transpose": ("GB/s", "cudaMemcpy", "rows × cols")}


def dram_roof_cell(shape, rows):
    """For a bandwidth-bound GEMM (its compulsory bytes take longer at the copy bandwidth than
    its FLOPs at the FP32 peak): the % of that DRAM roof each row reached, "cuBLAS / kernel /
    ...". Empty where the shape is compute-bound or the rows do not say the two ceilings."""
    try:
        bandwidth = float(rows[0]["copy_bandwidth_gbs"])
        peak = float(rows[0]["fp32_peak_gflops"])
    except (KeyError, TypeError, ValueError):
        return ""
    m, n, k = shape
    compulsory = 4.0 * (m * k + k * n + m * n)  # bytes: A and B read, C written, once
    flops = 2.0 * m * n * k
    if bandwidth <= 0 or peak <= 0 or compulsory / bandwidth <= flops / peak:
        return ""
    cells = []
    for r in rows:
        try:
            seconds = float(r["median_ms"]) * 1e-3
        except (KeyError, TypeError, ValueError):
            seconds = -1
        cells.append("%.0f%%" % (100.0 * compulsory / seconds / 1e9 / bandwidth)
                     if seconds > 0 else "-")
    return " / ".join(cells)


DRAM_TITLE = "bandwidth-bound: % of DRAM roof"


def measure(args):
    """The Sweep of running every shape (of the list, or drawn)."""
    if args.random:
        shapes = draw_shapes(args.random, args.seed, args.dims, args.side, args.product)
        print("%d shapes drawn with --seed %d (each side log-uniform in [%d, %d], product of the "
              "sides in [%d, %d]); the same again: --random %d --seed %d"
              % (args.random, args.seed, args.side[0], args.side[1], args.product[0],
                 args.product[1], args.random, args.seed), flush=True)
    else:
        shapes = read_shapes(args.shapes)
    if not shapes:
        sys.exit("error: no shapes in %s" % args.shapes)
    lines, pct, wrong, header, kind = [], {k: [] for k in args.kernel}, [], None, None
    for shape in shapes:
        rows = run_shape(args.exe, shape, args.iters, args.kernel)
        if not rows:
            sys.exit("error: no rows for %s" % (shape,))
        header = rows[0]
        if kind is None:
            if header.get("problem") not in KINDS:
                sys.exit("error: %s printed no known problem kind (%r): an older build?"
                         % (args.exe, header.get("problem")))
            kind = KINDS[header["problem"]]
            unit, ceiling_name, shape_title = kind
            cols = [shape_title, "%s %s" % (ceiling_name, unit)]
            for k in args.kernel:
                cols += ["%s %s" % (k, unit), "%% of %s" % ceiling_name]
            if header["problem"] == "gemm":
                cols.append(DRAM_TITLE + " (%s / %s)" % (ceiling_name, " / ".join(args.kernel)))
            lines.append("| " + " | ".join(cols) + " |")
            lines.append("|---|" + "--:|" * (len(cols) - 1))
        ceiling = next((r for r in rows if r["chapter"] == "ceiling"), None)
        if ceiling is None:
            sys.exit("error: %s printed no ceiling row for %s (no cuBLAS or copy timing?)"
                     % (args.exe, shape))
        cells = ["×".join(map(str, shape)), "{:,.0f}".format(float(ceiling["rate"]))]
        column_rows = [ceiling]
        for k in args.kernel:
            matches = [r for r in rows if r is not ceiling and r["kernel"].startswith(k)]
            if len(matches) != 1:
                sys.exit("error: --kernel %r starts %d kernel names (%s): one column is one "
                         "kernel" % (k, len(matches), ", ".join(r["kernel"] for r in matches)))
            r = matches[0]
            if r["status"].startswith("skipped"):
                cells += ["-", "-"]
                column_rows.append({})
                continue
            column_rows.append(r)
            p = float(r["pct_of_ceiling"])
            if r["status"] != "ok":  # shown, but a wrong answer's speed counts for nothing
                wrong.append("%s at %s: %s" % (r["kernel"], shape, r["status"]))
            else:
                pct[k].append((p, shape))
            cells += ["{:,.0f}".format(float(r["rate"])),
                      "%.1f%%%s" % (p, "" if r["status"] == "ok" else " WRONG")]
        if header["problem"] == "gemm":
            cells.append(dram_roof_cell(shape, column_rows))
        lines.append("| " + " | ".join(cells) + " |")
        print(lines[-1], flush=True)
    stamp = "%s, driver %s, CUDA runtime %s, %s, --iters %d" % (
        header["gpu"], header["driver"], header["runtime"], header["date"], args.iters)
    if args.random:
        stamp += ", %d random shapes, --seed %d" % (args.random, args.seed)
    return Sweep(stamp, lines, shapes, list(args.kernel), pct, kind[1], wrong)


def read_table(path):
    """The Sweep of a table --out wrote: its stamp and table as they are (text_of recomputes
    the summary)."""
    with open(path) as f:
        lines = f.read().splitlines()
    stamp = next((l for l in lines if l.startswith("Measured on ")), None)
    table = [l for l in lines if l.startswith("|")]
    if stamp is None or len(table) < 3:
        sys.exit("error: %s holds no sweep table (a stamp line, a header, rows)" % path)
    titles = [c.strip() for c in table[0].strip("|").split("|")]
    if titles[-1].startswith(DRAM_TITLE):
        titles = titles[:-1]
    unit = titles[1].split()[-1]
    ceiling_name = titles[1][: -len(unit)].strip()
    kernels = [t[: -len(unit)].strip() for t in titles[2::2]]
    pct, wrong, shapes = {k: [] for k in kernels}, [], []
    for row in table[2:]:
        cells = [c.strip() for c in row.strip("|").split("|")]
        shape = tuple(int(v) for v in cells[0].split("×"))
        shapes.append(shape)
        for k, cell in zip(kernels, cells[3:len(titles)][::2]):
            if cell.endswith("WRONG"):
                wrong.append("%s at %s" % (k, shape))
            elif cell != "-":
                pct[k].append((float(cell.rstrip("%")), shape))
    stamp = stamp[len("Measured on "):].rstrip(":")
    return Sweep(stamp, table, shapes, kernels, pct, ceiling_name, wrong)


def put_in_readme(path, text):
    with open(path) as f:
        readme = f.read()
    try:
        readme = generated_blocks.replace_block(readme, SWEEP, text.rstrip("\n"))
    except generated_blocks.BlockError as e:
        sys.exit("error: %s %s for the table" % (path, e))
    with open(path, "w") as f:
        f.write(readme)
    print("wrote the table into %s" % path, file=sys.stderr)


def plot(stem, sweep):
    """STEM.svg: one group of bars per shape (in the table's order), one bar per kernel, % of
    the ceiling (none where a kernel refused the shape or was wrong), with 100% drawn across."""
    if shutil.which("gnuplot") is None:
        print("note: gnuplot is not installed: no %s.svg (make deps installs gnuplot-nox)" % stem,
              file=sys.stderr)
        return
    value = {k: dict((shape, p) for p, shape in sweep.pct[k]) for k in sweep.kernels}
    data = "\n".join(" ".join(['"%s"' % "×".join(map(str, shape))] +
                              [str(value[k].get(shape, "NaN")) for k in sweep.kernels])
                     for shape in sweep.shapes)
    colours = ["#999999", "#E69F00", "#0072B2", "#009E73", "#CC79A7"]
    bars = ", ".join('$d using %d:xtic(1) title "%s" lc rgb "%s"' % (i + 2, k, colours[i % 5])
                     for i, k in enumerate(sweep.kernels))
    script = """$d << EOD
%s
EOD
set terminal svg size 1200,560 dynamic font 'sans,11' noenhanced background rgb 'white'
set output '%s.svg'
set title '%s'
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.9 border -1
set boxwidth 0.9
set xtics rotate by -45 scale 0
set rmargin 8
set bmargin 7
set ylabel '%% of %s, timed in the same process'
set grid ytics lc rgb '#dddddd'
set key top left
set yrange [0:*]
set arrow from graph 0, first 100 to graph 1, first 100 nohead dt 2 lc rgb '#444444'
plot %s
unset output
""" % (data, stem, ("%% of %s per shape: %s" % (sweep.ceiling, sweep.stamp)).replace("'", ""),
       sweep.ceiling, bars)
    done = subprocess.run(["gnuplot"], input=script, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit("error: gnuplot failed:\n%s" % done.stderr)
    print("wrote %s.svg" % stem, file=sys.stderr)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--exe")
    ap.add_argument("--shapes")
    ap.add_argument("--kernel", action="append")
    ap.add_argument("--iters", type=int, default=9)
    ap.add_argument("--out", help="also write the table (Markdown) to this file")
    ap.add_argument("--readme", help="put the table in this README's generated block")
    ap.add_argument("--plot", metavar="STEM", help="draw STEM.svg")
    ap.add_argument("--from-table", metavar="FILE", help="read an earlier --out, measure nothing")
    ap.add_argument("--random", type=int, metavar="COUNT", help="draw COUNT shapes (no --shapes)")
    ap.add_argument("--problem", choices=sorted(RANDOM_RANGES), help="what --random draws")
    ap.add_argument("--seed", type=int, help="--random's seed (default: from os.urandom)")
    ap.add_argument("--side", type=int, nargs=2, metavar=("LO", "HI"))
    ap.add_argument("--product", type=int, nargs=2, metavar=("LO", "HI"))
    args = ap.parse_args(argv)
    if args.random is not None:
        if args.random < 1 or not args.problem:
            ap.error("--random needs a count >= 1 and --problem gemm|transpose")
        ranges = RANDOM_RANGES[args.problem]
        args.dims = ranges["dims"]
        args.side = tuple(args.side or ranges["side"])
        args.product = tuple(args.product or ranges["product"])
        if args.seed is None:
            args.seed = random_seed()
    elif args.seed is not None:
        ap.error("--seed goes with --random")
    if args.from_table:
        sweep = read_table(args.from_table)
    else:
        if not (args.exe and (args.shapes or args.random) and args.kernel):
            ap.error("--exe, --shapes (or --random) and --kernel are needed (or --from-table)")
        if args.shapes and args.random:
            ap.error("--shapes or --random, not both")
        sweep = measure(args)
    text = text_of(sweep)
    print()
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)
    if args.readme:
        put_in_readme(args.readme, text)
    if args.plot:
        plot(args.plot, sweep)
    for w in sweep.wrong:
        print("WRONG: " + w, file=sys.stderr)
    return 1 if sweep.wrong else 0


if __name__ == "__main__":
    sys.exit(main())
