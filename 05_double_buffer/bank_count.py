#!/usr/bin/env python3
"""Register-bank pairs of the FFMAs in a kernel's main loop, counted in a SASS dump.

  bank_count.py DUMP [--kernel REGEX] [--banks 2] [--whole]

DUMP is what `make sass` writes (build/sass/<chapter>.sass: `cuobjdump -sass`, demangled). For
each kernel whose name matches REGEX (default: every kernel with an FFMA), it finds the main
loop (the innermost loop, between a backward branch and its target, that holds the most FFMAs;
--whole: the whole kernel instead) and counts, for every FFMA in it, the registers it reads
from the register file: its three sources, less RZ, immediates and constants, and less any
operand the operand-reuse cache serves (the same register in the same slot of the previous
instruction, marked `.reuse` there). An FFMA with two such reads in one bank (register number
modulo --banks) needs an extra cycle to read its operands: that is the count.

Jia et al. ("Dissecting the NVIDIA Volta GPU Architecture via Microbenchmarking", 2018) found
two 64-bit register banks on Volta (bank = register number mod 2) and the reuse cache; NVIDIA
does not document either for later GPUs, so read the count as a guide that ranks variants of
one loop (chapter 05's warp_tiles.md), not as a law. Python 3 standard library only.
"""
import argparse
import re
import sys
from pathlib import Path

# The dump's format is read as `make sass`'s summary reads it (common/scripts/sass_summary.py).
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "common" / "scripts"))
from sass_summary import FUNC_RE, INSN_RE, PRED_RE  # noqa: E402
BRANCH_RE = re.compile(r"^BRA(?:\.\S+)?\s+(?:`\()?(?:\.L_x_\d+|0x([0-9a-fA-F]+))")
REGISTER_RE = re.compile(r"^[-|!]*R(\d+)(\.reuse)?\|?$")


def short_name(name):
    """'void ch05::f<1, 2>(float const*, int)' -> 'ch05::f<1, 2>'"""
    name = re.sub(r"^void\s+", "", name.strip())
    if name.endswith(")"):
        depth = 0
        for i in range(len(name) - 1, -1, -1):
            depth += {")": 1, "(": -1}.get(name[i], 0)
            if depth == 0:
                return name[:i].rstrip()
    return name


def parse(lines):
    """[(kernel name, [(address, instruction text without predicate), ...]), ...]"""
    kernels, current = [], None
    for line in lines:
        m = FUNC_RE.match(line)
        if m:
            current = (short_name(m.group(1)), [])
            kernels.append(current)
            continue
        m = INSN_RE.match(line)
        if m and current is not None:
            current[1].append((int(m.group(1), 16), PRED_RE.sub("", m.group(2).strip())))
    return kernels


def operands(text):
    """'FFMA R1, R2.reuse, R3, R1' -> ('FFMA', ['R1', 'R2.reuse', 'R3', 'R1'])"""
    opcode, _, rest = text.partition(" ")
    return opcode, [o.strip() for o in rest.split(",")] if rest.strip() else []


def register(operand):
    """(number, reuse flag) of a register operand; None for RZ, immediates, constants."""
    m = REGISTER_RE.match(operand)
    return (int(m.group(1)), bool(m.group(2))) if m else None


def loops(code):
    """(first index, last index) of every loop: a backward branch and the code up to it."""
    index = {address: i for i, (address, _) in enumerate(code)}
    found = []
    for i, (address, text) in enumerate(code):
        m = BRANCH_RE.match(text)
        if m and m.group(1):
            target = int(m.group(1), 16)
            if target <= address and target in index:
                found.append((index[target], i))
    return found


def main_loop(code):
    """The innermost loop with the most FFMAs, or None."""
    candidates = loops(code)
    inner = [(a, b) for a, b in candidates
             if not any((a, b) != (c, d) and a <= c and d <= b for c, d in candidates)]
    ffmas = lambda span: sum(1 for _, t in code[span[0]:span[1] + 1] if t.startswith("FFMA"))
    best = max(inner, key=ffmas, default=None)
    return best if best and ffmas(best) else None


def count(code, banks=2):
    """(FFMAs, FFMAs with two register-file reads in one bank) over code."""
    ffmas = same_bank = 0
    previous = []  # the previous instruction's sources: (slot, register, reuse)
    for _, text in code:
        opcode, ops = operands(text)
        sources = [(slot, *register(op)) for slot, op in enumerate(ops[1:]) if register(op)]
        if opcode.split(".")[0] == "FFMA":
            cached = {(slot, reg) for slot, reg, reuse in previous if reuse}
            reads = {reg for slot, reg, _ in sources if (slot, reg) not in cached}
            ffmas += 1
            if len({reg % banks for reg in reads}) < len(reads):
                same_bank += 1
        previous = sources
    return ffmas, same_bank


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("dump", help="a SASS dump (make sass: build/sass/<chapter>.sass)")
    parser.add_argument("--kernel", default="", help="regex on the kernel's name")
    parser.add_argument("--banks", type=int, default=2, help="register banks (default 2)")
    parser.add_argument("--whole", action="store_true", help="the whole kernel, not its main loop")
    args = parser.parse_args(argv)
    try:
        with open(args.dump, encoding="utf-8", errors="replace") as f:
            kernels = parse(f)
    except OSError as e:
        print(f"error: cannot read {args.dump}: {e.strerror}", file=sys.stderr)
        return 1
    try:
        wanted = re.compile(args.kernel)
    except re.error as e:
        print(f"error: --kernel {args.kernel!r} is not a regular expression: {e}", file=sys.stderr)
        return 1
    rows = []
    for name, code in kernels:
        if not wanted.search(name):
            continue
        span = None if args.whole else main_loop(code)
        body = code if span is None else code[span[0]:span[1] + 1]
        ffmas, same = count(body, args.banks)
        if ffmas:
            where = "whole kernel" if span is None else f"loop {body[0][0]:#x}-{body[-1][0]:#x}"
            rows.append((name, where, ffmas, same))
    if not rows:
        print(f"error: no kernel with an FFMA matches {args.kernel!r} in {args.dump}",
              file=sys.stderr)
        return 1
    print(f"| kernel | counted over | FFMA | same-bank FFMA (mod {args.banks}) | share |")
    print("| --- | --- | ---: | ---: | ---: |")
    for name, where, ffmas, same in rows:
        print(f"| `{name}` | {where} | {ffmas} | {same} | {same / ffmas:.0%} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
