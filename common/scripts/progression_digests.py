"""The profiler's bytes: DRAM traffic per kernel from the `make profile` digests
(common/results/inspect/<chapter>-profile.md), so that the roofline can place each kernel at
the intensity it really had (FLOPs per byte read from and written to DRAM, as Nsight Compute
counted them) and not only at its lesson's model. Part of common/scripts/progression.py."""
import re
import sys
from pathlib import Path

from progression_results import is_gemm

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
    """(GPU, size, [(kernel, DRAM bytes read + written, time in ms)]) in launch order, from the
    digest's "Where the traffic goes" table, the GPU its first line names and the --size its
    command line shows; None when the chapter has no digest or the digest has no such table."""
    path = Path(inspect_dir) / f"{chapter}-profile.md"
    if not path.is_file():
        return None
    text = path.read_text()
    lines = [l for l in text.splitlines() if l.strip() and not l.startswith("#")]
    gpu = lines[0].split(";")[0].strip() if lines else ""
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
    return gpu, int(size.group(1)), rows


def same_kernel(result_name, digest_name):
    """A results row and a digest row name the same kernel: the same name, or (the chapters
    that describe a configuration, `warp_tiled 128x128x8 w64x32 8x8`) the numbers of the row's
    name are the first template arguments of the profiled kernel
    (`warp_tiled_gemm<128, 128, 8, 64, 32, 8, 8, 1>`)."""
    if result_name == digest_name:
        return True
    numbers = re.findall(r"\d+", result_name)
    return bool(numbers) and re.findall(r"\d+", digest_name)[:len(numbers)] == numbers


LAUNCHER_ROWS = 3  # the most rows at a chapter's end that launch kernels of other names


def measured_intensities(doc, inspect_dir, size):
    """{(chapter, kernel name in the results): FLOP per DRAM byte} for the GEMM rows at `size`
    whose chapter was profiled at that size. The digest lists the kernels in the order the
    chapter launched them, which is the order of its rows (launches before the first row's
    kernel, a demo the executable runs first, are skipped); a chapter is left out unless its
    digest comes from the same GPU and size and its rows, from the first, are each the same
    kernel as the digest's next one (same_kernel) with a time within 1.5x of the row's. Launches
    of under 1% of the chapter's fastest row are probes at tiny shapes (the resources table's),
    not rows. The last rows, up to LAUNCHER_ROWS, may stay without a digest kernel: they are
    launchers (chapter 05's any_shape, stream-K and planned rows) that ran kernels of other
    names, listed after the rows' (sliced_gemm, stream_k_gemm and its fixup; a kernel profiled
    once, so the planned row's stream_k_gemm is not listed again); they get no point. A chapter
    left out is named on stderr."""
    found = {}
    for run in doc["runs"]:
        if run["size"] != size:
            continue
        rows = [r for r in run.get("rows", []) if r.get("chapter") != "ceiling"
                and is_gemm({"problem": run.get("problem"), **r})]
        traffic = dram_traffic(inspect_dir, run["executable"]) if rows else None
        if not traffic:
            continue
        gpu, profiled_size, kernels = traffic
        if gpu != run.get("gpu") or profiled_size != size:
            continue
        fastest = min((r["median_ms"] for r in rows if r.get("median_ms")), default=0)
        kernels = [k for k in kernels if not (k[2] is not None and k[2] < 0.01 * fastest)]
        # Leading launches of kernels no row names are the executable's other work, not rows:
        # chapter 01 runs its coalescing demo (gather_copy, ...) before the GEMMs.
        while kernels and not any(same_kernel(r["kernel"], kernels[0][0]) for r in rows):
            kernels = kernels[1:]
        matched = 0
        for row, (name, _, ms) in zip(rows, kernels):
            if not (same_kernel(row["kernel"], name) and ms and row.get("median_ms")
                    and 1 / 1.5 < ms / row["median_ms"] < 1.5):
                break
            matched += 1
        pairs = list(zip(rows, kernels))[:matched]
        if matched == 0 or len(rows) - matched > LAUNCHER_ROWS:
            print(f"note: {run['executable']} at {size}: its profile digest does not match its "
                  "results rows one for one (names, order or times): no measured points",
                  file=sys.stderr)
            continue
        flops = 2.0 * size ** 3  # the progression's problems are square: M = N = K = size
        for row, (_, dram_bytes, _) in pairs:
            if dram_bytes > 0:
                found[(run["executable"], row["kernel"])] = flops / dram_bytes
    return found


def roofline_share(rate, intensity, bandwidth, peak):
    """rate as a % of the roofline at `intensity`: min(peak, intensity x bandwidth)."""
    return 100.0 * rate / min(peak, intensity * bandwidth)


def annotate_roofline(doc, inspect_dir):
    """Gives every GEMM row of doc its place under the roofline as `make run` reports it: at the
    DRAM intensity Nsight Compute measured where the chapter's digest covers the row
    (measured_intensities), else at the kernel's model, labelled so:

      intensity               the model's FLOP per DRAM byte (what the executable reports)
      pct_of_roofline_model   the rate as a % of the roofline at the model's intensity
      measured_intensity      2·n³ / the DRAM bytes Nsight Compute counted; None without a digest
      pct_of_roofline         at the measured intensity where there is one, else the model's
      roofline_intensity      "measured" or "model": which of the two pct_of_roofline used

    Results written before these fields (one pct_of_roofline, the model's) are read as such, so
    the annotation can be redone on stored results without a GPU (progression.py refresh).
    Returns doc."""
    doc["roofline_note"] = ("pct_of_roofline: at the DRAM intensity Nsight Compute measured "
                            "(measured_intensity) where roofline_intensity is \"measured\", at the "
                            "kernel's model where it is \"model\"; pct_of_roofline_model: always "
                            "the model's (common/scripts/progression_digests.py)")
    measured = {}
    for size in {r["size"] for r in doc["runs"]}:
        measured.update({(k, size): v for k, v in
                         measured_intensities(doc, inspect_dir, size).items()} if inspect_dir
                        else {})
    for run in doc["runs"]:
        bandwidth, peak = run.get("copy_bandwidth_gbs"), run.get("fp32_peak_gflops")
        for row in run.get("rows", []):
            if not is_gemm({"problem": run.get("problem"), **row}):
                continue
            if "roofline_intensity" not in row and "pct_of_roofline_model" not in row:
                row["pct_of_roofline_model"] = row.pop("pct_of_roofline", None)
            row.pop("pct_of_roofline", None)
            x = measured.get(((run["executable"], row.get("kernel")), run["size"]))
            row["measured_intensity"] = None if x is None else round(x, 3)
            if x is not None and bandwidth and peak and row.get("rate") is not None:
                row["pct_of_roofline"] = round(roofline_share(row["rate"], x, bandwidth, peak), 2)
                row["roofline_intensity"] = "measured"
            else:
                row["pct_of_roofline"] = row.get("pct_of_roofline_model")
                row["roofline_intensity"] = None if row["pct_of_roofline"] is None else "model"
    return doc
