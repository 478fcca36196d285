"""tests/study/test_table2_runs.py — which runs Table 2 compared: once reproduce.sh switched to the converged
runs (table2_runs.json, prefix wiki6_), the report reads their records and names them, in the table's text,
each verdict's reason and Figure 3's trained rates; without the file it reads the 2-epoch 4-layer runs."""
import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "scripts", "study"))
from results import bird_eye_seeds, diagonal_rates  # noqa: E402
from results.report import Report  # noqa: E402

VARIANTS = {"vanilla": [55.0, 55.2], "bet_sf": [53.0, 53.1], "reduced_diag": [54.6, 54.8],
            "magnified_diag": [57.0, 57.3]}


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def fixture(folder, prefix):
    """Records of four variants under `prefix` (two seeds each) and compare's CSVs under the paper's names."""
    results, records = os.path.join(folder, "results"), os.path.join(folder, "runs")
    for variant, values in VARIANTS.items():
        for seed, value in enumerate(values, 1):
            record = {"perplexity": value, "training": {"device": "cuda:0"}}
            write(os.path.join(records, prefix + variant, f"seed-{seed}.json"), json.dumps(record))
    write(os.path.join(results, "table2_summary.csv"), "# metric=perplexity\nvariant,runs,mean,sd\n" + "".join(
        f"{v},2,{sum(x) / 2},0.1\n" for v, x in VARIANTS.items()))
    write(os.path.join(results, "table2_tests.csv"),
          "# metric=perplexity, test=welch, correction=holm, reference=vanilla\n"
          "first,second,difference,ci_low,ci_high,t,df,p_value,p_holm\n"
          "vanilla,bet_sf,2.05,1.5,2.6,20,2,0.002,0.006\n"
          "vanilla,reduced_diag,0.4,-0.2,1.0,2,2,0.2,0.4\n"
          "vanilla,magnified_diag,-2.05,-2.6,-1.5,-20,2,0.002,0.006\n")
    if prefix:
        write(os.path.join(results, "table2_runs.json"), json.dumps({"prefix": prefix}))
    return Report(results, os.path.join(folder, "results.md"), "sample_data", "full", 1, records)


def page(report):
    bird_eye_seeds.table2(report)
    diagonal_rates.trained(report, bird_eye_seeds.table2_prefix(report))
    return "\n".join(report.parts)


class Table2Runs(unittest.TestCase):
    def test_converged_runs_are_read_and_named(self):
        with tempfile.TemporaryDirectory() as folder:
            report = fixture(folder, "wiki6_")
            text = page(report)
            self.assertIn("The runs are the 6-layer models trained to early stopping (`wiki6_*` in the records)", text)
            self.assertIn("| bet_sf | 2 | 53.05 ± 0.10 | cuda ×2 |", text)  # devices from wiki6_bet_sf's records
            self.assertNotIn("not compared", text)  # the recorded wiki6_* runs are the compared ones
            self.assertIn("`wiki6_reduced_diag`", text)                        # Figure 3's trained rates
            reasons = [row[5] for row in report.verdicts]
            self.assertTrue(reasons and all("6-layer models trained to early stopping" in r for r in reasons),
                            reasons)

    def test_without_the_switch_the_four_layer_runs_are_read(self):
        with tempfile.TemporaryDirectory() as folder:
            report = fixture(folder, "")
            text = page(report)
            self.assertIn("The runs are the 2-epoch 4-layer models.", text)
            self.assertNotIn("wiki6_", text)
            self.assertNotIn("not compared", text)
            self.assertTrue(all("2-epoch 4-layer models" in row[5] for row in report.verdicts))


if __name__ == "__main__":
    unittest.main()
