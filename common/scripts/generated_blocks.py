"""The one writer of the generated blocks in the READMEs: the text between a line
`<!-- BEGIN GENERATED: NAME -->` and a line `<!-- END GENERATED: NAME -->` belongs to a script
(progression.py: results, progression, headline, inspect, memory-system; sweep.py: sweep) and
is replaced whole, the rest of the file is left as it is. Python 3 standard library only.

    fill_blocks(text, content_of)   every block: content_of(NAME) gives its new text (without
                                    the last newline), or None to leave that block as it is
    replace_block(text, name, content)   the one block NAME, which must be there exactly once

Both raise BlockError where a BEGIN line has no matching END line (each on a line of its own).
"""
import re

BLOCK = re.compile(r"^(<!-- BEGIN GENERATED: ([\w-]+) -->[ \t]*\n)(.*?)"
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
        return match.group(1) + content + "\n" + match.group(4)

    return BLOCK.sub(replace, text)


def replace_block(text, name, content):
    """text with the one block NAME refilled with content."""
    if text.count(begin(name)) != 1 or text.count(end(name)) != 1:
        raise BlockError(f"needs one {begin(name)} ... {end(name)} block")
    return fill_blocks(text, lambda found: content if found == name else None)
