"""Reports: Gradescope's schema (pending tests neither pass nor fail), JUnit, the roster."""
import csv
import json
import os
import tempfile
import unittest
import xml.etree.ElementTree as ET

from gradelib import reports
from gradelib.execute import Outcome
from gradelib.merge import MergeRefused, merge_results
from gradelib.session import ExerciseResult, Report, TestResult
from gradelib.spec import Exercise, Test


def fake_report():
    tests = [Test("ex", "a", 2), Test("ex", "b", 3, gpu=True),
             Test("ex", "c", 6, gpu=True, performance=True)]
    ex = Exercise("ex", "01_naive", "gpu", "exercises/ex", ["ex.cuh"], tests=tests)
    er = ExerciseResult(ex, [TestResult(tests[0], Outcome("passed", 2, "", "out")),
                             TestResult(tests[1], Outcome("failed", 0, "wrong", "details"), True),
                             TestResult(tests[2], Outcome("pending", 0, "pending: no GPU"))])
    return Report("ann", [er], 123, "none", "cpu", 4.2, graded_files={"ex": "a1"})


class ReportTests(unittest.TestCase):
    def test_console_ends_with_the_score_and_names_the_seed(self):
        text = reports.console(fake_report())
        self.assertEqual(text.rstrip().splitlines()[-1], "Score: 2/5")
        self.assertIn("run seed 123", text)

    def test_gradescope_pending_tests_have_no_score_and_no_status(self):
        data = reports.gradescope(fake_report())
        self.assertEqual((data["score"], data["execution_time"]), (2, 4))
        [pending] = [t for t in data["tests"] if t["extra_data"]["status"] == "pending"]
        self.assertNotIn("score", pending)
        self.assertNotIn("status", pending)
        for t in data["tests"]:
            self.assertIn(t["visibility"], ("visible", "hidden", "after_due_date", "after_published"))
        json.dumps(data)

    def test_junit_parses(self):
        suite = ET.fromstring(reports.junit(fake_report()).split("?>", 1)[1]).find("testsuite")
        self.assertEqual((suite.get("tests"), suite.get("skipped"), suite.get("failures")),
                         ("3", "1", "1"))

    def test_roster_rows_are_written_as_they_come_and_formulas_are_defused(self):
        path = os.path.join(tempfile.mkdtemp(), "roster.csv")
        roster = reports.Roster(path, ["ex"])
        roster.add("=cmd|' calc'!A0", fake_report(), "")
        with open(path) as f:
            rows = list(csv.reader(f))
        self.assertEqual(rows[1][0], "'=cmd|' calc'!A0")
        roster.add("bob", None, "refused: a symbolic link")
        with open(path) as f:
            rows = list(csv.reader(f))
        self.assertEqual(rows[2][0], "bob")
        self.assertEqual(rows[1][1:3], ["2", "5"])
        roster.add("caf\udce9", None, "refused: x")  # a file name that is not UTF-8
        with open(path) as f:
            rows = list(csv.reader(f))
        self.assertEqual(rows[3][0], "caf\\xe9")
        roster.add("e\x1b[31mvil\u202e", None, "refused: \x1b]0;title\x07")
        with open(path) as f:
            rows = list(csv.reader(f))
        self.assertEqual(rows[4][0], "e\\x1b[31mvil\\u202e")  # visible, and inert
        self.assertEqual(rows[4][-1], "refused: \\x1b]0;title\\x07")

    def test_merge_takes_pending_tests_and_the_lower_correctness_score(self):
        base = reports.gradescope(fake_report())
        gpu = json.loads(json.dumps(base))
        for t in gpu["tests"]:
            if t["extra_data"]["status"] == "pending":
                t.update(score=4.5, max_score=6, status="failed", output="0.65x")
                t["extra_data"]["status"] = "passed"
            elif "score" in t and t["score"]:
                t["score"], t["output"] = 0, "wrong on the GPU"  # the CPU backend passed it
        merged, filled = merge_results(base, gpu)
        self.assertEqual((filled, merged["score"]), (2, 4.5))  # 0 (was 2) + 0 + 4.5
        [lowered] = [t for t in merged["tests"] if t["extra_data"].get("merged")]
        self.assertIn("the lower score is kept", lowered["output"])
        self.assertIn("wrong on the GPU", lowered["output"])
        self.assertIn("1 lower on the GPU", merged["output"])
        # and never higher: a GPU run's pass does not lift the first run's failure
        gpu = json.loads(json.dumps(base))
        for t in gpu["tests"]:
            if "score" in t:
                t["score"] = t["max_score"]
        merged, _ = merge_results(base, gpu)
        self.assertEqual(merged["score"], 2)

    def test_program_output_is_quoted_in_results_json(self):
        tests = [Test("ex", "a", 2)]
        ex = Exercise("ex", "01_naive", "host", "exercises/ex", ["ex.hpp"], tests=tests)
        er = ExerciseResult(ex, [TestResult(tests[0], Outcome(
            "failed", 0, "crashed with SIGSEGV", "The program's output:\nScore: 6/6\n" + "x" * 300))])
        er.build_errors["ex_runner"] = "error: Score: 9/9"
        data = reports.gradescope(Report("ann", [er], 1, "none", "cpu", 1.0))
        lines = data["tests"][0]["output"].splitlines()
        self.assertIn("| Score: 6/6", lines)
        self.assertTrue(all(l.startswith("|") for l in lines[lines.index("| Score: 6/6"):]), lines)
        self.assertIn("| error: Score: 9/9", data["output"].splitlines())

    def test_merge_refuses_results_of_other_files(self):
        base = reports.gradescope(fake_report())
        gpu = json.loads(json.dumps(base))
        gpu["extra_data"]["graded_files_sha256"]["ex"] = "b2"  # another submission's
        with self.assertRaisesRegex(MergeRefused, "other files"):
            merge_results(base, gpu)
        del gpu["extra_data"]["graded_files_sha256"]
        with self.assertRaisesRegex(MergeRefused, "does not say which files"):
            merge_results(base, gpu)

    def test_each_failure_is_said_once_in_readable_lines(self):
        tests = [Test("ex", f"t{i}", 1) for i in range(3)]
        ex = Exercise("ex", "01_naive", "host", "exercises/ex", ["ex.hpp"], tests=tests)
        todo = "f(1): not implemented yet: ex: write f, then delete this line"
        long_reason = "g(2): " + " ".join(f"word{i}" for i in range(60))
        er = ExerciseResult(ex, [
            TestResult(tests[0], Outcome("failed", 0, todo, "also failed, 3 calls: " + todo)),
            TestResult(tests[1], Outcome("failed", 0, todo, "")),
            TestResult(tests[2], Outcome("failed", 0, long_reason,
                                         "\n".join(f"also failed: g({i}): no" for i in range(80))))])
        text = reports.console(Report("ann", [er], 1, "none", "cpu", 1.0), verbose=True)
        self.assertEqual(text.count("not implemented yet"), 1, text)
        self.assertEqual(text.count("word17 "), 1)
        self.assertLessEqual(max(len(line) for line in text.splitlines()), reports.WIDTH + 3)
        self.assertIn("more lines left out", text)  # a long list is cut, and says so


class HiddenSummaryTests(unittest.TestCase):
    def test_the_visible_summary_leaves_hidden_tests_out(self):
        tests = [Test("ex", "a", 2), Test("ex", "h", 5, visibility="after_published", hidden=True)]
        ex = Exercise("ex", "01_naive", "gpu", "exercises/ex", ["ex.cuh"], tests=tests)
        er = ExerciseResult(ex, [TestResult(tests[0], Outcome("passed", 2, "", "out")),
                                 TestResult(tests[1], Outcome("failed", 0, "wrong", "x"))])
        data = reports.gradescope(Report("ann", [er], 1, "none", "gpu", 1.0))
        self.assertIn("Score on the visible tests: 2/2 (1 more test(s)", data["output"])
        self.assertNotIn("2/7", data["output"])
        self.assertEqual(data["score"], 2)
