"""The views of the results document as pictures, drawn by gnuplot: the roofline and the
GEMM progression (PNG and SVG). Part of common/scripts/progression.py (see there)."""
import shutil
import subprocess
from pathlib import Path

from progression_digests import measured_intensities
from progression_results import (REPO, SCHEDULE, Failure, flat_rows, is_ceiling, is_gemm,
                                 run_dates)

DEFAULT_INSPECT = REPO / "common" / "results" / "inspect"

# Colour per chapter in SCHEDULE order (colour-blind-safe Okabe-Ito palette), the ceiling in
# black; point shape per kernel within a chapter; bar colour per size.
COLOURS = ["#E69F00", "#56B4E9", "#009E73", "#CC79A7", "#0072B2", "#D55E00"]
CEILING_COLOUR = "#000000"
POINT_TYPES = [7, 5, 9, 11, 13, 15]
SIZE_COLOURS = ["#0072B2", "#E69F00", "#009E73", "#CC79A7"]


def chapter_colour(chapter):
    names = [c for c, _ in SCHEDULE]
    if chapter == "ceiling":
        return CEILING_COLOUR
    return COLOURS[names.index(chapter) % len(COLOURS)] if chapter in names else "#999999"


def gp_string(text):
    return "'" + str(text).replace("'", "''") + "'"


def png_terminal():
    """pngcairo draws anti-aliased text; plain png (libgd) is the fallback."""
    probe = subprocess.run(["gnuplot", "-e", "set terminal pngcairo"], capture_output=True,
                           text=True)
    return "pngcairo" if probe.returncode == 0 and not probe.stderr.strip() else "png"


def render(script_body, datablocks, stem, width, height):
    """Draws script_body once as PNG and once as SVG: stem.png, stem.svg."""
    script = "\n".join(f"${name} << EOD\n{data}\nEOD" for name, data in datablocks.items())
    for terminal, ext in [(png_terminal(), "png"), ("svg dynamic", "svg")]:
        # noenhanced: kernel names like TILE_WIDTH are text, not subscripts; white background
        # so the SVG reads on a dark page too
        script += (f"\nset terminal {terminal} size {width},{height} font 'sans,11' noenhanced "
                   f"background rgb 'white'\nset output {gp_string(f'{stem}.{ext}')}\n"
                   f"{script_body}\nunset output\n")
    result = subprocess.run(["gnuplot"], input=script, capture_output=True, text=True)
    if result.returncode != 0:
        raise Failure(f"gnuplot failed:\n{result.stderr}")


def plot_title(doc, first_line):
    """A gnuplot string expression: first_line, then where and when it was measured."""
    second = f"driver {doc['driver']}, CUDA runtime {doc['runtime']}, {run_dates(doc)}"
    return f'{gp_string(first_line)} . "\\n" . {gp_string(second)}'


def screen_title(doc, first_line):
    """The title as two labels centred on the whole picture, not on the plot area: with the
    key outside on the right, a title centred over the plot ran off the picture's left edge."""
    second = f"driver {doc['driver']}, CUDA runtime {doc['runtime']}, {run_dates(doc)}"
    return (f"set tmargin 5\n"
            f"set label 101 {gp_string(first_line)} at screen 0.5, screen 0.965 center "
            f"font 'sans,12'\n"
            f"set label 102 {gp_string(second)} at screen 0.5, screen 0.93 center font 'sans,10'")


def plot_size(doc, size):
    """The GEMM size the roofline shows: the one asked for, else the smallest measured."""
    sizes = sorted({r["size"] for r in flat_rows(doc) if is_gemm(r) and r.get("rate") is not None})
    if not sizes:
        raise Failure("the results hold no GEMM rows to plot")
    if size is None:
        return sizes[0]
    if size not in sizes:
        raise Failure(f"no GEMM rows at size {size}; measured: {', '.join(map(str, sizes))}")
    return size


def roofline_plot(doc, stem, size, inspect_dir=None):
    """Each GEMM kernel at `size` on the roofline. Where `make profile` measured the chapter at
    that size (its digest in inspect_dir), the kernel sits at the intensity Nsight Compute
    measured (FLOPs / DRAM bytes read and written; a filled marker), and a hollow marker joined
    to it shows where the lesson's model puts it; the model alone otherwise."""
    bw, peak = doc.get("copy_bandwidth_gbs"), doc.get("fp32_peak_gflops")
    if not bw or not peak:
        raise Failure("the results header lacks copy_bandwidth_gbs or fp32_peak_gflops")
    points = [r for r in flat_rows(doc) if is_gemm(r) and r["size"] == size
              and r.get("rate") is not None and r.get("intensity") is not None]
    seen, shown = set(), []
    for row in points:  # one cuBLAS point, not one per chapter run
        key = (row["kernel"], None if is_ceiling(row) else row["executable"])
        if key not in seen:
            seen.add(key)
            shown.append(row)
    measured = measured_intensities(doc, inspect_dir or DEFAULT_INSPECT, size)
    ridge = peak / bw
    xs = [r["intensity"] for r in shown] + list(measured.values()) + [ridge]
    ys = [r["rate"] for r in shown]
    datablocks, plots, per_chapter = {}, [], {}
    for i, row in enumerate(shown):
        chapter = "ceiling" if is_ceiling(row) else row["executable"]
        colour = chapter_colour(chapter)
        nth = per_chapter.get(chapter, 0)
        per_chapter[chapter] = nth + 1
        # Each chapter starts 3 shapes further along the list, so that chapters whose kernels
        # measure the same (02 and 03: the same tiles, with and without bounds checks) do not
        # hide each other behind identical markers.
        first = 3 * [c for c, _ in SCHEDULE].index(chapter) if chapter in dict(SCHEDULE) else 0
        shape = 3 if chapter == "ceiling" else POINT_TYPES[(first + nth) % len(POINT_TYPES)]
        x = measured.get((row["executable"], row["kernel"]))
        title = row["kernel"] + " (" + chapter + ")"
        if x is None:
            datablocks[f"p{i}"] = f"{row['intensity']} {row['rate']}"
            if chapter == "ceiling":
                title += ", at the problem's least traffic"
            else:
                title += ", model only"
        else:  # measured (filled), the model (hollow: the filled shape's number - 1), a line
            datablocks[f"p{i}"] = f"{x} {row['rate']}"
            datablocks[f"m{i}"] = f"{row['intensity']} {row['rate']} {x - row['intensity']} 0"
            plots.append(f"$m{i} using 1:2:3:4 with vectors nohead dt 3 lc rgb '{colour}' notitle")
            plots.append(f"$m{i} using 1:2 with points pt {shape - 1} ps 1.6 lc rgb '{colour}' "
                         "notitle")
        plots.append(f"$p{i} using 1:2 with points pt {shape} ps 1.6 lc rgb '{colour}' "
                     f"title {gp_string(title)}")
    # No L2 roof: the x axis counts DRAM bytes, and an L2 roof bounds FLOP per L2 byte, at
    # which no point here sits (chapter 01 teaches the L2 as a second roof, with its numbers).
    l2_plot = ""
    shape_text = next((r.get("shape") for r in shown if r.get("shape")), f"size {size}")
    point_plots = ", \\\n     ".join(plots)  # one plot element per line of the script
    xlabel = ("arithmetic intensity, FLOP per DRAM byte: filled = measured by Nsight Compute "
              "(make profile), hollow = the lesson's model" if measured else
              "arithmetic intensity (FLOP per DRAM byte, in each lesson's model)")
    body = f"""
{screen_title(doc, f"Roofline of {doc['gpu']}: GEMM kernels at {shape_text}")}
set logscale xy
set xrange [{min(xs) / 3}:{max(xs) * 3}]
set yrange [{min(ys + [peak]) / 4}:{peak * 2.5}]
set xlabel {gp_string(xlabel)}
set ylabel 'GFLOP/s'
set format x '%g'
set format y '%g'
set grid xtics ytics mxtics mytics lc rgb '#dddddd'
set key outside right center Left reverse box samplen 1 width 1 font ",9"
set samples 2000
bw = {bw}
peak = {peak}
roof(x) = bw * x < peak ? bw * x : peak
set label 1 sprintf('ridge %.1f FLOP/B', peak / bw) at {ridge}, {peak} * 1.35 center \\
    textcolor rgb '#555555'
set arrow 1 from {ridge}, {peak} * 1.25 to {ridge}, {peak} * 1.03 lc rgb '#555555'
plot roof(x) with lines lw 2 lc rgb 'black' \\
       title sprintf('roofline: %.0f GB/s copy, %.0f GFLOP/s FP32', bw, peak), \\
{l2_plot}     {point_plots}
"""
    render(body, datablocks, stem, 1500, 760)


def progression_plot(doc, stem):
    """Horizontal bars: GFLOP/s of every GEMM kernel, one bar per size, % of cuBLAS as label."""
    rows = [r for r in flat_rows(doc) if is_gemm(r)]
    sizes = sorted({r["size"] for r in rows if r.get("rate") is not None})
    if not sizes:
        raise Failure("the results hold no GEMM rows to plot")
    names, rates = [], {}  # label -> {size: row}
    for row in rows:
        label = row["kernel"] + ("" if is_ceiling(row) else f" ({row['executable']})")
        if label not in rates:
            rates[label] = {}
            if not is_ceiling(row):
                names.append(label)
        rates[label].setdefault(row["size"], row)
    names += [label for label in rates if label not in names]  # the ceiling last
    height = 0.8 / len(sizes)
    datablocks, plots = {}, []
    for j, size in enumerate(sizes):
        lines = []
        for i, label in enumerate(names, start=1):
            row = rates[label].get(size)
            y = i - 0.4 + (j + 0.5) * height
            if row is None or row.get("rate") is None:  # an empty bar says why it is empty
                text = "not run" if row is None else row.get("status", "").split(":")[0]
                lines.append(f'{y} 0 {y} {y} "{text} at {size}"')
                continue
            pct = row.get("pct_of_ceiling")
            text = "" if pct is None else f"{pct:.1f}%"
            lines.append(f'{y} {row["rate"]} {y - height / 2} {y + height / 2} "{text}"')
        datablocks[f"s{size}"] = "\n".join(lines) or "NaN NaN NaN NaN \"\""
        colour = SIZE_COLOURS[j % len(SIZE_COLOURS)]
        plots.append(f"$s{size} using 2:1:(0):2:3:4 with boxxyerror lc rgb '{colour}' "
                     f"fs solid 0.9 noborder title {gp_string(f'M=N=K={size}')}")
        plots.append(f"$s{size} using 2:1:5 with labels left offset char 0.5,0 font 'sans,9' "
                     "notitle")
    top = max(r["rate"] for r in rows if r.get("rate") is not None)
    tics = ", ".join(f"{gp_string(label)} {i}" for i, label in enumerate(names, start=1))
    ceiling_name = next((r.get("ceiling") for r in rows if r.get("ceiling")), "cuBLAS")
    body = f"""
set title {plot_title(doc, f"GEMM progression on {doc['gpu']}")}
set ytics ({tics}) scale 0
set yrange [{len(names) + 0.6}:0.4]
set xrange [0:{top * 1.18}]
set xlabel {gp_string(f"GFLOP/s (bar labels: % of {ceiling_name} timed in the same run)")}
set format x '%.0s%c'
set grid xtics lc rgb '#dddddd'
set key top right Left reverse box opaque samplen 2 width 3
plot {", ".join(plots)}
"""
    # long kernel names take room from the bars: widen the picture instead
    width = max(1100, 800 + 8 * max(len(label) for label in names))
    render(body, datablocks, stem, width, 200 + 16 * len(names) * (len(sizes) + 1))


def make_plots(doc, out_dir, size=None, inspect_dir=None):
    if shutil.which("gnuplot") is None:
        raise Failure("gnuplot is not installed (Debian/Ubuntu: `make deps` installs gnuplot-nox); "
                      "the plots can be drawn on any machine from the stored JSON")
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    roofline_plot(doc, out_dir / "roofline", plot_size(doc, size), inspect_dir)
    progression_plot(doc, out_dir / "progression")
    return [out_dir / f"{stem}.{ext}" for stem in ("roofline", "progression")
            for ext in ("png", "svg")]

