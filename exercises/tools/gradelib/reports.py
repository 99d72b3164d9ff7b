"""What grading produces: the console table, Gradescope's results.json, JUnit XML, and for
batch runs a CSV roster written one row per student as each is graded."""

import csv
import json
import os
import re
import textwrap
import xml.etree.ElementTree as ET

from .submissions import shown_name

# Texts that never reach a report (the passphrase of the solutions, once the grader has read
# it): replaced wherever a report is written, whatever a submission managed to print.
_SECRETS = set()


def add_secret(text):
    if text and len(text) >= 8:
        _SECRETS.add(text)


def scrub(text):
    for secret in _SECRETS:
        if secret in text:
            text = text.replace(secret, "[a secret of the instructor's, left out]")
    return text


WIDTH = 100          # console lines are wrapped to this many columns
MAX_DETAIL_LINES = 60  # of a failing test's details in the console (the rest is counted)
_TODO = re.compile(r"not implemented yet: (.*)$")


def fmt(x):
    """Points for people: 6, 4.5, 0.33."""
    text = f"{x:.2f}".rstrip("0").rstrip(".")
    return text if text != "-0" else "0"


def _label(result):
    o = result.outcome
    if o.status == "pending":
        return "PEND"
    if o.status == "passed" and o.score >= result.max_score:
        return "PASS"
    if o.status == "passed" and o.score > 0:
        return "PART"
    return "FAIL"


def header(report):
    again = (getattr(report, "rerun", "") or "grade.py --seed {seed}").replace(
        "{seed}", str(report.seed))
    return [f"run seed {report.seed} ({again} draws the same shapes and data)",
            f"sandbox: {report.sandbox}"]


def _wrapped(text, indent, width=WIDTH):
    """Long lines of text wrapped at `width`, each line indented (paths and numbers are kept
    whole: a line breaks at spaces only)."""
    out = []
    for line in text.splitlines() or [""]:
        if len(indent) + len(line) <= width:  # short lines as they are (aligned output)
            out.append((indent + line).rstrip())
            continue
        out.extend(textwrap.wrap(line, width=width, initial_indent=indent,
                                 subsequent_indent=indent + "  ", break_long_words=False,
                                 break_on_hyphens=False) or [indent.rstrip()])
    return out


def console(report, title="", verbose=False):
    """The table; its last line is `Score: X/Y`. Each failure is said once: a test's reason
    under it (wrapped), then with `verbose` its other failed calls and what the program printed;
    a stub's "not implemented yet" once per exercise, not under every test."""
    lines = ([shown_name(title)] if title else []) + header(report) + report.notes
    for er in report.results:
        e = er.exercise
        head = f"== {e.name}" + (f" (chapter {e.chapter})" if e.chapter else "")
        if er.on_cpu:
            head += " [GPU tests on the CPU backend]"
        if er.note:
            head += f" [{er.note}]"
        lines += ["", head]
        for target, message in er.build_errors.items():
            lines.append(f"   {target} does not compile:")
            lines.extend("   | " + l for l in message.splitlines()[:25])
        todo_said = set()
        for r in er.results:
            o = r.outcome
            points = (f"-/{fmt(r.max_score)}" if o.status == "pending"
                      else f"{fmt(o.score)}/{fmt(r.max_score)}")
            line = f"   {_label(r):<4} {points:>8}  {r.test.name}"
            if r.test.hidden:
                line += "  (hidden)"
            lines.append(line)
            todo = _TODO.search(o.reason) if o.status == "failed" else None
            if todo:
                if todo.group(1) not in todo_said:
                    todo_said.add(todo.group(1))
                    lines.extend(_wrapped(f"not implemented yet: {todo.group(1)}", " " * 17))
                continue
            if o.reason and (o.status == "failed" or r.test.performance or
                             r.test.model is not None) \
                    and not o.reason.endswith("does not compile"):
                lines.extend(_wrapped(o.reason, " " * 17))
            if verbose and o.status == "failed" and o.output.strip() and \
                    not o.reason.endswith("does not compile"):
                shown = []
                for detail in o.output.strip("\n").splitlines():
                    shown.extend(_wrapped(detail, "   | ", WIDTH + 3))
                if len(shown) > MAX_DETAIL_LINES:
                    shown = shown[:MAX_DETAIL_LINES] + [
                        f"   | [... {len(shown) - MAX_DETAIL_LINES} more lines left out: "
                        f"--test '{r.test.name[:40]}' shows this test alone, --json all of it]"]
                lines.extend(shown)
    score, maximum, pending, pending_tests = report.totals()
    lines += ["", "Summary", f"   {'exercise':<24} {'score':>8} {'max':>6} {'pending':>8}"]
    for er in report.results:
        shown = fmt(er.score) if er.max_score or not er.pending_points else "-"
        lines.append(f"   {er.exercise.name:<24} {shown:>8} {fmt(er.max_score):>6} "
                     f"{fmt(er.pending_points) if er.pending_points else '':>8}")
    if pending_tests:
        reasons = sorted({r.outcome.reason.replace("pending: ", "", 1)
                          for e in report.results for r in e.results
                          if r.outcome.status == "pending"})
        lines.extend(_wrapped(f"Pending (not graded here, not counted): {fmt(pending)} points "
                              f"in {pending_tests} test(s): {'; '.join(reasons)}", ""))
    if any(er.on_cpu for er in report.results):
        lines.extend(_wrapped("No GPU here: the kernels' correctness was checked on the CPU "
                              "backend (common/cpu_backend/); speed counts on a GPU only.", ""))
    lines.append(f"Score: {fmt(score)}/{fmt(maximum)}")
    return scrub("\n".join(lines) + "\n")


def quoted(text, prefix="| "):
    """Text a program or a compiler wrote, every line behind a bar as in report.txt: nothing
    a submission prints can pass for the grader's own lines ("Score: 6/6")."""
    return "\n".join(prefix + line for line in text.strip("\n").splitlines())


def _test_output(r):
    """A test's text in results.json: what the grader says, wrapped, then the details and the
    program's output behind bars, as report.txt shows them (a wrapped line keeps its bar)."""
    o = r.outcome
    lines = []
    if r.test.model is not None:
        lines.append("Counted by the CPU backend's memory model (no GPU needed): the requests "
                     "your kernel's loads and stores would make on a GPU, and what each costs.")
    elif r.test.cpu_backend:
        lines.append("Run on the CPU backend wherever the grader runs, a GPU machine too: it "
                     "catches mistakes that a GPU's timing usually hides (the test's name says "
                     "which).")
    elif r.on_cpu:
        lines.append("Run on the CPU backend (no GPU on the grading machine): correctness only.")
    if o.reason:
        lines.append(o.reason)
    out = _wrapped("\n".join(lines), "")
    if o.output and (o.status == "failed" or r.test.performance or r.test.model is not None):
        out.append("")
        for line in o.output.strip("\n").splitlines():
            out.extend(_wrapped(line, "| ", WIDTH + 2))
    if o.notes:
        out.extend(_wrapped("\n".join(o.notes), ""))
    return "\n".join(out)  # Gradescope shows it as it is: readable lines


def gradescope(report):
    """Gradescope's results.json. A pending test (a speed test without a GPU) has no score
    and no status: it shows as information, never as a red failure, and is not counted."""
    tests = []
    for er in report.results:
        for r in er.results:
            o = r.outcome
            name = f"{er.exercise.name}: {r.test.name}"
            entry = {"name": name, "visibility": r.test.visibility,
                     "extra_data": {"exercise": er.exercise.name, "test": r.test.name,
                                    "status": o.status, "max_points": r.max_score}}
            if o.status == "pending" and o.reason.startswith("grader error"):
                entry["name"] = name + " [pending]"
                entry["output"] = (f"Pending: {fmt(r.max_score)} point(s) not graded: "
                                   f"{o.reason}")
            elif o.status == "pending":
                entry["name"] = name + " [pending]"
                entry["output"] = (f"Pending: {fmt(r.max_score)} point(s) not graded here "
                                   f"({o.reason.replace('pending: ', '', 1)}). They are added "
                                   f"when a GPU run's results are merged (grade.py merge).")
            else:
                entry["score"] = round(o.score, 4)
                entry["max_score"] = r.max_score
                entry["status"] = "passed" if o.status == "passed" and o.score >= r.max_score \
                    else "failed"
                entry["output"] = _test_output(r)
                if o.ratio is not None:
                    entry["extra_data"]["speed_ratio"] = round(o.ratio, 4)
            tests.append(entry)
    score, maximum, pending, pending_tests = report.totals()
    # The summary is shown to the student at once: it counts the visible tests only, so that
    # hidden tests' results stay hidden until they are published (the "score" field, which
    # counts everything, Gradescope shows by the assignment's own settings).
    shown = [r for er in report.results for r in er.results
             if r.test.visibility == "visible" and r.outcome.status != "pending"]
    seen_score = sum(r.outcome.score for r in shown)
    seen_max = sum(r.max_score for r in shown)
    unseen = sum(1 for er in report.results for r in er.results
                 if r.test.visibility != "visible")
    summary = "\n".join(header(report) + report.notes)
    if unseen:
        summary += (f"\nScore on the visible tests: {fmt(seen_score)}/{fmt(seen_max)} ({unseen} "
                    f"more test(s) are shown when the grades are published)")
    else:
        summary += f"\nScore: {fmt(score)}/{fmt(maximum)}"
    visible_pending = [r for er in report.results for r in er.results
                       if r.outcome.status == "pending" and r.test.visibility == "visible"]
    if visible_pending:
        summary += (f" ({fmt(sum(r.max_score for r in visible_pending))} points in "
                    f"{len(visible_pending)} test(s) pending: see each test)")
    if any(er.on_cpu for er in report.results):
        summary += "\nThe kernels' correctness was checked on the CPU backend (no GPU here)."
    for er in report.results:
        for target, message in er.build_errors.items():
            summary += f"\n\n{target} does not compile:\n{quoted(message)}"
    return {"score": round(score, 4), "execution_time": int(round(report.seconds)),
            "output": summary, "stdout_visibility": "hidden", "tests": tests,
            "extra_data": {"seed": report.seed, "pending_points": pending,
                           "backend": report.backend,
                           "graded_files_sha256": dict(report.graded_files)}}


def gradescope_failure(message, seconds=0):
    """results.json when grading itself failed: 0 points, and why (Gradescope shows it)."""
    return {"score": 0, "execution_time": int(round(seconds)),
            "output": "The autograder could not grade this submission:\n" + message +
                      "\nNothing was counted; please tell your instructor.",
            "tests": []}


def junit(report):
    root = ET.Element("testsuites")
    for er in report.results:
        suite = ET.SubElement(root, "testsuite", name=er.exercise.name)
        failures = skipped = 0
        seconds = 0.0
        for r in er.results:
            o = r.outcome
            seconds += o.seconds
            case = ET.SubElement(suite, "testcase", classname=er.exercise.name,
                                 name=r.test.name, time=f"{o.seconds:.3f}")
            props = ET.SubElement(case, "properties")
            ET.SubElement(props, "property", name="points", value=fmt(o.score))
            ET.SubElement(props, "property", name="max_points", value=fmt(r.max_score))
            if o.ratio is not None:
                ET.SubElement(props, "property", name="speed_ratio", value=f"{o.ratio:.4f}")
            if o.status == "pending":
                skipped += 1
                ET.SubElement(case, "skipped", message=o.reason)
            elif o.status == "failed" or o.score < r.max_score:
                failures += 1
                ET.SubElement(case, "failure", message=o.reason[:500]).text = o.output
            elif o.output and r.test.performance:
                ET.SubElement(case, "system-out").text = o.output
        suite.set("tests", str(len(er.results)))
        suite.set("failures", str(failures))
        suite.set("errors", "0")
        suite.set("skipped", str(skipped))
        suite.set("time", f"{seconds:.3f}")
    if hasattr(ET, "indent"):
        ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"


def write_file(path, text):
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(scrub(text))
    os.replace(tmp, path)


def write_reports(report, json_path=None, junit_path=None, text=None, text_path=None):
    if json_path:
        write_file(json_path, json.dumps(gradescope(report), indent=2) + "\n")
    if junit_path:
        write_file(junit_path, junit(report))
    if text_path and text is not None:
        write_file(text_path, text)


# ---------------------------------------------------------------------------------------------
# The roster
# ---------------------------------------------------------------------------------------------

def cell(value):
    """A CSV cell a spreadsheet will not run: text that starts like a formula gets a quote."""
    text = str(value)
    if text and text[0] in ("=", "+", "-", "@", "\t", "\r", "|", "%"):
        return "'" + text
    return text


class Roster:
    """grades/roster.csv, one row appended (and flushed to disk) per student."""

    def __init__(self, path, exercise_names):
        self.path = path
        self.names = exercise_names
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        with open(path, "w", newline="", encoding="utf-8") as f:
            csv.writer(f).writerow(["student", "score", "max"] + exercise_names +
                                   ["pending", "notes"])

    def add(self, student, report, note):
        student, note = shown_name(student), shown_name(note)
        if report is None:
            row = [student, "", ""] + [""] * len(self.names) + ["", note]
        else:
            by_name = {e.exercise.name: e for e in report.results}
            score, maximum, pending, _ = report.totals()
            notes = "; ".join(n for n in [note] + [f"{e.exercise.name}: {e.note}"
                                                   for e in report.results if e.note] if n)
            row = [student, fmt(score), fmt(maximum)] + \
                [fmt(by_name[n].score) if n in by_name else "" for n in self.names] + \
                [fmt(pending) if pending else "", notes]
        self._append(row)

    def add_merged(self, student, result, exercise_names, filled, note=""):
        """A row from a merged results.json (grade.py merge)."""
        per = {}
        maximum = 0.0
        for t in result.get("tests", []):
            extra = t.get("extra_data", {})
            per[extra.get("exercise")] = per.get(extra.get("exercise"), 0) + t.get("score", 0)
            maximum += t.get("max_score", 0)
        pending = result.get("extra_data", {}).get("pending_points", 0)
        lower = result.get("extra_data", {}).get("lower_on_gpu", [])
        said = note or (f"merged with the GPU run (lower of the two scores kept"
                        f"{': lower on the GPU: ' + '; '.join(lower[:3]) if lower else ''})")
        self._append([student, fmt(result.get("score", 0)), fmt(maximum)] +
                     [fmt(per.get(n, 0)) for n in exercise_names] +
                     [fmt(pending) if pending else "", shown_name(said)])

    def _append(self, row):
        # errors=: a file name that is not UTF-8 (os.listdir gives it surrogates) is written
        # escaped rather than lost.
        with open(self.path, "a", newline="", encoding="utf-8", errors="backslashreplace") as f:
            csv.writer(f).writerow([cell(c) for c in row])
            f.flush()
            os.fsync(f.fileno())


# ---------------------------------------------------------------------------------------------
# The points tables of the exercises' READMEs, generated from the tests
# ---------------------------------------------------------------------------------------------

# Its own block writer, not common/scripts/generated_blocks.py: the grader ships stdlib-only, alone.
BEGIN_POINTS = "<!-- BEGIN GENERATED: points -->"
END_POINTS = "<!-- END GENERATED: points -->"
BEGIN_OVERVIEW = "<!-- BEGIN GENERATED: exercises -->"
END_OVERVIEW = "<!-- END GENERATED: exercises -->"


def points_table(exercise):
    lines = ["_Generated from this folder's `tests.json` by `tools/grade.py readme`._", "",
             "| test | points | runs on |", "| --- | ---: | --- |"]
    for t in exercise.tests:
        if t.hidden:
            continue
        if t.performance:
            where = f"GPU, speed: full from {t.full_at:g}x, none below {t.zero_at:g}x"
        elif t.model is not None:
            where = "anywhere: the CPU backend's memory model"
        elif t.cpu_backend:
            where = "the CPU backend, on any machine"
        elif t.gpu:
            where = "GPU (or the CPU backend)" if exercise.kind == "gpu" else "GPU"
        else:
            where = "host"
        lines.append(f"| {t.name} | {fmt(t.points)} | {where} |")
    total = sum(t.points for t in exercise.tests if not t.hidden)
    lines.append(f"| **total** | **{fmt(total)}** | |")
    return "\n".join(lines)


def overview_table(manifest):
    lines = ["| exercise | chapter | you write | runs on | points |",
             "| --- | --- | --- | --- | ---: |"]
    for e in manifest.exercises:
        tests = [t for t in e.tests if not t.hidden]
        gpu = sum(1 for t in tests if t.gpu and t.model is None)
        model = sum(1 for t in tests if t.model is not None)
        host = len(tests) - gpu - model
        extra = [f"{host} host test(s)"] * bool(host) + [f"{model} memory-model test(s)"] * bool(model)
        where = "host" if gpu == 0 else "GPU" + (f" ({', '.join(extra)})" if extra else "")
        lines.append(f"| [{e.name}]({e.name}/) | {e.chapter} | {e.summary} | {where} | "
                     f"{fmt(sum(t.points for t in tests))} |")
    total = sum(t.points for e in manifest.exercises for t in e.tests if not t.hidden)
    lines.append(f"| **total** | | | | **{fmt(total)}** |")
    return "\n".join(lines)


def replace_between(text, begin, end, body):
    start, stop = text.find(begin), text.find(end)
    if start < 0 or stop < start:
        return None
    return text[:start + len(begin)] + "\n" + body + "\n" + text[stop:]

