#!/usr/bin/env python3
"""How long the set-up commands take, measured, and the pages' text about it.

  build_times.py measure [--json FILE] [--steps a,b,...]   time them in a fresh clone of HEAD
  build_times.py readme [--json FILE]                      refill the generated blocks (below)
  build_times.py check [--json FILE]                       the blocks are what the JSON says (docs-test)

`measure` clones this repository's HEAD into a temporary folder and runs each step there, as a
student would after `git clone` and `make deps`, with ccache off (CCACHE_DISABLE=1) and no GPU
needed; the steps (STEPS) each start from a build folder of their own, except chapter 01's
check, which follows the first table in its build folder as the README's short path does
(measuring it needs first-table in the same run). It writes the seconds, the test counts `make
check` printed and the machine (cores, processor, nvcc, CMake, load average) into
common/results/build_times.json. The pages quote the times only inside generated blocks
(common/BUILD.md's "build-times" table, the top README's "first-hour" lines), so a number
there is always one of a dated measurement. Python 3 standard library only.
"""
import argparse
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
JSON = REPO / "common" / "results" / "build_times.json"
# The pages and their blocks: common/BUILD.md's table, the top README's short path and whole check.
PAGES = {REPO / "common" / "BUILD.md": "build-times", REPO / "README.md": "first-hour"}

# name: (command, environment, what the table's row says)
STEPS = {
    "first-table": ("make -C 01_naive analyze", {},
                    "`make -C 01_naive analyze` right after the clone: configure, chapter 01's "
                    "analyzer, its table"),
    "first-check": ("make -C 01_naive check", {},
                    "then `make -C 01_naive check` in the same build folder: chapter 01's "
                    "programs and tests, its kernels on the CPU backend"),
    "chapter-01-gpu": ("make -C 01_naive check BUILD_DIR=build-gpu "
                       "CMAKE_FLAGS=-DTUTORIAL_CPU_BACKEND=OFF", {"CUDAARCHS": "75"},
                       "`make -C 01_naive check` as on a GPU machine (Colab: sm_75, CPU backend "
                       "off; its GPU tests skipped here)"),
    "check": ("make check BUILD_DIR=build-check", {"CUDAARCHS": "80-real;90"},
              "`make check`: everything, every test (the CPU backend on, as without a GPU)"),
    "arch-check": ("make arch-check", {}, "`make arch-check`: every chapter and exercise stub "
                   "for seven architectures"),
}


def run(command, cwd, env, log):
    """(exit code, wall seconds, CPU seconds of everything it ran: user + system)."""
    start, before = time.monotonic(), resource.getrusage(resource.RUSAGE_CHILDREN)
    with open(log, "w", encoding="utf-8") as out:
        done = subprocess.run(command, shell=True, cwd=cwd, env=env, stdout=out,
                              stderr=subprocess.STDOUT)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return done.returncode, time.monotonic() - start, cpu


def version(argv):
    """The first line of a tool's --version (nvcc: its last, "Cuda compilation tools, ...")."""
    try:
        text = subprocess.run(argv + ["--version"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              text=True).stdout
    except OSError:
        return "?"
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if not lines:
        return "?"
    return lines[-2] if "nvcc" in argv[0] and len(lines) > 1 else lines[0]


def machine():
    cpu = "?"
    try:
        cpu = next(line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo")
                   if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    nvcc = "nvcc" if shutil.which("nvcc") else "/usr/local/cuda/bin/nvcc"
    return {"cores": os.cpu_count(), "cpu": cpu, "nvcc": version([nvcc]),
            "cmake": version(["cmake"]), "load_average": round(os.getloadavg()[0], 1)}


def test_counts(log_text):
    """The counts of make check's closing line (common/make/skip_reasons.py)."""
    line = re.findall(r"^check: (\d+) passed, (\d+) skipped.*, (\d+) failed$", log_text, re.M)
    if not line:
        return {"tests": None, "failed": None, "skipped": None}
    passed, skipped, failed = map(int, line[-1])
    closing = re.findall(r"^check: \d+ passed.*$", log_text, re.M)[-1]
    return {"tests": passed + skipped + failed, "failed": failed, "skipped": skipped,
            "closing_line": closing}


def measure(args):
    steps = args.steps.split(",") if args.steps else list(STEPS)
    unknown = [s for s in steps if s not in STEPS]
    if unknown:
        sys.exit(f"error: unknown step(s) {', '.join(unknown)}: {', '.join(STEPS)}")
    if "first-check" in steps and "first-table" not in steps:
        sys.exit("error: first-check follows first-table in its build folder: measure both")
    steps = [name for name in STEPS if name in steps]  # in the order of the short path
    commit = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"],
                            stdout=subprocess.PIPE, text=True).stdout.strip()
    doc = {"date": datetime.now(timezone.utc).strftime("%Y-%m-%d"), "commit": commit,
           "machine": machine(), "steps": {}}
    with tempfile.TemporaryDirectory(prefix="build-times-") as tmp:
        clone = Path(tmp) / "clone"
        subprocess.run(["git", "clone", "-q", str(REPO), str(clone)], check=True)
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("CCACHE", "CMAKE_", "CUDAARCHS", "MAKE"))}
        env["CCACHE_DISABLE"] = "1"
        for name in steps:
            command, extra, _ = STEPS[name]
            log = Path(tmp) / f"{name}.log"
            print(f"== {name}: {command}", flush=True)
            code, seconds, cpu = run(command, clone, dict(env, **extra), log)
            text = log.read_text(errors="replace")
            if code != 0:
                print(text[-3000:])
                sys.exit(f"error: {name} failed (exit {code}); nothing written")
            # When and where, per step: a partial measurement keeps the other steps' rows.
            entry = {"command": command, "env": extra, "seconds": round(seconds, 1),
                     "cpu_seconds": round(cpu, 1), "date": doc["date"], "commit": commit,
                     "cpu": doc["machine"]["cpu"], "load_average": round(os.getloadavg()[0], 1)}
            if " check" in command:
                entry.update(test_counts(text))
            doc["steps"][name] = entry
            print(f"   {seconds:.1f} s ({cpu:.1f} s of CPU)", flush=True)
    old = json.loads(Path(args.json).read_text()) if Path(args.json).is_file() else {"steps": {}}
    old_steps = old.get("steps", {})
    for step in old_steps.values():  # rows of an older file: their own date, commit and machine
        for key, value in (("date", old.get("date")), ("commit", old.get("commit")),
                           ("cpu", old.get("machine", {}).get("cpu")),
                           ("load_average", old.get("machine", {}).get("load_average"))):
            step.setdefault(key, value)
    old_steps.update(doc["steps"])  # a partial measurement keeps the other steps' rows
    doc["steps"] = {name: old_steps[name] for name in STEPS if name in old_steps}
    Path(args.json).write_text(json.dumps(doc, indent=2) + "\n")
    print(f"wrote {args.json}")


def duration(seconds):
    if seconds < 90:
        return f"{seconds:.0f} s"
    return f"{int(seconds // 60)} min {seconds % 60:02.0f} s"


def first_hour(doc):
    """The top README's lines: the short path's two commands and the whole check."""
    steps, m = doc["steps"], doc["machine"]
    when = {when_of(doc, step) for step in steps.values()}

    def took(name):
        if name not in steps:
            return "(not measured)"
        text = duration(steps[name]["seconds"])
        return text if len(when) == 1 else f"{text} ({when_of(doc, steps[name])})"
    text = (f"Measured on {m['cores']} cores without a GPU, from a fresh clone (common/BUILD.md"
            f"{': ' + next(iter(when)) if len(when) == 1 else ''}): the first table "
            f"{took('first-table')}, then chapter 01's check {took('first-check')}; the whole "
            f"`make check` {took('check')}.\n")
    closing = steps.get("first-check", {}).get("closing_line")
    if closing:  # what a student's chapter 01 check ends with, as that run printed it
        text += f"Chapter 01's check ended with:\n\n```console\n{closing}\n```\n"
    return text


def when_of(doc, step, machine=False):
    """'2026-11-29, commit abc1234' (and the processor): the step's own, else the document's."""
    text = f"{step.get('date', doc['date'])}, commit {step.get('commit', doc['commit'])}"
    return text + (f", {step.get('cpu', doc['machine']['cpu'])}" if machine else "")


def markdown(doc):
    m = doc["machine"]
    cores = m["cores"]
    steps = doc["steps"]
    when = {when_of(doc, step, machine=True) for step in steps.values()}
    loads = sorted({step.get("load_average", m["load_average"]) for step in steps.values()})
    load = f"{loads[0]}" if len(loads) == 1 else f"{loads[0]} to {loads[-1]}"
    one_run = len(when) == 1
    lines = [f"Measured {'at ' + next(iter(when)).rsplit(', ', 1)[0] + ' ' if one_run else ''}by "
             "`python3 common/scripts/build_times.py measure` (a fresh clone, ccache off) on "
             f"{cores} cores{' (' + m['cpu'] + ')' if one_run else ''}, {m['nvcc']}, {m['cmake']}. "
             + (f"The machine was shared with other builds (load average {load} as each step "
                "started), so the wall times are long; " if loads[-1] > cores else
                f"Load average {load} as each step started; ") +
             "the CPU time, divided by the cores, is what the command itself "
             "needs of them (its wall time on an idle machine is at least that):", "",
             f"| command | wall time | CPU time / {cores} |" + ("" if one_run else " measured |"),
             "| --- | --: | --: |" + ("" if one_run else " --- |")]
    for name, step in steps.items():
        what = STEPS[name][2] if name in STEPS else step["command"]
        if step.get("tests"):
            what += f"; {step['tests']} tests, {step['skipped']} of them skipped"
        cpu = step.get("cpu_seconds")
        lines.append(f"| {what} | {duration(step['seconds'])} | "
                     f"{duration(cpu / cores) if cpu is not None else '-'} |" +
                     ("" if one_run else f" {when_of(doc, step, machine=True)} |"))
    return "\n".join(lines) + "\n"


def load(path):
    if not Path(path).is_file():
        sys.exit(f"error: {path} does not exist: run `build_times.py measure` first")
    return json.loads(Path(path).read_text())


def fill(page, text, doc):
    name = PAGES[page]
    block = re.compile(rf"(<!-- BEGIN GENERATED: {name} -->[ \t]*\n)(.*?)(<!-- END GENERATED: {name} -->)",
                       re.S)
    if not block.search(text):
        sys.exit(f"error: {page} has no <!-- BEGIN GENERATED: {name} --> block")
    content = markdown(doc) if name == "build-times" else first_hour(doc)
    return block.sub(lambda m: m.group(1) + content + m.group(3), text)


def readme(args):
    doc = load(args.json)
    for page in PAGES:
        text = page.read_text()
        new = fill(page, text, doc)
        if new != text:
            page.write_text(new)
            print(f"wrote {page}")


def check(args):
    doc = load(args.json)
    stale = [str(page.relative_to(REPO)) for page in PAGES
             if fill(page, page.read_text(), doc) != page.read_text()]
    if stale:
        print(f"the generated build times of {', '.join(stale)} are not what "
              "common/results/build_times.json says: run `python3 common/scripts/build_times.py "
              "readme` (never edit the blocks by hand)")
        return 1
    return 0


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    for name, func in (("measure", measure), ("readme", readme), ("check", check)):
        p = sub.add_parser(name)
        p.add_argument("--json", default=str(JSON))
        if name == "measure":
            p.add_argument("--steps", help=f"comma-separated, of: {', '.join(STEPS)}")
        p.set_defaults(func=func)
    args = parser.parse_args(argv)
    return args.func(args) or 0


if __name__ == "__main__":
    sys.exit(main())
