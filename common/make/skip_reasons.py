#!/usr/bin/env python3
"""After ctest (make check): each distinct reason a test was skipped, once, with how many tests
of which kind gave it.

  skip_reasons.py build/Testing/Temporary/LastTest.log

  note: 49 GPU tests skipped: no CUDA device found (cudaErrorInsufficientDriver)
  note: 12 CPU-backend tests skipped: needs a real GPU, not the CPU backend

A test's kind is the label in its name ("05_double_buffer/cpu: ..."): gpu (the kernels on the
GPU), cpu (the same tests on the CPU backend, common/cpu_backend/), host. Prints nothing when no
test was skipped or there is no log. Python 3 standard library only.
"""
import re
import sys
from collections import Counter

KINDS = {"gpu": "GPU", "cpu": "CPU-backend", "host": "host"}
TEST = re.compile(r"^\d+/\d+ Test: (.*)$")
SKIPPED = re.compile(r"SKIPPED: ([^\"\n]*)")


def reasons(log_text):
    """Counter of (kind, reason): each test counted once per distinct reason it printed."""
    counts, kind, seen = Counter(), None, set()
    for line in log_text.splitlines():
        test = TEST.match(line)
        if test:
            label = re.match(r"[^/:]+/(\w+):", test.group(1))
            kind = KINDS.get(label.group(1), label.group(1)) if label else "other"
            seen = set()
            continue
        skipped = SKIPPED.search(line)
        if skipped and kind is not None:
            reason = skipped.group(1).strip()
            if reason not in seen:
                seen.add(reason)
                counts[(kind, reason)] += 1
    return counts


def main(argv):
    try:
        with open(argv[0], encoding="utf-8", errors="replace") as f:
            text = f.read()
    except (IndexError, OSError):
        return 0
    for (kind, reason), n in sorted(reasons(text).items()):
        print(f"note: {n} {kind} test{'s' if n != 1 else ''} skipped: {reason}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
