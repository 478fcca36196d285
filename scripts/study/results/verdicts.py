"""The papers side by side: one row per artefact the papers list (../shared/papers/README.md) — the paper's
number, ours with its interval, and a verdict with its reason. Sections add their rows as they read their
results; summary() writes the table the page opens with, and artefacts() adds the rows no step measures.

A verdict is one of four words, decided by effect() where both sides have a tested difference:
  reproduced      ours shows the paper's effect in the same direction, significantly (or, where the paper
                  finds no significant effect, neither do we);
  not reproduced  ours does not show it (no significant difference, or one the paper does not find);
  refuted         ours is significant in the opposite direction;
  not comparable  the two measure different things (another model, task or protocol), or ours is not run.
"""
import math

from .cells import table

PAPERS = ("Bird-Eye", "Michel", "LAMA")

VERDICTS = ("reproduced", "not reproduced", "refuted", "not comparable")


def add(report, paper, artefact, theirs, ours, verdict, why):
    if verdict not in VERDICTS:
        raise ValueError(f"verdict '{verdict}' is not one of {VERDICTS}")
    report.verdicts.append((paper, artefact, theirs, ours, verdict, why))


def effect(paper_sign, paper_significant, ours_sign, ours_significant):
    """The verdict on one difference: each side's sign (−1, 0, +1) and whether its test called it
    significant. A paper effect without a test (paper_significant None) counts as claimed."""
    claimed = paper_significant is None or paper_significant
    if not claimed:
        return "reproduced" if not ours_significant else "not reproduced"
    if ours_significant and ours_sign == paper_sign:
        return "reproduced"
    if ours_significant and ours_sign == -paper_sign:
        return "refuted"
    return "not reproduced"


def relative(value, reference):
    """A change in percent of the reference, '+2.9 %'; '—' without a reference."""
    try:
        change = (float(value) / float(reference) - 1) * 100
    except (TypeError, ValueError, ZeroDivisionError):
        return "—"
    digits = 2 if abs(change) < 0.1 else 1
    return f"{change:+.{digits}f} %".replace("-", "−")


def harmonic(n):
    """H_n for a real n (the asymptotic series; n here is tens of tokens, where it is exact to 1e-9)."""
    return math.log(n) + 0.5772156649 + 1 / (2 * n) - 1 / (12 * n * n)


def uniform_ratio(n):
    """CA / HA(μ) of uniform causal attention over windows of n tokens: each row i spreads 1/(i+1) over
    its keys, so CA = H_n / n and HA(μ) = 2 (1 − CA) / (n − 1) (the n(n−1)/2 history weights share the
    rest)."""
    ca = harmonic(n) / n
    return ca / (2 * (1 - ca) / (n - 1))


def implied_window(ca, ha):
    """The window length n a Table 1 row implies: causal rows sum to 1, so HA(μ) = 2 (1 − CA) / (n − 1)."""
    return 1 + 2 * (1 - ca) / ha


def summary(report):
    """The table the page opens with: every row the sections added, in the order of the page."""
    if not report.verdicts:
        return []
    counts = {v: sum(1 for r in report.verdicts if r[4] == v) for v in VERDICTS}
    parts = ["## The papers side by side\n",
             "One row per artefact the three papers report (`../shared/papers/README.md` lists them): the "
             "paper's number, ours (with its 95 % interval where the step gives one), and a verdict — "
             "**reproduced** (the same effect, significantly, or no effect where the paper finds none), **not "
             "reproduced** (ours does not show it), **refuted** (ours is significant the other way) or **not "
             "comparable** (a different model, task or protocol, or not run) — with the reason. The sections "
             "below give every number in full. Relative effects are differences divided by the reference "
             "model's value.\n",
             table(["paper", "artefact", "the paper", "ours", "verdict", "why"],
                   [[p, a, t, o, f"**{v}**", w] for p, a, t, o, v, w in
                    sorted(report.verdicts, key=lambda r: PAPERS.index(r[0]))]),
             "Verdicts: " + ", ".join(f"{n} {v}" for v, n in counts.items() if n) + ".\n"]
    return parts


def ensure(report, paper, artefact, theirs, why):
    """A 'not run' row for an artefact no section gave a row for (its step did not run or had no input)."""
    if not any(r[0] == paper and r[1].startswith(artefact) for r in report.verdicts):
        add(report, paper, artefact, theirs, "not run", "not comparable", why)


def artefacts(report):
    """Rows for what the papers report and no step here measures, with the reason."""
    ensure(report, "Michel", "Figure 2", "r > 0.5 (p < 0.01)", "the second domain's ablation did not run")
    ensure(report, "Michel", "Figure 4", "Enc-Dec collapses past 60 % pruned", "needs the translation models")
    ensure(report, "Michel", "§6", "up to 40 % prunable from epoch 10",
           "no run with every epoch kept is recorded yet (series_* in train-models.sh's queue)")
    ensure(report, "Michel", "Table 4", "+1.9 % (batch 1) to +17.5 % (batch 64)", "the timing step did not run")
    add(report, "Bird-Eye", "Table 2: De-En, En-De BLEU; WikiText-103, enwik8; five external baselines",
        "e.g. De-En 35.26 → 35.85 (BET(SF))", "not run", "not comparable",
        "the data are not in ../shared/data; the translation pair here is Tatoeba en–fr (section below)")
    add(report, "Michel", "Table 3: BERT on MNLI, one head kept per layer",
        "none of 12 layers significant (Δ −0.96 to +0.10 %)", "not run", "not comparable",
        "no BERT fine-tuned on MNLI and no MNLI data here")
    ensure(report, "Michel", "Tables 5–6", "no significant change in half of WMT's layers and all of BERT's",
           "the held-out ablation (`ablate --choose-on`) did not run")
    add(report, "Michel", "Figure 6: pruning on GLUE tasks", "up to 50–60 % prunable", "not run",
        "not comparable", "no GLUE data here")
    add(report, "LAMA", "Table 6: top keywords (Yelp, Reuters)", "word lists", "Amazon lists (section below)",
        "not comparable", "other data; the paper's lists are not in the text we have")
    ensure(report, "LAMA", "Figure 5: accuracy against the number of heads m", "m = 1 worst, m = 15 best (Yelp-L, IMDB)",
           "fewer than two seeds of m = 1 and m = 20 are recorded (sst5_lama_paper_m* in train-models.sh's queue)")
