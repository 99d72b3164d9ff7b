#!/usr/bin/env python3
"""Replays step 9's shortlist on the [choose] lines of earlier runs, without a GPU.

Each [choose] line of a run (TUTORIAL_CHOOSE_PRINT=1) holds the plans the chooser timed at a
shape and their medians. For every shape, this script rebuilds the shortlist that a window W and
a cap C would give (plan_estimates: step 9's own estimates, on an H200's figures) and asks
whether the fastest plan measured there is in it. It knows the times of the plans that were
timed only: a plan a new shortlist adds was never measured ("untimed" below).

    nvcc -std=c++17 --expt-relaxed-constexpr -I. 05_double_buffer/lab/plan_estimates.cu -o /tmp/pe
    05_double_buffer/lab/replay_shortlist.py --estimates /tmp/pe RUN.txt ...

--variants also ranks the tile plans by three other estimates (a replica of roof_clocks, checked
against plan_estimates): 1, each wave charged as its busiest SM's blocks (ceil(blocks / SMs) in a
partial one) instead of a full wave; 2, the slices' sum after the product (its bytes added, not
overlapped with the FMAs); 3, both.
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
    if variant in (2, 3):
        t = max(fma, (compulsory + partials / 2) / (DRAM * fill))
        t += (slices * 4.0 * M * N + 4.0 * M * N) / DRAM if slices > 1 else 0.0
    else:
        t = max(fma, (compulsory + partials) / (DRAM * fill))
    t += (waves * ROUND_TRIP + (LAUNCH if slices > 1 else 0.0)) * GHZ
    return t / GHZ / 1000


def split(name):
    """'128x64 S=4' -> ('128x64', 4); 'stream-K' -> ('stream-K', 1)."""
    m = re.match(r"(.+) S=(\d+)$", name)
    return (m.group(1), int(m.group(2))) if m else (name, 1)


def read_choices(paths):
    """shape -> plan -> [median ms], from every [choose] line of planned_gemm (or a lab copy)."""
    times = collections.defaultdict(lambda: collections.defaultdict(list))
    for path in paths:
        for line in open(path):
            m = re.match(r"\[choose\] planned\w* (\d+)x(\d+)x(\d+)\b", line)
            if not m:
                continue
            shape = tuple(map(int, m.groups()))
            body = line.split(": ", 1)[1].split("); ", 1)[1]  # after "CHOICE (measured); "
            for part in body.split(", "):
                p = re.match(r"(.+) est [\d.e+-]+ ([\d.e+-]+) ms", part.strip())
                if p:
                    times[shape][p.group(1)].append(float(p.group(2)))
    return times


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
    ap.add_argument("runs", nargs="+")
    args = ap.parse_args()
    times = read_choices(args.runs)
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
    print("%d shapes; the replica of roof_clocks is within %.2g of plan_estimates" % (len(shapes), worst))
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
