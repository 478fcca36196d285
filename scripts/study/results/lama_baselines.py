"""LAMA against its baselines over seeds (Welch's t-test, Holm-adjusted) on Amazon Fine Food and SST-5: our
recipe (`lama`: Adam, the ‖AAᵀ − I‖² penalisation) and the paper's §3.5 recipe (`lama_paper`: SGD with
momentum and weight decay, early stopping, no regulariser), each with its verdict against the paper's §5.
"""
from . import verdicts
from .cells import num, pvalue, signed, span, table
from .comparisons import against
from .inputs import read_csv
from .papers import LAMA_OVER_BIGRU

TITLES = {"amazon": "Amazon Fine Food (seeded 80/10/10 split)", "sst5": "SST-5 (its own split)"}
RECIPES = {"lama": ("our recipe (Adam at 2e-3, 6 epochs, E = 128, h = 64, the penalisation with λ = 1)",
                    "ours is LAMA+ctx with the penalisation (the paper's LAMA+ctx+dp), trained with Adam"),
           "lama_paper": ("the paper's §3.5 recipe (SGD at 0.05, momentum 0.9, weight decay 1e-4, patience 5, "
                          "E = 100, h = 50, words seen under 5 times dropped, no regulariser)",
                          "trained as §3.5 says; embeddings learnt here, not word2vec")}


def one_comparison(report, name, reference, summary, tests):
    title = TITLES[name]
    recipe, caveat = RECIPES[reference]
    report.add(f"{title}, `{reference}` = LAMA+ctx by {recipe}: test accuracy over seeds (`compare`), mean ± sd, "
               f"and Welch's t-test against `{reference}`, Holm-adjusted over the other models.\n")
    report.add(table(["model", "runs", "test accuracy, mean ± sd"],
                     [[r["variant"], r["runs"], f"{num(r['mean'], 3)} ± {num(r['sd'], 3)}"] for r in summary]))
    rows, sentences = [], []
    for other, difference, (low, high), p, holm, _ in against(tests, reference):
        rows.append([other, num(difference, 3), span(low, high, 3), pvalue(p), pvalue(holm), "yes" if holm < 0.05 else "no"])
        sentences.append(f"`{reference}` is {'above' if difference > 0 else 'below'} `{other}` by {num(abs(difference), 3)}"
                         + (f" (Holm p = {pvalue(holm)})" if holm < 0.05 else
                            f", not significantly (p = {pvalue(p)}, Holm p = {pvalue(holm)})"))
    if not rows:
        return
    report.add(table(["other model", f"{reference} − other (accuracy)", "95 % interval (Welch, unadjusted)", "p",
                      "Holm p", "significant at 0.05 (Holm)"], rows))
    runs = min(int(r["runs"]) for r in summary)
    report.add("**What we see.** " + "; ".join(sentences) + f". With {runs} seeds a model, a difference that is not "
               "significant is no evidence that the models are equal. **The paper** (§5) gives LAMA+ctx's gain over "
               "the max-pooled BiGRU as " + ", ".join(f"{v} % ({k})" for k, v in LAMA_OVER_BIGRU.items()) +
               ", and LAMA above the one-layer Transformer encoder on every dataset.\n")
    means = {r["variant"]: float(r["mean"]) for r in summary}
    runs_of = {r["variant"]: r["runs"] for r in summary}
    for other, difference, (low, high), p, holm, _ in against(tests, reference):
        if other not in ("bigru_max", "encoder"):
            continue
        baseline = {"bigru_max": "the max-pooled BiGRU", "encoder": "a 1-layer Transformer encoder"}[other]
        theirs = (f"+{min(LAMA_OVER_BIGRU.values())} to +{max(LAMA_OVER_BIGRU.values())} % (five datasets)"
                  if other == "bigru_max" else "LAMA above it on every dataset")
        # The paper's gains over the BiGRU are relative (+2.0 to +12.2 %): set on our scale, the claim is not
        # excluded while our relative interval reaches the smallest of them. Against the encoder it prints no size.
        relative_low, relative_high = low / means[other] * 100, high / means[other] * 100
        # Its text does not say whether the gains are relative or accuracy points: judged both ways, and left
        # open (None) where the two readings disagree.
        gains = min(LAMA_OVER_BIGRU.values()), max(LAMA_OVER_BIGRU.values())
        readings = {relative_high >= gains[0] and relative_low <= gains[1],
                    high * 100 >= gains[0] and low * 100 <= gains[1]}
        size_inside = (readings.pop() if len(readings) == 1 else None) if other == "bigru_max" else None
        verdict = verdicts.rule(+1, 1 if difference > 0 else -1, holm < 0.05, size_inside)
        verdicts.add(report, "LAMA", f"§5 / Table 4: LAMA ({'§3.5 recipe' if reference == 'lama_paper' else 'our recipe'}) "
                     f"against {baseline} ({title.split(' (')[0]})", theirs,
                     f"{signed(difference, 3)} ({verdicts.relative(means[reference], means[other])}), "
                     f"{span(low, high, 3)}, Holm p {pvalue(holm)}", verdict,
                     {"reproduced": "significant (Holm)", "inconclusive": f"not significant with {runs_of[reference]} "
                      f"and {runs_of[other]} seeds", "not reproduced": "significantly below" if holm < 0.05 else
                      f"the paper's smallest gain (+{min(LAMA_OVER_BIGRU.values())} %, relative or in points) lies above our "
                      f"interval [{num(relative_low, 1)} %, {num(relative_high, 1)} %]"}[verdict] +
                     f"; other datasets; {caveat}",
                     detectable_effect=verdicts.detectable(low, high, digits=3, unit="accuracy", reference=means[other])
                     if verdict in verdicts.NEEDS_DETECTABLE else None,
                     claim="LAMA: above its baselines (§5 / Table 4; every row shares the baselines' seeds)")


def baselines(report):
    found = []
    for name in ["amazon", "sst5"]:
        for reference, prefix in (("lama", f"lama_{name}"), ("lama_paper", f"lama_{name}_paper")):
            summary = read_csv(report.path(f"{prefix}_summary.csv"))[1]
            if summary:
                found.append((name, reference, summary, read_csv(report.path(f"{prefix}_tests.csv"))[1]))
    report.add("### LAMA against its baselines\n")
    if not found:
        report.add("Not yet measured: `scripts/study/train-models.sh queue` trains LAMA+ctx, the max-pooled BiGRU and "
                   "the 1-layer encoder, 3 seeds each, on Amazon Fine Food and SST-5; the next "
                   "`scripts/study/reproduce.sh` compares them here.\n")
        return
    for name, reference, summary, tests in found:
        one_comparison(report, name, reference, summary, tests or [])
    if not any(reference == "lama_paper" for _, reference, _, _ in found):
        report.add("LAMA+ctx as the paper's §3.5 trains it (`amazon_lama_paper`, `sst5_lama_paper`) is queued; the "
                   "next `scripts/study/reproduce.sh` compares it here once its seeds are recorded.\n")
