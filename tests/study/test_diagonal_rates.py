"""tests/study/test_diagonal_rates.py — Bird-Eye Figure 3 over trained rates (scripts/study/results/
diagonal_rates.py): the least-squares slope and its exact permutation p against hand-worked cases."""
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "scripts", "study"))
from results.diagonal_rates import permutation_p, slope  # noqa: E402


class DiagonalRates(unittest.TestCase):
    def test_slope_by_hand(self):
        # x mean 0.5, y mean 2.5: Σ(x−x̄)(y−ȳ) = 0.75 + 0.25 + 0.25 + 0.75 = 2, Σ(x−x̄)² = 1.
        self.assertAlmostEqual(slope([0, 0, 1, 1], [1, 2, 3, 4]), 2.0)
        self.assertAlmostEqual(slope([0.2, 1, 2], [10, 10, 10]), 0.0)

    def test_permutation_p_by_hand(self):
        # The 6 distinct ways to give rate 1 to two of the runs 1, 2, 3, 4 have slopes (mean of the pair
        # minus mean of the rest) 2 ({3,4}), −2 ({1,2}), −1, 0, 0 and 1: two are as far from 0 as 2.
        self.assertAlmostEqual(permutation_p([0, 0, 1, 1], [1, 2, 3, 4]), 2 / 6)
        # Any arrangement is as extreme as a flat one.
        self.assertAlmostEqual(permutation_p([0, 0, 1, 1], [5, 5, 5, 5]), 1.0)

    def test_three_rates_three_runs(self):
        # Perplexity rising with the rate, each rate's runs apart from the others': the observed slope is the
        # largest of the 9! / (3! 3! 3!) = 1680 arrangements, and only it reaches its size.
        xs = [0.2] * 3 + [1.0] * 3 + [2.0] * 3
        ys = [170.0, 170.1, 170.2, 172.0, 172.1, 172.2, 175.0, 175.1, 175.2]
        self.assertGreater(slope(xs, ys), 0)
        self.assertAlmostEqual(permutation_p(xs, ys), 1 / 1680)


if __name__ == "__main__":
    unittest.main()
