#!/usr/bin/env python3
"""Chapter 05's issue-slot and stall table from an Nsight Compute export (a GPU measurement).

  ncu --csv --page raw --metrics "$(stall_table.py --print-metrics)" \\
      --kernel-name regex:'lean_gemm|pipelined_gemm|xmma|sgemm|cutlass' \\
      build/bin/05_double_buffer --size 4096 --iters 1 --no-check > stalls.csv
  stall_table.py stalls.csv [--chart stalls]   (--chart: also stalls.svg and stalls.png, a bar
                                               chart of the stall rows; needs gnuplot)

One column per kernel (its first launch on its largest grid: the chapter also launches each of
its kernels once on a small problem for the resources table), one row per quantity. Stalls are
in warp-cycles per issued instruction, as Nsight Compute's "Warp State Statistics" reports
them. Python 3 standard library only.
"""
import argparse
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "common" / "scripts"))
import ncu_digest  # noqa: E402  (common/scripts: the metric reader every digest shares)

STALL = "smsp__average_warps_issue_stalled_{}_per_issue_active.ratio"
ROWS = [  # (label, metric, format)
    ("warp instructions", "smsp__inst_executed.sum", "{:.3e}"),
    ("FFMA share", None, "{:.1%}"),  # thread FFMAs / 32 / warp instructions
    ("issue slots busy", "smsp__issue_active.avg.pct_of_peak_sustained_active", "{:.1f}%"),
    ("warps per scheduler", "smsp__warps_active.avg.per_cycle_active", "{:.1f}"),
    ("dispatch stall", STALL.format("dispatch_stall"), "{:.2f}"),
    ("short scoreboard (shared-memory waits)", STALL.format("short_scoreboard"), "{:.2f}"),
    ("long scoreboard (global-memory waits)", STALL.format("long_scoreboard"), "{:.2f}"),
    ("barrier", STALL.format("barrier"), "{:.2f}"),
    ("wait (fixed latency)", STALL.format("wait"), "{:.2f}"),
    ("math pipe throttle", STALL.format("math_pipe_throttle"), "{:.2f}"),
    ("not selected", STALL.format("not_selected"), "{:.2f}"),
]
FFMA = "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum"
INSTRUCTIONS = "smsp__inst_executed.sum"


def metrics():
    return [m for _, m, _ in ROWS if m] + [FFMA, ncu_digest.DEVICE]


def label(full):
    """'lean_gemm<...>' for the chapter's kernels; "cuBLAS's kernel" for the library's."""
    name = ncu_digest.short_name(full)
    return name.replace("ch05::", "") if name.startswith("ch05::") else "cuBLAS's kernel"


def chart(stem, names, values, gpu):
    """Grouped horizontal bars: one group per stall reason, one bar per kernel (warp-cycles per
    issued instruction). values[name][label] -> float or None. Drawn by gnuplot."""
    stalls = [(text, metric) for text, metric, _ in ROWS if metric and metric.startswith("smsp__average")]
    data = "\n".join(" ".join([f'"{text.split(" (")[0]}"'] +
                              [str(values[n].get(text) or 0) for n in names])
                     for text, _ in stalls)
    colours = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9"]
    plots = ", ".join(f'$d using {i + 2}:xtic(1) title "{n}" lc rgb "{colours[i % len(colours)]}"'
                      for i, n in enumerate(names))
    body = f"""
set title 'Where the warps wait: stalls per issued instruction, 4096^3' . "\\n" . '{gpu or ""}'
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.9 border -1
set boxwidth 0.9
set xtics rotate by -20
set ylabel 'warp-cycles per issued instruction (Nsight Compute)'
set grid ytics lc rgb '#dddddd'
set key top right
set yrange [0:*]
plot {plots}
"""
    script = f"$d << EOD\n{data}\nEOD\n"
    for terminal, ext in [("pngcairo", "png"), ("svg dynamic", "svg")]:
        script += (f"set terminal {terminal} size 1100,520 font 'sans,11' noenhanced "
                   f"background rgb 'white'\nset output '{stem}.{ext}'\n{body}\nunset output\n")
    result = subprocess.run(["gnuplot"], input=script, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"error: gnuplot failed:\n{result.stderr}")
    print(f"wrote {stem}.svg and {stem}.png", file=sys.stderr)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("csv", nargs="?")
    parser.add_argument("--print-metrics", action="store_true")
    parser.add_argument("--chart", metavar="STEM", help="also draw STEM.svg and STEM.png")
    args = parser.parse_args(argv)
    if args.print_metrics:
        print(",".join(metrics()))
        return 0
    if not args.csv:
        parser.error("give the ncu export")
    _, rows = ncu_digest.read_rows(args.csv)
    chosen = {}  # kernel -> its first launch on its largest grid
    library = sorted({ncu_digest.short_name(r.get("Kernel Name", "")) for r in rows
                      if label(r.get("Kernel Name", "")) == "cuBLAS's kernel"})
    for r in rows:
        name = label(r.get("Kernel Name", ""))
        best = chosen.get(name)
        if best is None or ncu_digest.grid_blocks(r) > ncu_digest.grid_blocks(best):
            chosen[name] = r
    if not chosen:
        sys.exit(f"error: no launches in {args.csv}")
    names = list(chosen)
    gpu = next((r.get(ncu_digest.DEVICE) for r in rows if r.get(ncu_digest.DEVICE)), None)
    if gpu:
        print(f"Measured on {gpu}.\n")
    print("| | " + " | ".join(f"`{n}`" for n in names) + " |")
    print("| --- |" + " ---: |" * len(names))
    values = {n: {} for n in names}
    for text, metric, form in ROWS:
        cells = []
        for n in names:
            r = chosen[n]
            if metric is None:
                ffma, inst = ncu_digest.number(r.get(FFMA)), ncu_digest.number(r.get(INSTRUCTIONS))
                value = None if not ffma or not inst else ffma / 32 / inst
            else:
                value = ncu_digest.number(r.get(metric))
            values[n][text] = value
            cells.append("n/a" if value is None else form.format(value))
        print(f"| {text} | " + " | ".join(cells) + " |")
    if library:
        print("\ncuBLAS's kernel: " + ", ".join(f"`{n}`" for n in library))
    if args.chart:
        chart(args.chart, names, values, gpu)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
