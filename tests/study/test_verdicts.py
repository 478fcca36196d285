"""tests/study/test_verdicts.py — the one verdict rule (scripts/study/results/verdicts.py) fed each case the
reviewer named: unstarred rows judged alike, an interval holding the paper's effect is inconclusive, not
"not reproduced", a result on one trained model is no verdict on a method, and the tally counts claims."""
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "scripts", "study"))
from results import verdicts  # noqa: E402
from results.verdicts import detectable, inside, rule, tally  # noqa: E402


class Rule(unittest.TestCase):
    def test_same_effect_significant_reproduces(self):
        # diag_free_mask: the paper −0.8 %*, ours −1.2 % [−1.8 %, −0.7 %], Holm p 0.016.
        self.assertEqual(rule(-1, -1, True, inside(-0.8, -1.8, -0.7)), "reproduced")

    def test_unstarred_rows_are_judged_alike(self):
        # reduced_diag (−0.04 [−0.86, 0.77]) and magnified_diag (+1.38 [−0.80, 3.55]): both unstarred in the
        # paper, both not significant here: the same verdict, whichever way the point estimates lie.
        self.assertEqual(rule(0, -1, False), "consistent")
        self.assertEqual(rule(0, +1, False), "consistent")

    def test_an_interval_holding_the_papers_effect_is_inconclusive(self):
        # LAMA against the BiGRU on SST-5: +4.3 % [−7.7 %, +16.1 %] holds the paper's +2.0 to +12.2 %.
        self.assertEqual(rule(+1, +1, False, True), "inconclusive")
        self.assertEqual(rule(+1, -1, False, True), "inconclusive")
        # Where the sizes cannot be set on one scale (BLEU there, perplexity here): inconclusive too.
        self.assertEqual(rule(-1, -1, False, None), "inconclusive")

    def test_the_papers_size_outside_our_interval_is_not_reproduced(self):
        # bet_sf: the paper −2.9 %*, ours [−0.7 %, +0.3 %], not significant.
        self.assertEqual(rule(-1, -1, False, inside(-2.9, -0.7, 0.3)), "not reproduced")
        # Significant in the paper's direction but at another size is not the same effect either.
        self.assertEqual(rule(-1, -1, True, False), "not reproduced")

    def test_significant_the_other_way_is_not_reproduced(self):
        self.assertEqual(rule(+1, -1, True), "not reproduced")
        # Where the paper finds nothing, a significant effect here is not the paper's result either.
        self.assertEqual(rule(0, +1, True), "not reproduced")

    def test_directions_are_signs(self):
        with self.assertRaises(ValueError):
            rule(2, 1, True)


class Rows(unittest.TestCase):
    class Page:
        def __init__(self):
            self.verdicts = []

    def test_consistent_and_inconclusive_need_the_smallest_detectable_effect(self):
        page = self.Page()
        for verdict in ("consistent", "inconclusive"):
            with self.assertRaises(ValueError):
                verdicts.add(page, "Michel", "x", "theirs", "ours", verdict, "why")
        verdicts.add(page, "Michel", "x", "theirs", "ours", "consistent", "why", detectable_effect="±1")
        self.assertIn("smallest effect detectable here ±1", page.verdicts[0][5])

    def test_old_words_are_refused(self):
        with self.assertRaises(ValueError):
            verdicts.add(self.Page(), "Michel", "x", "t", "o", "refuted", "why")

    def test_detectable_by_hand(self):
        # [−0.86, 0.77]: width 1.63, standard error 1.63 / 3.92 = 0.416, 2.8 of them = 1.164; of 173.75, 0.67 %.
        self.assertEqual(detectable(-0.86, 0.77, unit="perplexity", reference=173.75), "±1.16 perplexity (0.7 %)")

    def test_one_trained_model_is_no_verdict_on_a_ranking_method(self):
        import tempfile
        from results.michel import order_test
        folder = tempfile.mkdtemp()
        with open(os.path.join(folder, "pruning_between.csv"), "w") as f:
            f.write("percent_pruned,metric_importance,metric_oracle,delta,delta_low,delta_high,p_value,p_adjusted,"
                    "significant\n10,180,175,5,3,7,0.001,0.009,1\n20,190,180,10,8,12,0.001,0.009,1\n")
        page = self.Page()
        page.path = lambda name: os.path.join(folder, name)
        page.add = lambda text="": None
        order_test(page, [], [])
        self.assertEqual(page.verdicts[0][4], "not comparable")  # was "refuted" on one LM and one seed


class Tally(unittest.TestCase):
    def test_rows_of_one_claim_count_once(self):
        rows = [("LAMA", f"row {i}", "", "", "inconclusive", "", "LAMA: above its baselines") for i in range(8)]
        rows.append(("Michel", "a", "", "", "reproduced", "", "Michel: a"))
        self.assertEqual(tally(rows), "2 claims (9 rows): 1 reproduced, 1 inconclusive.")

    def test_a_claim_whose_rows_disagree_is_named_mixed(self):
        rows = [("Bird-Eye", "all rates", "", "", "reproduced", "", "Figure 3"),
                ("Bird-Eye", "discount side", "", "", "not reproduced", "", "Figure 3")]
        self.assertEqual(tally(rows), "1 claims (2 rows): 1 mixed: Figure 3 (reproduced, not reproduced).")


if __name__ == "__main__":
    unittest.main()
