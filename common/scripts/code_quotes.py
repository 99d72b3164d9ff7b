#!/usr/bin/env python3
"""The code on a lesson's page, quoted from the source so that it cannot drift from it.

  code_quotes.py [--check] [--root DIR] [PAGE.md ...]

A page quotes a piece of a source file with a block

    <!-- BEGIN CODE: 05_double_buffer/2_prefetch.cuh#main-loop -->
    ```cuda
    ...
    ```
    <!-- END CODE: 05_double_buffer/2_prefetch.cuh#main-loop -->

whose lines are those between the two marker comments of that name in the source (path from
the repository root):

    // BEGIN QUOTE main-loop
    ...
    // END QUOTE main-loop

Marker lines of other quotes inside the piece are left out, and the piece is shifted left by
its common indentation. Lines the page explains elsewhere (chapter 04's k loop inside chapter
05's main loop) can be cut out of a quote and stand as one comment line:

    // BEGIN ELIDE main-loop: the BK steps of chapter 04's k loop
    ...
    // END ELIDE main-loop

shows as `// ... the BK steps of chapter 04's k loop ...` at the indentation of the BEGIN line. Without --check the blocks of every page named (default: every
Markdown page of the chapters of common/chapters.txt) are refilled; with --check nothing is
written and each block that differs from its source, names a file or a quote that does not
exist, or lacks its END line is reported (exit status 1). lesson_check.py runs the check.
Python 3 standard library only.
"""
import argparse
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
BLOCK = re.compile(r"^<!-- BEGIN CODE: (?P<ref>[\w./-]+)#(?P<name>[\w-]+) -->[ \t]*\n"
                   r"(?P<body>.*?)"
                   r"^<!-- END CODE: (?P=ref)#(?P=name) -->[ \t]*$", re.S | re.M)
BEGIN_LINE = re.compile(r"^<!-- BEGIN CODE: ", re.M)
MARKER = re.compile(r"^\s*//\s*(BEGIN|END) QUOTE ([\w-]+)\s*$")
ELIDE = re.compile(r"^(\s*)//\s*(BEGIN|END) ELIDE ([\w-]+)(?::\s*(.*?))?\s*$")
FENCE = "cuda"


class QuoteError(ValueError):
    """A quote that cannot be made: no such file, no such marker, markers out of order."""


def quoted_lines(source_text, name, where="source"):
    """The lines between `// BEGIN QUOTE name` and `// END QUOTE name`, other markers left
    out, shifted left by their common indentation."""
    lines = source_text.splitlines()
    begins = [i for i, l in enumerate(lines) if MARKER.match(l) and MARKER.match(l).groups() == ("BEGIN", name)]
    ends = [i for i, l in enumerate(lines) if MARKER.match(l) and MARKER.match(l).groups() == ("END", name)]
    if len(begins) != 1 or len(ends) != 1:
        raise QuoteError(f"{where} needs exactly one `// BEGIN QUOTE {name}` and one "
                         f"`// END QUOTE {name}` line (found {len(begins)} and {len(ends)})")
    if ends[0] < begins[0]:
        raise QuoteError(f"{where}: `// END QUOTE {name}` comes before its BEGIN line")
    body, eliding = [], False
    for line in lines[begins[0] + 1:ends[0]]:
        elide = ELIDE.match(line)
        if elide and elide.group(3) == name:
            if elide.group(2) == "BEGIN":
                body.append(f"{elide.group(1)}// ... {elide.group(4) or 'lines left out'} ...")
            eliding = elide.group(2) == "BEGIN"
            continue
        if eliding or MARKER.match(line) or elide:
            continue
        body.append(line.rstrip())
    if eliding:
        raise QuoteError(f"{where}: `// BEGIN ELIDE {name}` has no `// END ELIDE {name}`")
    if not any(l.strip() for l in body):
        raise QuoteError(f"{where}: the quote {name} is empty")
    # Preprocessor lines (#pragma unroll) start in column 0 whatever the code around them.
    indent = min((len(l) - len(l.lstrip()) for l in body if l.strip() and not l.startswith("#")),
                 default=0)
    return [l if l.startswith("#") else l[indent:] for l in body]


def render(ref, name, root=REPO):
    """The fenced code block a page shows for the quote `ref#name`."""
    source = Path(root) / ref
    if not source.is_file():
        raise QuoteError(f"{ref} does not exist")
    lines = quoted_lines(source.read_text(), name, ref)
    return "```" + FENCE + "\n" + "\n".join(lines) + "\n```\n"


def refill(text, root=REPO):
    """(new text, [problems]): every CODE block of text refilled from its source."""
    problems = []
    if len(BEGIN_LINE.findall(text)) != len(BLOCK.findall(text)):
        problems.append("a <!-- BEGIN CODE: FILE#NAME --> line has no matching "
                        "<!-- END CODE: FILE#NAME --> line (each on a line of its own)")

    def replace(match):
        try:
            body = render(match.group("ref"), match.group("name"), root)
        except QuoteError as e:
            problems.append(str(e))
            return match.group(0)
        head = match.group(0).split("\n", 1)[0]
        return f"{head}\n{body}<!-- END CODE: {match.group('ref')}#{match.group('name')} -->"

    return BLOCK.sub(replace, text), problems


def quotes_of(text):
    """[(ref, name)] of the CODE blocks of a page."""
    return [(m.group("ref"), m.group("name")) for m in BLOCK.finditer(text)]


def check_page(path, root=REPO):
    """Problems of one page: blocks that differ from their source, or cannot be made."""
    text = Path(path).read_text()
    new, problems = refill(text, root)
    if new != text:
        stale = [f"{ref}#{name}" for (ref, name), old, fresh in
                 zip(quotes_of(text), BLOCK.finditer(text), BLOCK.finditer(new))
                 if old.group(0) != fresh.group(0)]
        problems.append(f"quotes that differ from their source: {', '.join(stale)} (refill them: "
                        "python3 common/scripts/code_quotes.py)")
    return problems


def chapter_pages(root=REPO):
    """Every Markdown page of the chapters of common/chapters.txt (not their lab/ folders)."""
    root = Path(root)
    pages = []
    for line in (root / "common" / "chapters.txt").read_text().splitlines():
        words = line.split("#", 1)[0].split()
        if words:
            pages += sorted((root / words[0]).glob("*.md"))
    return pages


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("pages", nargs="*", help="pages to refill (default: every chapter page)")
    parser.add_argument("--check", action="store_true", help="report stale quotes, write nothing")
    parser.add_argument("--root", default=str(REPO), help="repository root")
    args = parser.parse_args(argv)
    root = Path(args.root)
    pages = [Path(p) for p in args.pages] or chapter_pages(root)
    failed = False
    for page in pages:
        if args.check:
            problems = check_page(page, root)
        else:
            text = page.read_text()
            new, problems = refill(text, root)
            if new != text:
                page.write_text(new)
                print(f"updated {page}")
        for problem in problems:
            failed = True
            print(f"{page}: {problem}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
