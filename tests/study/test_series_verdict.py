"""tests/study/test_series_verdict.py — Michel §6's verdict (scripts/study/results/michel_more.py): read from
the tested change in the prunable share (prune --share-change), not from a fixed threshold."""
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "scripts", "study"))
from results.michel_more import describe_change, series_verdict  # noqa: E402


def row(delta, low, high, p, significant):
    return {"order": "importance", "delta": str(delta), "delta_low": str(low), "delta_high": str(high),
            "p_value": str(p), "p_adjusted": str(p), "significant": significant}


class SeriesVerdict(unittest.TestCase):
    def test_a_significant_rise_reproduces(self):
        self.assertEqual(series_verdict(row(20, 10, 30, 0.004, "1"), 10)[:2][0], "reproduced")
        self.assertEqual(describe_change(row(20, 10, 30, 0.004, "1")), "+20 points [10, 30], p 0.004")

    def test_a_large_rise_without_significance_is_inconclusive(self):
        # 30 points, but an interval holding 0: the fixed 20-point rule would have called it reproduced.
        verdict, why, smallest = series_verdict(row(30, -10, 50, 0.2, "0"), 10)
        self.assertEqual(verdict, "inconclusive")
        self.assertIn("not significant", why)
        # The smallest detectable change: 2.8 standard errors, the interval's width / 3.92 each.
        self.assertEqual(smallest, "±43 points")

    def test_a_significant_fall_does_not_reproduce(self):
        self.assertEqual(series_verdict(row(-20, -30, -10, 0.001, "1"), 60)[0], "not reproduced")

    def test_no_test_is_no_verdict_for_the_paper(self):
        self.assertEqual(series_verdict(None, 10)[0], "not comparable")
        untested = {"order": "importance", "delta": "20", "delta_low": "", "delta_high": "", "p_value": "",
                    "p_adjusted": "", "significant": ""}
        self.assertEqual(series_verdict(untested, 10)[0], "not comparable")
        self.assertEqual(describe_change(untested), "+20 points")

    def test_an_early_plateau_is_named(self):
        verdict, why, _ = series_verdict(row(10, 0, 20, 0.3, "0"), 60)
        self.assertEqual(verdict, "inconclusive")
        self.assertIn("60 % are prunable after the first epoch already", why)


if __name__ == "__main__":
    unittest.main()
