#!/usr/bin/env python3
"""The CUDA compile launcher of the build: runs the compile and, before ptxas's warnings that a
kernel spills registers, prints one line saying whether they are expected.

  spill_note.py [--strict] COMPILER ARGS...
        (CMake: the CUDA_COMPILER_LAUNCHER of every CUDA target, before any launcher of the
        user's own, ccache say; --strict with -DTUTORIAL_WARNINGS_AS_ERRORS=ON)

A few of chapter 05's kernels spill a little on sm_80 and sm_90 (and more on other GPUs), by
design: their __launch_bounds__ caps the registers per thread. common/BUILD.md ("GPU
architectures") explains each, and common/scripts/arch_expected.txt lists them, kernel and
bytes, for `make arch-check`. ptxas cannot be told which spills are meant, so it warns on
every build; this says, once per compile that warns, how many of its warnings that list
expects ("expected: ...") and names any it does not (a new spill: the kernel, or the list and
common/BUILD.md, must change). The compile's output is otherwise passed on unchanged, after it
ends, and its exit status is the compile's.

--strict (CI's build): a compile that warns about anything but the spills arch_expected.txt
lists for the architectures it compiles for fails, as `make arch-check` would. CI's build
compiles for sm_90 alone, every chapter and every exercise stub among it, so its arch-check
leaves sm_90 out (common/BUILD.md, "GPU architectures"). Python 3 standard library only.
"""
import re
import subprocess
import sys
from pathlib import Path

EXPECTED = Path(__file__).resolve().parent / "arch_expected.txt"
SPILL = re.compile(r"Registers are spilled to local memory in function '([^']+)', "
                   r"(\d+) bytes spill stores")
MIN_BLOCKS = re.compile(r"Value of (?:threads per SM|minnctapersm) for entry (\S+) is out of range")
WARNING = re.compile(r"\bwarning\b", re.IGNORECASE)
ARCH = re.compile(r"\bsm_(\d+)")
ARCH_FLAGS = ("-arch", "--gpu-architecture", "-gencode", "--generate-code", "-code", "--gpu-code")


def compiled_archs(argv):
    """The sm_XX numbers of the compile's architecture flags (-arch=sm_90, --generate-code=
    arch=compute_90,code=[compute_90,sm_90], or the flag and its value as two words), not of
    a path or a define that happens to hold "sm_"."""
    found = set()
    for i, arg in enumerate(argv):
        flag = arg.split("=", 1)[0]
        if flag in ARCH_FLAGS:
            value = arg.split("=", 1)[1] if "=" in arg else (argv[i + 1] if i + 1 < len(argv) else "")
            found.update(ARCH.findall(value))
    return found


def expected_lines():
    """(arch, kind, kernel, bytes) for each entry of arch_expected.txt ("90", "spill", ...);
    arch_check.py reads it through this too."""
    for line in EXPECTED.read_text().splitlines():
        words = line.split("#", 1)[0].split()
        if len(words) >= 3:
            yield words[0][3:], words[1], words[2], int(words[3]) if len(words) > 3 else 0


def ptxas_warning(line):
    """("spill", kernel, bytes) or ("minblocks", kernel, 0) for a ptxas line of either kind
    arch_expected.txt lists, else None; arch_check.py classifies its lines through this too."""
    spill, min_blocks = SPILL.search(line), MIN_BLOCKS.search(line)
    if spill:
        return ("spill", spill.group(1), int(spill.group(2)))
    if min_blocks:
        return ("minblocks", min_blocks.group(1), 0)
    return None


def expected(archs=None):
    """{(kind, kernel, bytes)} of arch_expected.txt for these architectures ("90", ...), or
    whatever the architecture."""
    return {(kind, kernel, size) for arch, kind, kernel, size in expected_lines()
            if archs is None or arch in archs}


def unexpected(output, archs):
    """The lines of `output` that --strict fails on: warnings other than the spills and
    minimum-blocks notes arch_expected.txt lists for `archs` (all of them when empty)."""
    known = expected(archs or None)
    bad = []
    for line in output.splitlines():
        found = ptxas_warning(line)
        if (found is None and WARNING.search(line)) or (found is not None and found not in known):
            bad.append(line)
    return bad


def note(output):
    """The line to print before `output`'s ptxas warnings, or None when it has none."""
    found = [w for w in map(ptxas_warning, output.splitlines()) if w is not None]
    if not found:
        return None
    known = expected()
    new = [kernel for kind, kernel, size in found if (kind, kernel, size) not in known]
    text = (f"note: {len(found) - len(new)} of the {len(found)} ptxas warnings below are "
            "expected: those kernels' __launch_bounds__ cap their registers, and they spill a "
            "few bytes or run fewer blocks per SM than the bound asks (common/BUILD.md, "
            "\"GPU architectures\")")
    if new:
        text += (f"; NOT expected (not in common/scripts/arch_expected.txt): "
                 f"{', '.join(sorted(set(new)))}")
    return text


def main(argv):
    strict = bool(argv) and argv[0] == "--strict"
    argv = argv[1:] if strict else argv
    if not argv:
        print("usage: spill_note.py [--strict] COMPILER ARGS...", file=sys.stderr)
        return 2
    done = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    err = done.stderr.decode(errors="replace")
    text = note(err)
    sys.stdout.buffer.write(done.stdout)
    sys.stdout.flush()
    if text:
        print(text, file=sys.stderr)
    sys.stderr.write(err)
    if strict and done.returncode == 0:
        archs = compiled_archs(argv)
        bad = unexpected(done.stdout.decode(errors="replace") + "\n" + err, archs)
        if bad:
            print(f"error: TUTORIAL_WARNINGS_AS_ERRORS: {len(bad)} warning(s) that "
                  f"common/scripts/arch_expected.txt does not list for sm_"
                  f"{', sm_'.join(sorted(archs)) or '?'}: fix them, or update that list and "
                  f"common/BUILD.md's table (the first: {bad[0].strip()})", file=sys.stderr)
            sys.stderr.flush()
            return 1
    sys.stderr.flush()
    return done.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
