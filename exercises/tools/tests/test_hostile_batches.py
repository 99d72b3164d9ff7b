"""The host corpus's split into batches (selftest/hostile.py, host_batches): every attack graded
once, and each attack that needs another graded before it in the same batch."""

import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "selftest"))
import hostile  # noqa: E402


class HostBatches(unittest.TestCase):
    def setUp(self):
        self.batches = dict(hostile.host_batches())
        self.host = [a for a in hostile.attacks() if a.target == hostile.HOST]

    def test_every_host_attack_in_exactly_one_batch(self):
        names = [a.name for a in self.host]
        graded = [n for batch in self.batches.values() for n in batch]
        self.assertEqual(sorted(graded), sorted(names))

    def test_pairs_stay_together(self):
        # The second of each pair looks for what the first left, or for its report.
        first = self.batches["1 of 2"]
        for before, after in (("tamper_plant", "tamper_read"), ("deep_tree", "deep_tree_read")):
            with self.subTest(before=before):
                self.assertEqual(before in first, after in first)
        # The borrower takes the control's results: it runs in a batch with controls, under
        # the control's name order (zz_control_solution before zz_control_solution_borrow).
        borrow = next(a for a in self.host if a.name == "borrow_results")
        self.assertGreater(borrow.student, "zz_control_solution")
        self.assertIn("borrow_results", first)

    def test_every_test_must_say_why_stays_on_the_long_budget(self):
        # A budget that cuts a test leaves a reason other than the idle watch's.
        for name in ("sleeper", "pipe_wait", "daemon", "spin_thread", "dozer", "template_bomb"):
            with self.subTest(name=name):
                self.assertIn(name, self.batches["1 of 2"])

    def test_second_batch_names_are_attacks(self):
        names = {a.name for a in self.host}
        self.assertTrue(set(hostile.HOST_SECOND_BATCH) <= names)
        # Its controls sort after every attacker (the budget goes back up for them).
        for name in hostile.HOST_SECOND_BATCH:
            student = next(a.student or a.name for a in self.host if a.name == name)
            self.assertLess(student, "zz_control_solution")


if __name__ == "__main__":
    unittest.main()
