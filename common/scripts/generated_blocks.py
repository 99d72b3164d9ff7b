"""The one writer of the generated blocks in the READMEs: the text between a line
`<!-- BEGIN GENERATED: NAME -->` and a line `<!-- END GENERATED: NAME -->` belongs to a script
(progression.py: results, progression, headline, inspect, memory-system; sweep.py: sweep) and
is replaced whole, the rest of the file is left as it is. Python 3 standard library only.

    fill_blocks(text, content_of)   every block: content_of(NAME) gives its new text (without
                                    the last newline), or None to leave that block as it is
    replace_block(text, name, content)   the one block NAME, which must be there exactly once

Both raise BlockError where a BEGIN line has no matching END line (each on a line of its own).

A BEGIN line may go on with options that show a part of the block's text, so that a page of a
chapter shows the rows of its own kernels (the END line names the block alone):

    <!-- BEGIN GENERATED: results sizes=4096 rows=cuBLAS;prefetch;async -->
    <!-- BEGIN GENERATED: inspect parts=digest;sass rows=prefetch_gemm;async_gemm<128,256,16 -->

  (the values of an option are separated by ";": a kernel's name may hold a comma)
  sizes=N;...   only the tables measured at those sizes (the "Measured ..." paragraph that
                heads each one names M=N or NxN)
  parts=W;...   only the sections ("#### " headings) whose heading holds one of the words
  rows=P;...    in every table, only the rows whose first cell starts with one of the
                prefixes (backticks, "chNN::", HTML escapes and spaces aside); a table left
                with no row is left out
"""
import re

BLOCK = re.compile(r"^(<!-- BEGIN GENERATED: ([\w-]+)((?: [^\n]*?)?) -->[ \t]*\n)(.*?)"
                   r"(^<!-- END GENERATED: \2 -->)", re.S | re.M)


class BlockError(ValueError):
    """A README whose generated blocks cannot be found or matched."""


def begin(name):
    return f"<!-- BEGIN GENERATED: {name} -->"


def end(name):
    return f"<!-- END GENERATED: {name} -->"


def fill_blocks(text, content_of):
    """text with every block whose content_of(NAME) is not None refilled with that content."""
    # Marker lines only: a README may name the markers in its prose (common/README.md does).
    if len(re.findall(r"^<!-- BEGIN GENERATED: ", text, re.M)) != len(BLOCK.findall(text)):
        raise BlockError("a <!-- BEGIN GENERATED: NAME --> line has no matching "
                         "<!-- END GENERATED: NAME --> line (each on a line of its own)")

    def replace(match):
        content = content_of(match.group(2))
        if content is None:
            return match.group(0)
        return match.group(1) + shown_part(content, options(match.group(3))) + "\n" + match.group(5)

    return BLOCK.sub(replace, text)


def options(text):
    """{key: [values]} of a BEGIN line's options: "sizes=4096 rows=a;b"."""
    found = {}
    for word in text.split():
        key, sep, values = word.partition("=")
        if not sep or key not in ("sizes", "parts", "rows"):
            raise BlockError(f"unknown option {word!r} of a generated block (sizes=, parts=, rows=)")
        found[key] = [v for v in values.split(";") if v]
    return found


def first_cell(line):
    cell = line.strip().strip("|").split("|")[0].strip().strip("`")
    cell = cell.replace("&lt;", "<").replace("&gt;", ">").replace("\\|", "|")
    return re.sub(r"^ch\d\d::", "", cell)


def keep_rows(text, prefixes):
    """text with each table's body rows cut to those whose first cell starts with a prefix."""
    out, table = [], []

    def flush():
        body = table[2:]
        # Spaces aside: an option cannot hold one ("async_gemm<128,256,16" for the template).
        kept = [l for l in body if any(first_cell(l).replace(" ", "").startswith(p.replace(" ", ""))
                                       for p in prefixes)]
        if len(table) < 2 or kept:
            out.extend(table[:2] + kept)
        elif out and not out[-1].strip():
            out.pop()  # the blank line before a table left out
        table.clear()

    for line in text.split("\n"):
        if line.startswith("|"):
            table.append(line)
            continue
        if table:
            flush()
        out.append(line)
    if table:
        flush()
    return "\n".join(out)


def keep_sizes(text, sizes):
    """text with only the parts measured at one of the sizes: each part starts at a paragraph
    beginning "Measured" and runs to the next such paragraph."""
    parts = re.split(r"(?m)^(?=Measured )", text)
    kept = [parts[0]] if not parts[0].startswith("Measured ") else []
    for part in parts:
        if not part.startswith("Measured "):
            continue
        head = part.split("\n", 1)[0]
        if any(re.search(rf"\bM={s}\b|\b{s}x{s}\b", head) for s in sizes):
            kept.append(part)
    return "".join(kept).rstrip("\n")


def keep_parts(text, words):
    """text with only the "#### " sections whose heading holds one of the words."""
    sections = re.split(r"(?m)^(?=#### )", text)
    kept = [s for s in sections if not s.startswith("#### ")
            or any(w.lower() in s.split("\n", 1)[0].lower() for w in words)]
    return "".join(kept).rstrip("\n")


def shown_part(content, opts):
    """The part of a block's content its BEGIN line's options show."""
    if "sizes" in opts:
        content = keep_sizes(content, opts["sizes"])
    if "parts" in opts:
        content = keep_parts(content, opts["parts"])
    if "rows" in opts:
        content = keep_rows(content, opts["rows"])
    return content


def replace_block(text, name, content):
    """text with the one block NAME refilled with content."""
    begins = re.findall(rf"^<!-- BEGIN GENERATED: {re.escape(name)}(?: [^\n]*?)? -->", text, re.M)
    if len(begins) != 1 or text.count(end(name)) != 1:
        raise BlockError(f"needs one {begin(name)} ... {end(name)} block")
    return fill_blocks(text, lambda found: content if found == name else None)
