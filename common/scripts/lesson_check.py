#!/usr/bin/env python3
"""Every page of a chapter is one lesson of one shape (DEVELOPERS.md, "A lesson is a lesson").

  lesson_check.py [--root DIR] [-v]

A chapter of common/chapters.txt is its README.md and, where it teaches several ideas, one more
page per idea: every other Markdown file of its folder (its lab log lives apart, in lab/). Each
page must:
  1. have at most 400 lines, or 250 in a chapter of several pages (one idea, one sitting);
  2. have these sections, in this order (a heading may go on after the name, as in
     "## The idea, part 1: ..."; other sections may sit between them): What you will learn,
     The idea, The code, What the measurements show, Run it, Predict, then measure,
     Exercises, Check yourself, References;
  3. (the chapter, over its pages) link every exercise of the chapter
     (exercises/manifest.json; without a manifest, the folders of exercises/ whose names start
     with the chapter's number);
  4. in "Check yourself", ask 3 to 6 numbered questions, each with its answer folded in
     <details>...</details> before the next; in "Predict, then measure", fold the answer of
     every numbered prompt the same way;
  5. quote the generated tables correctly where this script can see a quote: in a sentence of
     the prose (not a table, not code) that names a kernel of the generated results or profile
     tables (of any chapter: lessons compare with earlier chapters), every number written
     before "GFLOP/s", "% of cuBLAS", "ms", "GB" or "MB" must be a value those tables give one
     of the kernels it names (rounded as quoted), or a figure with the same unit in one of the
     page's own tables or in the chapter's lab/LOG.md (where other runs and derived figures are
     worked out). A number of another unit, or in a sentence that names no kernel, is not
     checked: keep such numbers traceable by hand (lab/LOG.md); and in a sentence that names a
     shape of a generated sweep table ("8193×8192"; a square as 512³ or 8192² counts only beside
     one written with ×), every percentage written with a decimal must be one of that shape's
     row (a number left over from an older sweep fails);
  6. not cite the tutorial's internal sources ("the seeds", "the notes") to readers;
  7. keep the lab out of the lesson: in its prose (not code, not a generated block) no lab
     vocabulary: a round or run of the lab by number ("round 8", "runs 11 to 15"), seeds,
     "untuned" draws, a date (the dated runs are in the chapter's lab/LOG.md);
  8. show its code from the source: every `<!-- BEGIN CODE: FILE#NAME -->` block is the
     source's `// BEGIN QUOTE NAME` ... `// END QUOTE NAME` piece as it is now
     (code_quotes.py refills them), and a page of a chapter of several pages quotes at least
     one piece.

Chapters listed in PENDING are checked and reported, but do not fail the check. Python 3
standard library only; exit status 0 when every chapter not pending passes, 1 otherwise.
"""
import argparse
import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import code_quotes  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
MAX_LINES = 400
MAX_PAGE_LINES = 250  # each page of a chapter that teaches several ideas, one per page
SECTIONS = ["What you will learn", "The idea", "The code", "What the measurements show",
            "Run it", "Predict, then measure", "Exercises", "Check yourself", "References"]
QUESTIONS = (3, 6)

# Chapters whose README is not yet one lesson of this shape: none since every chapter was
# rewritten (issue 28), so every chapter must pass. A chapter listed here (name: reason) would be
# checked and reported without failing the check.
PENDING = {}

GENERATED = re.compile(r"^<!-- BEGIN GENERATED: ([\w-]+)(?: [^\n]*?)? -->\n(.*?)"
                       r"^<!-- END GENERATED: \1 -->", re.S | re.M)
NUMBER = r"\d[\d,]*(?:\.\d+)?"
# Numbers joined by "against", "and", "→", "/", ... before a unit: "9,021 against 9,207 GFLOP/s".
QUOTE = re.compile(rf"(?<![\w.])((?:{NUMBER}\s*(?:against|and|or|to|vs\.?|→|->|/|,)\s*)*"
                   rf"{NUMBER})\s*(GFLOP/s|% of cuBLAS|ms\b|GB\b|MB\b)")
UNITS = {"GFLOP/s": "gflops", "% of cuBLAS": "pct", "ms": "ms", "GB": "bytes", "MB": "bytes"}
SCALE = {"GB": 1e9, "MB": 1e6, "kB": 1e3, "k": 1e3, "B": 1.0}
INTERNAL = re.compile(r"\bthe (seeds|notes)\b", re.I)
# The lab's words, which a lesson leaves to the chapter's lab/LOG.md (issue 45).
NUMBER_WORDS = r"(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)"
LAB_VOCABULARY = [
    (re.compile(rf"\brounds? {NUMBER_WORDS}\b|\bround {NUMBER_WORDS}'s\b|"
                rf"\b(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|"
                rf"eleventh) round\b", re.I), "a round of the lab"),
    # "runs 11 to 15", "run 6"; not "runs 67.5%" (a rate) nor "runs 4 blocks"
    (re.compile(r"\bruns? \d+(?: (?:to|and|-|–) \d+)?\b(?![.,]\d|%| (?:times|blocks|threads|warps))",
                re.I), "a run of the lab by number"),
    (re.compile(r"\bseeds?\b", re.I), "seeds"),
    (re.compile(r"\buntuned\b", re.I), "\"untuned\" draws"),
    (re.compile(r"\b20\d\d-\d\d-\d\d\b"), "a date"),
]


def chapters(root):
    path = root / "common" / "chapters.txt"
    names = []
    for line in path.read_text().splitlines():
        words = line.split("#", 1)[0].split()
        if words:
            names.append(words[0])
    return names


def pages_of(root, chapter):
    """The chapter's pages: its README.md first, then its other Markdown files by name."""
    folder = root / chapter
    others = sorted(p for p in folder.glob("*.md") if p.name != "README.md")
    return [folder / "README.md"] + others


def lab_log(root, chapter):
    """The chapter's lab log, lab/LOG.md, or None."""
    path = root / chapter / "lab" / "LOG.md"
    return path if path.is_file() else None


def exercises_of(root, chapter):
    manifest = root / "exercises" / "manifest.json"
    if manifest.is_file():
        return [e["name"] for e in json.loads(manifest.read_text())["exercises"]
                if e.get("chapter") == chapter]
    folder = root / "exercises"
    number = chapter.split("_", 1)[0]
    return sorted(p.name for p in folder.glob(f"{number}*") if p.is_dir()) if folder.is_dir() else []


def cell_number(text):
    """'51,678' -> 51678.0, '4.3 GB' -> 4.3e9, '21.62 ms' -> 21.62; None if not a number."""
    text = text.strip().replace("&nbsp;", " ")
    match = re.fullmatch(rf"({NUMBER})\s*(GB|MB|kB|B|ms|%)?", text)
    if not match:
        return None
    value = float(match.group(1).replace(",", ""))
    unit = match.group(2) or ""
    return value * SCALE.get(unit, 1.0)


def table_rows(text):
    """The rows of every markdown table in text: (header cells, [row cells])."""
    tables, header, rows = [], None, []
    for line in text.splitlines() + [""]:
        if line.startswith("|"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if header is None:
                header = cells
            elif not set("".join(cells)) <= set("-: "):
                rows.append(cells)
        elif header is not None:
            tables.append((header, rows))
            header, rows = None, []
    return tables


def kernel_name(cell):
    name = cell.replace("&lt;", "<").replace("&gt;", ">").replace("\\|", "|").strip("` ")
    return re.sub(r" \((ceiling|one warp)\)$", "", name)


def quoted_values(readme_text):
    """{kernel: {kind: set of values}} from the generated blocks of one README: the results
    tables (GFLOP/s, % of cuBLAS, time) and the profile digest (bytes, time)."""
    values = {}
    for _, block in GENERATED.findall(readme_text):
        for header, rows in table_rows(block):
            if not header or header[0] != "kernel":
                continue
            for cells in rows:
                kinds = values.setdefault(kernel_name(cells[0]), {})
                for title, cell in zip(header[1:], cells[1:]):
                    number = cell_number(cell)
                    if number is None:
                        continue
                    if title == "GFLOP/s":
                        kind = "gflops"
                    elif title == "% of cuBLAS":
                        kind = "pct"
                    elif title in ("time (ms)", "time"):
                        kind = "ms"
                    elif re.search(r"\b(B|bytes)\b|DRAM read|DRAM written|asked of L1|from L2",
                                   title) and re.search(r"[GMk]?B$", cell.strip()):
                        kind = "bytes"
                    else:
                        continue
                    kinds.setdefault(kind, set()).add(number)
    return values


def sweep_values(readme_text):
    """{shape: set of % values} from the sweep tables of one README's generated blocks (first
    column "M × N × K" or "rows × cols"): every percentage in the shape's row."""
    values = {}
    for _, block in GENERATED.findall(readme_text):
        for header, rows in table_rows(block):
            if not header or "×" not in header[0]:
                continue
            for cells in rows:
                shape = cells[0].strip("` ")
                sides = shape.split("×")
                forms = {shape}
                if len(set(sides)) == 1 and len(sides) in (2, 3):  # 512³, 8192²
                    forms.add(sides[0] + "²³"[len(sides) - 2])
                for form in forms:
                    for cell in cells[1:]:
                        for number in re.findall(rf"({NUMBER})%", cell):
                            values.setdefault(form, set()).add(float(number.replace(",", "")))
    return values


def check_shape_quotes(text, shapes):
    """A sentence naming a shape of the sweep tables quotes its percentages (one decimal or
    more, as the tables print them) from that shape's row: a number left from an older sweep
    fails."""
    problems = []
    for sentence in prose_sentences(text):
        plain = sentence.replace("`", "")
        named = [s for s in shapes if re.search(rf"(?<![\d×]){re.escape(s)}(?![\d×²³])", plain)]
        if not any("×" in s for s in named):
            continue  # a square named 8192² is quoted from make run's table as often
        allowed = set().union(*(shapes[s] for s in named))
        for number in re.findall(rf"(?<![\w.])(\d[\d,]*\.\d+)%", plain):
            if not any(matches(number, value, "%") for value in allowed):
                problems.append(f"quotes {number}% in a sentence naming {', '.join(named)}, but "
                                f"the sweep table's row gives {sorted(allowed)}: "
                                f"\"{sentence[:140]}\"")
    return problems


def name_forms(kernel):
    """How prose names a kernel: its name, and for a configuration row ('vectorized 128x128x8
    8x8') its first two words."""
    forms = {kernel}
    words = kernel.split()
    if len(words) > 2:
        forms.add(" ".join(words[:2]))
    return forms


def prose_sentences(text):
    """The sentences of the prose: no generated block, fenced or indented code, table or HTML
    tag line; list items and paragraphs joined, then split after . ! ? ; :"""
    text = GENERATED.sub("", text)
    kept, fenced = [], False
    for line in text.splitlines():
        if line.startswith("```"):
            fenced = not fenced
            kept.append("")
            continue
        if fenced or line.startswith("|") or line.startswith("    ") and not line.strip().startswith("-"):
            kept.append("")
            continue
        kept.append(line)
    paragraphs = re.split(r"\n\s*\n|\n(?=\s*(?:[-*]|\d+\.) )", "\n".join(kept))
    sentences = []
    for paragraph in paragraphs:
        joined = " ".join(paragraph.split())
        sentences += [s for s in re.split(r"(?<=[.!?;:])\s+(?=[A-Z`(*\[])", joined) if s]
    return sentences


def matches(quoted, value, unit):
    """A quoted number agrees with a table value at the precision it was written with."""
    text = quoted.replace(",", "")
    decimals = len(text.split(".")[1]) if "." in text else 0
    number = float(text) * SCALE.get(unit, 1.0)
    if unit in ("GB", "MB"):
        step = 10 ** -decimals * SCALE[unit]
    else:
        step = 10 ** -decimals
    return abs(number - value) <= step / 2 + 1e-9 * max(1.0, abs(value))


def unit_values(text):
    """{kind: values} of every number written before a checked unit in text."""
    found = {}
    for match in QUOTE.finditer(text.replace("`", "")):
        unit = match.group(2).strip()
        for number in re.findall(NUMBER, match.group(1)):
            found.setdefault(UNITS[unit], set()).add(
                float(number.replace(",", "")) * SCALE.get(unit, 1.0))
    return found


def check_quotes(text, values, elsewhere=None):
    """Problems with the quotes of text; `elsewhere`: {kind: values} the chapter also traces
    its figures to (its own tables, its lab/LOG.md)."""
    elsewhere = elsewhere or {}
    problems = []
    kernels = sorted(values, key=len, reverse=True)
    for sentence in prose_sentences(text):
        plain = sentence.replace("`", "")
        named = [k for k in kernels if any(form in plain for form in name_forms(k))]
        if not named:
            continue
        for match in QUOTE.finditer(plain):
            unit = match.group(2).strip()
            kind = UNITS[unit]
            from_tables = set().union(*(values[k].get(kind, set()) for k in named))
            if not from_tables:
                continue
            allowed = from_tables | elsewhere.get(kind, set())
            for number in re.findall(NUMBER, match.group(1)):
                if not any(matches(number, value, unit) for value in allowed):
                    problems.append(f"quotes {number} {unit} in a sentence naming "
                                    f"{', '.join(named)}, but the generated tables give "
                                    f"{kind} values {sorted(from_tables)[:8]} (and lab/LOG.md and the "
                                    f"page's own tables do not have it): \"{sentence[:140]}\"")
    return problems


def section_text(text, name):
    match = re.search(rf"^## {re.escape(name)}.*?$(.*?)(?=^## |\Z)", text, re.S | re.M)
    return match.group(1) if match else ""


def check_folds(body, section, lo=1, hi=None):
    problems = []
    items = list(re.finditer(r"^\d+\. ", body, re.M))
    if len(items) < lo or (hi is not None and len(items) > hi):
        bound = f"{lo} to {hi}" if hi else f"at least {lo}"
        problems.append(f"\"{section}\" has {len(items)} numbered question(s), wants {bound}")
    for i, item in enumerate(items):
        end = items[i + 1].start() if i + 1 < len(items) else len(body)
        chunk = body[item.start():end]
        if not re.search(r"<details>.*?</details>", chunk, re.S):
            first = chunk.splitlines()[0][:80]
            problems.append(f"\"{section}\" question {i + 1} has no answer folded in "
                            f"<details>...</details>: \"{first}\"")
    return problems


def check_lab_vocabulary(text):
    """The lab's words in the prose of a page (code, quoted code and generated blocks aside)."""
    problems = []
    for sentence in prose_sentences(code_quotes.BLOCK.sub("", text)):
        plain = re.sub(r"`[^`]*`", "", sentence)  # a command's SEED=S is code, not prose
        plain = re.sub(r"\]\([^)]*\)", "]", plain)  # link targets (lab/LOG.md#round-8)
        for pattern, what in LAB_VOCABULARY:
            found = pattern.search(plain)
            if found:
                problems.append(f"carries the lab into the lesson ({what}: \"{found.group(0)}\"); "
                                f"leave it to lab/LOG.md: \"{sentence[:120]}\"")
    return problems


def check_page(root, chapter, page, values, pages=1, sweeps=None):
    """The problems of one page of a chapter of `pages` pages; `sweeps`: {shape: % values} of
    the sweep tables of all the chapter's pages."""
    if not page.is_file():
        return [f"{page} does not exist"]
    text = page.read_text()
    problems = []
    lines = text.count("\n") + (0 if text.endswith("\n") else 1)
    limit = MAX_LINES if pages == 1 else MAX_PAGE_LINES
    if lines > limit:
        problems.append(f"{page.name}: {lines} lines, more than {limit}"
                        + (" (a page of a chapter of several pages)" if pages > 1 else "")
                        + ": move experiments and dated runs to the chapter's lab/LOG.md, or "
                          "an idea to a page of its own")
    headings = [h.strip() for h in re.findall(r"^## (.+)$", text, re.M)]
    position = -1
    for name in SECTIONS:
        found = next((i for i, h in enumerate(headings) if h.startswith(name)), None)
        if found is None:
            problems.append(f"no \"## {name}\" section")
        elif found < position:
            problems.append(f"\"## {name}\" comes before a section it should follow "
                            f"(order: {', '.join(SECTIONS)})")
        else:
            position = found
    problems += check_folds(section_text(text, "Check yourself"), "Check yourself", *QUESTIONS)
    problems += check_folds(section_text(text, "Predict, then measure"), "Predict, then measure")
    own_tables = "\n".join(l for l in GENERATED.sub("", text).splitlines() if l.startswith("|"))
    log = lab_log(root, chapter)
    elsewhere = unit_values(own_tables + "\n" + (log.read_text() if log else ""))
    problems += check_quotes(text, values, elsewhere)
    problems += check_shape_quotes(text, sweeps if sweeps is not None else sweep_values(text))
    for match in INTERNAL.finditer(GENERATED.sub("", text)):
        problems.append(f"cites an internal source to readers: \"{match.group(0)}\"")
    problems += check_lab_vocabulary(text)
    problems += code_quotes.check_page(page, root)
    if pages > 1 and not code_quotes.quotes_of(text):
        problems.append("quotes no code: a page of a chapter of several pages shows its inner "
                        "loops from the source (<!-- BEGIN CODE: FILE#NAME -->, code_quotes.py)")
    prefix = "" if page.name == "README.md" else f"{page.name}: "
    return [p if p.startswith(page.name) else prefix + p for p in problems]


def check_readme(root, chapter, values):
    """The problems of a chapter: each of its pages, and its exercises linked from them."""
    pages = [p for p in pages_of(root, chapter) if p.is_file() or p.name == "README.md"]
    texts = [p.read_text() for p in pages if p.is_file()]
    sweeps = {}
    for text in texts:
        for shape, found in sweep_values(text).items():
            sweeps.setdefault(shape, set()).update(found)
    problems = []
    for page in pages:
        problems += check_page(root, chapter, page, values, len(pages), sweeps)
    for exercise in exercises_of(root, chapter):
        if not any(re.search(rf"\]\((\.\./)?exercises/{re.escape(exercise)}/?\)", text)
                   for text in texts):
            problems.append(f"does not link its exercise {exercise} "
                            f"([{exercise}](../exercises/{exercise}/)) from any of its pages")
    return problems


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--root", default=str(REPO), help="repository root")
    parser.add_argument("-v", "--verbose", action="store_true", help="list the pending problems")
    args = parser.parse_args(argv)
    root = Path(args.root)
    names = chapters(root)
    values = {}
    for chapter in names:
        for page in pages_of(root, chapter):
            if not page.is_file():
                continue
            for kernel, kinds in quoted_values(page.read_text()).items():
                merged = values.setdefault(kernel, {})
                for kind, found in kinds.items():
                    merged.setdefault(kind, set()).update(found)
    failed = False
    for chapter in names:
        problems = check_readme(root, chapter, values)
        if chapter in PENDING:
            state = "pending" if problems else "pending, but passes: remove it from PENDING"
            print(f"{chapter}: {state} ({PENDING[chapter]}; {len(problems)} problem(s))")
            if args.verbose:
                print("".join(f"    {p}\n" for p in problems), end="")
        elif problems:
            failed = True
            print(f"{chapter}: FAIL")
            print("".join(f"    {p}\n" for p in problems), end="")
        else:
            print(f"{chapter}: ok")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
