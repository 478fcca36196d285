"""tests/study/test_paired_timing.py — Michel Table 4's paired timing test (scripts/study/results/
paired_timing.py): Wilcoxon's exact null distribution, p, the Hodges–Lehmann estimate and its interval,
Holm, and the refusal below the minimum number of rounds, against hand-worked cases and published tables."""
import math
import os
import random
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "scripts", "study"))
from results.paired_timing import (MIN_UNITS, hodges_lehmann, holm, interval_rank, signed_rank_counts,  # noqa: E402
                                   signed_rank_p, signed_rank_statistic, speedups)


def rows(times):
    """pruning_speed.csv rows for batch 1 from (full seconds, pruned seconds) per round, 10 examples each."""
    out = []
    for round_, (full, pruned) in enumerate(times, start=1):
        out.append({"model": "full", "batch": "1", "round": str(round_), "examples": "10", "seconds": str(full)})
        out.append({"model": "pruned_50", "batch": "1", "round": str(round_), "examples": "10", "seconds": str(pruned)})
    return out


class SignedRank(unittest.TestCase):
    def test_null_distribution_by_hand(self):
        # Subsets of the ranks {1, 2, 3}: sums 0, 1, 2, 3 (twice: {3} and {1, 2}), 4, 5, 6.
        self.assertEqual(signed_rank_counts(3), [1, 1, 1, 2, 1, 1, 1])
        self.assertEqual(sum(signed_rank_counts(12)), 2 ** 12)

    def test_statistic_and_p_by_hand(self):
        # |d| ranks: 0.5 → 1, −1 → 2, 3 → 3; the positive ranks sum to 4.
        self.assertEqual(signed_rank_statistic([3.0, -1.0, 0.5]), 4)
        # All positive: only 1 of 2^n patterns is as high, and 1 as low.
        self.assertAlmostEqual(signed_rank_p([1.0, 2.0, 3.0]), 2 / 8)
        self.assertAlmostEqual(signed_rank_p([0.1 * k for k in range(1, 7)]), 2 / 64)
        # W = 4 of at most 6 for n = 3: P(W ≤ 4) = 6/8, P(W ≥ 4) = 3/8 → p = 6/8.
        self.assertAlmostEqual(signed_rank_p([3.0, -1.0, 0.5]), 6 / 8)

    def test_interval_rank_against_the_published_table(self):
        # Two-sided 0.05 critical values of Wilcoxon's T (reject when T ≤ c): n = 6 → 0, n = 10 → 8,
        # n = 20 → 52; the interval's k is c + 1. n = 5 has none (1/32 > 0.025).
        self.assertEqual(interval_rank(5), 0)
        self.assertEqual(interval_rank(6), 1)
        self.assertEqual(interval_rank(10), 9)
        self.assertEqual(interval_rank(20), 53)

    def test_hodges_lehmann_by_hand(self):
        # Walsh averages of 1, 2, 3: 1, 1.5, 2, 2, 2.5, 3 → median 2; n = 3 has no 95 % interval.
        self.assertEqual(hodges_lehmann([1.0, 2.0, 3.0]), (2.0, None, None))
        # Of −1, 2, 4: −1, 0.5, 1.5, 2, 3, 4 → median 1.75.
        self.assertAlmostEqual(hodges_lehmann([-1.0, 2.0, 4.0])[0], 1.75)
        # n = 6: k = 1, so the interval runs from the smallest difference to the largest.
        diffs = [0.3, -0.2, 0.5, 0.1, 0.4, 0.2]
        estimate, low, high = hodges_lehmann(diffs)
        self.assertEqual((low, high), (-0.2, 0.5))

    def test_interval_contains_its_estimate(self):
        generator = random.Random(7)
        for _ in range(200):
            n = generator.randint(6, 30)
            diffs = [generator.gauss(generator.uniform(-1, 1), generator.uniform(0.01, 2)) for _ in range(n)]
            estimate, low, high = hodges_lehmann(diffs)
            self.assertLessEqual(low, estimate)
            self.assertLessEqual(estimate, high)

    def test_holm_by_hand(self):
        # Sorted 0.01, 0.03, 0.04 → 3 × 0.01, max(0.03, 2 × 0.03), max(0.06, 1 × 0.04), in the given order.
        adjusted = holm([0.01, 0.04, 0.03])
        for got, want in zip(adjusted, [0.03, 0.06, 0.06]):
            self.assertAlmostEqual(got, want)


class Speedups(unittest.TestCase):
    def test_a_steady_speed_up(self):
        # The pruned model 10 % faster in every round: gain 0.1 exactly, an interval of that point, and the
        # smallest p the test can give with 20 rounds.
        result = speedups(rows([(1.1 * (1 + k / 100), 1.0 * (1 + k / 100)) for k in range(MIN_UNITS)]))[1]
        self.assertAlmostEqual(result["gain"], 0.1)
        self.assertAlmostEqual(result["low"], 0.1)
        self.assertAlmostEqual(result["high"], 0.1)
        self.assertAlmostEqual(result["p"], 2 / 2 ** MIN_UNITS)
        self.assertAlmostEqual(result["p_holm"], result["p"])
        # The median of the 20 rates: the mean of the 10th and 11th, rounds 10 and 11.
        self.assertAlmostEqual(result["full"], (10 / (1.1 * 1.09) + 10 / (1.1 * 1.10)) / 2)
        self.assertEqual(result["refusal"], "")

    def test_one_disturbed_round_does_not_carry_the_result(self):
        # Nineteen rounds with the pruned model 5 % slower; in one, the full model was held up 10 times over.
        times = [(1.0, 1.05)] * (MIN_UNITS - 1) + [(10.0, 1.05)]
        result = speedups(rows(times))[1]
        self.assertAlmostEqual(result["gain"], 1 / 1.05 - 1)
        self.assertLess(result["high"], 0)
        self.assertLess(result["p"], 0.001)

    def test_too_few_rounds_give_the_estimate_alone(self):
        result = speedups(rows([(1.2, 1.0)] * 5))[1]
        self.assertAlmostEqual(result["gain"], 0.2)
        self.assertEqual((result["low"], result["high"], result["p"], result["p_holm"]), (None, None, None, None))
        self.assertEqual(result["refusal"], f"5 paired rounds, fewer than {MIN_UNITS}: no interval")

    def test_a_round_missing_one_model_is_not_paired(self):
        table = rows([(1.2, 1.0)] * 3)
        table.append({"model": "full", "batch": "1", "round": "4", "examples": "10", "seconds": "9.0"})
        self.assertEqual(speedups(table)[1]["rounds"], 3)
        self.assertTrue(math.isclose(speedups(table)[1]["gain"], 0.2))


if __name__ == "__main__":
    unittest.main()
