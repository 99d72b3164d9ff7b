#!/usr/bin/env python3
"""Digest an Nsight Compute export into one table row per kernel.

Input: `ncu --import REPORT.ncu-rep --csv --page raw --print-units base`. Each kernel of the
chapter is launched several times by the executable (correctness launch, warm-ups, timed runs);
each kernel is shown once per distinct piece of work (see digest()). What the columns mean:
common/INSPECT.md.

usage: ncu_digest.py RAW.csv --chapter NAME [--out FILE.md] [--header TEXT]
       ncu_digest.py --print-metrics
"""

import argparse
import csv
import re
import sys

DRAM = "dram__throughput.avg.pct_of_peak_sustained_elapsed"
SECTORS = "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"
REQUESTS = "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"
CONFLICTS_LD = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"
CONFLICTS_ST = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"
OCCUPANCY = "sm__warps_active.avg.pct_of_peak_sustained_active"
L2_HIT = "lts__t_sector_hit_rate.pct"
REGISTERS = "launch__registers_per_thread"
LOCAL_LD = "l1tex__t_bytes_pipe_lsu_mem_local_op_ld.sum"
LOCAL_ST = "l1tex__t_bytes_pipe_lsu_mem_local_op_st.sum"
DURATION = "gpu__time_duration.sum"
DEVICE = "device__attribute_display_name"
# Bytes at each level of the hierarchy, for the "where does the traffic go" table.
L1_LOAD_BYTES = "l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum"    # global loads asked of L1
L2_TO_L1_SECTORS = "lts__t_sectors_srcunit_tex_op_read.sum"        # what L1 missed: read from L2
DRAM_READ = "dram__bytes_read.sum"
DRAM_WRITE = "dram__bytes_write.sum"
SHARED_LD_WAVEFRONTS = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"

# The metrics inspect_profile.sh asks for (besides those of the "basic" section set).
METRICS = [DRAM, SECTORS, REQUESTS, CONFLICTS_LD, CONFLICTS_ST, OCCUPANCY, L2_HIT, REGISTERS,
           LOCAL_LD, LOCAL_ST, DURATION, DEVICE, L1_LOAD_BYTES, L2_TO_L1_SECTORS, DRAM_READ,
           DRAM_WRITE, SHARED_LD_WAVEFRONTS]


def number(text):
    """'1,234.5' -> 1234.5; '' or 'n/a' -> None."""
    if text is None:
        return None
    t = text.strip().replace(",", "")
    try:
        return float(t)
    except ValueError:
        return None


def short_name(full):
    """'void ch02::tiled_gemm<32>(float const*, ...)' -> 'ch02::tiled_gemm<32>'."""
    name = full.strip()
    if name.startswith("void "):
        name = name[len("void "):]
    if name.endswith(")"):
        depth = 0
        for i in range(len(name) - 1, -1, -1):
            if name[i] == ")":
                depth += 1
            elif name[i] == "(":
                depth -= 1
                if depth == 0:
                    return name[:i]
    return name


def compact(value, unit=""):
    """12345678 -> '12.3 M'; small numbers stay exact."""
    if value is None:
        return "n/a"
    for scale, suffix in ((1e9, " G"), (1e6, " M"), (1e3, " k")):
        if abs(value) >= scale:
            return f"{value / scale:.1f}{suffix}{unit}"
    return f"{value:.0f}{' ' + unit if unit else ''}"


def pct(value):
    return "n/a" if value is None else f"{value:.1f} %"


def read_rows(path):
    with open(path, newline="", encoding="utf-8", errors="replace") as f:
        lines = [line for line in f if not line.startswith("==")]  # ncu's own messages
    # The profiled program's own output comes first when ncu printed to its stdout: the export
    # starts at the header line.
    header_at = next((i for i, line in enumerate(lines) if line.startswith('"ID"')), 0)
    lines = lines[header_at:]
    rows = list(csv.reader(lines))
    if not rows:
        return [], []
    header = rows[0]
    body = rows[1:]
    # The row after the header holds units: its ID cell is empty.
    id_col = header.index("ID") if "ID" in header else 0
    if body and not body[0][id_col].strip():
        body = body[1:]
    return header, [dict(zip(header, r)) for r in body if len(r) == len(header)]


def same_work(a, b):
    """True if two launches of one kernel did the same work: the same number of load requests
    (an exact count), sectors within 5 % and duration within 8 %. Repeated launches on the same
    data agree closer than that (the sector count moves by up to a few percent between runs);
    the transpose chapter's gather at another stride differs in sectors or in time."""
    if a.get(REQUESTS) != b.get(REQUESTS):
        return False
    for metric, tolerance in ((SECTORS, 0.05), (DURATION, 0.08)):
        x, y = number(a.get(metric)), number(b.get(metric))
        if x is None or y is None:
            continue
        if abs(x - y) > tolerance * max(abs(x), abs(y), 1.0):
            return False
    return True


def grid_blocks(r):
    """'(64, 64, 1)' -> 4096."""
    total = 1
    for part in re.findall(r"\d+", r.get("Grid Size", "")):
        total *= int(part)
    return total


def digest(records):
    """The launches to show, in launch order.

    ncu profiled only the chapter's kernels (chNN::; its export drops the namespace). The
    executables launch each kernel several times on the same data (correctness run, warm-ups,
    timed runs): those are shown once, as the first of them. Launches of a kernel on a smaller
    grid than its largest (a one-block probe that reads the kernel's resources for the
    occupancy table) are left out. The same kernel on other data of the same size (the
    transpose chapter's gather at each stride) gets a row per call.
    """
    records = [r for r in records if r.get("Kernel Name", "").strip()]
    largest = {}
    for r in records:
        name = r["Kernel Name"]
        largest[name] = max(largest.get(name, 0), grid_blocks(r))
    kept = []
    last = {}  # (name, grid, block) -> the latest launch with that key
    for r in records:
        if grid_blocks(r) < largest[r["Kernel Name"]]:
            continue
        key = (r["Kernel Name"], r.get("Grid Size", ""), r.get("Block Size", ""))
        if key not in last or not same_work(last[key], r):
            kept.append(r)
        last[key] = r
    return kept


def row_cells(r):
    get = lambda m: number(r.get(m))
    sectors, requests = get(SECTORS), get(REQUESTS)
    per_request = "n/a"
    if sectors is not None and requests:
        per_request = f"{sectors / requests:.1f}"
    elif requests == 0:
        per_request = "no loads"
    conflicts = f"{compact(get(CONFLICTS_LD))} / {compact(get(CONFLICTS_ST))}"
    local_ld, local_st = get(LOCAL_LD), get(LOCAL_ST)
    local = "n/a" if local_ld is None and local_st is None else \
        compact((local_ld or 0) + (local_st or 0), "B")
    regs = get(REGISTERS)
    return ["`" + short_name(r.get("Kernel Name", "?")) + "`", pct(get(DRAM)), per_request,
            conflicts, pct(get(OCCUPANCY)), pct(get(L2_HIT)),
            "n/a" if regs is None else f"{regs:.0f}", local]


TITLES = ["kernel", "DRAM throughput", "sectors / request (global loads)",
          "smem bank conflicts (ld / st)", "achieved occupancy", "L2 hit rate",
          "registers / thread", "local memory (spills)"]

BYTES_TITLES = ["kernel", "global loads asked of L1", "L1 misses read from L2", "DRAM read",
                "DRAM written", "shared-memory load wavefronts", "time"]


def bytes_cells(r):
    """Where the traffic goes: bytes at each level, one launch."""
    get = lambda m: number(r.get(m))
    l2 = get(L2_TO_L1_SECTORS)
    duration = get(DURATION)
    return ["`" + short_name(r.get("Kernel Name", "?")) + "`", compact(get(L1_LOAD_BYTES), "B"),
            "n/a" if l2 is None else compact(32 * l2, "B"), compact(get(DRAM_READ), "B"),
            compact(get(DRAM_WRITE), "B"), compact(get(SHARED_LD_WAVEFRONTS)),
            "n/a" if duration is None else f"{duration / 1e6:.2f} ms"]


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("csv", nargs="?")
    ap.add_argument("--chapter")
    ap.add_argument("--print-metrics", action="store_true",
                    help="print the metrics to collect (comma-separated) and exit")
    ap.add_argument("--out")
    ap.add_argument("--header", default="")
    args = ap.parse_args(argv)
    if args.print_metrics:
        print(",".join(METRICS))
        return 0
    if not args.csv or not args.chapter:
        ap.error("CSV and --chapter are required")

    header, records = read_rows(args.csv)
    kernels = digest(records)
    if not kernels:
        print(f"error: no profiled kernel in {args.csv} ({len(records)} rows)",
              file=sys.stderr)
        return 1
    missing = [m for m in METRICS if m not in header]

    device = kernels[0].get(DEVICE, "").strip()
    parts = [f"### Nsight Compute digest: {args.chapter}", ""]
    if device or args.header:
        parts += ["; ".join(p for p in (device, args.header) if p), ""]
    parts.append("| " + " | ".join(TITLES) + " |")
    parts.append("|" + "|".join([" --- "] + [" ---: "] * (len(TITLES) - 1)) + "|")
    names = [short_name(r.get("Kernel Name", "?")) for r in kernels]
    nth = {}
    for r, name in zip(kernels, names):
        cells = row_cells(r)
        if names.count(name) > 1:  # same kernel, other arguments: number them in launch order
            nth[name] = nth.get(name, 0) + 1
            cells[0] = f"`{name}` #{nth[name]}"
        parts.append("| " + " | ".join(cells) + " |")
    parts.append("")
    if any(r.get(DRAM_READ) for r in kernels):
        parts += ["Where the traffic goes (bytes per launch; an L1 hit stops at L1, an L2 hit at "
                  "L2):", "", "| " + " | ".join(BYTES_TITLES) + " |",
                  "|" + "|".join([" --- "] + [" ---: "] * (len(BYTES_TITLES) - 1)) + "|"]
        for r in kernels:
            parts.append("| " + " | ".join(bytes_cells(r)) + " |")
        parts.append("")
    if missing:
        parts += ["Not collected on this GPU/ncu: " + ", ".join(f"`{m}`" for m in missing), ""]
    parts += ["One launch per kernel, caches flushed before it (ncu's default), clocks not "
              "locked. What the columns mean: common/INSPECT.md.", ""]
    text = "\n".join(parts)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            f.write(text)
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
