#!/usr/bin/env python3
"""Shared-memory wavefronts per warp access of transpose_thin's chunk (step 6), for the plain
layout (word i * P + c) and for the turned one (chunk_word: the low two bits of each word's
index XORed with (word / 32) % 4), over the two float4 walks of an odd thin side, each float
accessed on its own (as the segments do; the contiguous side, which the kernel now moves as one
16-byte access a float4, conflict-free either way, is counted as the turn's first version did):
  contiguous side: lane l moves float4 k = 32w + l, elements 4k .. 4k + 3;
  segments: lane l moves float4 j of segment c, elements i = head(c) + 4j .. + 3.
1.00 is conflict-free; 4.00 is every access 4-way.

    chunk_banks.py 9 17 33 47 63
"""
import sys


def wavefronts(words):
    per_bank = {}
    for w in words:
        per_bank.setdefault(w % 32, set()).add(w)
    return max(len(s) for s in per_bank.values())


def turned(e):
    return e ^ ((e >> 5) & 3)


def walks(thin, span, stride, word):
    """Mean wavefronts per access: (contiguous side, segments)."""
    P = thin | 1
    at = lambda i, c: word(i * P + c)
    n = thin * span // 4
    contiguous = [wavefronts([at((4 * k + t) // thin, (4 * k + t) % thin)
                              for k in range(w0, min(n, w0 + 32))])
                  for w0 in range(0, n, 32) for t in range(4)]
    n4 = span // 4 - 1
    head = lambda c: (-c * stride) % 4  # floats before segment c's first 16-byte boundary
    segments = [wavefronts([at(head(k // n4) + 4 * (k % n4) + t, k // n4)
                            for k in range(w0, min(thin * n4, w0 + 32))])
                for w0 in range(0, thin * n4, 32) for t in range(4)]
    return sum(contiguous) / len(contiguous), sum(segments) / len(segments)


def main():
    thins = [int(a) for a in sys.argv[1:]] or [3, 9, 17, 33, 47, 63]
    print("thin  span  plain: contiguous segments   turned: contiguous segments")
    for thin in thins:
        if thin % 2 == 0:
            print(f"{thin:4}  even: its segments move one float a lane, not turned")
            continue
        span = max(32, 12288 // thin // 32 * 32)  # launch_thin's tall chunk, 12,288 floats
        plain = [walks(thin, span, s, lambda e: e) for s in (1, 2, 3)]
        turn = [walks(thin, span, s, turned) for s in (1, 2, 3)]
        worst = lambda r, side: max(x[side] for x in r)
        print(f"{thin:4}  {span:4}  {worst(plain, 0):17.2f} {worst(plain, 1):8.2f}   "
              f"{worst(turn, 0):18.2f} {worst(turn, 1):8.2f}")


if __name__ == "__main__":
    main()
