#!/usr/bin/env python3
"""Replays step 9's shortlist on the [choose] lines of earlier runs, without a GPU.

Each [choose] line of a run (TUTORIAL_CHOOSE_PRINT=1) holds the plans the chooser timed at a
shape and their medians. For every shape, this script rebuilds the shortlist that a window W and
a cap C would give (plan_estimates: step 9's own estimates, on an H200's figures) and asks
whether the fastest plan measured there is in it. It knows the times of the plans that were
timed only: a plan a new shortlist adds was never measured ("untimed" below).

    nvcc -std=c++17 --expt-relaxed-constexpr -I. 05_double_buffer/lab/plan_estimates.cu -o /tmp/pe
    05_double_buffer/lab/replay_shortlist.py --estimates /tmp/pe RUN.txt ...

A run file may name a part of itself: RUN.txt@TEXT starts after the first line holding TEXT,
RUN.txt#LABEL keeps the lines of its '== LABEL ...' blocks only (one build of several timed
side by side), e.g. 'runs/2026-11-30-h200-async-b.txt@device run 7#A'. Lines cut short (a
plan's entry unfinished at the end) keep the plans before the cut; the count is printed.

--variants also ranks the tile plans by three other estimates (a replica of roof_clocks, checked
against plan_estimates; thin, vector and stream-K plans keep step 9's estimate): 1, each wave
charged as its busiest SM's blocks (ceil(blocks / SMs) in a partial one) instead of a full wave;
2, the slices' sum after the product (its bytes, the partials read and C written, added to the
product's time instead of overlapped with its FMAs); 3, both.
"""
import argparse
import collections
import math
import re
import subprocess

# Step 9's tiles: bm, bn, resident blocks an SM (__launch_bounds__), FMA rate (8 x 4 lanes: 0.84).
TILES = {"128x128": (128, 128, 2, 1.0), "64x64": (64, 64, 5, 0.84), "32x128": (32, 128, 5, 0.84),
         "128x32": (128, 32, 5, 0.84), "64x128": (64, 128, 4, 1.0), "128x64": (128, 64, 4, 1.0)}
SMS, LANES, GHZ = 132, 128.0, 1.98
DRAM = 2.0 * 3201e6 * 6144 / 8 / 1980e6  # bytes per SM clock, the whole GPU
ROUND_TRIP, LOADED_ROUND_TRIP, LAUNCH = 1000.0, 1500.0, 3000.0  # ns, as 9_planned.cuh
ALIGN = 16  # kSliceAlign


def cdiv(a, b):
    return -(-a // b)


def slice_k_for(K, slices):
    """The slice length step 9 uses for S slices (slice_k)."""
    if slices == 1:
        return K
    for wanted in range(2, 4 * K + 2):
        per = cdiv(K, wanted)
        sk = cdiv(per, ALIGN) * ALIGN
        if cdiv(K, sk) == slices:
            return sk
    raise ValueError("no cut of %d into %d slices" % (K, slices))


def tile_estimate(M, N, K, tile, slices, variant):
    """Microseconds; variant 0 is roof_clocks as shipped."""
    bm, bn, per_sm, rate = TILES[tile]
    sk = slice_k_for(K, slices)
    blocks = cdiv(M, bm) * cdiv(N, bn) * slices
    slots = SMS * per_sm
    waves = math.ceil(blocks / slots)
    block_fmas = bm * bn * sk
    if variant in (1, 3):
        full, rest = divmod(blocks, slots)
        fma = (full * per_sm + (cdiv(rest, SMS) if rest else 0)) * block_fmas / (LANES * rate)
    else:
        fma = waves * per_sm * block_fmas / (LANES * rate)
    needed = DRAM * LOADED_ROUND_TRIP * GHZ
    fill = min(1.0, min(blocks, slots) * 4.0 * ALIGN * (min(bm, M) + min(bn, N)) / needed)
    compulsory = 4.0 * (M * K + K * N + M * N)
    partials = 2.0 * slices * 4.0 * M * N if slices > 1 else 0.0
    if variant in (2, 3) and slices > 1:  # the product writes partials, not C; the sum writes C
        t = max(fma, (compulsory - 4.0 * M * N + partials / 2) / (DRAM * fill))
        t += (partials / 2 + 4.0 * M * N) / DRAM
    else:
        t = max(fma, (compulsory + partials) / (DRAM * fill))
    t += (waves * ROUND_TRIP + (LAUNCH if slices > 1 else 0.0)) * GHZ
    return t / GHZ / 1000


def split(name):
    """'128x64 S=4' -> ('128x64', 4); 'stream-K' -> ('stream-K', 1)."""
    m = re.match(r"(.+) S=(\d+)$", name)
    return (m.group(1), int(m.group(2))) if m else (name, 1)


def read_choices(specs):
    """shape -> plan -> [median ms], from the [choose] lines of planned_gemm (or a lab copy)
    that were timed (measured); and how many of those lines were cut short."""
    times = collections.defaultdict(lambda: collections.defaultdict(list))
    cut = 0
    for spec in specs:
        m = re.match(r"([^@#]+)(?:@([^#]+))?(?:#(.+))?$", spec)
        path, after, label = m.groups()
        started, block = after is None, None
        for line in open(path):
            if not started:
                started = after in line
                continue
            if line.startswith("== "):
                block = line.split()[1]
            if label is not None and block != label:
                continue
            m = re.match(r"\[choose\] planned\w*(?: \d+x\d+)? (\d+)x(\d+)x(\d+)\b"
                         r".*?\(measured\); (.*)", line)
            if not m:
                continue
            shape = tuple(map(int, m.groups()[:3]))
            parts = m.group(4).rstrip("\n").split(", ")
            if not parts[-1].endswith(" ms"):
                cut += 1
            for part in parts:
                p = re.match(r"(.+) est [\d.e+-]+ ([\d.e+-]+) ms$", part.strip())
                if p:
                    times[shape][p.group(1)].append(float(p.group(2)))
    return times, cut


def shortlist(cands, window, most):
    """plan_shortlist_input, then tutorial::shortlist: per path its cheapest cut, uncut and the
    first cut of at least twice the cheapest's slices; within `window` of the cheapest, `most`."""
    by_path = collections.defaultdict(list)
    for name, e in cands:
        by_path[split(name)[0]].append((name, e))
    kept = []
    for path, plans in by_path.items():
        cheapest = min(plans, key=lambda x: x[1])
        s_cheap = split(cheapest[0])[1]
        twice = [n for n, _ in plans if split(n)[1] >= 2 * s_cheap]
        twice = min(twice, key=lambda n: split(n)[1]) if twice else None
        kept += [(n, e) for n, e in plans if n == cheapest[0] or split(n)[1] == 1 or n == twice]
    kept.sort(key=lambda x: x[1])
    return [n for n, e in kept if e <= window * kept[0][1]][:most]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--estimates", required=True, help="the built plan_estimates")
    ap.add_argument("--variants", action="store_true")
    ap.add_argument("runs", nargs="+", help="RUN.txt[@TEXT][#LABEL]")
    args = ap.parse_args()
    times, cut = read_choices(args.runs)
    shapes = sorted(times)
    out = subprocess.run([args.estimates], input="".join("%d %d %d\n" % s for s in shapes),
                         capture_output=True, text=True, check=True).stdout
    cands = collections.defaultdict(list)
    for line in out.splitlines():
        shape, name, e = line.split("\t")
        cands[tuple(map(int, shape.split("x")))].append((name, float(e)))
    # The replica must agree with the C++ estimate on every tile plan.
    worst = max(abs(tile_estimate(*s, *split(n), 0) / e - 1)
                for s in shapes for n, e in cands[s] if split(n)[0] in TILES)
    if worst > 1e-9:
        raise SystemExit("the replica of roof_clocks differs from plan_estimates by %.2g" % worst)
    print("%d shapes (%d [choose] lines cut short); the replica of roof_clocks agrees"
          % (len(shapes), cut))
    for variant in (range(4) if args.variants else [0]):
        for window, most in ((2.0, 10), (3.0, 16)):
            lost = []
            for s in shapes:
                est = [(n, tile_estimate(*s, *split(n), variant) if split(n)[0] in TILES else e)
                       for n, e in cands[s]]
                ms = {n: sorted(v)[len(v) // 2] for n, v in times[s].items()}
                best = min(ms, key=ms.get)
                chosen = shortlist(est, window, most)
                if best not in chosen:
                    timed = [ms[n] for n in chosen if n in ms]
                    lost.append("%dx%dx%d: %s (the shortlist's fastest timed plan %s, %d untimed)"
                                % (*s, best, "%.3fx" % (min(timed) / ms[best]) if timed else "none",
                                   len(chosen) - len(timed)))
            print("estimate %d, window %.0f, at most %d: the fastest measured plan is left out at "
                  "%d of %d shapes" % (variant, window, most, len(lost), len(shapes)))
            for line in lost:
                print("    " + line)


if __name__ == "__main__":
    main()
