"""tests/study/test_write_results.py — the report (scripts/study/write_results.py) written from a small fixed set
of CSVs (tests/study/fixtures/results/, cut from a real run; one head's p changed so that Michel's rule and
Holm's disagree): each table it prints is checked line by line against the CSV it reads, and the
side-by-side rows' verdicts against the rule."""
import os
import re
import sys
import tempfile
import unittest

HERE = os.path.dirname(__file__)
sys.path.insert(0, os.path.join(HERE, "..", "..", "scripts", "study"))
from results.report import Report  # noqa: E402
from results.inputs import read_csv  # noqa: E402

FIXTURES = os.path.join(HERE, "fixtures", "results")


def number(cell):
    """A printed number back to a float: real minus signs, thousands separators and a trailing % dropped."""
    return float(cell.replace("−", "-").replace(",", "").replace("%", "").strip())


def tables_after(page, marker):
    """The rows (lists of cells) of the first Markdown table after the line that starts with marker."""
    lines = page.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(marker))
    rows, inside = [], False
    for line in lines[start + 1:]:
        if line.startswith("|"):
            inside = True
            rows.append([c.strip() for c in line.strip().strip("|").split("|")])
        elif inside:
            break
    return rows[0], rows[2:]  # header, body (after the |---| line)


def table_with_header(page, header):
    """The body rows of the table whose header line starts with header."""
    lines = page.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(header))
    rows = []
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        rows.append([c.strip() for c in line.strip().strip("|").split("|")])
    return rows


class WrittenPage(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        out = tempfile.NamedTemporaryFile(suffix=".md", delete=False)
        out.close()
        cls.report = Report(FIXTURES, out.name, samples=os.path.join(HERE, "no-samples"), mode="full", seconds=60)
        cls.report.write()
        with open(out.name, encoding="utf-8") as f:
            cls.page = f.read()
        os.unlink(out.name)

    def close(self, printed, value, digits=2):
        self.assertAlmostEqual(number(printed), float(value), delta=0.51 * 10 ** -digits, msg=printed)

    def test_michel_table1_rows_are_the_csv_rows(self):
        _, csv = read_csv(os.path.join(FIXTURES, "michel_single.csv"))
        header, rows = tables_after(self.page, "### Table 1: each head switched off alone")
        self.assertEqual(header[:2], ["layer", "head"])
        self.assertEqual(len(rows), len(csv))
        for printed, r in zip(rows, csv):
            self.assertEqual(printed[:2], [r["layer"], r["head"]])
            self.close(printed[2], r["metric"])
            self.close(printed[3], r["delta"])
            low, high = printed[4].strip("[]").split(", ")
            self.close(low, r["delta_low"])
            self.close(high, r["delta_high"])
            self.assertEqual(printed[7], "yes" if r["significant"] == "1" else "no")
            self.assertEqual(printed[8], "yes" if float(r["p_value"]) < 0.01 else "no")

    def test_michel_rule_and_holm_are_both_counted(self):
        # 3 of the 4 heads pass p < 0.01 uncorrected; Holm's column says the same 3 (the fourth has p 0.02).
        self.assertIn("**Michel's own rule** (p < 0.01 per head, uncorrected): 3 of 4 heads", self.page)
        row = self.side_by_side("Table 1: heads that matter alone")
        self.assertIn("3 of 4 significant at p < 0.01 uncorrected (3 with Holm at 0.05)", row[3])
        self.assertEqual(row[4], "**not reproduced**")  # most heads matter alone, where the paper finds most do not

    def test_table2_summary_and_tests_are_the_csvs(self):
        _, summary = read_csv(os.path.join(FIXTURES, "table2_summary.csv"))
        body = table_with_header(self.page, "| variant | runs | test perplexity, mean ± sd |")
        self.assertEqual([r[0] for r in body], [r["variant"] for r in summary])
        for printed, r in zip(body, summary):
            mean, sd = printed[2].split(" ± ")
            self.close(mean, r["mean"])
            self.close(sd, r["sd"])
        _, tests = read_csv(os.path.join(FIXTURES, "table2_tests.csv"))
        rows = table_with_header(self.page, "| variant vs `vanilla` | difference in mean perplexity |")
        self.assertEqual([r[0] for r in rows], [t["second"] for t in tests])
        for printed, t in zip(rows, tests):
            # The page turns each test round to variant − vanilla: the CSV holds vanilla − variant.
            self.close(printed[1], -float(t["difference"]))
            low, high = printed[2].strip("[]").split(", ")
            self.close(low, -float(t["ci_high"]))
            self.close(high, -float(t["ci_low"]))
            self.close(printed[4], t["p_value"], 3)
            self.close(printed[5], t["p_holm"], 3)

    def test_figure3_rows_are_the_csv_rows(self):
        _, csv = read_csv(os.path.join(FIXTURES, "figure3_vanilla_lm.csv"))
        _, rows = tables_after(self.page, "### `vanilla_lm` (baseline perplexity")
        self.assertEqual([r[0] for r in rows], [r["factor"] for r in csv])
        for printed, r in zip(rows, csv):
            self.close(printed[1], r["metric"])
            self.close(printed[2], r["delta"])

    def test_lama_parameters_and_their_ratios(self):
        _, csv = read_csv(os.path.join(FIXTURES, "lama_parameters.csv"))
        paper = {(r["model"], int(r["heads"])): r for r in csv if r["setting"] == "paper"}
        _, rows = tables_after(self.page, "### LAMA §5.1 (Table 5)")
        self.assertEqual([int(r[0]) for r in rows], [2, 4, 8, 16, 32, 64])
        for printed in rows:
            lama, encoder = paper[("lama", int(printed[0]))], paper[("encoder_classifier", int(printed[0]))]
            self.assertEqual(number(printed[1]), int(lama["parameters"]))
            self.assertEqual(number(printed[2]), int(encoder["parameters"]))
            table = int(lama["vocabulary"]) * int(lama["embedding_dim"])
            self.assertEqual(number(printed[4]), int(lama["parameters"]) - table)
            self.close(printed[6], (int(encoder["parameters"]) - table) / (int(lama["parameters"]) - table))
        self.assertEqual(self.side_by_side("§5.1 / Table 5")[4], "**not reproduced**")

    def test_side_by_side_verdicts_follow_the_rule(self):
        # Starred in the paper, −2.9 %; ours −0.2 % [−0.7 %, 0.3 %]: the paper's size lies outside our interval.
        self.assertEqual(self.side_by_side("Table 2 (WikiText-2): `bet_sf` against the Transformer")[4], "**not reproduced**")
        # Unstarred in the paper, ours not significant: consistent, with the smallest detectable effect.
        for variant in ("reduced_diag", "magnified_diag"):
            row = self.side_by_side(f"Table 2 (WikiText-2): `{variant}` against")
            self.assertEqual(row[4], "**consistent**")
            self.assertIn("smallest effect detectable here ±", row[5])
        self.assertEqual(self.side_by_side("Table 2 (WikiText-2): `diag_free_mask` against")[4], "**reproduced**")
        # The mask's own effect: −2.03 [−3.39, −0.67], p 0.017, holding the paper's −1.0 %.
        self.assertEqual(self.side_by_side("Table 2 (WikiText-2): `bet_sf` against `bet_sf_no_mask`")[4],
                         "**reproduced**")

    def test_the_tally_counts_claims(self):
        claims = {row[6] for row in self.report.verdicts}
        line = next(line for line in self.page.splitlines() if line.startswith("Verdicts, counted by claim"))
        self.assertIn(f"{len(claims)} claims ({len(self.report.verdicts)} rows)", line)
        counted = sum(int(n) for n in re.findall(r"(\d+) (?:reproduced|consistent|inconclusive|not reproduced|"
                                                  r"not comparable|mixed)", line.split("rows): ")[1]))
        self.assertEqual(counted, len(claims))

    def side_by_side(self, artefact):
        _, rows = tables_after(self.page, "## The papers side by side")
        found = [r for r in rows if r[1].startswith(artefact)]
        self.assertEqual(len(found), 1, artefact)
        return found[0]


class PageFromTooFewUnits(unittest.TestCase):
    """A sweep over fewer units than the bootstrap needs has no p-values (the quick reproduction's case):
    the page says so and prints — in every significance column instead of failing on the empty cells."""

    def test_no_pvalues_print_dashes(self):
        out = tempfile.NamedTemporaryFile(suffix=".md", delete=False)
        out.close()
        Report(os.path.join(HERE, "fixtures", "results-few-units"), out.name,
               samples=os.path.join(HERE, "no-samples"), mode="quick", seconds=1).write()
        with open(out.name, encoding="utf-8") as f:
            page = f.read()
        os.unlink(out.name)
        _, rows = tables_after(page, "### Table 1: each head switched off alone")
        self.assertEqual(len(rows), 3)
        for printed in rows:
            self.assertEqual(printed[5:9], ["—", "—", "—", "—"])
        self.assertIn("fewer than the 20 independent units the bootstrap needs", page)


if __name__ == "__main__":
    unittest.main()
