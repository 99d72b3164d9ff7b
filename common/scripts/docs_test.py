#!/usr/bin/env python3
"""Every command the READMEs show, tried: documentation cannot drift from the code.

  docs_test.py [--build-dir DIR] [-v]

A fenced block is a block of commands when each of its lines is a command (it starts with a
word of COMMANDS) or a comment; a block whose command lines start with "$ " shows output after
them. A block marked `ipython` is a notebook cell (Google Colab): its `!command` lines are
commands, `%cd DIR` is `cd DIR`, and the folder a `git clone URL DIR` in it makes is this
repository. Pictures, tables and output blocks are left alone. Each command of a chapter's README runs in
the chapter's folder (common/chapters.txt), every other page's at the top (`cd DIR` lines move
it), and is checked as far as a machine without a GPU allows:

  make T [VAR=...]        `make -n T ...` must succeed (the target exists, the variables
                          parse); for `run` and `bench` in a chapter folder the command make
                          would run is then run too (below)
  build/bin/<program> ... run with every GPU hidden (CUDA_VISIBLE_DEVICES=""): the chapter
                          programs and benchmarks must reach their "no CUDA device" exit (3),
                          i.e. accept every flag shown (a bad flag exits 2); a test program
                          must list at least one test for the filter shown (--list-tests)
  compute-sanitizer ...   the program after it, as above
  ctest ARGS              `ctest -N ARGS` must find at least one test
  python3 SCRIPT [SUB]    the script exists, and SUB is one of its subcommands (`SUB --help`)
  $ command (with output) run, and its output must be the lines shown after it
  anything else           `bash -n`: it must at least parse (cmake, git, apt, ncu, ...)

And the prose, where facts drift:
  * every paragraph's parentheses balance (code spans and links aside);
  * no test count ("208 tests", "180/180 tests") outside a generated block: the count changes
    with every test added, so it belongs in generated text;
  * the generated build times (common/BUILD.md's table, the top README's short path) are what
    common/results/build_times.json says (common/scripts/build_times.py: the times are
    measured, never typed).

Python 3 standard library only. Exit status 0 when every command passed, 1 otherwise.
"""
import argparse
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
EXIT_NO_DEVICE = 3  # kExitNoDevice in common/chapter_main.hpp
COMMANDS = {"make", "cd", "ctest", "cmake", "compute-sanitizer", "ncu", "python3", "git",
            "sudo", "apt-get", "apt", "pip", "nvidia-smi", "export", "diff", "bash"}
# The chapters (common/chapters.txt): the folders whose README's commands run in that folder.
CHAPTERS = {line.split("#", 1)[0].split()[0]
            for line in (REPO / "common" / "chapters.txt").read_text().splitlines()
            if line.split("#", 1)[0].split()}
# Programs only a build with the CPU backend has (common/cpu_backend/README.md).
OPTIONAL = ("_cpu", "_analyze")
FENCE = re.compile(r"^```(\w*)\s*$")


def readmes():
    """Every page a reader is sent to: the READMEs, each chapter's other pages (05 and 06 teach
    in several), common/*.md and exercises/*.md; not the chapters' lab logs (lab/LOG.md)."""
    pages = sorted(p for c in CHAPTERS for p in (REPO / c).glob("*.md") if p.name != "README.md")
    found = [REPO / "README.md", *sorted(REPO.glob("*/README.md")), *pages,
             *sorted(REPO.glob("common/*.md")),
             *sorted(REPO.glob("common/*/README.md")), *sorted(REPO.glob("exercises/*.md"))]
    return [p for p in dict.fromkeys(found) if p.is_file()]


def home_of(path):
    """Where a page's commands run: a chapter's pages in its folder (its Makefile), every
    other page (the top README, common/*.md, exercises/*.md) at the top."""
    return path.parent if path.parent.parent == REPO and path.parent.name in CHAPTERS else REPO


def blocks(text):
    """(first line number, [lines]) of every fenced block marked sh/bash/shell or unmarked, and
    of every indented block (four spaces, after a blank line); notebook cells (ipython) as the
    shell lines they run."""
    out, current, start, lang = [], None, 0, ""
    indented, previous = None, ""
    for number, line in enumerate(text.splitlines(), start=1):
        fence = FENCE.match(line)
        if current is None and indented is not None:
            if line.startswith("    ") or not line.strip():
                indented[1].append(line[4:])
                previous = line
                continue
            out.append(indented)
            indented = None
        if fence and current is None:
            current, start, lang = [], number + 1, fence.group(1)
        elif line.startswith("```") and current is not None:
            if lang in ("", "sh", "bash", "shell", "console"):
                out.append((start, current))
            elif lang == "ipython":
                out.append((start, [notebook_line(l) for l in current]))
            current = None
        elif current is not None:
            current.append(line)
        elif line.startswith("    ") and line.strip() and not previous.strip():
            indented = (number, [line[4:]])
        previous = line
    if indented is not None:
        out.append(indented)
    return out


def notebook_line(line):
    """A notebook cell's line as the shell line it runs: `!cmd` is cmd, `%cd DIR` is cd DIR."""
    stripped = line.strip()
    if stripped.startswith("!"):
        return stripped[1:]
    if stripped.startswith("%cd "):
        return "cd " + stripped[4:]
    return line


def is_command(line):
    word = line.split(None, 1)[0] if line.strip() else ""
    return word in COMMANDS or "/bin/" in word


def commands(lines):
    """[(command, expected output or None)] of a block, or [] when it is not a command block.
    Continuation lines (a trailing backslash) are joined."""
    joined, buffer = [], ""
    for line in lines:
        if buffer:
            buffer += " " + line.strip()
        else:
            buffer = line.rstrip()
        if buffer.endswith("\\"):
            buffer = buffer[:-1].rstrip()
            continue
        joined.append(buffer)
        buffer = ""
    if buffer:
        joined.append(buffer)
    if any(line.startswith("$ ") for line in joined):  # a session: commands and their output
        result = []
        for line in joined:
            if line.startswith("$ "):
                result.append([line[2:], []])
            elif result:
                result[-1][1].append(line)
        return [(cmd, out) for cmd, out in result]
    meaningful = [line for line in joined if line.strip() and not line.lstrip().startswith("#")]
    if not meaningful or not all(is_command(line.strip()) for line in meaningful):
        return []
    return [(line.strip(), None) for line in meaningful]


def words_of(command):
    """The command's words, its trailing comment dropped (shell rules)."""
    return shlex.split(command, comments=True)


class Checker:
    def __init__(self, build_dir, verbose):
        self.build_dir = Path(build_dir).resolve()
        self.verbose = verbose
        self.env = dict(os.environ, CUDA_VISIBLE_DEVICES="", BUILD_DIR=str(self.build_dir))
        self.failures, self.counts = [], {}
        self.clones = set()  # folders a README's `git clone URL DIR` makes: this repository

    def run(self, argv, cwd, shell=False, timeout=120):
        proc = subprocess.run(argv, cwd=cwd, env=self.env, shell=shell, text=True,
                              executable="/bin/bash" if shell else None,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout)
        return proc.returncode, proc.stdout

    def program(self, path_word):
        """A build/bin/<program> word of a README, in this build folder."""
        name = path_word.split("/bin/", 1)[1]
        return self.build_dir / "bin" / name

    def check_program(self, words, cwd):
        exe = self.program(words[0])
        if not exe.is_file() and exe.name.endswith(OPTIONAL):
            return None  # built only with the CPU backend, which this build has not
        if not exe.is_file():
            return f"{exe} does not exist (not built, or renamed)"
        args = words[1:]
        if exe.name.endswith("_tests") or exe.name.endswith("_tests_cpu"):
            # Catch2 2.x exits with the number of tests listed, 3.x with 0.
            code, out = self.run([str(exe), *args, "--list-tests"], cwd)
            listed = re.search(r"(\d+) matching test case", out)
            if not listed or int(listed.group(1)) == 0:
                return f"lists no test for {' '.join(args) or 'no filter'} (exit {code}): " \
                       f"{out.strip()[-300:]}"
            return None
        code, out = self.run([str(exe), *args], cwd)
        if code not in (0, EXIT_NO_DEVICE):
            return f"exit {code} (a flag it does not accept?): {out.strip()[-300:]}"
        return None

    def check_make(self, words, cwd):
        code, out = self.run(["make", "-n", *words[1:]], cwd)
        if code != 0:
            return f"`make -n` fails: {out.strip()[-300:]}"
        targets = [w for w in words[1:] if "=" not in w and not w.startswith("-")]
        chapter = (Path(cwd) / "Makefile").is_file() and Path(cwd) != REPO
        if chapter and targets and targets[-1] in ("run", "bench"):
            line = next((l for l in reversed(out.splitlines()) if "/bin/" in l), None)
            if line is None:
                return "`make -n` shows no program to run"
            # What make would run, through the shell as make runs it (quoting included).
            code, out = self.run(line, cwd, shell=True)
            if code not in (0, EXIT_NO_DEVICE):
                return f"`{line}` exits {code}: {out.strip()[-300:]}"
        return None

    def check_python(self, words, cwd):
        script = Path(cwd) / words[1]
        if not script.is_file():
            return f"{words[1]} does not exist"
        # A script with subcommands: the one shown must exist (its --help exits 0).
        sub = next((w for w in words[2:] if not w.startswith("-")), None)
        argv = ["python3", str(script)] + ([sub] if sub and "add_subparsers" in
                                           script.read_text() else []) + ["--help"]
        code, out = self.run(argv, cwd)
        return None if code == 0 else f"`{' '.join(argv)}` exits {code}: {out.strip()[-300:]}"

    def check_session(self, command, expected, cwd):
        code, out = self.run(command, cwd, shell=True)
        got = [l.rstrip() for l in out.splitlines()]
        want = [l.rstrip() for l in expected]
        if code not in (0, 1) or got != want:  # diff exits 1 when it shows differences
            return f"output differs from the README:\n    got:  {got[:6]}\n    want: {want[:6]}"
        return None

    def check(self, command, expected, cwd):
        """(what was done, failure or None, the new cwd)."""
        words = words_of(command)
        if not words:
            return "comment", None, cwd
        head = words[0]
        if head == "git" and len(words) >= 4 and words[1] == "clone":
            self.clones.add(words[-1])  # (checked below: it must parse)
        if head == "cd" and len(words) == 2:
            new = REPO if words[1] in self.clones else (Path(cwd) / words[1]).resolve()
            return "cd", None if new.is_dir() else f"no folder {words[1]}", str(new)
        if expected is not None:
            return "run, output compared", self.check_session(command, expected, cwd), cwd
        if head == "make":
            return "make -n", self.check_make(words, cwd), cwd
        if head == "compute-sanitizer":
            program = next((i for i, w in enumerate(words) if "/bin/" in w), None)
            if program is None:
                return "compute-sanitizer", "names no build/bin program", cwd
            return "program", self.check_program(words[program:], cwd), cwd
        if "/bin/" in head:
            return "program", self.check_program(words, cwd), cwd
        if head == "ctest":
            code, out = self.run(["ctest", "-N", *words[1:]], cwd)
            total = re.search(r"Total Tests: (\d+)", out)
            failure = None
            optional = any("cpu" in w for w in words)  # the CPU backend's tests, if built
            if code != 0 or not total or (int(total.group(1)) == 0 and not optional):
                failure = f"`ctest -N` finds no test (exit {code}): {out.strip()[-300:]}"
            return "ctest -N", failure, cwd
        if head == "python3" and len(words) > 1 and words[1].endswith(".py"):
            return "python3 --help", self.check_python(words, cwd), cwd
        code, out = self.run(["bash", "-n", "-c", command], cwd)
        return "parsed", None if code == 0 else f"does not parse: {out.strip()}", cwd

    def readme(self, path):
        home = home_of(path)
        self.clones = set()  # a clone named in one README is no folder of another
        for start, lines in blocks(path.read_text()):
            cwd = str(home)
            for command, expected in commands(lines):
                try:
                    what, failure, cwd = self.check(command, expected, cwd)
                except subprocess.TimeoutExpired:
                    what, failure = "run", "timed out"
                self.counts[what] = self.counts.get(what, 0) + 1
                where = f"{path.relative_to(REPO)}:{start}"
                if failure:
                    self.failures.append(f"{where}: {command}\n    {failure}")
                if self.verbose or failure:
                    print(f"{'FAIL' if failure else 'ok  '} [{what}] {where}: {command}")


def paragraphs(text):
    """(first line number, text) of every prose paragraph: not code (fenced or indented), not a
    table, not a generated block, inline code spans and link targets removed."""
    out, current, start, fence, generated = [], [], 0, False, False
    for number, line in enumerate(text.splitlines() + [""], start=1):
        if line.startswith("<!-- BEGIN GENERATED"):
            generated = True
        if line.startswith("<!-- END GENERATED"):
            generated = False
            continue
        if line.startswith("```"):
            fence = not fence
        # An indented line right after prose continues it (a list item's wrapped lines):
        # in Markdown indented code cannot interrupt a paragraph.
        indented_code = line.startswith("    ") and not current
        prose = not (fence or generated or line.startswith("```") or indented_code
                     or line.lstrip().startswith(("|", "<!--")) or not line.strip())
        if prose:
            if not current:
                start = number
            current.append(line)
        elif current:
            out.append((start, " ".join(current)))
            current = []
    cleaned = []
    for start, paragraph in out:
        paragraph = re.sub(r"`[^`]*`", "", paragraph)
        paragraph = re.sub(r"\]\((?:[^()\s]|\([^()\s]*\))*\)", "]", paragraph)  # link targets
        cleaned.append((start, paragraph))
    return cleaned


TEST_COUNT = re.compile(r"\b\d[\d,]*(?:/\d[\d,]*)? tests\b")


def prose_problems(path):
    """Unbalanced parentheses and hand-written test counts in a README's prose."""
    problems = []
    name = path.relative_to(REPO) if path.is_relative_to(REPO) else path
    for start, paragraph in paragraphs(path.read_text()):
        depth, low = 0, 0
        for char in paragraph:
            depth += {"(": 1, ")": -1}.get(char, 0)
            low = min(low, depth)
        if depth or low < 0:
            problems.append(f"{name}:{start}: unbalanced parentheses in the "
                            f"paragraph starting {paragraph[:60]!r}")
        for count in TEST_COUNT.findall(paragraph):
            problems.append(f"{name}:{start}: a hand-written test count "
                            f"({count!r}): it drifts; say it in a generated block")
    return problems


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build-dir", default=os.environ.get("BUILD_DIR", str(REPO / "build")))
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args(argv)
    if not (Path(args.build_dir) / "bin").is_dir():
        print(f"error: {args.build_dir}/bin does not exist: build first (make check)")
        return 2
    checker = Checker(args.build_dir, args.verbose)
    for path in readmes():
        checker.readme(path)
        checker.failures += prose_problems(path)
        checker.counts["prose"] = checker.counts.get("prose", 0) + 1
    code, out = checker.run(["python3", str(REPO / "common" / "scripts" / "build_times.py"),
                             "check"], str(REPO))
    checker.counts["generated build times"] = 1
    if code != 0:
        checker.failures.append(f"build times: {out.strip()}")
    summary = ", ".join(f"{n} {what}" for what, n in sorted(checker.counts.items()))
    print(f"README commands: {summary}; {len(checker.failures)} failed")
    for failure in checker.failures:
        print("FAILED " + failure)
    return 1 if checker.failures else 0


if __name__ == "__main__":
    sys.exit(main())
