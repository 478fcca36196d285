"""LAMA §5.5 (Figure 5): test accuracy against the number of heads m on SST-5, by the paper's §3.5 recipe,
3 seeds an m when all are recorded (`compare`, Welch's t-test of each m against m = 1, Holm-adjusted), with its verdict.
"""
from . import verdicts
from .cells import num, pvalue, signed, span, table
from .comparisons import against
from .inputs import read_csv
from .papers import LAMA_FIGURE5


def head_count(report):
    _, summary = read_csv(report.path("lama_heads_summary.csv"))
    if not summary:
        return
    _, tests = read_csv(report.path("lama_heads_tests.csv"))
    report.add("### LAMA §5.5 (Figure 5): how many heads\n")
    report.add("LAMA+ctx by the paper's §3.5 recipe on SST-5 with m = 1, 5, 10, 15 and 20 heads (m = 10 is "
               "`sst5_lama_paper`), everything else equal: test accuracy of each seed's best validation epoch, "
               "mean ± sd over seeds, and Welch's t-test of each m against m = 1, Holm-adjusted over the four.\n")
    differences = {other: (d, low, high, p, holm) for other, d, (low, high), p, holm, _ in against(tests, "m1")}
    rows = []
    for r in summary:
        d = differences.get(r["variant"])
        rows.append([r["variant"][1:], r["runs"], f"{num(r['mean'], 3)} ± {num(r['sd'], 3)}",
                     "—" if d is None else f"{signed(-d[0], 3)} {span(-d[2], -d[1], 3)}",
                     "—" if d is None else pvalue(d[4])])
    report.add(table(["m", "runs", "test accuracy, mean ± sd", "m − (m = 1), 95 % interval (Welch)", "Holm p"], rows))
    best = max(summary, key=lambda r: float(r["mean"]))["variant"]
    report.add(f"**What we see.** The highest mean is at m = {best[1:]}. **The paper** (§5.5, validation accuracy "
               f"per epoch on Yelp-L and IMDB): {LAMA_FIGURE5}.\n")
    if "m20" not in differences:
        return
    d, low, high, _, holm = differences["m20"]
    runs = {r["variant"]: r["runs"] for r in summary}
    seeds = f"{runs['m1']} and {runs['m20']} seeds"
    verdict = verdicts.rule(+1, 1 if -d > 0 else -1, holm < 0.05)
    verdicts.add(report, "LAMA", "Figure 5: accuracy against the number of heads m", "m = 1 worst, m = 15 best "
                 "(Yelp-L, IMDB)", f"m = 20 − m = 1: {signed(-d, 3)} {span(-high, -low, 3)}, Holm p {pvalue(holm)}; "
                 f"best mean at m = {best[1:]} (SST-5, {seeds} of m = 1 and m = 20)", verdict,
                 {"reproduced": "m = 20 significantly above m = 1", "not reproduced": "m = 20 significantly below m = 1",
                  "inconclusive": f"no significant difference between m = 1 and m = 20 with {seeds}"}[verdict] +
                 "; SST-5's test split, not Yelp-L/IMDB's validation curves",
                 detectable_effect=verdicts.detectable(-high, -low, digits=3, unit="accuracy")
                 if verdict in verdicts.NEEDS_DETECTABLE else None)
