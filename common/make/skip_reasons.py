#!/usr/bin/env python3
"""After ctest (make check): one plain line that counts the tests that passed, were skipped (why,
by count) and failed, so that nobody has to add up CTest's "100% tests passed" and its list of
tests that did not run.

  skip_reasons.py build/Testing/check-results.xml     (ctest --output-junit's file)

  check: 215 passed, 73 skipped (59 GPU tests: no CUDA device found (no NVIDIA driver found);
  14 CPU-backend tests: needs a real GPU, not the CPU backend), 0 failed

(one line). A test's kind is the label in its name ("05_double_buffer/cpu: ..."): gpu (the
kernels on the GPU), cpu (the same tests on the CPU backend, common/cpu_backend/), host. Its
reason is the text after "SKIPPED:" in its output (a test that skipped without one says so).
With more than three distinct reasons the line names the three most frequent, and a note above
it each of the others. A test CTest could not run (its program missing) counts as failed, as
CTest counts it. Prints nothing when there is no results file. Python 3 standard library only.
"""
import re
import sys
import xml.etree.ElementTree as ET
from collections import Counter

KINDS = {"gpu": "GPU", "cpu": "CPU-backend", "host": "host"}
SKIPPED = re.compile(r"SKIPPED: ([^\"\n]*)")
MOST_REASONS = 3


def kind_of(name):
    label = re.match(r"[^/:]+/(\w+):", name)
    return KINDS.get(label.group(1), label.group(1)) if label else "other"


def results(xml_text):
    """(passed, failed, Counter of (kind, reason) over the skipped tests), each test once."""
    passed, failed, skipped = 0, 0, Counter()
    for case in ET.fromstring(xml_text).iter("testcase"):
        status = case.get("status", "")
        skip = case.find("skipped")
        if status == "run":
            passed += 1
        elif status == "notrun" and skip is not None and \
                skip.get("message", "").startswith(("SKIP_RETURN_CODE", "SKIP_REGULAR_EXPRESSION")):
            out = case.findtext("system-out") or ""
            reason = SKIPPED.search(out)
            skipped[(kind_of(case.get("name", "")),
                     reason.group(1).strip() if reason else "no reason given")] += 1
        else:  # failed, timed out, or not run for another reason (a missing program)
            failed += 1
    return passed, failed, skipped


def summary(passed, failed, skipped):
    """The `note:` lines (reasons beyond the first few) and the closing line."""
    by_count = sorted(skipped.items(), key=lambda item: (-item[1], item[0]))
    def plural(n, kind):
        return f"{n} {kind} test{'s' if n != 1 else ''}"
    notes = [f"note: {plural(n, kind)} skipped: {reason}" for (kind, reason), n in by_count[MOST_REASONS:]]
    why = "; ".join(f"{plural(n, kind)}: {reason}" for (kind, reason), n in by_count[:MOST_REASONS])
    if len(by_count) > MOST_REASONS:
        why += f"; {sum(n for _, n in by_count[MOST_REASONS:])} more: the note lines above"
    total_skipped = sum(skipped.values())
    line = f"check: {passed} passed, {total_skipped} skipped" + (f" ({why})" if why else "") + \
        f", {failed} failed"
    return notes + [line]


def main(argv):
    try:
        with open(argv[0], encoding="utf-8", errors="replace") as f:
            text = f.read()
    except (IndexError, OSError):
        return 0
    try:
        counts = results(text)
    except ET.ParseError:
        return 0
    print("\n".join(summary(*counts)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
