"""The views of the results document as text: the console table and the README blocks
between <!-- BEGIN GENERATED: NAME --> and <!-- END GENERATED: NAME -->. Part of
common/scripts/progression.py (see there)."""
import re
from pathlib import Path

from generated_blocks import BlockError, fill_blocks
from progression_digests import measured_intensities
from progression_results import Failure, is_ceiling, is_gemm, run_dates

NOT_MEASURED = "_Not measured yet._"


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
    lines = [f"GPU: {doc['gpu']} (driver {doc['driver']}, runtime {doc['runtime']})  {run_dates(doc)}",
             f"copy bandwidth {num(doc.get('copy_bandwidth_gbs'), 0)} GB/s (best of the runs), "
             f"FP32 peak {num(doc.get('fp32_peak_gflops'), 0)} GFLOP/s",
             "% ceiling: against the ceiling timed in the same process; the ceiling row shown "
             "is the first run's.",
             "% roofline: under the roof at the DRAM intensity Nsight Compute measured (FLOP/B "
             "DRAM, from `make profile`'s digest); \"(model)\" where no digest measured the "
             "kernel: at its model's intensity, which can be far off (chapter 01).", ""]
    # The roofline: at the DRAM intensity Nsight Compute measured where a digest covers the row
    # (annotate_roofline), else at the kernel's model, and then labelled as the model's.
    titles = ["chapter", "kernel", "size", "time ms", "rate", "% ceiling", "FLOP/B model",
              "FLOP/B DRAM", "% roofline", "occupancy", "status"]
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
                         num(row.get("intensity"), 2), num(row.get("measured_intensity"), 1),
                         roofline_text(row), occupancy_cell(row), row.get("status", "")]
                # ceilings first, then the chapters in run order
                group.append((0 if key else 1, cells))
        group.sort(key=lambda item: item[0])
        body.append([cells for _, cells in group])
    width = [max([len(t)] + [len(r[c]) for g in body for r in g]) for c, t in enumerate(titles)]
    right = {3, 4, 5, 6, 7, 8}

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



def roofline_text(row):
    """The % roofline cell: the measured figure, or the model's marked "(model)"."""
    value = row.get("pct_of_roofline")
    if value is None:
        return "-"
    return num(value, 1, "%") + ("" if row.get("roofline_intensity") == "measured" else " (model)")


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
    text = (f"Measured by `make run` on **{md_cell(source['gpu'])}** (CUDA driver {source['driver']}, "
            f"CUDA runtime {source['runtime']}), {source['date'] if run else run_dates(doc)}")
    if run:
        text += (f", {run.get('shape') or run['size']}; copy bandwidth "
                 f"{num(run.get('copy_bandwidth_gbs'), 0)} GB/s, FP32 peak "
                 f"{num(run.get('fp32_peak_gflops'), 0)} GFLOP/s in the same run")
    return text + "."


def roofline_cells(run, row, measured):
    """The DRAM intensity Nsight Compute measured for this row (from the chapter's `make
    profile` digest: 2·n³ FLOP over the DRAM bytes read and written) and the row's GFLOP/s as a
    share of the roofline at that intensity, min(FP32 peak, intensity × the run's copy
    bandwidth), as the roofline plot places it; "-" for both where no digest measured it (the
    model's intensity alone says nothing about the real roof: chapter 01)."""
    intensity = measured.get((run["executable"], row.get("kernel")))
    bandwidth, peak = run.get("copy_bandwidth_gbs"), run.get("fp32_peak_gflops")
    if intensity is None or not bandwidth or not peak or row.get("rate") is None:
        return ["-", "-"]
    roof = min(peak, intensity * bandwidth)
    return [num(intensity, 1), num(100 * row["rate"] / roof, 1, "%")]


def chapter_markdown(doc, chapter, inspect_dir=None):
    """The `results` block of a chapter README: one table per size the chapter ran at. The
    roofline columns come from the profile digests in inspect_dir, where one matches the run
    (progression_digests.measured_intensities); they are left out of a table with none."""
    parts = []
    for run in doc["runs"]:
        if run["executable"] != chapter:
            continue
        if not run.get("rows"):
            why = md_cell(run.get("error", "no rows"))
            parts.append(f"Not measured at size {run['size']}: {why}.")
            continue
        rows = run["rows"]
        measured = (measured_intensities(doc, inspect_dir, run["size"])
                    if inspect_dir is not None else {})
        units = {r.get("rate_unit") for r in rows if r.get("rate_unit")}
        ceilings = {r.get("ceiling") for r in rows if r.get("ceiling")}
        titles = ["kernel", "time (ms)", units.pop() if len(units) == 1 else "rate",
                  f"% of {ceilings.pop()}" if len(ceilings) == 1 else "% of ceiling",
                  "FLOP/byte (model)", "FLOP/byte (DRAM, measured)",
                  "% of roofline (measured FLOP/byte)", "occupancy (limiter)", "status"]
        cells = []
        for row in rows:
            name = row.get("kernel", "") + (" (ceiling)" if is_ceiling(row) else "")
            cells.append([name, num(row.get("median_ms"), 3), num(row.get("rate"), 0),
                          num(row.get("pct_of_ceiling"), 1, "%"), num(row.get("intensity"), 2),
                          *roofline_cells(run, row, measured), occupancy_cell(row),
                          row.get("status", "")])
        # drop columns this run has nothing for (a transpose has no FLOP/byte)
        keep = [c for c in range(len(titles)) if c < 3 or any(row[c] != "-" for row in cells)]
        text = measured_on(doc, run) + "\n\n" + md_table(
            [titles[c] for c in keep], [[row[c] for c in keep] for row in cells],
            right={i for i, c in enumerate(keep) if 1 <= c <= 6})
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


def measured_ceilings(run):
    """The run's ceiling rows that have a rate (a transpose has two: cudaMemcpy D2D and the float4
    copy kernel, and which one is faster depends on the GPU)."""
    return [r for r in run.get("rows", []) if is_ceiling(r) and r.get("rate")]


def highest_ceiling(run):
    """The run's ceiling row with the highest rate, or None."""
    return max(measured_ceilings(run), key=lambda r: r["rate"], default=None)


def pct_of_highest_ceiling(run, row):
    """A kernel row's % of the run's highest ceiling: its own pct_of_ceiling where the run has
    one ceiling or the highest is the one it was measured against, else its rate over the
    highest one's (both timed in the same process)."""
    if row is None or row.get("pct_of_ceiling") is None:
        return None
    top = highest_ceiling(run)
    if (len(measured_ceilings(run)) < 2 or not row.get("rate")
            or top.get("kernel") == row.get("ceiling")):
        return row["pct_of_ceiling"]
    return 100.0 * row["rate"] / top["rate"]


def headline_markdown(doc):
    """The landing page's few lines: for each chapter, its kernel with the highest % of the
    ceiling at the largest size it ran at, and that kernel's % at each size (GEMM: of cuBLAS;
    transpose: of the higher of its two ceilings, the device-to-device copy and the float4 copy
    kernel, named at each size), each timed in the same process."""
    order = list(dict.fromkeys(r["executable"] for r in doc["runs"]))
    table = []
    for chapter in order:
        runs = sorted((r for r in doc["runs"] if r["executable"] == chapter and r.get("rows")),
                      key=lambda r: r["size"])
        if not runs:
            continue
        kernels = [row for row in runs[-1]["rows"] if not is_ceiling(row)
                   and row.get("pct_of_ceiling") is not None
                   and not str(row.get("status", "")).startswith("WRONG")]
        if not kernels:
            continue
        best = max(kernels, key=lambda row: pct_of_highest_ceiling(runs[-1], row))
        power = "³" if is_gemm(best) else "²"
        several = any(len(measured_ceilings(run)) > 1 for run in runs)
        cells = []
        for run in runs:
            row = next((r for r in run["rows"] if not is_ceiling(r)
                        and r.get("kernel") == best.get("kernel")), None)
            value = pct_of_highest_ceiling(run, row)
            top = highest_ceiling(run) if several else None
            of = f" of {top.get('kernel', '')}" if top else ""
            cells.append(f"{num(value, 1, '%')}{of} at {run['size']}{power}")
        ceiling = ("the higher of " + " and ".join(sorted({r.get("kernel", "") for run in runs
                                                          for r in run["rows"] if is_ceiling(r)}))
                   if several else best.get("ceiling", ""))
        table.append([chapter, best.get("kernel", ""), ", ".join(cells), ceiling])
    if not table:
        return ""
    return (measured_on(doc) + " Each chapter's fastest kernel at the largest size it ran at, "
            "as a share of the ceiling timed in the same process.\n\n"
            + md_table(["chapter", "fastest kernel", "% of the ceiling", "ceiling"], table))


def row_kernel(line):
    """The kernel of a digest's table row ('| `name` | ...'), or None."""
    match = re.match(r"^\| `([^`]+)` \|", line)
    return match.group(1) if match else None


def profile_name(sass_name):
    """A SASS digest's kernel as the profile digest names it: 'ch05::lean_gemm<128, ..., true>'
    -> 'lean_gemm<128, ..., 1>', '(ch05::Lanes)0' -> '0'."""
    name = re.sub(r"\bch\d\d::", "", sass_name)
    name = re.sub(r"\([A-Za-z_:0-9]+\)(-?\d+)", r"\1", name)
    return re.sub(r"\btrue\b", "1", re.sub(r"\bfalse\b", "0", name))


def sass_of_profiled(text, profiled, full):
    """The SASS digest with only the rows of the kernels the profile saw (the ones the chapter's
    table runs; the executable holds every instantiation, e.g. both widths of each operand),
    and a line saying where all of them are."""
    lines, kept, total = [], 0, 0
    for line in text.splitlines():
        kernel = row_kernel(line)
        if kernel is not None:
            total += 1
            if profile_name(kernel) not in profiled:
                continue
            kept += 1
        lines.append(line)
    if kept == total:
        return text
    # Said at the end of the digest's last paragraph (what the columns mean): no line more.
    return "\n".join(lines) + (f" Shown: the {kept} kernels the profile above saw, of the {total} "
                               f"the executable holds (all of them: [{full.split('/')[-1]}](../{full})).")


def inspect_markdown(inspect_dir, chapter):
    """The `make profile` / `make sass` / `make sanitize` digests of a chapter, as committed under
    common/results/inspect/ by the inspection tooling (common/INSPECT.md)."""
    if inspect_dir is None:
        return ""
    inspect_dir = Path(inspect_dir)
    parts = []
    profiled = None  # the kernels the profile saw, as it names them
    for suffix in ("profile.md", "sass.md"):
        digest = inspect_dir / f"{chapter}-{suffix}"
        if not digest.is_file():
            continue
        text = digest.read_text().strip().replace("### ", "#### ", 1)
        if suffix == "profile.md":
            profiled = {row_kernel(line) for line in text.splitlines() if row_kernel(line)}
        elif profiled:
            text = sass_of_profiled(text, profiled, f"common/results/inspect/{chapter}-sass.md")
        parts.append(text)
    sanitize = inspect_dir / f"{chapter}-sanitize.txt"
    if sanitize.is_file():
        parts.append("#### compute-sanitizer: " + chapter + "\n\n```\n" + sanitize.read_text().strip()
                     + "\n```")
    return "\n\n".join(parts)


# The sections of 01_memory_system's output from this title on, if any, are left out of the
# block `memory-system` (chapter 01's opening); None: the whole output (the gather and
# `__restrict__` are chapter 01's too since it owns the memory system).
MEMORY_SYSTEM_LAST = None


def memory_system_markdown(inspect_dir):
    """The output of `make memory-system` (01_memory_system's tables, each measurement beside
    its prediction) as common/scripts/memory_system.sh keeps it in
    common/results/memory-system.txt, beside the inspect/ folder: its first line, then the
    program's output (up to the section MEMORY_SYSTEM_LAST, if one is set)."""
    if inspect_dir is None:
        return ""
    saved = Path(inspect_dir).parent / "memory-system.txt"
    if not saved.is_file():
        return ""
    lines = saved.read_text().strip().splitlines()
    body = lines[1:]
    cut = next((i for i, line in enumerate(body)
                if MEMORY_SYSTEM_LAST and line.startswith(MEMORY_SYSTEM_LAST)), None)
    if cut is not None:
        body = body[:cut]
    return lines[0] + "\n\n```text\n" + "\n".join(body).strip("\n") + "\n```"


def fill_readme(text, chapter, doc, inspect_dir=None):
    """Returns text with every known generated block refilled; unknown blocks stay as they are."""
    def content_of(name):
        if name == "results" and chapter:
            content = chapter_markdown(doc, chapter, inspect_dir) if doc else ""
        elif name == "progression":
            content = progression_markdown(doc) if doc else ""
        elif name == "headline":
            content = headline_markdown(doc) if doc else ""
        elif name == "inspect" and chapter:
            content = inspect_markdown(inspect_dir, chapter)
        elif name == "memory-system":
            content = memory_system_markdown(inspect_dir)
        else:
            return None
        return content or NOT_MEASURED

    try:
        return fill_blocks(text, content_of)
    except BlockError as e:
        raise Failure(str(e))


def readme_tables(doc, root):
    """Refills the blocks of the top README, every <folder>/README.md and every other page of a
    chapter (a chapter's pages: its `results` and `inspect` blocks, or the part of them a BEGIN
    line's options show) and every common/<folder>/README.md (common/results/README.md holds
    the whole progression)."""
    root = Path(root)
    changed = []
    for readme in [root / "README.md", *sorted(root.glob("*/README.md")),
                   *sorted(p for p in root.glob("[0-9][0-9]_*/*.md") if p.name != "README.md"),
                   *sorted(root.glob("common/*/README.md"))]:
        if not readme.is_file():
            continue
        chapter = readme.parent.name if readme.parent.parent == root else None
        old = readme.read_text()
        try:
            new = fill_readme(old, chapter, doc, root / "common" / "results" / "inspect")
        except Failure as e:
            raise Failure(f"{readme}: {e}")
        if new != old:
            readme.write_text(new)
            changed.append(readme)
    return changed

