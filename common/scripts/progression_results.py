"""The results document of `make run` (common/results/progression.json): the chapter list it
is measured over, reading and writing it, and the small helpers every view of it shares.
Part of common/scripts/progression.py (see there); Python 3 standard library only."""
import csv
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DEFAULT_RESULTS = REPO / "common" / "results"


def read_schedule(path=REPO / "common" / "chapters.txt"):
    """[(chapter, [sizes])] from common/chapters.txt, the one list of chapters (M = N = K, or
    rows = cols for the transpose)."""
    schedule = []
    for line in path.read_text().splitlines():
        words = line.split("#", 1)[0].split()
        if words:
            schedule.append((words[0], [int(w) for w in words[1:]]))
    return schedule


SCHEDULE = read_schedule()

CSV_FIELDS = ["executable", "size", "problem", "gpu", "driver", "runtime", "date", "shape",
              "copy_bandwidth_gbs", "fp32_peak_gflops", "chapter", "kernel", "status",
              "median_ms", "min_ms", "max_ms", "rate", "rate_unit", "pct_of_ceiling", "ceiling",
              "intensity", "measured_intensity", "roofline_intensity", "pct_of_roofline",
              "pct_of_roofline_model", "occupancy", "limiter"]
HEADER_FIELDS = ["problem", "gpu", "driver", "runtime", "date", "shape", "copy_bandwidth_gbs",
                 "fp32_peak_gflops"]


class Failure(Exception):
    """A message for the user and the exit code that goes with it."""

    def __init__(self, message, code=1):
        super().__init__(message)
        self.code = code


def say(*parts):
    print(*parts, file=sys.stderr, flush=True)


def load_results(path):
    path = Path(path)
    if not path.is_file():
        raise Failure(f"{path} does not exist: run `make run` on a machine with a GPU first")
    try:
        doc = json.loads(path.read_text())
    except json.JSONDecodeError as e:
        raise Failure(f"{path} is not valid JSON: {e}")
    if not isinstance(doc.get("runs"), list):
        raise Failure(f"{path} has no \"runs\" list: not written by progression.py run")
    return doc


def flat_rows(doc):
    """Every row of every run, with its run's executable, size and header fields."""
    for run in doc["runs"]:
        for row in run.get("rows", []):
            yield {**{k: run.get(k) for k in ["executable", "size", *HEADER_FIELDS]}, **row}


def is_ceiling(row):
    return row.get("chapter") == "ceiling"


def is_gemm(row):
    """A GEMM's row, by its run's problem kind ("gemm", "transpose"; the executables report
    it). Results written before they did have no kind: there the unit tells."""
    if row.get("problem"):
        return row["problem"] == "gemm"
    return row.get("rate_unit") == "GFLOP/s"


def write_results(doc, results_dir):
    results_dir = Path(results_dir)
    results_dir.mkdir(parents=True, exist_ok=True)
    json_path, csv_path = results_dir / "progression.json", results_dir / "progression.csv"
    json_path.write_text(json.dumps(doc, indent=1) + "\n")
    with csv_path.open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=CSV_FIELDS, extrasaction="ignore")
        writer.writeheader()
        for row in flat_rows(doc):
            writer.writerow({k: "" if v is None else v for k, v in row.items()})
    return json_path, csv_path


def run_dates(doc):
    """The document's date when every chapter's runs began on one day (one `make run`, as a rule);
    else each day with its chapters (`run --keep-others` on a later day, or a run across
    midnight UTC): '2026-11-26 (01_naive, 02_tiled), 2026-11-27 (05_double_buffer)'."""
    chapters = {}  # day of a chapter's first run -> chapters, in the document's order
    for run in doc["runs"]:
        if run.get("date") and not any(run["executable"] in c for c in chapters.values()):
            chapters.setdefault(run["date"][:10], []).append(run["executable"])
    if len(chapters) <= 1:
        return doc["date"]
    return ", ".join(f"{date} ({', '.join(names)})" for date, names in sorted(chapters.items()))
