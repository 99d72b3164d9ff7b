"""Solution -> stub: the one transformation between what instructors keep and what students get.

A solution source is an ordinary source file (it compiles and passes the tests) with markers:

    // BEGIN SOLUTION          every line from here ...
    ...                        ... is removed from the stub,
    // END SOLUTION            ... up to and including this one.
    // STUB: <code>            in the stub this line becomes <code> (same indentation);
                               in the solution it is a comment.

`# BEGIN SOLUTION`, `# END SOLUTION` and `# STUB:` are accepted too (CMake, Python, Makefiles).
Markers must stand alone on their line; regions cannot nest; a STUB line cannot sit inside a
region. Anything else is copied byte for byte, so stripping is exact and repeatable: the drift
test compares strip(solution) with the committed stub byte for byte.
"""

import re

_BEGIN = re.compile(r"^\s*(//|#)\s*BEGIN SOLUTION\s*$")
_END = re.compile(r"^\s*(//|#)\s*END SOLUTION\s*$")
_STUB = re.compile(r"^(\s*)(//|#) STUB:(?: (.*))?$")
_ANY_MARKER = re.compile(r"\b(BEGIN SOLUTION|END SOLUTION)\b|(//|#) STUB:")


class StripError(ValueError):
    pass


def has_markers(text):
    return bool(_ANY_MARKER.search(text))


def strip_solution(text, name="<solution>"):
    """Returns the stub of a solution source. Raises StripError on malformed markers."""
    out = []
    region_start = None
    regions = 0
    for number, line in enumerate(text.splitlines(keepends=True), start=1):
        body = line.rstrip("\r\n")
        newline = line[len(body):]
        if _BEGIN.match(body):
            if region_start is not None:
                raise StripError(f"{name}:{number}: BEGIN SOLUTION inside the region opened at "
                                 f"line {region_start} (regions do not nest)")
            region_start = number
            regions += 1
            continue
        if _END.match(body):
            if region_start is None:
                raise StripError(f"{name}:{number}: END SOLUTION without BEGIN SOLUTION")
            region_start = None
            continue
        stub = _STUB.match(body)
        if stub:
            if region_start is not None:
                raise StripError(f"{name}:{number}: a STUB line inside the solution region opened "
                                 f"at line {region_start}; put it after END SOLUTION")
            indent, _, code = stub.groups()
            out.append((indent + code if code else "") + newline)
            continue
        if region_start is not None:
            continue
        if "BEGIN SOLUTION" in body or "END SOLUTION" in body:
            raise StripError(f"{name}:{number}: a solution marker must stand alone on its line: "
                             f"{body.strip()!r}")
        out.append(line)
    if region_start is not None:
        raise StripError(f"{name}:{region_start}: BEGIN SOLUTION is never closed")
    if regions == 0 and not any(_STUB.match(l.rstrip("\r\n")) for l in text.splitlines()):
        raise StripError(f"{name}: no BEGIN SOLUTION / STUB marker: is this really a solution?")
    return "".join(out)
