#!/usr/bin/env python3
"""How long the set-up commands take, measured, and common/BUILD.md's table of them.

  build_times.py measure [--json FILE] [--steps a,b,...]   time them in a fresh clone of HEAD
  build_times.py readme [--json FILE]                      refill common/BUILD.md's "build-times" block
  build_times.py check [--json FILE]                       the block is what the JSON says (docs-test)

`measure` clones this repository's HEAD into a temporary folder and runs each step there, as a
student would after `git clone` and `make deps`, with ccache off (CCACHE_DISABLE=1) and no GPU
needed; the steps (STEPS) each start from a build folder of their own, except where said. It
writes the seconds, the test counts `make check` printed and the machine (cores, processor,
nvcc, CMake, load average) into common/results/build_times.json. The pages quote the times
only inside the generated block, so a number there is always one of a dated measurement.
Python 3 standard library only.
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
README = REPO / "common" / "BUILD.md"  # the page with the build-times block
BLOCK = re.compile(r"(<!-- BEGIN GENERATED: build-times -->[ \t]*\n)(.*?)(<!-- END GENERATED: build-times -->)",
                   re.S)

# name: (command, environment, what the table's row says)
STEPS = {
    "first-table": ("make -C 01_naive analyze", {},
                    "`make -C 01_naive analyze` right after the clone: configure, chapter 01's "
                    "analyzer, its table"),
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
    total = re.search(r"tests passed, (\d+) tests failed out of (\d+)", log_text)
    skipped = len(re.findall(r"\(Skipped\)", log_text))
    return {"tests": int(total.group(2)) if total else None,
            "failed": int(total.group(1)) if total else None, "skipped": skipped}


def measure(args):
    steps = args.steps.split(",") if args.steps else list(STEPS)
    unknown = [s for s in steps if s not in STEPS]
    if unknown:
        sys.exit(f"error: unknown step(s) {', '.join(unknown)}: {', '.join(STEPS)}")
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
            entry = {"command": command, "env": extra, "seconds": round(seconds, 1),
                     "cpu_seconds": round(cpu, 1)}
            if command.startswith("make check"):
                entry.update(test_counts(text))
            doc["steps"][name] = entry
            print(f"   {seconds:.1f} s ({cpu:.1f} s of CPU)", flush=True)
    old = json.loads(Path(args.json).read_text()) if Path(args.json).is_file() else {"steps": {}}
    old_steps = old.get("steps", {})
    old_steps.update(doc["steps"])  # a partial measurement keeps the other steps' rows
    doc["steps"] = {name: old_steps[name] for name in STEPS if name in old_steps}
    Path(args.json).write_text(json.dumps(doc, indent=2) + "\n")
    print(f"wrote {args.json}")


def duration(seconds):
    if seconds < 90:
        return f"{seconds:.0f} s"
    return f"{int(seconds // 60)} min {seconds % 60:02.0f} s"


def markdown(doc):
    m = doc["machine"]
    cores = m["cores"]
    lines = [f"Measured {doc['date']} at commit {doc['commit']} by "
             "`python3 common/scripts/build_times.py measure` (a fresh clone, ccache off) on "
             f"{cores} cores ({m['cpu']}), {m['nvcc']}, {m['cmake']}. The machine was shared "
             f"with other builds (load average {m['load_average']} at the start), so the wall "
             "times are long; the CPU time, divided by the cores, is what the command itself "
             "needs of them (its wall time on an idle machine is at least that):", "",
             f"| command | wall time | CPU time / {cores} |", "| --- | --: | --: |"]
    for name, step in doc["steps"].items():
        what = STEPS[name][2] if name in STEPS else step["command"]
        if step.get("tests"):
            what += f"; {step['tests']} tests, {step['skipped']} of them skipped"
        cpu = step.get("cpu_seconds")
        lines.append(f"| {what} | {duration(step['seconds'])} | "
                     f"{duration(cpu / cores) if cpu is not None else '-'} |")
    return "\n".join(lines) + "\n"


def load(path):
    if not Path(path).is_file():
        sys.exit(f"error: {path} does not exist: run `build_times.py measure` first")
    return json.loads(Path(path).read_text())


def fill(text, doc):
    if not BLOCK.search(text):
        sys.exit(f"error: {README} has no <!-- BEGIN GENERATED: build-times --> block")
    return BLOCK.sub(lambda m: m.group(1) + markdown(doc) + m.group(3), text)


def readme(args):
    text = README.read_text()
    new = fill(text, load(args.json))
    if new != text:
        README.write_text(new)
        print(f"wrote {README}")


def check(args):
    text = README.read_text()
    if fill(text, load(args.json)) != text:
        print("common/BUILD.md's build-times block is not what common/results/build_times.json says: "
              "run `python3 common/scripts/build_times.py readme` (never edit the block by hand)")
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
