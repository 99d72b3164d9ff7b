#!/usr/bin/env python3
"""Summarize a SASS dump (cuobjdump -sass, demangled with c++filt): one row per kernel.

Counts are static: how often each instruction appears in the machine code, not how often it
runs. Because the kernels' inner loops are unrolled, the static mix of the loop body is what the
lesson compares (e.g. FFMA per LDS, 128-bit vs 32-bit loads). See common/INSPECT.md.

usage: sass_summary.py DUMP --chapter NAME [--out FILE.md] [--header TEXT]
"""

import argparse
import re
import sys

from ncu_digest import short_name  # the same names in both digests

# (column title, predicate on (opcode base, modifiers))
COLUMNS = [
    ("FFMA", lambda op, mods: op == "FFMA"),
    ("LDG.128", lambda op, mods: op == "LDG" and "128" in mods),
    ("LDG.64", lambda op, mods: op == "LDG" and "64" in mods),
    ("LDG.32", lambda op, mods: op == "LDG" and "128" not in mods and "64" not in mods),
    ("LDGSTS", lambda op, mods: op == "LDGSTS"),
    ("LDS.128", lambda op, mods: op == "LDS" and "128" in mods),
    ("LDS.64", lambda op, mods: op == "LDS" and "64" in mods),
    ("LDS.32", lambda op, mods: op == "LDS" and "128" not in mods and "64" not in mods),
    ("STS", lambda op, mods: op == "STS"),
    ("STG", lambda op, mods: op == "STG"),
    ("LDL/STL", lambda op, mods: op in ("LDL", "STL")),
    ("BAR.SYNC", lambda op, mods: op == "BAR" and "SYNC" in mods),
]

ARCH_RE = re.compile(r"^\s*code for (sm_\w+)")
FUNC_RE = re.compile(r"^\s*Function\s*:\s*(.+?)\s*$")
# An instruction line: its address (group 1, hex) and its text (group 2). chapter 05's
# bank_count.py reads dumps with these expressions too.
INSN_RE = re.compile(r"^\s*/\*([0-9a-fA-F]{4,})\*/\s+(.*?)\s*;")
PRED_RE = re.compile(r"^@!?U?P[T0-9]+\s+")
OUR_KERNEL_RE = re.compile(r"(^|[\s(])ch\d\d::|^_ZN\d*ch\d\d")


def parse(lines):
    """Returns [(arch, kernel_full_name, [opcode, ...]), ...] in dump order."""
    kernels = []
    arch = "?"
    current = None
    for line in lines:
        m = ARCH_RE.match(line)
        if m:
            arch = m.group(1)
            current = None
            continue
        m = FUNC_RE.match(line)
        if m:
            current = (arch, m.group(1), [])
            kernels.append(current)
            continue
        if current is None:
            continue
        m = INSN_RE.match(line)
        if m:
            text = PRED_RE.sub("", m.group(2).strip())
            opcode = text.split()[0] if text else ""
            if opcode:
                current[2].append(opcode)
    return kernels


def count(opcodes):
    row = {"instructions": 0}
    for title, _ in COLUMNS:
        row[title] = 0
    for opcode in opcodes:
        parts = opcode.split(".")
        op, mods = parts[0], set(parts[1:])
        if op == "NOP":
            continue
        row["instructions"] += 1
        for title, matches in COLUMNS:
            if matches(op, mods):
                row[title] += 1
    return row


def table(rows):
    titles = ["kernel", "instructions"] + [t for t, _ in COLUMNS]
    out = ["| " + " | ".join(titles) + " |",
           "|" + "|".join([" --- "] + [" ---: "] * (len(titles) - 1)) + "|"]
    for name, row in rows:
        cells = ["`" + name + "`"] + [str(row[t]) for t in titles[1:]]
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dump")
    ap.add_argument("--chapter", required=True)
    ap.add_argument("--out")
    ap.add_argument("--header", default="")
    args = ap.parse_args(argv)

    with open(args.dump, encoding="utf-8", errors="replace") as f:
        kernels = parse(f)
    ours = [(arch, full, ops) for arch, full, ops in kernels if OUR_KERNEL_RE.search(full)]
    if not ours:
        print(f"error: no kernel of a chNN:: namespace in {args.dump} "
              f"({len(kernels)} functions in the dump)", file=sys.stderr)
        return 1

    archs = sorted({arch for arch, _, _ in ours})
    parts = [f"### SASS summary: {args.chapter}", ""]
    if args.header:
        parts += [args.header, ""]
    for arch in archs:
        rows = sorted((short_name(full), count(ops)) for a, full, ops in ours if a == arch)
        if len(archs) > 1:
            parts += [f"**{arch}**", ""]
        parts += [table(rows), ""]
    parts += ["Static counts in the machine code (unrolled loops appear once per unrolled copy); "
              "what the columns mean: common/INSPECT.md.", ""]
    text = "\n".join(parts)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            f.write(text)
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
