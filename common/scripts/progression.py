#!/usr/bin/env python3
"""The whole progression on one GPU: every chapter measured, then tables, plots and READMEs.

  progression.py run            runs build/bin/<chapter> --json for every chapter and size,
                                prints one table, writes common/results/progression.json/.csv
  progression.py table          prints that table again from the stored JSON
  progression.py refresh        rewrites progression.json/.csv from the stored runs and the
                                profile digests (common/results/inspect/): each GEMM row's %
                                roofline at the measured DRAM intensity where a digest covers
                                it, the model's (labelled) elsewhere; no GPU needed
  progression.py plots          roofline and progression charts (PNG and SVG) drawn by gnuplot
  progression.py readme-tables  fills the README blocks between
                                <!-- BEGIN GENERATED: NAME --> and <!-- END GENERATED: NAME -->
                                (NAME = results: the README's chapter; progression: every GEMM
                                kernel at every size; headline: each chapter's fastest kernel)

Python 3 standard library only: python3 ships with every Debian/Ubuntu system (`make deps`
installs it on minimal images), so the stored JSON turns into tables and plots on any machine,
GPU or not. The plots need gnuplot (Debian package gnuplot-nox, also in `make deps`).
The work is split by job: progression_results.py (the results document, the chapter list),
progression_measure.py (run), progression_tables.py (the console table, the README blocks) and
progression_plots.py (the pictures); this file is the command line.
"""
import argparse
import json
import sys
from pathlib import Path

from progression_digests import annotate_roofline
from progression_measure import measure
from progression_plots import make_plots
from progression_results import (CSV_FIELDS, DEFAULT_RESULTS, REPO, SCHEDULE, Failure,  # noqa: F401
                                 load_results, say, write_results)
from progression_tables import (chapter_markdown, fill_readme, headline_markdown,  # noqa: F401
                                md_cell, progression_markdown, readme_tables, text_table)


def parse_schedule(only, sizes):
    schedule = dict(SCHEDULE)
    for spec in sizes or []:
        chapter, _, values = spec.partition("=")
        if chapter not in schedule or not values:
            raise Failure(f"--sizes expects CHAPTER=N[,N...] with a chapter of "
                          f"{', '.join(schedule)}; got '{spec}'", 2)
        try:
            schedule[chapter] = [int(v) for v in values.split(",")]
        except ValueError:
            raise Failure(f"--sizes: '{values}' is not a list of integers", 2)
    if only:
        wanted = only.split(",")
        unknown = [c for c in wanted if c not in schedule]
        if unknown:
            raise Failure(f"--only: unknown chapter {', '.join(unknown)}", 2)
        return [(c, schedule[c]) for c in wanted]
    return list(schedule.items())


def keep_other_chapters(doc, stored, results_dir):
    """--keep-others: the new document with the stored one's runs of every chapter not measured
    now, in the schedule's order. Each run keeps its own date, GPU and ceilings; the stored runs
    must come from the same GPU model, or the tables and charts would mix two GPUs (then the new
    runs are saved beside, in progression.rejected.json, and the stored file is left as it is)."""
    if stored.get("gpu") != doc["gpu"]:
        rejected = Path(results_dir) / "progression.rejected.json"
        rejected.write_text(json.dumps(doc, indent=1) + "\n")
        raise Failure(f"--keep-others: the stored runs were measured on {stored.get('gpu')}, this "
                      f"run on {doc['gpu']}; nothing was merged (this run: {rejected}); run every "
                      "chapter (no --only) instead", 2)
    measured = {r["executable"] for r in doc["runs"]}
    order = {chapter: i for i, (chapter, _) in enumerate(SCHEDULE)}
    runs = [r for r in stored["runs"] if r.get("executable") not in measured] + doc["runs"]
    doc["runs"] = sorted(runs, key=lambda r: order.get(r.get("executable"), len(order)))
    bandwidths = [r["copy_bandwidth_gbs"] for r in doc["runs"] if r.get("copy_bandwidth_gbs")]
    doc["copy_bandwidth_gbs"] = max(bandwidths) if bandwidths else None
    if doc.get("l2_bandwidth_gbs") is None:
        doc["l2_bandwidth_gbs"] = stored.get("l2_bandwidth_gbs")
    doc["about"] += (" Measured on " + doc["date"] + ": " + ", ".join(sorted(measured))
                     + "; the other runs come from earlier ones (--keep-others), each with its "
                     "own date.")
    return doc


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="measure every chapter, print the table, write JSON and CSV")
    run.add_argument("--build-dir", default=str(REPO / "build"))
    run.add_argument("--results", default=str(DEFAULT_RESULTS),
                     help="folder for progression.json/.csv")
    run.add_argument("--only", help="comma-separated chapters, e.g. 02_tiled,03_bounds")
    run.add_argument("--sizes", action="append", metavar="CHAPTER=N[,N]",
                     help="sizes of one chapter instead of the schedule's")
    run.add_argument("--keep-others", action="store_true",
                     help="keep the stored runs of the chapters not measured now (with --only: "
                          "re-measure one chapter after changing it)")
    run.add_argument("extra", nargs="*",
                     help="after --: more flags for every executable (e.g. --iters 20)")
    for name, text in [("table", "print the table from the stored JSON"),
                       ("refresh", "rewrite progression.json/.csv from the stored runs and the "
                                   "profile digests (the measured roofline column; no GPU)"),
                       ("plots", "draw roofline.png/.svg and progression.png/.svg"),
                       ("readme-tables", "fill the generated blocks of every README")]:
        p = sub.add_parser(name, help=text)
        p.add_argument("--results", default=str(DEFAULT_RESULTS),
                       help="folder with progression.json")
        p.add_argument("--json", help="read this JSON file instead of RESULTS/progression.json")
        if name == "plots":
            p.add_argument("--out", help="folder for the images (default: the results folder)")
            p.add_argument("--size", type=int,
                           help="GEMM size the roofline shows (default: the smallest)")
        if name == "readme-tables":
            p.add_argument("--root", default=str(REPO), help="repository root holding the READMEs")
    args = parser.parse_args(argv)

    try:
        if args.command == "run":
            stored_path = Path(args.results) / "progression.json"
            # Read the stored runs first: a file that cannot be kept fails before minutes of runs.
            stored = (load_results(stored_path) if args.keep_others and stored_path.is_file()
                      else None)
            doc = measure(args.build_dir, parse_schedule(args.only, args.sizes), args.extra)
            if stored is not None:
                doc = keep_other_chapters(doc, stored, Path(args.results))
            annotate_roofline(doc, Path(args.results) / "inspect")
            json_path, csv_path = write_results(doc, args.results)
            sys.stdout.write(text_table(doc))
            say(f"wrote {json_path} and {csv_path}\n"
                "next: `make readme-tables` and `make plots` (gnuplot; any machine) to refresh "
                "the READMEs and the charts from them")
            return 1 if any(r.get("error") for r in doc["runs"]) else 0
        doc = load_results(args.json or Path(args.results) / "progression.json")
        if args.command == "refresh":
            annotate_roofline(doc, Path(args.results) / "inspect")
            for path in write_results(doc, args.results):
                print(f"wrote {path}")
            return 0
        if args.command == "table":
            sys.stdout.write(text_table(annotate_roofline(doc, Path(args.results) / "inspect")))
        elif args.command == "plots":
            for path in make_plots(doc, args.out or args.results, args.size):
                print(f"wrote {path}")
        elif args.command == "readme-tables":
            changed = readme_tables(doc, args.root)
            print("\n".join(f"updated {p}" for p in changed) or "every README was up to date")
        return 0
    except Failure as e:
        say(f"error: {e}")
        return e.code


if __name__ == "__main__":
    sys.exit(main())
