"""`grade.py gradescope`: a missing output folder is one line, -e ships only the chosen
exercises' hidden tests, and the time budget fits inside Gradescope's timeout."""
import contextlib
import io
import json
import os
import shutil
import tempfile
import unittest
import zipfile

from gradelib import cli
from gradelib.gradescope import chosen_hidden, default_budget, make_autograder

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


class GradescopeTests(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="gradescope-test-")

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def test_a_missing_output_folder_is_one_line(self):
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            rc = cli.main(["gradescope", "-o", os.path.join(self.dir, "no", "such", "ag.zip")])
        self.assertEqual(rc, 2)
        self.assertEqual(len(err.getvalue().strip().splitlines()), 1, err.getvalue())
        self.assertIn("does not exist", err.getvalue())

    def test_unknown_exercise_is_one_line(self):
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            rc = cli.main(["gradescope", "-o", os.path.join(self.dir, "ag.zip"), "-e", "99z"])
        self.assertEqual(rc, 2)
        self.assertIn("unknown exercise", err.getvalue())

    def test_only_the_chosen_exercises_hidden_tests_ship(self):
        hidden = os.path.join(self.dir, "hidden.json")
        with open(hidden, "w") as f:
            json.dump({"exercises": [{"name": "03a_bounds", "tests": []},
                                     {"name": "06c_predict", "tests": []}]}, f)
        kept = json.loads(chosen_hidden(hidden, ["03a_bounds"]))
        self.assertEqual([e["name"] for e in kept["exercises"]], ["03a_bounds"])
        zip_path = os.path.join(self.dir, "ag.zip")
        make_autograder(ROOT, zip_path, ["03a_bounds"], hidden, "90", log=lambda m: None)
        with zipfile.ZipFile(zip_path) as z:
            shipped = json.loads(z.read("hidden/tests.json"))
            config = z.read("config.sh").decode()
        self.assertEqual([e["name"] for e in shipped["exercises"]], ["03a_bounds"])
        self.assertIn(f"BUDGET={int(default_budget(10))}", config)
        self.assertEqual(os.stat(zip_path).st_mode & 0o777, 0o600)  # the hidden tests are in it

    def test_the_default_budget_leaves_room_inside_gradescopes_timeout(self):
        for minutes in (10, 20, 40):
            budget = default_budget(minutes)
            self.assertLessEqual(budget, minutes * 60 - 120)
            self.assertGreaterEqual(budget, minutes * 60 * 0.75)
