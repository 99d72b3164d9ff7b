"""What grading produces: the console table, Gradescope's results.json, JUnit XML and, for
batch runs, a CSV roster."""

import csv
import json
import os
import xml.etree.ElementTree as ET


def fmt(x):
    """Points for people: 6, 4.5, 0.33."""
    text = f"{x:.2f}".rstrip("0").rstrip(".")
    return text if text != "-0" else "0"


def totals(results):
    score = sum(e.score for e in results)
    max_score = sum(e.max_score for e in results)
    pending = sum(e.pending_points for e in results)
    pending_tests = sum(1 for e in results for r in e.results if r.outcome.status == "pending")
    return score, max_score, pending, pending_tests


def _label(result):
    o = result.outcome
    if o.status == "pending":
        return "PEND"
    if o.status == "passed" and o.score >= result.max_score:
        return "PASS"
    if o.status == "passed":
        return "PART"
    return "FAIL"


def console(results, title="", verbose=False, width=100):
    """The table; its last line is `Score: X/Y`."""
    lines = []
    if title:
        lines.append(title)
    for er in results:
        e = er.exercise
        head = f"== {e.name}" + (f" (chapter {e.chapter})" if e.chapter else "")
        if er.on_cpu:
            head += " [GPU tests on the CPU backend]"
        if er.note:
            head += f" [{er.note}]"
        lines.append("")
        lines.append(head)
        for target, message in er.build_errors.items():
            lines.append(f"   {target} does not compile:")
            lines.extend("   | " + l for l in message.splitlines()[:25])
        for r in er.results:
            o = r.outcome
            points = (f"-/{fmt(r.max_score)}" if o.status == "pending"
                      else f"{fmt(o.score)}/{fmt(r.max_score)}")
            line = f"   {_label(r):<4} {points:>8}  {r.test.name}"
            if r.test.hidden:
                line += "  (hidden)"
            reason = o.reason if o.status == "failed" or (r.test.performance and
                                                          o.status == "passed") else ""
            if reason and not reason.endswith("does not compile"):
                line += f"\n{'':>17}{reason}"
            lines.append(line)
            if (verbose and o.status == "failed" and o.output and not er.build_errors.get(r.test.target)
                    and not o.reason.startswith("not implemented yet")):
                body = o.output.strip().splitlines()
                lines.extend("   | " + l for l in body[-60:])
    score, max_score, pending, pending_tests = totals(results)
    lines.append("")
    lines.append("Summary")
    lines.append(f"   {'exercise':<24} {'score':>8} {'max':>6} {'pending':>8}")
    for er in results:
        shown = fmt(er.score) if er.max_score or not er.pending_points else "-"
        lines.append(f"   {er.exercise.name:<24} {shown:>8} {fmt(er.max_score):>6} "
                     f"{fmt(er.pending_points) if er.pending_points else '':>8}")
    if pending_tests:
        reasons = sorted({r.outcome.reason for e in results for r in e.results
                          if r.outcome.status == "pending"})
        reasons = [r[len("pending: "):] if r.startswith("pending: ") else r for r in reasons]
        lines.append(f"Pending (not graded here, not counted): {fmt(pending)} points in "
                     f"{pending_tests} GPU test(s): {'; '.join(reasons)[:200]}")
    if any(er.on_cpu for er in results):
        lines.append("No GPU here: the GPU tests' correctness was checked on the CPU backend "
                     "(common/cpu_backend/); speed tests count on a GPU only.")
    lines.append(f"Score: {fmt(score)}/{fmt(max_score)}")
    return "\n".join(lines) + "\n"


def gradescope(results):
    """Gradescope's results.json. A pending test (no GPU on the grading machine) is listed with
    max_score 0 and says so in its name and output: it neither earns nor loses points."""
    tests = []
    for er in results:
        for r in er.results:
            o = r.outcome
            name = f"{er.exercise.name}: {r.test.name}"
            if o.status == "pending":
                tests.append({"name": name + " [pending: not graded, no GPU]", "score": 0,
                              "max_score": 0, "status": "failed",
                              "output": f"PENDING ({fmt(r.max_score)} points, not counted): "
                                        f"{o.reason.replace('pending: ', '', 1)}",
                              "visibility": r.test.visibility})
                continue
            output = o.reason
            if o.output and (o.status == "failed" or r.test.performance):
                output = (output + "\n\n" if output else "") + o.output
            if r.on_cpu:
                output = ("Run on the CPU backend (no GPU on the grading machine): "
                          "correctness only.\n" + output).rstrip("\n")
            tests.append({"name": name, "score": round(o.score, 4),
                          "max_score": r.max_score,
                          "status": "passed" if o.status == "passed" and o.score >= r.max_score
                          else "failed",
                          "output": output, "visibility": r.test.visibility})
    score, max_score, pending, pending_tests = totals(results)
    summary = f"Score: {fmt(score)}/{fmt(max_score)}"
    if pending_tests:
        summary += f" ({fmt(pending)} points in {pending_tests} GPU tests pending: no GPU)"
    if any(er.on_cpu for er in results):
        summary += "; GPU correctness tests run on the CPU backend"
    return {"score": round(score, 4), "output": summary, "tests": tests}


def junit(results, suite_prefix=""):
    root = ET.Element("testsuites")
    for er in results:
        suite = ET.SubElement(root, "testsuite", name=suite_prefix + er.exercise.name)
        failures = skipped = 0
        seconds = 0.0
        for r in er.results:
            o = r.outcome
            seconds += o.seconds
            case = ET.SubElement(suite, "testcase", classname=suite_prefix + er.exercise.name,
                                 name=r.test.name, time=f"{o.seconds:.3f}")
            props = ET.SubElement(case, "properties")
            ET.SubElement(props, "property", name="points", value=fmt(o.score))
            ET.SubElement(props, "property", name="max_points", value=fmt(r.max_score))
            if o.ratio is not None:
                ET.SubElement(props, "property", name="speed_ratio", value=f"{o.ratio:.4f}")
            if o.status == "pending":
                skipped += 1
                ET.SubElement(case, "skipped", message=o.reason)
            elif o.status == "failed":
                failures += 1
                failure = ET.SubElement(case, "failure", message=o.reason[:500])
                failure.text = o.output
            elif o.output and r.test.performance:
                ET.SubElement(case, "system-out").text = o.output
        suite.set("tests", str(len(er.results)))
        suite.set("failures", str(failures))
        suite.set("errors", "0")
        suite.set("skipped", str(skipped))
        suite.set("time", f"{seconds:.3f}")
    ET.indent(root) if hasattr(ET, "indent") else None
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"


def write_reports(results, json_path=None, junit_path=None, text=None, text_path=None):
    for path, content in ((json_path, lambda: json.dumps(gradescope(results), indent=2) + "\n"),
                          (junit_path, lambda: junit(results)),
                          (text_path, lambda: text)):
        if path:
            os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
            with open(path, "w", encoding="utf-8") as f:
                f.write(content())


def roster(rows, exercise_names, path):
    """rows: (student, results or None, note). One line per student."""
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["student", "score", "max"] + exercise_names + ["pending", "notes"])
        for student, results, note in rows:
            if results is None:
                w.writerow([student, "", ""] + [""] * len(exercise_names) + ["", note])
                continue
            by_name = {e.exercise.name: e for e in results}
            score, max_score, pending, _ = totals(results)
            w.writerow([student, fmt(score), fmt(max_score)]
                       + [fmt(by_name[n].score) if n in by_name else "" for n in exercise_names]
                       + [fmt(pending) if pending else "", note])


# ---------------------------------------------------------------------------------------------
# The points tables of the exercises' READMEs, generated from the manifest
# ---------------------------------------------------------------------------------------------

BEGIN_POINTS = "<!-- BEGIN GENERATED: points -->"
END_POINTS = "<!-- END GENERATED: points -->"


def points_table(exercise):
    lines = ["_Generated from `exercises/manifest.json` by `tools/grade.py readme`._", "",
             "| test | points | runs on |", "| --- | ---: | --- |"]
    for t in exercise.tests:
        if t.hidden:
            continue
        where = "GPU" if t.gpu else "host"
        if t.performance:
            where += f", speed: full from {t.full_at:g}x, none below {t.zero_at:g}x"
        lines.append(f"| {t.name} | {fmt(t.points)} | {where} |")
    total = sum(t.points for t in exercise.tests if not t.hidden)
    lines.append(f"| **total** | **{fmt(total)}** | |")
    return "\n".join(lines)


def readme_with_points(text, exercise):
    """The README text with its generated points table refreshed (None: no markers)."""
    return replace_between(text, BEGIN_POINTS, END_POINTS, points_table(exercise))


BEGIN_OVERVIEW = "<!-- BEGIN GENERATED: exercises -->"
END_OVERVIEW = "<!-- END GENERATED: exercises -->"


def overview_table(manifest):
    lines = ["| exercise | chapter | you write | runs on | points |",
             "| --- | --- | --- | --- | ---: |"]
    for e in manifest.exercises:
        tests = [t for t in e.tests if not t.hidden]
        gpu = sum(1 for t in tests if t.gpu)
        where = "host" if gpu == 0 else ("GPU" if gpu == len(tests)
                                         else f"GPU ({len(tests) - gpu} host test(s))")
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
