"""`make run`: every chapter executable run with --json at the sizes of common/chapters.txt,
combined into one results document. Part of common/scripts/progression.py (see there)."""
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from progression_results import HEADER_FIELDS, Failure, say

EXIT_NO_DEVICE = 3  # kExitNoDevice in common/chapter_main.hpp
# Flags the progression sets itself; `make run ARGS=...` may add any other chapter flag.
RESERVED_FLAGS = {"--size", "--m", "--n", "--k", "--rows", "--cols", "--json", "--csv", "--help",
                  "-h"}


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


L2_ROW = "L2 read bandwidth"  # the row of 01_memory_system --json that the roofline draws


def measure_l2_bandwidth(build_dir):
    """The L2 read bandwidth 01_memory_system measures (GB/s), or None when that executable is
    not built or fails: the roofline then has no L2 roof."""
    exe = Path(build_dir) / "bin" / "01_memory_system"
    if not exe.is_file():
        return None
    say("== 01_memory_system (the L2 roof of the roofline)")
    proc = subprocess.run([str(exe), "--iters", "5", "--json"], capture_output=True, text=True)
    try:
        rows = json.loads(proc.stdout).get("rows", []) if proc.returncode == 0 else []
    except json.JSONDecodeError:
        rows = []
    rates = [r.get("rate") for r in rows if str(r.get("kernel", "")).startswith(L2_ROW)]
    if not rates:
        say(f"warning: 01_memory_system gave no L2 bandwidth (exit code {proc.returncode})")
        return None
    return rates[0]


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
                              "needs an NVIDIA GPU; no results were written (without one: "
                              "`make -C 01_naive analyze`, common/BUILD.md \"Without a GPU\")", code)
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
                 "comes from the clocks, l2_bandwidth_gbs from 01_memory_system (the L2's read bandwidth). "
                 "Each row's % of ceiling and % of roofline use the ceiling and the copy bandwidth "
                 "measured in its own run; a GEMM row's pct_of_roofline is at the DRAM intensity "
                 "Nsight Compute measured (measured_intensity, from the profile digests in "
                 "common/results/inspect/) where roofline_intensity is \"measured\", at its model's "
                 "intensity where it is \"model\" (pct_of_roofline_model: always the model's).",
        "gpu": first["gpu"], "driver": first["driver"], "runtime": first["runtime"],
        "date": first["date"],
        "copy_bandwidth_gbs": max(bandwidths) if bandwidths else None,
        "fp32_peak_gflops": first.get("fp32_peak_gflops"),
        "l2_bandwidth_gbs": measure_l2_bandwidth(build_dir),
        "runs": runs,
    }

