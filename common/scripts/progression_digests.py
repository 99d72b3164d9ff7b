"""The profiler's bytes: DRAM traffic per kernel from the `make profile` digests
(common/results/inspect/<chapter>-profile.md), so that the roofline can place each kernel at
the intensity it really had (FLOPs per byte read from and written to DRAM, as Nsight Compute
counted them) and not only at its lesson's model. Part of common/scripts/progression.py."""
import re
from pathlib import Path

SCALE = {"": 1.0, "k": 1e3, "M": 1e6, "G": 1e9}
TIME_SCALE = {"s": 1e3, "ms": 1.0, "us": 1e-3, "ns": 1e-6}


def amount(text):
    """'378.5 MB' -> 378.5e6 (the digests print decimal units); None if it is not an amount."""
    match = re.fullmatch(r"([\d.]+) ?([kMG]?)B", text.strip())
    return float(match.group(1)) * SCALE[match.group(2)] if match else None


def milliseconds(text):
    match = re.fullmatch(r"([\d.]+) ?(s|ms|us|ns)", text.strip())
    return float(match.group(1)) * TIME_SCALE[match.group(2)] if match else None


def dram_traffic(inspect_dir, chapter):
    """(size, [(kernel, DRAM bytes read + written, time in ms)]) in launch order, from the
    digest's "Where the traffic goes" table and the --size its command line shows; None when
    the chapter has no digest or the digest has no such table."""
    path = Path(inspect_dir) / f"{chapter}-profile.md"
    if not path.is_file():
        return None
    text = path.read_text()
    size = re.search(r"--size (\d+)", text)
    parts = text.split("Where the traffic goes", 1)
    if not size or len(parts) < 2:
        return None
    rows = []
    for line in parts[1].splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 7 or not cells[0].startswith("`"):
            continue
        read, written, ms = amount(cells[3]), amount(cells[4]), milliseconds(cells[6])
        if read is not None and written is not None:
            rows.append((cells[0].strip("`"), read + written, ms))
    return int(size.group(1)), rows


def measured_intensities(doc, inspect_dir, size):
    """{(chapter, kernel name in the results): FLOP per DRAM byte} for the GEMM rows at `size`
    whose chapter was profiled at that size. The digest lists the kernels in the order the
    chapter launched them, which is the order of its rows; a chapter whose digest has another
    number of kernels, or whose times disagree by more than 1.5x, is left out."""
    found = {}
    for run in doc["runs"]:
        if run["size"] != size:
            continue
        rows = [r for r in run.get("rows", []) if r.get("chapter") != "ceiling"
                and r.get("rate_unit") == "GFLOP/s"]
        traffic = dram_traffic(inspect_dir, run["executable"]) if rows else None
        if not traffic or traffic[0] != size or len(traffic[1]) != len(rows):
            continue
        pairs = list(zip(rows, traffic[1]))
        if any(ms and row.get("median_ms") and not 1 / 1.5 < ms / row["median_ms"] < 1.5
               for row, (_, _, ms) in pairs):
            continue
        flops = 2.0 * size ** 3  # the progression's problems are square: M = N = K = size
        for row, (_, dram_bytes, _) in pairs:
            if dram_bytes > 0:
                found[(run["executable"], row["kernel"])] = flops / dram_bytes
    return found
