#!/usr/bin/env python3
"""The CPU backend's memory model against Nsight Compute, kernel by kernel (a GPU test).

  model_vs_ncu.py --model MODEL.csv --exe build/bin/CHAPTER [--size N] [--out FILE.md] [--ncu-bin NCU]
  model_vs_ncu.py --model MODEL.csv --ncu RAW.csv [--out FILE.md]

MODEL.csv is what `bin/<chapter>_analyze --csv` prints (the model's counts, one line per launch,
made without a GPU). With --exe the script runs the chapter's executable under ncu at the same
size (`--size N --iters 1 --no-check`, the chapter's own kernels only) and reads the
request-level counters; with --ncu it reads such a raw export (`ncu --csv --page raw`).

Each model launch is paired with ncu's first unused launch of the same kernel on the same grid
(the same work). A model row counts everything its launcher launched; where that is more than
one kernel (split-K's slices, then their sum), ncu's launch is taken together with the launches
right after it of kernels the model has no row for. Verdicts:
  * global loads and stores: requests and 32-byte sectors must be equal, exactly: both count
    what the source asks for, one warp-wide instruction per access of the source.
  * shared memory: where nvcc issued as many shared instructions as the model counts, the
    wavefronts must be equal too, except that ncu may count up to 2% more, never fewer: like
    its bank-conflict counter, it counts accesses held up by other traffic to the same banks
    (common/INSPECT.md), which the model, with no timing, cannot see. Where it issued a different number (it may merge neighbouring
    scalar accesses into one wider LDS/STS, which clang, compiling the model with vectorizers
    off, does not), the row says so and its shared columns are not a verdict.
  * a kernel that ran on another grid in the two runs (the transpose chapter's coalescing demo
    always runs at 2^24 floats) is compared per request: sectors / request and
    wavefronts / request equal within 1 %.
  * a launch the GPU did not make because its launcher planned for another SM count (the model's
    `sms` column: 1 on the CPU backend unless `make analyze ANALYZE_SMS=N`; ncu's
    device__attribute_multiprocessor_count) is listed as not compared, with the command that
    plans for this GPU. With equal SM counts a launch ncu did not see differs.
Exit status 1 when any verdict fails, 2 on bad input. Python 3 standard library only.
"""
import argparse
import csv
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import ncu_digest  # noqa: E402  (read_rows, short_name, number, grid_blocks)

COUNTERS = {  # model column -> ncu metric
    "gld_requests": "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
    "gld_sectors": "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    "gst_requests": "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
    "gst_sectors": "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
    "sld_requests": "smsp__inst_executed_op_shared_ld.sum",
    "sld_wavefronts": "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "sst_requests": "smsp__inst_executed_op_shared_st.sum",
    "sst_wavefronts": "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
}
SM_COUNT = "device__attribute_multiprocessor_count"  # the GPU's SMs, which plans depend on


def normalize(full):
    """ncu's demangled name as the model writes it: 'void ch06::transpose_vec4<64, 256,
    (ch06::BlockOrder)0>(float const*, ...)' -> 'transpose_vec4<64, 256, 0>'."""
    name = ncu_digest.short_name(full)
    name = re.sub(r"\([A-Za-z_:0-9]+\)(-?[0-9]+)", r"\1", name)
    name = re.sub(r"\btrue\b", "1", name)
    name = re.sub(r"\bfalse\b", "0", name)
    return re.sub(r"\bch[0-9][0-9]::", "", name)


def read_model(path):
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    for r in rows:
        for key in list(COUNTERS) + ["blocks", "size"]:
            r[key] = int(r[key])
        r["sms"] = int(r["sms"]) if r.get("sms") else 1  # (older CSVs: the CPU backend's 1)
    return rows


def run_ncu(ncu, exe, size, out_csv):
    for extra in ([SM_COUNT], []):  # (an ncu that does not know the SM-count metric: without it)
        metrics = ",".join(list(COUNTERS.values()) + extra)
        command = [ncu, "--csv", "--page", "raw", "--print-units", "base", "--metrics", metrics,
                   "--kernel-name-base", "demangled", "--kernel-name", "regex:ch[0-9][0-9]::",
                   exe, "--size", str(size), "--iters", "1", "--no-check"]
        print("$ " + " ".join(command), file=sys.stderr)
        with open(out_csv, "w", encoding="utf-8") as f:
            done = subprocess.run(command, stdout=f, stderr=subprocess.PIPE, text=True, timeout=900)
        if done.returncode == 0 or SM_COUNT not in done.stderr:
            break
    if done.returncode != 0:
        last = [line for line in done.stderr.splitlines() if line.strip()][-3:]
        sys.exit(f"error: ncu exited with {done.returncode}: {' / '.join(last)}")


def read_ncu(path):
    _, rows = ncu_digest.read_rows(path)
    launches = []
    for r in rows:
        launch = {"kernel": normalize(r.get("Kernel Name", "")), "blocks": ncu_digest.grid_blocks(r)}
        sms = ncu_digest.number(r.get(SM_COUNT))
        launch["sms"] = None if sms is None else int(round(sms))
        for key, metric in COUNTERS.items():
            value = ncu_digest.number(r.get(metric))
            launch[key] = None if value is None else int(round(value))
        launches.append(launch)
    return launches


def per(a, b):
    return None if not b else a / b


def fmt(x, digits=1):
    return "-" if x is None else f"{x:.{digits}f}"


def ratios_differ(a, b):
    """Two per-request figures (None where there were no requests) further apart than 1 %."""
    return (a is None) != (b is None) or (a is not None and abs(a - b) > 0.01 * max(a, b))


def compare(model_row, launch):
    """(verdict, notes): verdict is 'exact', 'per request', 'differs'."""
    notes, failed = [], False
    same_grid = launch["blocks"] == model_row["blocks"]
    # (kind, the unit each request moves): global sectors, shared wavefronts.
    for kind, unit in (("gld", "sectors"), ("gst", "sectors"), ("sld", "wavefronts"),
                       ("sst", "wavefronts")):
        m_req, m_units = model_row[f"{kind}_requests"], model_row[f"{kind}_{unit}"]
        n_req, n_units = launch[f"{kind}_requests"], launch[f"{kind}_{unit}"]
        if n_req is None or n_units is None:
            notes.append(f"ncu has no {kind} counters")
            failed = True
        elif not same_grid:
            a, b = per(m_units, m_req), per(n_units, n_req)
            if ratios_differ(a, b):
                notes.append(f"{kind}: {unit}/request model {fmt(a, 2)}, ncu {fmt(b, 2)}")
                failed = True
        elif unit == "wavefronts" and m_req != n_req:
            notes.append(f"{kind}: nvcc issued {n_req} shared instructions, the model counts "
                         f"{m_req} (merged or split accesses): not compared")
        elif unit == "wavefronts" and m_req == n_req and m_units <= n_units <= m_units * 1.02:
            if n_units != m_units:
                notes.append(f"{kind}: ncu {n_units - m_units} wavefronts above the model's "
                             f"{m_units} (within the 2% it may count for other traffic)")
        elif (m_req, m_units) != (n_req, n_units):
            notes.append(f"{kind}: model {m_req} requests / {m_units} {unit}, "
                         f"ncu {n_req} / {n_units}")
            failed = True
    if launch.get("helpers"):
        notes.append("ncu's counts with the launch after it: " + ", ".join(launch["helpers"]))
    if failed:
        return "differs", notes
    return ("exact" if same_grid else "per request"), notes


def table(pairs):
    lines = ["| kernel | global ld requests (model / ncu) | sectors / request ld | "
             "global st requests | sectors / request st | shared ld instructions | "
             "wavefronts / instruction ld | shared st instructions | wavefronts / instruction st "
             "| verdict |",
             "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"]
    for m, n, verdict, notes in pairs:
        if n is None:
            lines.append(f"| `{m['kernel']}` | {m['gld_requests']} / - | | | | | | | | "
                         f"{verdict}: {'; '.join(notes)} |")
            continue
        cells = []
        for kind, unit in (("gld", "sectors"), ("gst", "sectors"), ("sld", "wavefronts"),
                           ("sst", "wavefronts")):
            cells.append(f"{m[kind + '_requests']} / {n[kind + '_requests']}")
            cells.append(f"{fmt(per(m[kind + '_' + unit], m[kind + '_requests']))} / "
                         f"{fmt(per(n[kind + '_' + unit], n[kind + '_requests']))}")
        text = verdict + ("" if not notes else ": " + "; ".join(notes))
        lines.append(f"| `{m['kernel']}` | " + " | ".join(cells) + f" | {text} |")
    return "\n".join(lines)


def global_counts(row):
    """What the model claims exactly for any compiler: global requests and sectors."""
    return tuple(row[k] for k in ("gld_requests", "gld_sectors", "gst_requests", "gst_sectors"))


def per_request(row):
    return tuple(per(row[f"{k}_{u}"], row[f"{k}_requests"]) for k, u in
                 (("gld", "sectors"), ("gst", "sectors"), ("sld", "wavefronts"), ("sst", "wavefronts")))


def with_helpers(launches, i, model_kernels):
    """Launch i plus the launches right after it of kernels the model has no row for (a split-K
    sum after its slices: the model's row of a launcher counts all of its launches), summed;
    launch i itself when none follows. The sum's "helpers" names them."""
    j = i + 1
    while j < len(launches) and launches[j]["kernel"] not in model_kernels:
        j += 1
    if j == i + 1:
        return launches[i]
    total = dict(launches[i], helpers=[n["kernel"] for n in launches[i + 1:j]])
    for key in COUNTERS:
        values = [n[key] for n in launches[i:j]]
        total[key] = None if None in values else sum(values)
    return total


def pair_launches(model, launches):
    """[(model row, ncu launch or None)], in the model's order. ncu sees every launch of a
    kernel (the resources table's, the check, warm-ups, timed runs): a model launch takes the
    ncu launch on its grid that did the same work (equal global counters, alone or with the
    helper launches that follow it: with_helpers) if there is one, else the first on its grid.
    A kernel that ran on another grid (the coalescing demo) is paired in launch order, skipping
    the repetitions of the launch paired last unless the model, too, repeats itself (per
    request)."""
    model_kernels = {m["kernel"] for m in model}
    used, pairs, last = set(), [], {}  # last[kernel]: (model per request, ncu per request, index)
    for m in model:
        candidates = [i for i, n in enumerate(launches)
                      if i not in used and n["kernel"] == m["kernel"]]
        same_grid = [i for i in candidates if launches[i]["blocks"] == m["blocks"]]
        work = {}  # index -> the launch, or it with its helpers, that did the model's work
        for i in same_grid:
            for launch in (launches[i], with_helpers(launches, i, model_kernels)):
                if i not in work and global_counts(launch) == global_counts(m):
                    work[i] = launch
        if same_grid:
            pick = ([i for i in same_grid if i in work] or same_grid)[0]
        else:
            previous = last.get(m["kernel"])
            if previous is not None:
                candidates = [i for i in candidates if i > previous[2]]
                if per_request(m) != previous[0]:
                    candidates = [i for i in candidates if per_request(launches[i]) != previous[1]]
            pick = candidates[0] if candidates else None
        if pick is None:
            pairs.append((m, None))
            continue
        used.add(pick)
        last[m["kernel"]] = (per_request(m), per_request(launches[pick]), pick)
        pairs.append((m, work.get(pick, launches[pick])))
    return pairs


def unpaired(model_row, gpu_sms):
    """(verdict, notes) of a model launch that ncu did not see."""
    if gpu_sms is not None and model_row["sms"] != gpu_sms:
        return "not compared", [
            f"the model's launcher planned for {model_row['sms']} SM(s), this GPU has {gpu_sms}, "
            f"and here it ran other kernels (`make analyze ANALYZE_SMS={gpu_sms}` plans for this GPU)"]
    return "differs", ["no ncu launch of this kernel"]


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", required=True, help="bin/<chapter>_analyze --csv output")
    parser.add_argument("--exe", help="the chapter's executable, run under ncu")
    parser.add_argument("--ncu", help="an ncu raw CSV export instead of --exe")
    parser.add_argument("--ncu-bin", default="ncu", help="the ncu program (default: ncu on the PATH)")
    parser.add_argument("--size", type=int, help="default: the model's size")
    parser.add_argument("--out", help="also write the table (markdown) here")
    args = parser.parse_args(argv)
    if bool(args.exe) == bool(args.ncu):
        parser.error("give exactly one of --exe and --ncu")
    if not os.path.isfile(args.model):
        print(f"error: {args.model} does not exist: the memory model's counts come from `make "
              "analyze` (any machine with clang, no GPU needed; copy its build/analyze/*-model.csv "
              "here and pass MODEL_DIR=that-folder to make model-check)", file=sys.stderr)
        return 2
    try:
        model = read_model(args.model)
    except (KeyError, ValueError) as e:
        print(f"error: {args.model} is not a `make analyze` CSV ({e}): make it again", file=sys.stderr)
        return 2
    if not model:
        print(f"error: {args.model} holds no launches", file=sys.stderr)
        return 2
    chapter, size = model[0]["chapter"], args.size or model[0]["size"]
    raw = args.ncu
    if args.exe:
        if not (shutil.which(args.ncu_bin) or os.access(args.ncu_bin, os.X_OK)):
            print(f"error: {args.ncu_bin} (Nsight Compute) not found: install it with the CUDA "
                  "Toolkit, or put it on the PATH", file=sys.stderr)
            return 2
        raw = os.path.splitext(args.out or args.model)[0] + "-ncu.csv"
        run_ncu(args.ncu_bin, args.exe, size, raw)
    launches = read_ncu(raw)
    gpu_sms = next((n["sms"] for n in launches if n.get("sms")), None)
    pairs = [(m, n, *(compare(m, n) if n is not None else unpaired(m, gpu_sms)))
             for m, n in pair_launches(model, launches)]
    verdicts = [verdict for _, _, verdict, _ in pairs]
    failures = verdicts.count("differs")
    counts = ", ".join(f"{verdicts.count(v)} {v}" for v in ("exact", "per request", "not compared")
                       if verdicts.count(v))
    sms = f"; the model planned for {model[0]['sms']} SM(s)" + (
        f", the GPU has {gpu_sms}" if gpu_sms is not None else "")
    text = (f"### Memory model vs Nsight Compute: {chapter}, size {size}\n\n" + table(pairs) +
            f"\n\n{len(pairs)} launches: {counts or 'none compared'}; {failures} differ{sms}.\n")
    print(text)
    if args.out:
        Path(args.out).write_text(text, encoding="utf-8")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
