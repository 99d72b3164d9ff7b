#!/usr/bin/env python3
"""Digest an Nsight Compute export into one table row per kernel.

Input: `ncu --import REPORT.ncu-rep --csv --page raw --print-units base`. Each kernel of the
chapter is launched several times by the executable (correctness launch, warm-ups, timed runs);
the first launch of each kernel is kept (see digest()). What the columns mean:
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
DEVICE = "device__attribute_display_name"

# The metrics inspect_profile.sh asks for (besides those of the "basic" section set).
METRICS = [DRAM, SECTORS, REQUESTS, CONFLICTS_LD, CONFLICTS_ST, OCCUPANCY, L2_HIT, REGISTERS,
           LOCAL_LD, LOCAL_ST, "gpu__time_duration.sum", DEVICE]

OUR_KERNEL_RE = re.compile(r"(^|[\s(])ch\d\d::")


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


def digest(records):
    """One entry per distinct launch, in launch order.

    Repeated launches of one kernel on the same data (correctness run, warm-ups, timed runs)
    issue exactly the same global loads, so name, grid, block and the load sector/request
    counts identify them; the same kernel on other data (e.g. a gather with another stride)
    gets a row of its own.
    """
    seen = {}
    for r in records:
        name = r.get("Kernel Name", "")
        if not OUR_KERNEL_RE.search(name):
            continue
        key = (name, r.get("Grid Size", ""), r.get("Block Size", ""),
               r.get(SECTORS, ""), r.get(REQUESTS, ""))
        if key not in seen:
            seen[key] = r
    return list(seen.values())


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
        print(f"error: no chNN:: kernel in {args.csv} ({len(records)} profiled launches)",
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
