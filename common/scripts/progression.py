#!/usr/bin/env python3
"""The whole progression on one GPU: every chapter measured, then tables, plots and READMEs.

  progression.py run            runs build/bin/<chapter> --json for every chapter and size,
                                prints one table, writes common/results/progression.json/.csv
  progression.py table          prints that table again from the stored JSON
  progression.py plots          roofline and progression charts (PNG and SVG) drawn by gnuplot
  progression.py readme-tables  fills the README blocks between
                                <!-- BEGIN GENERATED: NAME --> and <!-- END GENERATED: NAME -->
                                (NAME = results: the README's chapter; progression: every GEMM
                                kernel at every size)

Python 3 standard library only: python3 ships with every Debian/Ubuntu system (`make deps`
installs it on minimal images), so the stored JSON turns into tables and plots on any machine,
GPU or not. The plots need gnuplot (Debian package gnuplot-nox, also in `make deps`).
"""
import argparse
import csv
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DEFAULT_RESULTS = REPO / "common" / "results"


def read_schedule(path=REPO / "common" / "chapters.txt"):
    """[(chapter, [sizes])] from common/chapters.txt, the one list of chapters (M = N = K, or
    rows = cols for the transpose)."""
    schedule = []
    for line in path.read_text().splitlines():
        words = line.split("#", 1)[0].split()
        if words:
            schedule.append((words[0], [int(w) for w in words[1:]]))
    return schedule


SCHEDULE = read_schedule()

EXIT_NO_DEVICE = 3  # kExitNoDevice in common/chapter_main.hpp
# Flags the progression sets itself; `make run ARGS=...` may add any other chapter flag.
RESERVED_FLAGS = {"--size", "--m", "--n", "--k", "--rows", "--cols", "--json", "--csv", "--help",
                  "-h"}
NOT_MEASURED = "_Not measured yet._"
CSV_FIELDS = ["executable", "size", "gpu", "driver", "runtime", "date", "shape",
              "copy_bandwidth_gbs", "fp32_peak_gflops", "chapter", "kernel", "status",
              "median_ms", "min_ms", "max_ms", "rate", "rate_unit", "pct_of_ceiling", "ceiling",
              "intensity", "pct_of_roofline", "occupancy", "limiter"]
HEADER_FIELDS = ["gpu", "driver", "runtime", "date", "shape", "copy_bandwidth_gbs",
                 "fp32_peak_gflops"]


class Failure(Exception):
    """A message for the user and the exit code that goes with it."""

    def __init__(self, message, code=1):
        super().__init__(message)
        self.code = code


def say(*parts):
    print(*parts, file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------------------
# run: measure
# ---------------------------------------------------------------------------------------------

def run_one(exe, size, extra):
    """Runs one chapter executable with --json; its stderr (the progress lines) passes through.
    Returns (exit code, parsed JSON or None, last stderr lines)."""
    args = [str(exe), "--size", str(size), *extra, "--json"]
    with tempfile.TemporaryFile() as out:
        proc = subprocess.Popen(args, stdout=out, stderr=subprocess.PIPE, text=True)
        tail = []
        for line in proc.stderr:
            sys.stderr.write(line)
            sys.stderr.flush()
            tail = (tail + [line.rstrip("\n")])[-4:]
        code = proc.wait()
        out.seek(0)
        text = out.read().decode(errors="replace")
    try:
        report = json.loads(text) if text.strip() else None
    except json.JSONDecodeError:
        report = None
    return code, report, tail


def measure(build_dir, schedule, extra):
    """Runs the schedule; returns the combined results document (see write_results)."""
    bad = [a for a in extra if a.split("=")[0] in RESERVED_FLAGS]
    if bad:
        raise Failure(f"ARGS may not contain {' '.join(bad)}: the progression chooses sizes and "
                      "the output format itself (edit common/chapters.txt or use --only/--sizes)", 2)
    total = sum(len(sizes) for _, sizes in schedule)
    runs, step = [], 0
    for chapter, sizes in schedule:
        exe = Path(build_dir) / "bin" / chapter
        for size in sizes:
            step += 1
            say(f"== [{step}/{total}] {chapter} --size {size}")
            run = {"executable": chapter, "size": size}
            if not exe.is_file():
                run.update(exit_code=None, rows=[],
                           error=f"{exe} does not exist: the chapter was not built")
                say(f"error: {run['error']}")
                runs.append(run)
                continue
            code, report, tail = run_one(exe, size, extra)
            if code == EXIT_NO_DEVICE:
                # The executable has just said why on stderr; nothing can be measured here.
                raise Failure(f"{chapter} found no CUDA device (message above): `make run` "
                              "needs an NVIDIA GPU; no results were written", code)
            run["exit_code"] = code
            if report:
                run.update({k: report.get(k) for k in HEADER_FIELDS})
            run["rows"] = report.get("rows", []) if report else []
            if code != 0:
                last = [line for line in tail if line.strip()]
                run["error"] = f"exit code {code}" + (f": {last[-1]}" if last else "")
            elif not report:
                run["error"] = "exit code 0 but no JSON report on stdout"
                say(f"error: {chapter} --size {size} failed ({run['error']})")
            runs.append(run)
    measured = [r for r in runs if r.get("gpu")]
    if not measured:
        raise Failure("no chapter produced a report: nothing was written")
    first = measured[0]
    bandwidths = [r["copy_bandwidth_gbs"] for r in measured if r.get("copy_bandwidth_gbs")]
    return {
        "about": "Written by `make run` (common/scripts/progression.py): every chapter executable "
                 "run with --json. copy_bandwidth_gbs is the highest device-copy bandwidth the "
                 "runs measured (each run measured its own, stored with it), fp32_peak_gflops "
                 "comes from the clocks. Each row's % of ceiling and % of roofline use the "
                 "ceiling measured in its own run.",
        "gpu": first["gpu"], "driver": first["driver"], "runtime": first["runtime"],
        "date": first["date"],
        "copy_bandwidth_gbs": max(bandwidths) if bandwidths else None,
        "fp32_peak_gflops": first.get("fp32_peak_gflops"),
        "runs": runs,
    }


# ---------------------------------------------------------------------------------------------
# The results document
# ---------------------------------------------------------------------------------------------

def load_results(path):
    path = Path(path)
    if not path.is_file():
        raise Failure(f"{path} does not exist: run `make run` on a machine with a GPU first")
    try:
        doc = json.loads(path.read_text())
    except json.JSONDecodeError as e:
        raise Failure(f"{path} is not valid JSON: {e}")
    if not isinstance(doc.get("runs"), list):
        raise Failure(f"{path} has no \"runs\" list: not written by progression.py run")
    return doc


def flat_rows(doc):
    """Every row of every run, with its run's executable, size and header fields."""
    for run in doc["runs"]:
        for row in run.get("rows", []):
            yield {**{k: run.get(k) for k in ["executable", "size", *HEADER_FIELDS]}, **row}


def is_ceiling(row):
    return row.get("chapter") == "ceiling"


def is_gemm(row):
    return row.get("rate_unit") == "GFLOP/s"


def write_results(doc, results_dir):
    results_dir = Path(results_dir)
    results_dir.mkdir(parents=True, exist_ok=True)
    json_path, csv_path = results_dir / "progression.json", results_dir / "progression.csv"
    json_path.write_text(json.dumps(doc, indent=1) + "\n")
    with csv_path.open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=CSV_FIELDS, extrasaction="ignore")
        writer.writeheader()
        for row in flat_rows(doc):
            writer.writerow({k: "" if v is None else v for k, v in row.items()})
    return json_path, csv_path


# ---------------------------------------------------------------------------------------------
# Cells shared by the text table and the markdown tables
# ---------------------------------------------------------------------------------------------

def num(value, digits, suffix=""):
    return "-" if value is None else f"{value:,.{digits}f}{suffix}"


def occupancy_cell(row):
    occ = row.get("occupancy")
    if occ is None:
        return "-"
    limiter = row.get("limiter")
    return f"{100 * occ:.0f}%" + (f" ({limiter})" if limiter else "")


def size_groups(doc):
    """Runs grouped by problem (shape), in schedule order of their first chapter, then by size."""
    order = list(dict.fromkeys(r["executable"] for r in doc["runs"]))
    groups = {}
    for run in doc["runs"]:
        if run.get("rows"):
            groups.setdefault(run.get("shape") or str(run["size"]), []).append(run)
    return sorted(groups.values(),
                  key=lambda runs: (order.index(runs[0]["executable"]), runs[0]["size"]))


def text_table(doc):
    """One aligned table of every row: grouped by problem size, each ceiling shown once."""
    lines = [f"GPU: {doc['gpu']} (driver {doc['driver']}, runtime {doc['runtime']})  {doc['date']}",
             f"copy bandwidth {num(doc.get('copy_bandwidth_gbs'), 0)} GB/s (best of the runs), "
             f"FP32 peak {num(doc.get('fp32_peak_gflops'), 0)} GFLOP/s",
             "% ceiling: against the ceiling timed in the same process; the ceiling row shown "
             "is the first run's.", ""]
    titles = ["chapter", "kernel", "size", "time ms", "rate", "% ceiling", "FLOP/B",
              "% roofline", "occupancy", "status"]
    body = []
    for runs in size_groups(doc):
        shown = set()
        group = []
        for run in runs:
            for row in run["rows"]:
                key = (row.get("kernel"), row.get("ceiling")) if is_ceiling(row) else None
                if key in shown:
                    continue
                if key:
                    shown.add(key)
                ceiling = row.get("pct_of_ceiling")
                cells = [row.get("chapter", ""), row.get("kernel", ""), str(run["size"]),
                         num(row.get("median_ms"), 3),
                         num(row.get("rate"), 0, " " + (row.get("rate_unit") or "")),
                         "-" if ceiling is None else f"{ceiling:.1f}% {row.get('ceiling', '')}",
                         num(row.get("intensity"), 2), num(row.get("pct_of_roofline"), 1, "%"),
                         occupancy_cell(row), row.get("status", "")]
                # ceilings first, then the chapters in run order
                group.append((0 if key else 1, cells))
        group.sort(key=lambda item: item[0])
        body.append([cells for _, cells in group])
    width = [max([len(t)] + [len(r[c]) for g in body for r in g]) for c, t in enumerate(titles)]
    right = {3, 4, 5, 6, 7}

    def line(cells):
        return "  ".join(c.rjust(w) if i in right else c.ljust(w)
                         for i, (c, w) in enumerate(zip(cells, width))).rstrip()

    lines += [line(titles), line(["-" * w for w in width])]
    for i, group in enumerate(body):
        if i:
            lines.append("")
        lines += [line(cells) for cells in group]
    failed = [r for r in doc["runs"] if r.get("error")]
    if failed:
        lines.append("")
        lines += [f"FAILED: {r['executable']} --size {r['size']}: {r['error']}" for r in failed]
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------------------------
# Markdown (README blocks)
# ---------------------------------------------------------------------------------------------

def md_cell(text):
    """Kernel names such as tiled_gemm<32> must not read as HTML, nor | end the cell."""
    return str(text).replace("<", "&lt;").replace(">", "&gt;").replace("|", "\\|")


def md_table(titles, rows, right=()):
    out = ["| " + " | ".join(titles) + " |",
           "|" + "|".join("--:" if i in right else "---" for i in range(len(titles))) + "|"]
    out += ["| " + " | ".join(md_cell(c) for c in row) + " |" for row in rows]
    return "\n".join(out)


def measured_on(doc, run=None):
    source = run or doc
    text = (f"Measured by `make run` on **{md_cell(source['gpu'])}** (driver {source['driver']}, "
            f"CUDA runtime {source['runtime']}), {source['date']}")
    if run:
        text += (f", {run.get('shape') or run['size']}; copy bandwidth "
                 f"{num(run.get('copy_bandwidth_gbs'), 0)} GB/s, FP32 peak "
                 f"{num(run.get('fp32_peak_gflops'), 0)} GFLOP/s in the same run")
    return text + "."


def chapter_markdown(doc, chapter):
    """The `results` block of a chapter README: one table per size the chapter ran at."""
    parts = []
    for run in doc["runs"]:
        if run["executable"] != chapter:
            continue
        if not run.get("rows"):
            why = md_cell(run.get("error", "no rows"))
            parts.append(f"Not measured at size {run['size']}: {why}.")
            continue
        rows = run["rows"]
        units = {r.get("rate_unit") for r in rows if r.get("rate_unit")}
        ceilings = {r.get("ceiling") for r in rows if r.get("ceiling")}
        titles = ["kernel", "time (ms)", units.pop() if len(units) == 1 else "rate",
                  f"% of {ceilings.pop()}" if len(ceilings) == 1 else "% of ceiling",
                  "FLOP/byte", "% of roofline", "occupancy (limiter)", "status"]
        cells = []
        for row in rows:
            name = row.get("kernel", "") + (" (ceiling)" if is_ceiling(row) else "")
            cells.append([name, num(row.get("median_ms"), 3), num(row.get("rate"), 0),
                          num(row.get("pct_of_ceiling"), 1, "%"), num(row.get("intensity"), 2),
                          num(row.get("pct_of_roofline"), 1, "%"), occupancy_cell(row),
                          row.get("status", "")])
        # drop columns this run has nothing for (a transpose has no FLOP/byte)
        keep = [c for c in range(len(titles)) if c < 3 or any(row[c] != "-" for row in cells)]
        text = measured_on(doc, run) + "\n\n" + md_table(
            [titles[c] for c in keep], [[row[c] for c in keep] for row in cells],
            right={i for i, c in enumerate(keep) if 1 <= c <= 5})
        if run.get("error"):
            text += f"\n\nThis run failed: {md_cell(run['error'])}."
        parts.append(text)
    return "\n\n".join(parts)


def progression_markdown(doc):
    """Every GEMM kernel of every chapter, GFLOP/s and % of cuBLAS at each size measured."""
    gemm_runs = [r for r in doc["runs"] if any(is_gemm(row) for row in r.get("rows", []))]
    sizes = sorted({r["size"] for r in gemm_runs})
    if not sizes:
        return ""
    kernels, ceiling = {}, {}  # (chapter, kernel) -> {size: row}; size -> first ceiling row
    for run in gemm_runs:
        for row in run["rows"]:
            if is_ceiling(row):
                ceiling.setdefault(run["size"], row)
            else:
                key = (run["executable"], row.get("kernel", ""))
                kernels.setdefault(key, {})[run["size"]] = row
    ceiling_name = next((r.get("ceiling") for r in ceiling.values() if r.get("ceiling")), "cuBLAS")

    def cells(row):
        if row is None:
            return ["not run", "-"]
        status = row.get("status", "")
        if row.get("rate") is None:
            return [status.split(":")[0] or "-", "-"]
        flag = " (WRONG)" if status.startswith("WRONG") else ""
        return [num(row["rate"], 0) + flag, num(row.get("pct_of_ceiling"), 1, "%")]

    titles = ["kernel", "chapter"]
    for size in sizes:
        titles += [f"GFLOP/s at {size}", f"% of {ceiling_name} at {size}"]
    table = []
    for (chapter, name), by_size in kernels.items():
        table.append([name, chapter] + [c for s in sizes for c in cells(by_size.get(s))])
    if ceiling:
        name = next(iter(ceiling.values())).get("kernel", ceiling_name)
        table.append([name, "ceiling"] + [c for s in sizes for c in cells(ceiling.get(s))])
    right = set(range(2, len(titles)))
    return (measured_on(doc) + f" Square problems, M = N = K = the size in the column title; "
            f"each % is against {ceiling_name} timed in the same process.\n\n"
            + md_table(titles, table, right=right))


BLOCK = re.compile(r"^(<!-- BEGIN GENERATED: ([\w-]+) -->[ \t]*\n)(.*?)"
                   r"(^<!-- END GENERATED: \2 -->)", re.S | re.M)


def inspect_markdown(inspect_dir, chapter):
    """The `make profile` / `make sass` / `make sanitize` digests of a chapter, as committed under
    common/results/inspect/ by the inspection tooling (common/INSPECT.md)."""
    if inspect_dir is None:
        return ""
    inspect_dir = Path(inspect_dir)
    parts = []
    for suffix in ("profile.md", "sass.md"):
        digest = inspect_dir / f"{chapter}-{suffix}"
        if digest.is_file():
            parts.append(digest.read_text().strip().replace("### ", "#### ", 1))
    sanitize = inspect_dir / f"{chapter}-sanitize.txt"
    if sanitize.is_file():
        parts.append("#### compute-sanitizer: " + chapter + "\n\n```\n" + sanitize.read_text().strip()
                     + "\n```")
    return "\n\n".join(parts)


def fill_readme(text, chapter, doc, inspect_dir=None):
    """Returns text with every known generated block refilled; unknown blocks stay as they are."""
    begins = len(re.findall(r"<!-- BEGIN GENERATED: ", text))
    if begins != len(BLOCK.findall(text)):
        raise Failure("a <!-- BEGIN GENERATED: NAME --> line has no matching "
                      "<!-- END GENERATED: NAME --> line (each on a line of its own)")

    def replace(match):
        name = match.group(2)
        if name == "results" and chapter:
            content = chapter_markdown(doc, chapter) if doc else ""
        elif name == "progression":
            content = progression_markdown(doc) if doc else ""
        elif name == "inspect" and chapter:
            content = inspect_markdown(inspect_dir, chapter)
        else:
            return match.group(0)
        return match.group(1) + (content or NOT_MEASURED) + "\n" + match.group(4)

    return BLOCK.sub(replace, text)


def readme_tables(doc, root):
    root = Path(root)
    changed = []
    for readme in [root / "README.md", *sorted(root.glob("*/README.md"))]:
        if not readme.is_file():
            continue
        chapter = readme.parent.name if readme.parent != root else None
        old = readme.read_text()
        try:
            new = fill_readme(old, chapter, doc, root / "common" / "results" / "inspect")
        except Failure as e:
            raise Failure(f"{readme}: {e}")
        if new != old:
            readme.write_text(new)
            changed.append(readme)
    return changed


# ---------------------------------------------------------------------------------------------
# Plots (gnuplot)
# ---------------------------------------------------------------------------------------------

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
    second = f"driver {doc['driver']}, CUDA runtime {doc['runtime']}, {doc['date']}"
    return f'{gp_string(first_line)} . "\\n" . {gp_string(second)}'


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


def roofline_plot(doc, stem, size):
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
    ridge = peak / bw
    xs = [r["intensity"] for r in shown] + [ridge]
    ys = [r["rate"] for r in shown]
    datablocks, plots, per_chapter = {}, [], {}
    for i, row in enumerate(shown):
        chapter = "ceiling" if is_ceiling(row) else row["executable"]
        colour = chapter_colour(chapter)
        nth = per_chapter.get(chapter, 0)
        per_chapter[chapter] = nth + 1
        shape = 3 if chapter == "ceiling" else POINT_TYPES[nth % len(POINT_TYPES)]  # 3: a star
        datablocks[f"p{i}"] = f"{row['intensity']} {row['rate']}"
        plots.append(f"$p{i} using 1:2 with points pt {shape} ps 1.6 lc rgb '{colour}' "
                     f"title {gp_string(row['kernel'] + ' (' + chapter + ')')}")
    shape_text = next((r.get("shape") for r in shown if r.get("shape")), f"size {size}")
    point_plots = ", \\\n     ".join(plots)  # one plot element per line of the script
    body = f"""
set title {plot_title(doc, f"Roofline of {doc['gpu']}: GEMM kernels at {shape_text}")}
set logscale xy
set xrange [{min(xs) / 3}:{max(xs) * 3}]
set yrange [{min(ys + [peak]) / 4}:{peak * 2.5}]
set xlabel "arithmetic intensity (FLOP per DRAM byte, in each lesson's model)"
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
     {point_plots}
"""
    render(body, datablocks, stem, 1400, 700)


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


def make_plots(doc, out_dir, size=None):
    if shutil.which("gnuplot") is None:
        raise Failure("gnuplot is not installed (Debian/Ubuntu: `make deps` installs gnuplot-nox); "
                      "the plots can be drawn on any machine from the stored JSON")
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    roofline_plot(doc, out_dir / "roofline", plot_size(doc, size))
    progression_plot(doc, out_dir / "progression")
    return [out_dir / f"{stem}.{ext}" for stem in ("roofline", "progression")
            for ext in ("png", "svg")]


# ---------------------------------------------------------------------------------------------
# Command line
# ---------------------------------------------------------------------------------------------

def parse_schedule(only, sizes):
    schedule = dict(SCHEDULE)
    for spec in sizes or []:
        chapter, _, values = spec.partition("=")
        if chapter not in schedule or not values:
            raise Failure(f"--sizes expects CHAPTER=N[,N...] with a chapter of "
                          f"{', '.join(schedule)}; got '{spec}'", 2)
        try:
            schedule[chapter] = [int(v) for v in values.split(",")]
        except ValueError:
            raise Failure(f"--sizes: '{values}' is not a list of integers", 2)
    if only:
        wanted = only.split(",")
        unknown = [c for c in wanted if c not in schedule]
        if unknown:
            raise Failure(f"--only: unknown chapter {', '.join(unknown)}", 2)
        return [(c, schedule[c]) for c in wanted]
    return list(schedule.items())


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="measure every chapter, print the table, write JSON and CSV")
    run.add_argument("--build-dir", default=str(REPO / "build"))
    run.add_argument("--results", default=str(DEFAULT_RESULTS),
                     help="folder for progression.json/.csv")
    run.add_argument("--only", help="comma-separated chapters, e.g. 02_tiled,03_bounds")
    run.add_argument("--sizes", action="append", metavar="CHAPTER=N[,N]",
                     help="sizes of one chapter instead of the schedule's")
    run.add_argument("extra", nargs="*",
                     help="after --: more flags for every executable (e.g. --iters 20)")
    for name, text in [("table", "print the table from the stored JSON"),
                       ("plots", "draw roofline.png/.svg and progression.png/.svg"),
                       ("readme-tables", "fill the generated blocks of every README")]:
        p = sub.add_parser(name, help=text)
        p.add_argument("--results", default=str(DEFAULT_RESULTS),
                       help="folder with progression.json")
        p.add_argument("--json", help="read this JSON file instead of RESULTS/progression.json")
        if name == "plots":
            p.add_argument("--out", help="folder for the images (default: the results folder)")
            p.add_argument("--size", type=int,
                           help="GEMM size the roofline shows (default: the smallest)")
        if name == "readme-tables":
            p.add_argument("--root", default=str(REPO), help="repository root holding the READMEs")
    args = parser.parse_args(argv)

    try:
        if args.command == "run":
            doc = measure(args.build_dir, parse_schedule(args.only, args.sizes), args.extra)
            json_path, csv_path = write_results(doc, args.results)
            sys.stdout.write(text_table(doc))
            say(f"wrote {json_path} and {csv_path}\n"
                "next: `make readme-tables` and `make plots` (gnuplot; any machine) to refresh "
                "the READMEs and the charts from them")
            return 1 if any(r.get("error") for r in doc["runs"]) else 0
        doc = load_results(args.json or Path(args.results) / "progression.json")
        if args.command == "table":
            sys.stdout.write(text_table(doc))
        elif args.command == "plots":
            for path in make_plots(doc, args.out or args.results, args.size):
                print(f"wrote {path}")
        elif args.command == "readme-tables":
            changed = readme_tables(doc, args.root)
            print("\n".join(f"updated {p}" for p in changed) or "every README was up to date")
        return 0
    except Failure as e:
        say(f"error: {e}")
        return e.code


if __name__ == "__main__":
    sys.exit(main())
